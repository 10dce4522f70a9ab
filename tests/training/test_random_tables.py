"""Training tables against random play (``random_fraction``): drawn by share, played by random legal actions."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from spades_env.config_io import load_rules
from training.config import from_mapping
from training.rollout import HEURISTIC, RANDOM, SELF, SNAPSHOT, Opponents, Rollout, opponent_actions

SMALL = {"num_envs": 64, "seed": 3}


@pytest.mark.parametrize(
    "fractions, kind",
    [
        ({"selfplay_fraction": 0.0, "heuristic_fraction": 0.0, "random_fraction": 1.0}, RANDOM),
        ({"selfplay_fraction": 0.0, "heuristic_fraction": 1.0, "random_fraction": 0.0}, HEURISTIC),
        ({"selfplay_fraction": 1.0, "heuristic_fraction": 0.0, "random_fraction": 0.0}, SELF),
        ({"selfplay_fraction": 0.0, "heuristic_fraction": 0.0, "random_fraction": 0.0}, SNAPSHOT),
    ],
)
def test_table_kind_follows_its_share(fractions, kind):
    config = from_mapping({**SMALL, **fractions})
    opponents = Opponents(config.num_envs)
    opponents.assign(np.arange(config.num_envs), np.random.default_rng(0), config, num_sides=2, pool_size=1)
    assert (opponents.kinds == kind).all()


def test_random_share_is_drawn_in_proportion():
    config = from_mapping(
        {"num_envs": 20_000, "selfplay_fraction": 0.7, "heuristic_fraction": 0.15, "random_fraction": 0.05}
    )
    opponents = Opponents(config.num_envs)
    opponents.assign(np.arange(config.num_envs), np.random.default_rng(0), config, num_sides=2, pool_size=1)
    assert abs((opponents.kinds == RANDOM).mean() - 0.05) < 0.01
    assert abs((opponents.kinds == SNAPSHOT).mean() - 0.10) < 0.01


def test_random_tables_play_random_legal_actions_not_the_heuristics():
    config = from_mapping(SMALL)
    rollout = Rollout(config, load_rules(config.rules), np.random.default_rng(config.seed))
    rollout.reset()
    rows = np.arange(config.num_envs)
    rollout.opponents.kinds[:] = RANDOM
    actions = np.full(config.num_envs, -1, dtype=np.int64)
    opponent_actions(rollout, rows, actions, [], None, torch.device("cpu"))
    assert (actions >= 0).all() and rollout.mask[rows, actions].all()  # every table got a legal action
    heuristic = rollout.heuristic.act_batch(rollout.obs, rollout.mask)
    assert (actions != heuristic).any()  # the option changes what the opponents play
