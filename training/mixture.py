"""Training on a mixture of presets: the tables split among several presets, one policy for all of them.

A config's ``mixture`` (``["standard:2", "cutthroat", "two_player"]``) names presets and their weights.
:class:`MixedRollout` gives each preset a share of the ``num_envs`` tables (:func:`table_counts`: the largest
remainders of ``num_envs`` x its weight's share, at least one table each) and runs each share as a
:class:`~training.rollout.Rollout` of its own: its own batch engine, bag ledger and rewards, so partnership presets
share a side's reward between partners and individual ones (cutthroat, cutthroat3, two_player) reward each player
alone, as each preset's rules say. Presets of different player counts cannot share a batch engine, hence one engine
per preset. Outwardly it is one set of tables, numbered preset after preset in the mixture's order: the same
observations, masks, seats to act, opponents, trajectory store and critic inputs as a single :class:`Rollout`, so
:func:`~training.rollout.collect`, the imitation and the rollout worker run it unchanged, one policy forward pass
for the learner's rows of every preset at each table step. The observation carries the rules, so the network knows
which game each row is. Each table keeps its preset from game to game; what a table draws when a game starts is
its opponents, as in a single-preset run.
"""

from __future__ import annotations

import dataclasses
from typing import NamedTuple

import numpy as np

from spades_env.core.actions import NUM_ACTIONS
from spades_env.core.rules import Rules, preset
from spades_env.obs.encode import OBS_SIZE
from spades_env.rewards import seat_sides
from training.config import TrainConfig, worker_configs
from training.rollout import Opponents, Rollout
from training.trajectories import TrajectoryStore

MAX_SEATS = 4


def table_counts(weights: dict[str, float], num_envs: int) -> dict[str, int]:
    """Tables per preset: ``num_envs`` split by weight (largest remainders, ties to the earlier preset), at least one
    each; ValueError when there are fewer tables than presets."""
    if num_envs < len(weights):
        raise ValueError(f"a mixture of {len(weights)} presets needs at least as many tables, got num_envs={num_envs}")
    names = list(weights)
    total = sum(weights.values())
    spare = num_envs - len(names)  # one table each first, the rest by weight
    exact = np.array([spare * (weights[name] / total) for name in names])  # the share first: no overflow
    counts = np.floor(exact).astype(int)
    order = sorted(range(len(names)), key=lambda i: (-(exact[i] - counts[i]), i))
    for i in order[: spare - int(counts.sum())]:
        counts[i] += 1
    return {name: int(count) + 1 for name, count in zip(names, counts)}


def pad_seats(rewards: np.ndarray) -> np.ndarray:
    """Rewards of hands (one row per hand, one column per seat) widened with zeros to :data:`MAX_SEATS` columns, so
    that the presets' rows stack (seats a preset has not get 0)."""
    padded = np.zeros((len(rewards), MAX_SEATS), dtype=np.float32)
    padded[:, : rewards.shape[1]] = rewards
    return padded


def table_presets(config: TrainConfig) -> np.ndarray:
    """The preset index (in the mixture's order) of every table of a run, the rollout workers' tables one worker
    after another (each worker splits its share among the presets); all 0 without a mixture."""
    parts = []
    for share in worker_configs(config):
        parts.append(_preset_of(table_counts(share.presets, share.num_envs)))
    return np.concatenate(parts)


def _preset_of(counts: dict[str, int]) -> np.ndarray:
    """Each table's preset index when ``counts`` tables of each preset are numbered preset after preset."""
    return np.repeat(np.arange(len(counts)), list(counts.values()))


class TableLayout(NamedTuple):
    """Where each preset's tables sit in one numbering of tables, preset after preset (a mixture's order)."""

    bounds: np.ndarray  # (presets + 1,) each preset's first table, then the number of tables
    preset_of: np.ndarray  # (tables,) each table's preset index
    num_sides: np.ndarray  # (tables,) each table's number of sides
    table_sides: np.ndarray  # (tables, MAX_SEATS) the side of each seat at each table, -1 where no one sits


def table_layout(counts: dict[str, int], rules: list[Rules]) -> TableLayout:
    """The layout of ``counts`` tables of each preset (:func:`table_counts`), ``rules`` the presets' rules in order."""
    bounds = np.cumsum([0, *counts.values()])
    preset_of = _preset_of(counts)
    num_sides = np.array([rules[p].num_sides for p in preset_of], dtype=np.int64)
    table_sides = np.full((int(bounds[-1]), MAX_SEATS), -1, dtype=np.int64)
    for r, start, stop in zip(rules, bounds, bounds[1:]):
        table_sides[start:stop, : r.num_players] = seat_sides(r)
    return TableLayout(bounds, preset_of, num_sides, table_sides)


class _PartStore:
    """A part's view of the mixture's trajectory store: its tables offset to their place, rewards padded to 4 seats."""

    def __init__(self, store: TrajectoryStore, offset: int):
        self.store, self.offset = store, offset

    def end_hands(self, tables: np.ndarray, rewards: np.ndarray) -> None:
        self.store.end_hands(tables + self.offset, pad_seats(rewards))

    def reset_tables(self, tables: np.ndarray) -> None:
        self.store.reset_tables(tables + self.offset)


class MixedRollout(Rollout):
    """The tables of a mixture of presets, one :class:`Rollout` per preset behind the interface of one."""

    def __init__(self, config: TrainConfig, rng: np.random.Generator):
        counts = table_counts(config.presets, config.num_envs)
        self.names = list(counts)
        self.parts = [
            Rollout(dataclasses.replace(config, mixture=[], rules=name, num_envs=count), preset(name), rng)
            for name, count in counts.items()
        ]
        layout = table_layout(counts, [part.rules for part in self.parts])
        self.bounds, self.preset_of, self.num_sides, self.table_sides = layout
        self._config = config
        self.rules = self.parts[0].rules  # used by nothing that differs between the parts (see the methods below)
        first = self.parts[0]
        self.heuristic, self.prior_agent, self.random_agent = first.heuristic, first.prior_agent, first.random_agent
        n = config.num_envs
        self._rows = np.arange(n)
        self.opponents = Opponents(n)  # one assignment for every table of every preset
        self.critic_size = first.critic_size
        self.store = self.new_store()
        self.obs = self.mask = self.to_act = None
        self.env = None  # no single engine: each part has its own

    # the parts keep their own copies of the config (their table counts); a new config reaches them all
    @property
    def config(self) -> TrainConfig:
        return self._config

    @config.setter
    def config(self, config: TrainConfig) -> None:
        self._config = config
        for part, start, stop in zip(self.parts, self.bounds, self.bounds[1:]):
            part.config = dataclasses.replace(config, mixture=[], rules=part.rules.name, num_envs=int(stop - start))

    @property
    def preset_names(self) -> list[str]:
        return list(self.names)

    def new_store(self) -> TrajectoryStore:
        """An empty trajectory store for every table (seats 0..3)."""
        return TrajectoryStore(
            self.config.num_envs, MAX_SEATS, OBS_SIZE, NUM_ACTIONS, self.critic_size, sparse=self.config.sparse_input
        )

    def _gather(self) -> None:
        self.obs = np.concatenate([part.obs for part in self.parts])
        self.mask = np.concatenate([part.mask for part in self.parts])
        self.to_act = np.concatenate([part.to_act for part in self.parts])

    def reset(self) -> None:
        """New games at every table of every preset, with no bags and no recorded decisions."""
        for part in self.parts:
            part.reset()
        self._gather()
        self.store = self.new_store()

    def critic_input(self, rows: np.ndarray) -> np.ndarray:
        if self.config.critic_input == "observation":
            return self.obs[rows]
        parts = []
        for part, start, stop in zip(self.parts, self.bounds, self.bounds[1:]):
            mine = rows[(rows >= start) & (rows < stop)] - start
            if len(mine):
                parts.append(part.critic_input(mine))
        return np.concatenate(parts)  # rows come in increasing order, so preset by preset

    def learner_rows(self) -> np.ndarray:
        return self.opponents.learner_rows(self.table_sides[self._rows, self.to_act])

    def assign_opponents(self, tables: np.ndarray, rng: np.random.Generator, pool_size: int) -> None:
        self.opponents.assign(tables, rng, self.config, self.num_sides[tables], pool_size)

    def step(self, store: TrajectoryStore, actions: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Play one action per table, each preset on its engine; reward the finished hands in ``store``; return
        (dones, the finished hands' rewards padded to 4 seats, preset by preset)."""
        dones, rewards, presets = [], [], []
        for index, (part, start, stop) in enumerate(zip(self.parts, self.bounds, self.bounds[1:])):
            done, reward = part.step(_PartStore(store, int(start)), actions[start:stop])
            dones.append(done)
            rewards.append(pad_seats(reward))
            presets.append(np.full(len(reward), index))
        self._gather()
        self._reward_presets = np.concatenate(presets)
        return np.concatenate(dones), np.concatenate(rewards)

    def hand_rewards_by_preset(self, rewards: np.ndarray) -> dict[str, list[float]]:
        return {name: rewards[self._reward_presets == i, 0].tolist() for i, name in enumerate(self.names)}


def make_rollout(config: TrainConfig, rules: Rules, rng: np.random.Generator) -> Rollout:
    """The tables of a run: a :class:`MixedRollout` for a mixture, else a :class:`Rollout` of ``rules``."""
    return MixedRollout(config, rng) if config.mixture else Rollout(config, rules, rng)
