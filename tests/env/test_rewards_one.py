"""One hand's rewards as Python floats (the AEC env's path) equal the numpy hooks' (the batch engine's) exactly."""

from __future__ import annotations

import numpy as np
import pytest

import spades_env
from spades_env.rewards import (
    HandPoints,
    WinLoss,
    hand_rewards_one,
    hand_winner,
    hand_winner_one,
    relative_points,
    relative_points_one,
)

POINTS = [
    (0, 0),
    (130, -40),
    (-100, 251),
    (73, 73),
    (0, 0, 0),
    (50, 121, -33),
    (121, 121, 5),
    (-7, 12, 12),
    (30, -61, 88, 88),
    (40, 10, -20, 13),
]
RULES_OF_SIDES = {2: "standard", 3: "cutthroat3", 4: "cutthroat"}


def rules_for(points):
    return spades_env.load_rules(RULES_OF_SIDES[len(points)])


@pytest.mark.parametrize("points", POINTS)
def test_relative_points_of_one_hand_equal_the_array_rule(points):
    assert relative_points_one(points) == relative_points(np.array(points)).tolist()


@pytest.mark.parametrize("points", POINTS)
def test_hand_winner_of_one_hand_is_the_array_winner(points):
    assert hand_winner_one(points) == int(hand_winner(np.array(points)))


@pytest.mark.parametrize("scheme", [HandPoints(), HandPoints(scale=0.37), WinLoss()], ids=["points", "scaled", "win"])
@pytest.mark.parametrize("points", POINTS)
def test_one_hand_rewards_equal_the_numpy_hooks(scheme, points):
    rules = rules_for(points)
    arr = np.array(points)
    hand_only = scheme.hand_end(rules, arr)
    assert hand_rewards_one(scheme, rules, rules, points) == hand_only.tolist()
    for winner in [-1, *range(rules.num_sides)]:
        full = hand_only + scheme.episode_end(rules, np.asarray(winner))
        assert hand_rewards_one(scheme, rules, rules, points, winner) == full.tolist()


class NumpyOnly:
    """A custom scheme with the numpy hooks only: one hand's rewards fall back to them."""

    name = "numpy_only"

    def hand_end(self, rules, points):
        return np.asarray(points, float)[..., [rules.side_of(s) for s in range(rules.num_players)]]

    def episode_end(self, rules, winner):
        return np.full(np.shape(winner) + (rules.num_players,), 2.0)


def test_a_scheme_without_scalar_hooks_uses_its_numpy_hooks():
    rules = spades_env.load_rules("standard")
    assert hand_rewards_one(NumpyOnly(), rules, rules, (10, -20), winner=0) == [12.0, -18.0, 12.0, -18.0]
    assert hand_rewards_one(NumpyOnly(), rules, rules, (10, -20)) == [10.0, -20.0, 10.0, -20.0]
