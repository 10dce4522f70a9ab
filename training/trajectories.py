"""Turn-based trajectory bookkeeping for self-play PPO over many tables: one store for both training backends,
on numpy arrays or torch tensors on any device.

Seats act in turn, so each (table, seat) pair is its own trajectory: a decision's successor is the same seat's
next decision at that table in the same hand. Rewards arrive at hand ends (:meth:`TrajectoryStore.end_hands`)
and each hand is one episode for credit assignment (``done`` at the hand end): a decision is *complete* once
its hand has ended, and only complete decisions are trained on. Decisions of hands still in progress when a
rollout stops are carried into the next rollout (their log-probabilities are one update old; PPO's ratio
accounts for it).

The store keeps decisions in the order they were taken, a chunk per table step. The numpy rollout records the
rows of the learner's seats only (it knows how many on the host); the torch rollout records every table's row
with ``valid`` marking the learner's (the device is never asked how many). Each (table, seat)'s latest decision
is ``last`` and each table's hands ended so far ``hands``: a decision is complete once its table has ended more
hands than when the decision was taken. Links are found when decisions are taken: each complete decision's
successor among the complete ones, by a stable sort on (hand, table, seat); the host is asked the batch's size
once per rollout. :meth:`TrajectoryStore.take_complete_decisions` gives the complete decisions with their
rewards and links, and :func:`with_advantages` their values, GAE and returns: the numpy rollout's workers hand
over the first and the main process, where the critic is, does the second; the torch rollout does both on the
device.

With ``sparse`` set (numpy), the networks' inputs (observation and critic input) are kept as their active
features (:class:`spades_env.nn.SparseRows`, built once per table step): the complete decisions then come out
as SparseRows, ready for the sparse first layers. A decision may also carry the card scorer's features
(``hand_cards``, made for the policy's step): the batch keeps them when every decision in it has them, and the
update then reads them instead of making them again. Without a ``critic`` input the observation is the
critic's.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import torch

from spades_env.nn import SparseRows, sparse_rows
from training.ppo import gae_advantages, returns_of

Rows = np.ndarray | SparseRows  # a store's network inputs: dense rows, or their active features
DTYPES = {
    "action": "int64",
    "logp": "float32",
    "value": "float32",
    "prior": "int64",
    "expert": "int64",
    "expert_cards": "int64",
}  # what a decision keeps
NO_PRIOR = -1  # a decision without the heuristic prior's action
GROWTH = 1024  # the least a store's reward and done columns grow by


def join_rows(parts: Sequence[Any]) -> Any:
    """Rows of ``parts`` one after another (numpy arrays, SparseRows or tensors)."""
    if isinstance(parts[0], SparseRows):
        return SparseRows.cat(parts)
    return torch.cat(list(parts)) if isinstance(parts[0], torch.Tensor) else np.concatenate(parts)


class TrajectoryStore:
    """Decisions of the recorded seats, in the order taken, with hand-end rewards (see the module docstring):
    numpy arrays with ``device`` None, else torch tensors on that device."""

    def __init__(self, num_envs: int, num_seats: int, sparse: bool = False, device: torch.device | None = None):
        self.num_envs, self.num_seats, self.sparse = num_envs, num_seats, sparse
        self.device = None if device is None else torch.device(device)
        self.hands = self._full((num_envs,), 0)  # each table's hands ended so far
        self.last = self._full((num_envs, num_seats), -1)  # each (table, seat)'s latest decision: its place
        self._chunks: list[dict[str, Any]] = []
        self._reward = self._zeros(0, "float32")  # per place: the hand's reward at a seat's last decision of it
        self._done = self._zeros(0, "float32")  # per place: 1 at a seat's last decision of a hand
        self.size = 0

    # ------------------------------------------------------------------ the store's arrays
    def _zeros(self, n: int, dtype: str) -> Any:
        if self.device is None:
            return np.zeros(n, dtype=dtype)
        return torch.zeros(n, dtype=getattr(torch, dtype), device=self.device)

    def _full(self, shape: tuple[int, ...], value: int) -> Any:
        if self.device is None:
            return np.full(shape, value, dtype=np.int64)
        return torch.full(shape, value, dtype=torch.int64, device=self.device)

    def _arange(self, start: int, stop: int) -> Any:
        if self.device is None:
            return np.arange(start, stop, dtype=np.int64)
        return torch.arange(start, stop, device=self.device)

    def _as(self, values: Any, dtype: str) -> Any:
        if self.device is None:
            return np.asarray(values).astype(dtype, copy=False)
        return torch.as_tensor(values, device=self.device).to(getattr(torch, dtype))

    def _grow(self, k: int) -> None:
        """Room for ``k`` more places in the reward and done columns (doubling: appends stay cheap)."""
        if self.size + k <= len(self._reward):
            return
        room = max(self.size + k, 2 * len(self._reward), GROWTH)
        for name in ("_reward", "_done"):
            column = self._zeros(room, "float32")
            column[: self.size] = getattr(self, name)[: self.size]
            setattr(self, name, column)

    # ------------------------------------------------------------------ recording
    def add(self, tables: Any, seats: Any, valid: Any = None, **fields: Any) -> None:
        """Record one decision per row of ``tables`` by ``seats`` (``valid``: bool per row, the rows that are
        decisions; None: all): the networks' inputs (``obs``, ``mask``, ``critic``), ``action``, ``logp``,
        ``value``, ``prior`` (the heuristic's action, or -1), ``expert`` and ``expert_cards`` (the expert's target and its equivalent cards, or -1), ``teacher`` (the
        teacher's probabilities) and ``hand_cards``
        (kept when every decision has them);
        a field given as None is not kept."""
        k = len(tables)
        if k == 0:
            return
        self._grow(k)
        places = self._arange(self.size, self.size + k)
        self.last[tables, seats] = places if valid is None else _where(valid, places, self.last[tables, seats])
        chunk = {key: value for key, value in fields.items() if value is not None}
        for key, dtype in DTYPES.items():
            if key in chunk:
                chunk[key] = self._as(chunk[key], dtype)
        chunk.setdefault("prior", self._full((k,), NO_PRIOR))
        if self.sparse:
            for key in ("obs", "critic"):
                if key in chunk and not isinstance(chunk[key], SparseRows):
                    chunk[key] = sparse_rows(chunk[key])
        chunk.update(table=self._as(tables, "int64"), seat=self._as(seats, "int64"), hand=self.hands[tables])
        if valid is not None:
            chunk["valid"] = valid
        self._chunks.append(chunk)
        self.size += k

    def end_hands(self, tables: Any, rewards: Any, over: Any = None) -> None:
        """Close the hands of ``tables``: each seat's reward (a row of ``rewards`` per table, the table's seats) to
        its last decision of the hand, which ends its chain. ``over`` (bool per row of ``tables``): only those
        rows' hands ended (the torch rollout passes every table and this mask; None: all)."""
        width = rewards.shape[1]
        last = self.last[tables][:, :width]
        closing = last >= 0
        if self.device is None:  # the host knows which: exact places only
            if over is not None:
                closing &= over[:, None]
            places = last[closing]
            np.add.at(self._reward, places, np.asarray(rewards, dtype=np.float32)[closing])
            self._done[places] = 1.0
            ended = np.ones(len(tables), dtype=np.int64) if over is None else over.astype(np.int64)
        else:  # every row, the others adding nothing: no read of the device
            if over is not None:
                closing = closing & over[:, None]
            places = last.clamp(min=0).flatten()
            self._reward.index_put_((places,), (rewards * closing).flatten().float(), accumulate=True)
            self._done.index_put_((places,), closing.flatten().float(), accumulate=True)
            ended = torch.ones_like(tables) if over is None else over.long()
        self.last[tables] = _where(ended[:, None] > 0, -1, self.last[tables])
        self.hands[tables] = self.hands[tables] + ended

    # ------------------------------------------------------------------ taking
    def take_complete(
        self, gamma: float, gae_lambda: float, value_fn: Callable[[Rows], Any] | None = None
    ) -> dict[str, Rows] | None:
        """Complete decisions with GAE advantages and returns; incomplete ones are kept for later.

        ``value_fn`` (critic inputs -> values) replaces the recorded values of the complete decisions. The
        network inputs come out as SparseRows in a sparse store.
        """
        decisions = self.take_complete_decisions()
        return None if decisions is None else with_advantages(decisions, gamma, gae_lambda, value_fn)

    def take_complete_decisions(self) -> dict[str, Rows] | None:
        """The complete decisions in the order taken, with their rewards and links (``done``; ``next``: the
        successor's row among them, or -1), for :func:`with_advantages`; incomplete ones are kept for later. None
        when none is complete."""
        if self.size == 0:
            return None
        keys = [key for key in self._chunks[0] if all(key in c for c in self._chunks)]  # hand_cards may be missing
        data = {key: join_rows([c[key] for c in self._chunks]) for key in keys}
        valid = data.pop("valid", None)
        complete = data["hand"] < self.hands[data["table"]]
        recorded = complete if valid is None else complete & valid
        kept = ~complete if valid is None else ~complete & valid
        picked, carried = _nonzero(recorded), _nonzero(kept)  # the host learns the batch's size here
        out = {key: arr[picked] for key, arr in data.items()}
        # a complete decision's successor is in its own (finished) hand: complete too
        out["reward"], out["done"] = self._reward[picked], self._done[picked] > 0
        out["next"] = successors(out["hand"], out["table"], out["seat"], self.num_envs, self.num_seats)
        # carry the incomplete decisions over, in order (an open decision's hand is unfinished: it is kept)
        size = len(carried)
        self._chunks = [{key: arr[carried] for key, arr in data.items()}] if size else []
        if size and valid is not None:
            self._chunks[0]["valid"] = valid[carried]  # all set: the later chunks' valid stays read
        reward, done = self._reward[carried], self._done[carried]
        self._reward, self._done, self.size = self._zeros(0, "float32"), self._zeros(0, "float32"), 0
        self._grow(size)
        self._reward[:size], self._done[:size], self.size = reward, done, size
        self.last = _renumbered(self.last, kept)
        return out if len(out["action"]) else None


def _where(condition: Any, a: Any, b: Any) -> Any:
    return torch.where(condition, a, b) if isinstance(condition, torch.Tensor) else np.where(condition, a, b)


def _nonzero(mask: Any) -> Any:
    """The places where ``mask`` is set (a read of the device on torch)."""
    return mask.nonzero()[:, 0] if isinstance(mask, torch.Tensor) else np.flatnonzero(mask)


def successors(hand: Any, table: Any, seat: Any, num_envs: int, num_seats: int) -> Any:
    """Each decision's successor (rows in the order taken): the next row of the same hand, table and seat, or -1."""
    key = (hand * num_envs + table) * num_seats + seat
    if isinstance(key, torch.Tensor):
        order = torch.sort(key, stable=True).indices
    else:
        order = np.argsort(key, kind="stable")
    ordered = key[order]
    nxt = _where(ordered[1:] == ordered[:-1], order[1:], -1)
    out = _where(key < 0, key, key * 0 - 1)  # -1 everywhere, like key
    out[order[:-1]] = nxt
    return out


def _renumbered(links: Any, picked: Any) -> Any:
    """Links (row indices, or -1; any shape) to rows among the ``picked`` ones, as indices among those rows."""
    new_index = picked.cumsum(0) - 1
    return _where(links >= 0, new_index[links.clip(min=0)], -1)


def join_decisions(parts: Sequence[dict[str, Rows] | None], tables: Sequence[int]) -> dict[str, Rows] | None:
    """The complete decisions of several stores (:meth:`TrajectoryStore.take_complete_decisions`, None for none) as
    one: rows one after another, each part's links and tables offset to their place (``tables``: each store's table
    count, so that table numbers run over every store's tables in order). None when no part has any."""
    present = [(part, offset) for part, offset in zip(parts, np.cumsum([0, *tables])) if part is not None]
    if not present:
        return None
    keys = [key for key in present[0][0] if all(key in part for part, _ in present)]  # hand_cards may be missing
    out = {key: join_rows([part[key] for part, _ in present]) for key in keys}
    starts = np.cumsum([0] + [len(part["action"]) for part, _ in present[:-1]])
    out["next"] = np.concatenate(
        [np.where(part["next"] >= 0, part["next"] + start, -1) for (part, _), start in zip(present, starts)]
    )
    out["table"] = np.concatenate([part["table"] + offset for part, offset in present])
    return out


LINK_KEYS = ("done", "next")  # what take_complete_decisions adds for with_advantages, dropped by it


def with_advantages(
    decisions: dict[str, Rows], gamma: float, gae_lambda: float, value_fn: Callable[[Rows], Any] | None = None
) -> dict[str, Rows]:
    """The complete ``decisions`` (:meth:`TrajectoryStore.take_complete_decisions`) as a batch, on their arrays'
    device: values from ``value_fn`` (critic inputs, the observations where none were kept -> values; else the
    recorded ones), GAE advantages and returns."""
    batch = {key: arr for key, arr in decisions.items() if key not in LINK_KEYS}
    batch.setdefault("critic", batch["obs"])
    if value_fn is not None:
        values = value_fn(batch["critic"])
        batch["value"] = values if isinstance(values, torch.Tensor) else np.asarray(values, dtype=np.float32)
    every = slice(None)
    adv = gae_advantages(
        batch["reward"], batch["value"], decisions["done"], decisions["next"], every, gamma, gae_lambda
    )
    batch["advantage"], batch["return"] = adv, returns_of(adv, batch["value"])
    return batch
