"""Training rewards: side points minus the opponents', bags charged at their game cost when taken."""

from __future__ import annotations

import numpy as np
import pytest

from spades_env.core.rules import Rules
from spades_env.rewards import BagLedger, bag_cost, shaped_hand_points, training_rewards

STANDARD = Rules()  # bag_limit 10, bag_penalty 100: a bag costs 10 points
SCALE = 0.01


def info(hand_over, points, bags, penalties):
    """The batch engine's step info for two tables (only the keys the ledger reads)."""
    return {
        "hand_over": np.array(hand_over),
        "points": np.array(points),
        "bags": np.array(bags),
        "bag_penalties": np.array(penalties),
    }


def test_bag_cost_is_the_penalty_shared_over_the_bag_limit():
    assert bag_cost(STANDARD) == STANDARD.bag_penalty / STANDARD.bag_limit == 10.0


@pytest.mark.parametrize(
    "points, before, after, penalties, expected",
    [
        ([53, 40], [0, 0], [3, 0], [0, 0], [53 - 30, 40]),  # three bags taken cost 30 now
        ([-58, 20], [9, 0], [1, 0], [1, 0], [-58 + 100 - 20, 20]),  # 9 + 2 bags: the penalty refunded, 2 bags charged
        ([40, 30], [4, 4], [4, 4], [0, 0], [40, 30]),  # no new bags: no charge
    ],
)
def test_shaped_hand_points_charge_bags_when_taken_and_refund_the_penalty(points, before, after, penalties, expected):
    out = shaped_hand_points(STANDARD, np.array(points), np.array(before), np.array(after), np.array(penalties))
    np.testing.assert_allclose(out, expected)


def test_training_rewards_are_side_points_minus_the_opponents_per_seat():
    rewards = training_rewards(
        STANDARD, np.array([[53.0, 40.0]]), SCALE, np.zeros((1, 2)), np.array([[3, 0]]), np.array([[0, 0]])
    )
    assert rewards.dtype == np.float32
    np.testing.assert_allclose(rewards, [[-0.17, 0.17, -0.17, 0.17]], rtol=1e-6)  # seats 0, 2 are side 0


def test_bag_ledger_charges_each_bag_once_and_forgets_bags_when_a_game_ends():
    ledger = BagLedger(STANDARD, num_tables=2)
    # Hand 1 at table 0: side 0 takes 9 bags (-90); table 1 plays on.
    tables, rewards = ledger.hand_rewards(
        info([True, False], [[69, 10], [0, 0]], [[9, 0], [0, 0]], [[0, 0], [0, 0]]), SCALE
    )
    assert tables.tolist() == [0]
    np.testing.assert_allclose(rewards[0], np.array([-31, 31, -31, 31]) * SCALE, rtol=1e-6)
    # Hand 2: two more bags reach the limit; the penalty (in the points) is refunded, the two bags charged once.
    _, rewards = ledger.hand_rewards(
        info([True, False], [[-58, 20], [0, 0]], [[1, 0], [0, 0]], [[1, 0], [0, 0]]), SCALE
    )
    np.testing.assert_allclose(rewards[0], np.array([2, -2, 2, -2]) * SCALE, rtol=1e-6)
    # The game ends at table 0; the next game's first hand starts from no bags.
    ledger.new_games(np.array([True, False]))
    _, rewards = ledger.hand_rewards(info([True, False], [[40, 30], [0, 0]], [[2, 0], [0, 0]], [[0, 0], [0, 0]]), SCALE)
    np.testing.assert_allclose(rewards[0], np.array([-10, 10, -10, 10]) * SCALE, rtol=1e-6)


def test_without_bag_shaping_the_rewards_are_the_plain_points():
    ledger = BagLedger(STANDARD, num_tables=1)
    _, rewards = ledger.hand_rewards(
        {
            "hand_over": np.array([True]),
            "points": np.array([[53, 40]]),
            "bags": np.array([[3, 0]]),
            "bag_penalties": np.array([[0, 0]]),
        },
        SCALE,
        shaping=False,
    )
    np.testing.assert_allclose(rewards[0], np.array([13, -13, 13, -13]) * SCALE, rtol=1e-6)
