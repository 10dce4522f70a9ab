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


CUTTHROAT = Rules(num_players=4, partnerships=False, nil=True)  # four sides: the individual game


@pytest.mark.parametrize(
    "points, mean, best",
    [
        # hand-computed: a side's points less the others' mean, and less the best of the others
        ([100, -20, 50, 10], [86.67, -73.33, 20.0, -33.33], [50, -120, -50, -90]),
        ([30, 30, 30, 30], [0, 0, 0, 0], [0, 0, 0, 0]),
        ([-100, 0, 0, 0], [-100, 33.33, 33.33, 33.33], [-100, 0, 0, 0]),
    ],
)
def test_individual_games_reward_the_hand_against_the_others_mean_or_their_best(points, mean, best):
    torch = pytest.importorskip("torch")
    for others, expected in (("mean", mean), ("best", best)):
        got = training_rewards(CUTTHROAT, np.array([points], float), 1.0, others=others)
        np.testing.assert_allclose(got[0], expected, atol=0.01)
        on_torch = training_rewards(CUTTHROAT, torch.tensor([points], dtype=torch.float32), 1.0, others=others)
        np.testing.assert_allclose(on_torch.numpy(), got, rtol=1e-6, atol=1e-5)


def test_with_two_sides_the_best_of_the_others_is_the_other():
    two = np.array([[53.0, 40.0]])
    np.testing.assert_array_equal(
        training_rewards(STANDARD, two, SCALE, others="best"), training_rewards(STANDARD, two, SCALE)
    )


def test_an_unknown_relative_reward_is_refused_by_name():
    with pytest.raises(ValueError, match="others must be one of"):
        training_rewards(STANDARD, np.array([[1.0, 2.0]]), SCALE, others="max")


def test_the_game_s_end_pays_win_reward_as_win_loss_does_on_top_of_the_hand():
    torch = pytest.importorskip("torch")
    points = np.array([[40.0, 10.0, 0.0, -50.0]] * 3)
    winner = np.array([0, -1, 2])  # won by side 0; the game goes on (or is truncated); won by side 2
    plain = training_rewards(CUTTHROAT, points, SCALE)
    paid = training_rewards(CUTTHROAT, points, SCALE, winner=winner, win_reward=2.0)
    np.testing.assert_allclose(paid - plain, [[2, -2 / 3, -2 / 3, -2 / 3], [0] * 4, [-2 / 3, -2 / 3, 2, -2 / 3]])
    on_torch = training_rewards(CUTTHROAT, torch.tensor(points), SCALE, winner=torch.tensor(winner), win_reward=2.0)
    np.testing.assert_allclose(on_torch.numpy(), paid, rtol=1e-6)
    partners = training_rewards(STANDARD, np.array([[60.0, 20.0]]), SCALE, winner=np.array([1]), win_reward=1.0)
    np.testing.assert_allclose(partners[0], [0.4 - 1, -0.4 + 1, 0.4 - 1, -0.4 + 1], rtol=1e-6)  # seats 1, 3 won


def test_the_ledger_pays_the_game_s_end_where_the_engine_names_a_winner():
    ledger = BagLedger(STANDARD, num_tables=2)
    step = info([True, True], [[60, 20], [60, 20]], [[0, 0], [0, 0]], [[0, 0], [0, 0]])
    _, plain = ledger.hand_rewards(step, SCALE)
    ledger = BagLedger(STANDARD, num_tables=2)
    _, paid = ledger.hand_rewards({**step, "winner": np.array([0, -1])}, SCALE, win_reward=1.0)
    np.testing.assert_allclose(paid - plain, [[1, -1, 1, -1], [0, 0, 0, 0]], rtol=1e-6)
