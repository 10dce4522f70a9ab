"""Training on a mixture of presets: the tables split among several presets, one policy for all of them.

A config's ``mixture`` (``["standard:2", "cutthroat", "two_player"]``) names presets and their weights. Each preset
gets a share of the ``num_envs`` tables (:func:`table_counts`: the largest remainders of ``num_envs`` x its weight's
share, at least one table each), and each share runs on an engine of its own, with its own bag ledger and rewards:
partnership presets share a side's reward between partners, and individual ones (cutthroat, cutthroat3,
two_player) reward each player alone, as each preset's rules say. Presets of different player counts cannot share
a batch engine, hence one engine per preset. Outwardly it is one set of tables, numbered preset after preset in the
mixture's order (:func:`table_layout`), so one policy forward pass serves the learner's rows of every preset at each
table step. The observation carries the rules, so the network knows which game each row is. Each table keeps its
preset from game to game; what a table draws when a game starts is its opponents, as in a single-preset run.

This module holds the layout and the parts: :func:`preset_tables` gives one :class:`PresetTables` per preset (a
single preset is the one-part case), which :class:`training.rollout.Rollout` holds behind one set of tables;
:class:`training.device_rollout.DeviceRollout` has :func:`preset_tables` make its torch engines instead.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

import numpy as np

from spades_env.batch import BatchEnv
from spades_env.core.rules import Rules, preset
from spades_env.rewards import BagLedger, seat_sides
from training.config import TrainConfig, worker_configs

MAX_SEATS = 4
SEED_RANGE = 2**31  # seeds drawn for the batch engines


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


class PresetTables:
    """One preset's share of a run's tables on the numpy engine: the engine with its hands in progress, and each
    table's bags for the bag cost (:class:`spades_env.rewards.BagLedger`)."""

    def __init__(self, rules: Rules, num_envs: int, seed: int):
        self.rules = rules
        self.env = BatchEnv(num_envs, rules=rules, episode="game", seed=seed)
        self.ledger = BagLedger(rules, num_envs)

    def reset(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """New games at every table, with no bags: (observations, masks, seats to act)."""
        self.ledger.new_games(slice(None))
        return self.env.reset()

    def step(self, actions: np.ndarray, config: TrainConfig) -> tuple[tuple, np.ndarray, np.ndarray, np.ndarray]:
        """Play one action per table: ((observations, masks, seats to act), dones, the tables whose hand ended and
        their hands' rewards, one column per seat)."""
        obs, mask, to_act, _, dones, info = self.env.step(actions)
        tables, rewards = self.ledger.hand_rewards(
            info, config.reward_scale, config.bag_cost, config.reward_others, config.win_reward
        )
        self.ledger.new_games(dones)
        return (obs, mask, to_act), dones, tables, rewards


def preset_tables(
    config: TrainConfig, rules: Rules, rng: np.random.Generator, make: Callable[[Rules, int, int], Any] = PresetTables
) -> tuple[list[Any], TableLayout]:
    """The tables of ``config``, one part per preset (``rules`` without a mixture) made by ``make(rules, tables,
    seed)`` (the numpy engine's :class:`PresetTables`, or the torch rollout's engines), each seeded from ``rng`` in
    the mixture's order, and their layout."""
    counts = table_counts(config.presets, config.num_envs)
    rules_of = [preset(name) for name in counts] if config.mixture else [rules]
    parts = [
        make(part_rules, count, int(rng.integers(SEED_RANGE))) for part_rules, count in zip(rules_of, counts.values())
    ]
    return parts, table_layout(counts, rules_of)
