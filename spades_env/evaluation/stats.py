"""Statistics of an evaluation: intervals for means and win rates, per-side play statistics."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy import stats as sps

from ..core.scoring import SIDE_CONTRACT_KINDS, BidKind, counted_tricks
from ..rewards import charged_points

# Bids of a seat that name a number of tricks (its own, or the side's one contract).
SEAT_BID_KINDS = (BidKind.NUMBER, *SIDE_CONTRACT_KINDS)


def mean_interval(values: Sequence[float], confidence: float = 0.95) -> dict[str, float]:
    """Mean, standard deviation, standard error and the t interval of the mean."""
    x = np.asarray(values, dtype=np.float64)
    n = len(x)
    if n == 0:
        return {"n": 0, "mean": math.nan, "sd": math.nan, "se": math.nan, "low": math.nan, "high": math.nan}
    mean = float(x.mean())
    if n == 1:
        return {"n": 1, "mean": mean, "sd": math.nan, "se": math.nan, "low": math.nan, "high": math.nan}
    sd = float(x.std(ddof=1))
    se = sd / math.sqrt(n)
    half = float(sps.t.ppf(0.5 + confidence / 2, n - 1)) * se
    return {"n": n, "mean": mean, "sd": sd, "se": se, "low": mean - half, "high": mean + half}


def undecided_share(num_sides: int) -> float:
    """What an undecided game (truncated, or tied at the end) counts as a win for each side: its fair share,
    ``1 / num_sides``. The one rule of the evaluation's win rates and the league's ratings."""
    return 1.0 / num_sides


def win_interval(wins: float, n: int, confidence: float = 0.95) -> dict[str, float]:
    """Win rate with its Wilson score interval (``wins`` may count a draw as half)."""
    if n == 0:
        return {"n": 0, "wins": 0, "rate": math.nan, "low": math.nan, "high": math.nan}
    p = wins / n
    z = float(sps.norm.ppf(0.5 + confidence / 2))
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return {"n": n, "wins": wins, "rate": p, "low": max(0.0, centre - half), "high": min(1.0, centre + half)}


@dataclass
class SideTally:
    """Counts over the hands an agent's side played (partnership or one cutthroat player)."""

    hands: int = 0
    contracts: int = 0  # side-hands with a contract of 1+ trick
    sets: int = 0
    exact: int = 0  # contracts made with no overtrick
    nil_bids: int = 0
    nil_made: int = 0
    blind_nil_bids: int = 0
    blind_nil_made: int = 0
    new_bags: int = 0
    bid_sum: int = 0  # tricks bid by the side (its contract)
    seat_bids: int = 0  # number bids made by the agent's seats
    seat_bid_sum: int = 0
    points: int = 0
    bag_penalties: int = 0  # times the side paid the bag penalty

    def add(self, other: SideTally) -> None:
        """Accumulate another tally."""
        for name in self.__dataclass_fields__:
            setattr(self, name, getattr(self, name) + getattr(other, name))

    def summary(self, rules: Any = None) -> dict[str, Any]:
        """Rates and means, with the counts they come from; with ``rules``, also the points per hand with the bag
        cost counted once (:func:`spades_env.rewards.charged_points`)."""

        def rate(k: float, n: int) -> float | None:
            return k / n if n else None

        charged = (
            {}
            if rules is None
            else {
                "bag_adjusted_points_per_hand": rate(
                    charged_points(rules, self.points, self.new_bags, self.bag_penalties), self.hands
                )
            }
        )
        return {
            "hands": self.hands,
            "points_per_hand": rate(self.points, self.hands),
            **charged,
            "set_rate": rate(self.sets, self.contracts),
            "exact_bid_rate": rate(self.exact, self.contracts),
            "bags_per_hand": rate(self.new_bags, self.hands),
            "mean_contract": rate(self.bid_sum, self.contracts),
            "mean_bid": rate(self.seat_bid_sum, self.seat_bids),
            "nil_bids": self.nil_bids,
            "nil_success": rate(self.nil_made, self.nil_bids),
            "blind_nil_bids": self.blind_nil_bids,
            "blind_nil_success": rate(self.blind_nil_made, self.blind_nil_bids),
            "contracts": self.contracts,
            "sets": self.sets,
            "bag_penalties": self.bag_penalties,
        }

    def to_dict(self) -> dict[str, int]:
        """The raw counts."""
        return {name: getattr(self, name) for name in self.__dataclass_fields__}

    @classmethod
    def from_dict(cls, data: dict[str, int]) -> SideTally:
        """Inverse of :meth:`to_dict` (counts missing from older results are 0)."""
        return cls(**data)


def tally_hand(rules, result, side: int) -> SideTally:
    """A :class:`SideTally` of one side in one finished hand (``result``: core ``HandResult``)."""
    t = SideTally(hands=1)
    s = result.score.sides[side]
    seats = [seat for seat in range(rules.num_players) if rules.side_of(seat) == side]
    t.points = s.points
    t.new_bags = s.new_bags
    t.bag_penalties = s.bag_penalties
    for seat in seats:
        bid = result.bids[seat]
        made = result.score.nil_made[seat]
        if bid.kind == BidKind.NIL:
            t.nil_bids += 1
            t.nil_made += int(bool(made))
        elif bid.kind == BidKind.BLIND_NIL:
            t.blind_nil_bids += 1
            t.blind_nil_made += int(bool(made))
        elif bid.kind in SEAT_BID_KINDS:
            t.seat_bids += 1
            t.seat_bid_sum += bid.value
    if s.contract > 0:
        counted = counted_tricks(rules, [bid.kind for bid in result.bids], result.tricks, seats)
        t.contracts = 1
        t.sets = int(not s.made)
        t.bid_sum = s.contract
        t.exact = int(counted == s.contract)
    return t
