"""The ``info`` of a batch step: a read-only mapping of arrays with one row per table."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

import numpy as np

from ..core.cards import cards_of
from ..core.scoring import Bid, BidKind


def info_widths(n: int, S: int) -> dict[str, tuple[int | None, Any]]:
    """Width (None: one value per table) and dtype of every info key, for n seats and S sides."""
    widths: dict[str, tuple[int | None, Any]] = {
        key: (None, np.intp)
        for key in ("hand_index", "hand_dealer", "hand_rules_id", "winner", "episode_hands", "episode_dealer")
    }
    widths.update(
        {
            key: (S, np.int64)
            for key in ("points", "scores", "bags", "contracts", "bag_penalties", "final_scores", "final_bags")
        }
    )
    widths.update({key: (n, np.intp) for key in ("tricks", "bid_kinds", "bid_values", "nil_made")})
    widths.update({key: (None, bool) for key in ("hand_over", "done", "terminated", "truncated")})
    widths["made"] = (S, bool)
    return widths


def deals_of(boards: np.ndarray, n: int) -> list[list[list[int]]]:
    """Deals (card ids per seat) from logged hand boards."""
    return [[cards_of(int(b)) for b in hand[:n]] for hand in boards]


def stocks_of(rows: np.ndarray) -> list[list[int]]:
    """Stocks (card ids, top first) from logged stock rows (two players)."""
    return [row.tolist() for row in rows]


class LazyDeals(Mapping):
    """Mapping table -> list of deals (with two players, stocks) of a finished episode, converted on access."""

    def __init__(
        self, tables: np.ndarray, boards: np.ndarray, counts: np.ndarray, num_players: int, stocks: bool = False
    ):
        self._rows = {int(t): i for i, t in enumerate(tables)}
        self._boards = boards
        self._counts = counts
        self._n = num_players
        self._stocks = stocks

    def __getitem__(self, table: int) -> list:
        i = self._rows[int(table)]
        rows = self._boards[i, : self._counts[i]]
        return stocks_of(rows) if self._stocks else deals_of(rows, self._n)

    def __iter__(self) -> Iterator[int]:
        return iter(self._rows)

    def __len__(self) -> int:
        return len(self._rows)


class StepInfo(Mapping):
    """The ``info`` of a step: a read-only mapping whose arrays are built on first access.

    Rows of the tables a key does not concern hold 0, or -1 for ``hand_index``, ``hand_dealer``,
    ``winner``, ``episode_dealer`` and ``nil_made``.
    """

    _NEGATIVE = ("hand_index", "hand_dealer", "winner", "episode_dealer", "nil_made")

    def __init__(
        self,
        num_envs: int,
        widths: dict[str, tuple[int | None, Any]],
        names: list[str],
        hands: np.ndarray | None = None,
        hand_data: dict[str, np.ndarray] | None = None,
        episodes: np.ndarray | None = None,
        episode_data: dict[str, np.ndarray] | None = None,
        deals: Mapping | None = None,
    ):
        self._n = num_envs
        self._widths = widths
        self._rows = {}
        if hands is not None:
            self._rows.update({key: (hands, value) for key, value in hand_data.items()})
        if episodes is not None:
            self._rows.update({key: (episodes, value) for key, value in episode_data.items()})
        self._cache: dict[str, Any] = {"hand_rules": names, "episode_deals": deals if deals is not None else {}}

    def __getitem__(self, key: str) -> Any:
        value = self._cache.get(key)
        if value is None:
            width, dtype = self._widths[key]  # KeyError for unknown keys
            shape = (self._n,) if width is None else (self._n, width)
            value = np.full(shape, -1 if key in self._NEGATIVE else 0, dtype)
            if key in self._rows:
                rows, data = self._rows[key]
                value[rows] = data
            value.setflags(write=False)
            self._cache[key] = value
        return value

    def __iter__(self) -> Iterator[str]:
        return iter(list(self._widths) + ["hand_rules", "episode_deals"])

    def __len__(self) -> int:
        return len(self._widths) + 2


def hand_result(info: Mapping[str, Any], table: int) -> dict[str, Any]:
    """The AEC env's ``hand_result`` info of a table whose hand ended at this step."""
    if not info["hand_over"][table]:
        raise ValueError(f"no hand ended at table {table} in this step")
    n = info["tricks"].shape[1]
    return {
        "hand_index": int(info["hand_index"][table]),
        "rules": info["hand_rules"][int(info["hand_rules_id"][table])],
        "dealer": int(info["hand_dealer"][table]),
        "points": [int(x) for x in info["points"][table]],
        "scores": [int(x) for x in info["scores"][table]],
        "bags": [int(x) for x in info["bags"][table]],
        "bids": [
            str(Bid(BidKind(int(info["bid_kinds"][table, s])), int(info["bid_values"][table, s]))) for s in range(n)
        ],
        "tricks": [int(x) for x in info["tricks"][table]],
        "contracts": [int(x) for x in info["contracts"][table]],
        "made": [bool(x) for x in info["made"][table]],
        "bag_penalties": [int(x) for x in info["bag_penalties"][table]],
        "nil_made": [None if x < 0 else bool(x) for x in info["nil_made"][table]],
    }
