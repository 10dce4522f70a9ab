"""Turn-based trajectory bookkeeping for self-play PPO over many tables.

Seats act in turn, so each (table, seat) pair is its own trajectory: a
decision's successor is the same seat's next decision at that table. Rewards
arrive at hand ends (``hand_points``) and each hand is one episode for credit
assignment (``done`` at the hand end): a decision is *complete* once its hand
has ended, and only complete decisions are trained on. Decisions of hands
still in progress when a rollout stops are carried into the next rollout
(their log-probabilities are one update old; PPO's ratio accounts for it).
The critic's values can be left to :meth:`TrajectoryStore.take_complete`
(``value_fn``): one batched pass over the complete decisions instead of a
small one at every table step. That is :meth:`TrajectoryStore.take_complete_decisions`
(the complete decisions with their rewards and links) followed by
:func:`with_advantages` (values, GAE, returns), which the rollout worker's
batches get in the main process, where the critic is. With ``sparse`` set, the store keeps the
networks' inputs (observation and critic input) as their active features
(:class:`spades_env.nn.SparseRows`, built once per table step) instead of
dense rows: the complete decisions then come out as SparseRows, ready for
the sparse first layers, without copying or scanning dense rows again.
A decision may also carry the card scorer's features (``hand_cards``, made
for the policy's step): the batch keeps them when every decision in it has
them, and the update then reads them instead of making them again.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from spades_env.nn import SparseRows, sparse_rows
from training.ppo import gae_advantages, returns_of

Rows = np.ndarray | SparseRows  # a store's network inputs: dense rows, or their active features


def join_rows(parts: Sequence[Rows]) -> Rows:
    """Rows of ``parts`` one after another (dense arrays or SparseRows)."""
    return SparseRows.cat(parts) if isinstance(parts[0], SparseRows) else np.concatenate(parts)


class TrajectoryStore:
    """Decisions of the recorded seats, linked per (table, seat), with hand-end rewards."""

    def __init__(
        self, num_envs: int, num_players: int, obs_size: int, num_actions: int, critic_size: int, sparse: bool = False
    ):
        self.num_envs = num_envs
        self.sparse = sparse
        self.num_players = num_players
        self.shapes = {"obs": (obs_size,), "mask": (num_actions,), "critic": (critic_size,)}
        self.last = np.full((num_envs, num_players), -1, dtype=np.int64)  # open decision per (table, seat)
        self.hand_uid = np.arange(num_envs, dtype=np.int64)  # id of each table's current hand
        self.next_uid = num_envs
        self.hand_finished: list[bool] = [False] * num_envs
        self._chunks: list[dict[str, np.ndarray]] = []
        self._carried: dict[str, np.ndarray] | None = None
        self.size = 0
        self._reward: list[float] = []
        self._done: list[bool] = []
        self._next: list[int] = []

    def add(
        self,
        rows: np.ndarray,
        seats: np.ndarray,
        obs: Rows,
        mask: np.ndarray,
        critic: Rows,
        actions: np.ndarray,
        logp: np.ndarray,
        values: np.ndarray,
        prior: np.ndarray | None = None,
        hand_cards: SparseRows | None = None,
    ) -> None:
        """Record one decision per row (table) for the given acting seats (``prior``: heuristic action or -1;
        ``hand_cards``: the card scorer's features of the rows, kept as ``hand_cards`` when every decision has them)."""
        k = len(rows)
        if k == 0:
            return
        ids = np.arange(self.size, self.size + k)
        prev = self.last[rows, seats]
        self._reward.extend([0.0] * k)
        self._done.extend([False] * k)
        self._next.extend([-1] * k)
        for p, i in zip(prev.tolist(), ids.tolist()):
            if p >= 0:
                self._next[p] = i
        self.last[rows, seats] = ids
        if self.sparse:
            obs, critic = (x if isinstance(x, SparseRows) else sparse_rows(x) for x in (obs, critic))
        self._chunks.append(
            {
                "obs": obs,
                "mask": mask,
                "critic": critic,
                "action": actions.astype(np.int64),
                "logp": logp.astype(np.float32),
                "value": values.astype(np.float32),
                "uid": self.hand_uid[rows],
                "table": rows.astype(np.int64),
                "seat": seats.astype(np.int64),
                "prior": np.full(k, -1, dtype=np.int64) if prior is None else np.asarray(prior, dtype=np.int64),
                **({} if hand_cards is None else {"hand_cards": hand_cards}),
            }
        )
        self.size += k

    def end_hands(self, tables: np.ndarray, rewards: np.ndarray) -> None:
        """Close the hands of ``tables``: add each seat's reward (rows of ``rewards``) to its last decision."""
        for t, row in zip(tables.tolist(), rewards):
            for seat, reward in enumerate(row.tolist()):  # the table's seats (the store may have more)
                d = int(self.last[t, seat])
                if d >= 0:
                    self._reward[d] += reward
                    self._done[d] = True
            self.last[t] = -1
            self.hand_finished[int(self.hand_uid[t])] = True
            self.hand_uid[t] = self.next_uid
            self.next_uid += 1
            self.hand_finished.append(False)

    def reset_tables(self, tables: np.ndarray) -> None:
        """Forget open decisions of tables whose game was reset without a scored hand end."""
        for t in tables.tolist():
            self.last[t] = -1
            self.hand_uid[t] = self.next_uid
            self.next_uid += 1
            self.hand_finished.append(False)

    def take_complete(
        self, gamma: float, gae_lambda: float, value_fn: Callable[[Rows], np.ndarray] | None = None
    ) -> dict[str, Rows] | None:
        """Complete decisions with GAE advantages and returns; incomplete ones are kept for later.

        ``value_fn`` (critic inputs -> values) replaces the recorded values of the complete decisions. The
        network inputs come out as SparseRows in a sparse store.
        """
        decisions = self.take_complete_decisions()
        return None if decisions is None else with_advantages(decisions, gamma, gae_lambda, value_fn)

    def take_complete_decisions(self) -> dict[str, Rows] | None:
        """The complete decisions with their rewards and links (``done``; ``next``: the successor's row among them, or
        -1), for :func:`with_advantages`; incomplete ones are kept for later. None when none is complete."""
        if self.size == 0:
            return None
        keys = [key for key in self._chunks[0] if all(key in c for c in self._chunks)]  # hand_cards may be missing
        data = {key: join_rows([c[key] for c in self._chunks]) for key in keys}
        reward = np.asarray(self._reward, dtype=np.float32)
        done = np.asarray(self._done, dtype=bool)
        nxt = np.asarray(self._next, dtype=np.int64)
        finished = np.asarray(self.hand_finished, dtype=bool)
        complete = finished[data["uid"]]
        out = {key: arr[complete] for key, arr in data.items()}
        # a complete decision's successor is in its own (finished) hand: complete too
        out["reward"], out["done"] = reward[complete], done[complete]
        out["next"] = _renumbered(nxt[complete], complete)
        # Carry the incomplete decisions over, re-indexed (an open decision's hand is unfinished: it is kept).
        keep = ~complete
        self.size = int(keep.sum())
        self._chunks = [{key: arr[keep] for key, arr in data.items()}] if self.size else []
        self._reward = reward[keep].tolist()
        self._done = done[keep].tolist()
        self._next = _renumbered(nxt[keep], keep).tolist()
        self.last = _renumbered(self.last, keep)
        return out if len(out["action"]) else None


def _renumbered(links: np.ndarray, picked: np.ndarray) -> np.ndarray:
    """Links (row indices, or -1; any shape) to rows among the ``picked`` ones, as indices among those rows."""
    new_index = np.cumsum(picked) - 1
    return np.where(links >= 0, new_index[np.maximum(links, 0)], -1)


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
    # hand ids are each store's own: kept apart by the store's place
    out["uid"] = np.concatenate([part["uid"] + (int(offset) << UID_SHIFT) for part, offset in present])
    return out


UID_SHIFT = 40  # hand ids of joined stores: the first table's number above this bit (a store numbers < 2**40 hands)


LINK_KEYS = ("done", "next")  # what take_complete_decisions adds for with_advantages, dropped by it


def with_advantages(
    decisions: dict[str, Rows], gamma: float, gae_lambda: float, value_fn: Callable[[Rows], np.ndarray] | None = None
) -> dict[str, Rows]:
    """The complete ``decisions`` (:meth:`TrajectoryStore.take_complete_decisions`) as a batch: values from
    ``value_fn`` (critic inputs -> values; else the recorded ones), GAE advantages and returns."""
    batch = {key: arr for key, arr in decisions.items() if key not in LINK_KEYS}
    if value_fn is not None:
        batch["value"] = np.asarray(value_fn(batch["critic"]), dtype=np.float32)
    rows = np.arange(len(batch["action"]))
    adv = gae_advantages(batch["reward"], batch["value"], decisions["done"], decisions["next"], rows, gamma, gae_lambda)
    batch["advantage"], batch["return"] = adv, returns_of(adv, batch["value"])
    return batch
