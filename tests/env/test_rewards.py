"""Reward schemes: hand_points (shared by partners, zero-sum, scaled points difference) and
win_loss (+1 / -1 at the end of the game, 0 when truncated); individual in cutthroat."""

from __future__ import annotations

import numpy as np
import pytest

import spades_env
from spades_env import preset
from spades_env.rewards import HandPoints, WinLoss, hand_winner, make_reward, relative_points

from .helpers import SPADES_TO_SEAT_0, done, play_scripted_hand, random_policy


def expected_hand_points(rules, points) -> list[float]:
    points = np.asarray(points, float)
    out = []
    for seat in range(rules.num_players):
        side = rules.side_of(seat)
        others = np.delete(points, side)
        out.append((points[side] - others.mean()) * 0.01)
    return out


def run_recording_rewards(env, seed):
    """Play to the end; return [(hand results so far, rewards dict)] after every step."""
    choose = random_policy(seed)
    log = []
    while not done(env):
        env.step(choose(env))
        log.append((len(env.game.results), dict(env.rewards)))
    return log


@pytest.mark.parametrize("rules_name", ["standard", "pagat", "online", "barmore", "crazy"])
def test_hand_points_paid_at_each_hand_end_shared_by_partners(rules_name):
    rules = spades_env.load_rules(rules_name).replace(max_hands=4)
    env = spades_env.raw_env(rules=rules, episode="game", reward="hand_points")
    env.reset(seed=8)
    log = run_recording_rewards(env, seed=2)
    paid = 0
    previous = 0
    for hands, rewards in log:
        r = [rewards[f"player_{s}"] for s in range(4)]
        if hands > previous:
            result = env.game.results[hands - 1]
            assert r == pytest.approx(expected_hand_points(rules, result.points))
            diff = result.points[0] - result.points[1]
            assert r[0] == r[2] == pytest.approx(diff * 0.01)
            assert r[1] == r[3] == pytest.approx(-diff * 0.01)
            paid += 1
        else:
            assert r == [0.0] * 4
        previous = hands
    assert paid == len(env.game.results) >= 1


@pytest.mark.parametrize("rules_name", ["cutthroat", "cutthroat3"])
def test_cutthroat_hand_points_are_individual_and_sum_to_zero(rules_name):
    env = spades_env.raw_env(rules=rules_name, episode="hand")
    for seed in range(3):
        env.reset(seed=seed)
        log = run_recording_rewards(env, seed=seed)
        rewards = log[-1][1]
        r = [rewards[a] for a in env.possible_agents]
        assert sum(r) == pytest.approx(0.0)
        assert r == pytest.approx(expected_hand_points(env.rules, env.game.results[-1].points))
        assert all(x == 0.0 for _, rw in log[:-1] for x in rw.values())


def test_hand_points_value_on_a_literal_deal():
    env = spades_env.raw_env(episode="hand")
    env.reset(options={"deal": SPADES_TO_SEAT_0, "dealer": 3})
    play_scripted_hand(env, {0: 6, 1: 1, 2: 6, 3: 1})
    result = env.game.results[-1]
    assert list(result.points) == [121, -20]  # 12 bid, 13 taken; 2 bid, none taken
    assert env.rewards == pytest.approx({"player_0": 1.41, "player_1": -1.41, "player_2": 1.41, "player_3": -1.41})
    assert all(env.terminations.values())


def test_win_loss_gives_plus_minus_one_at_game_end():
    env = spades_env.raw_env(episode="game", reward="win_loss")
    env.reset(options={"deal": SPADES_TO_SEAT_0, "dealer": 3, "scores": [490, 0]})
    play_scripted_hand(env, {0: 6, 1: 1, 2: 6, 3: 1})
    assert env.game.winner == 0 and list(env.game.scores) == [611, -20]
    assert env.rewards == {"player_0": 1.0, "player_1": -1.0, "player_2": 1.0, "player_3": -1.0}
    assert all(env.terminations.values()) and not any(env.truncations.values())


@pytest.mark.parametrize("rules_name", ["standard", "cutthroat", "cutthroat3"])
def test_win_loss_random_games_with_low_target(rules_name):
    # Random bids are mostly set: a lose score ends the game quickly as well.
    rules = spades_env.load_rules(rules_name).replace(target_score=60, lose_score=-60)
    env = spades_env.raw_env(rules=rules, episode="game", reward="win_loss")
    for seed in range(3):
        env.reset(seed=seed)
        log = run_recording_rewards(env, seed=seed)
        assert all(x == 0.0 for _, rw in log[:-1] for x in rw.values())
        final = [log[-1][1][a] for a in env.possible_agents]
        winner = env.game.winner
        assert winner is not None
        k = rules.num_sides
        expected = [1.0 if rules.side_of(s) == winner else -1.0 / (k - 1) for s in range(rules.num_players)]
        assert final == pytest.approx(expected)
        assert sum(final) == pytest.approx(0.0)
        assert all(env.terminations.values())


def test_win_loss_is_zero_on_truncation():
    rules = preset("standard").replace(max_hands=1)
    env = spades_env.raw_env(rules=rules, episode="game", reward="win_loss")
    env.reset(seed=3, options={"scores": [100, 100]})
    log = run_recording_rewards(env, seed=3)
    assert env.game.truncated and env.game.winner is None
    assert all(env.truncations.values()) and not any(env.terminations.values())
    assert all(x == 0.0 for _, rw in log for x in rw.values())


def test_win_loss_in_hand_mode_rewards_the_hand_winner():
    env = spades_env.raw_env(episode="hand", reward="win_loss")
    env.reset(options={"deal": SPADES_TO_SEAT_0, "dealer": 3})
    play_scripted_hand(env, {0: 6, 1: 1, 2: 6, 3: 1})
    assert env.rewards == {"player_0": 1.0, "player_1": -1.0, "player_2": 1.0, "player_3": -1.0}


@pytest.mark.parametrize(
    "points, winner",
    [([10, 5], 0), ([5, 10], 1), ([7, 7], -1), ([1, 9, 9, 0], -1), ([1, 9, 3, 0], 1), ([-50, -20, -30], 1)],
)
def test_hand_winner(points, winner):
    assert int(hand_winner(np.array(points))) == winner


@pytest.mark.parametrize(
    "rules_name, winner, expected",
    [
        ("standard", 0, [1, -1, 1, -1]),
        ("standard", 1, [-1, 1, -1, 1]),
        ("standard", -1, [0, 0, 0, 0]),
        ("cutthroat", 2, [-1 / 3, -1 / 3, 1, -1 / 3]),
        ("cutthroat3", 0, [1, -0.5, -0.5]),
        ("cutthroat3", -1, [0, 0, 0]),
    ],
)
def test_win_loss_episode_end_table(rules_name, winner, expected):
    out = WinLoss().episode_end(preset(rules_name), np.array(winner))
    assert out.tolist() == pytest.approx(expected)
    rules = preset(rules_name)
    assert WinLoss().hand_end(rules, np.zeros(rules.num_sides)).tolist() == [0.0] * len(expected)


def test_reward_hooks_accept_batches():
    rules = preset("standard")
    points = np.array([[121, -20], [0, 0], [-50, 30]])
    out = HandPoints().hand_end(rules, points)
    assert out.shape == (3, 4)
    np.testing.assert_allclose(out[:, 0], [1.41, 0.0, -0.8])
    np.testing.assert_allclose(out.sum(axis=1), 0.0, atol=1e-12)
    assert WinLoss().episode_end(rules, np.array([0, 1, -1])).shape == (3, 4)


def test_relative_points_and_scale():
    np.testing.assert_allclose(relative_points(np.array([30, 0, -30, 0])), [40, 0, -40, 0])
    assert HandPoints(scale=1.0).hand_end(preset("standard"), np.array([10, 0])).tolist() == [10, -10, 10, -10]


def test_make_reward_accepts_names_and_objects():
    assert make_reward("hand_points").name == "hand_points"
    assert make_reward("win_loss").name == "win_loss"
    scheme = HandPoints(scale=0.5)
    assert make_reward(scheme) is scheme
    with pytest.raises(ValueError):
        make_reward("points")
    with pytest.raises(TypeError):
        make_reward(3)


def test_custom_scheme_object_is_used_by_the_env():
    env = spades_env.raw_env(episode="hand", reward=HandPoints(scale=1.0))
    env.reset(options={"deal": SPADES_TO_SEAT_0, "dealer": 3})
    play_scripted_hand(env, {0: 6, 1: 1, 2: 6, 3: 1})
    assert env.rewards["player_0"] == pytest.approx(141.0)
