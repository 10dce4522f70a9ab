"""SingleAgentSpadesEnv: Gymnasium / SB3 checks, masks, rewards, illegal actions, seats and opponents."""

from __future__ import annotations

import warnings

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env as gym_check_env
from stable_baselines3.common.env_checker import check_env as sb3_check_env

import spades_env
from spades_env import SingleAgentSpadesEnv
from spades_env.core.hand import IllegalActionError, Phase
from spades_env.obs.encode import OBS_SIZE

pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")


@pytest.mark.parametrize(
    "kwargs",
    [
        {},
        {"observation_format": "dict"},
        {"episode": "hand", "rules": "pagat"},
        {"rules": "cutthroat3", "seat": 2},
        {"seat": "random", "reward": "win_loss"},
    ],
)
def test_gymnasium_check_env_passes(kwargs):
    gym_check_env(SingleAgentSpadesEnv(**kwargs), skip_render_check=True)


@pytest.mark.parametrize("fmt", ["flat", "dict"])
def test_sb3_check_env_passes(fmt):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        sb3_check_env(SingleAgentSpadesEnv(observation_format=fmt), warn=False)


def test_gymnasium_check_env_passes_through_make():
    gym_check_env(gymnasium.make("spades_env/Spades-v3", render_mode="ansi").unwrapped)


def masked_random(env, rng):
    legal = np.flatnonzero(env.action_masks())
    return int(legal[rng.integers(len(legal))])


def expected_seat_reward(rules, points, seat):
    points = np.asarray(points, float)
    side = rules.side_of(seat)
    return (points[side] - np.delete(points, side).mean()) * 0.01


@pytest.mark.parametrize(
    "rules, seat, episode",
    [
        ("standard", 0, "hand"),
        ("standard", 1, "hand"),
        ("cutthroat3", 2, "hand"),
        ("pagat", 3, "game"),
        ("crazy", 1, "game"),
    ],
)
def test_learner_acts_only_at_its_turns_and_collects_its_rewards(rules, seat, episode):
    r = spades_env.load_rules(rules).replace(max_hands=3)
    env = SingleAgentSpadesEnv(rules=r, seat=seat, episode=episode)
    obs, info = env.reset(seed=4)
    rng = np.random.default_rng(0)
    total = 0.0
    steps = 0
    terminated = truncated = False
    while not (terminated or truncated):
        assert env.aec.agent_selection == f"player_{seat}"
        np.testing.assert_array_equal(obs, env.aec.observe(f"player_{seat}")["observation"])
        np.testing.assert_array_equal(info["action_mask"], env.action_masks())
        assert env.action_masks().any() and info["seat"] == seat
        assert obs.shape == (OBS_SIZE,) and obs.dtype == np.float32
        obs, reward, terminated, truncated, info = env.step(masked_random(env, rng))
        total += reward
        steps += 1
    expected = sum(expected_seat_reward(env.aec.rules, res.points, seat) for res in env.aec.game.results)
    assert total == pytest.approx(expected)
    assert env.action_masks().all()  # the episode is over: every action (none is played; v1 convention)
    np.testing.assert_array_equal(info["action_mask"], env.action_masks())
    assert steps >= 13 * len(env.aec.game.results)
    with pytest.raises(RuntimeError):
        env.step(0)


def test_dict_observation_format():
    env = SingleAgentSpadesEnv(observation_format="dict")
    obs, info = env.reset(seed=0)
    assert set(obs) == {"observation", "action_mask"}
    np.testing.assert_array_equal(obs["action_mask"], env.action_masks())
    assert env.observation_space.contains(obs)


@pytest.mark.parametrize("fmt", ["flat", "dict"])
def test_illegal_action_ends_episode_with_penalty(fmt):
    env = SingleAgentSpadesEnv(observation_format=fmt)
    env.reset(seed=0)
    snapshot = env.aec.hand.history[:]
    illegal = int(np.flatnonzero(env.action_masks() == 0)[0])
    obs, reward, terminated, truncated, info = env.step(illegal)
    assert reward == -1.0
    assert terminated and not truncated
    assert info["illegal_action"] is True
    assert "legal" in info["error"]
    assert env.aec.hand.history == snapshot
    assert env.action_masks().all()  # the episode is over: every action (none is played; v1 convention)
    assert info["action_mask"].all()
    if fmt == "dict":
        assert obs["action_mask"].all()
    with pytest.raises(RuntimeError):
        env.step(int(np.flatnonzero(env.aec.observe(env.aec.agent_selection)["action_mask"])[0]))
    env.reset(seed=1)
    assert env.action_masks().any()


@pytest.mark.parametrize("action", [90, -1, 2.5])
def test_out_of_range_action_ends_episode_with_penalty(action):
    env = SingleAgentSpadesEnv()
    env.reset(seed=0)
    _, reward, terminated, _, info = env.step(action)
    assert reward == -1.0 and terminated and info["illegal_action"]


def test_illegal_action_raise_mode():
    env = SingleAgentSpadesEnv(illegal_action="raise")
    env.reset(seed=0)
    illegal = int(np.flatnonzero(env.action_masks() == 0)[0])
    with pytest.raises(IllegalActionError, match="player_0"):
        env.step(illegal)
    legal = int(np.flatnonzero(env.action_masks())[0])
    env.step(legal)  # the state was left as it was


def test_random_seat_is_seeded():
    def seats(seed0):
        env = SingleAgentSpadesEnv(seat="random")
        return [env.reset(seed=seed0 + k)[1]["seat"] for k in range(12)]

    first = seats(0)
    assert first == seats(0)
    assert len(set(first)) > 1
    env = SingleAgentSpadesEnv(seat="random")
    env.reset(seed=3)
    assert env.aec.agent_selection == f"player_{env.seat}"


def test_same_seed_same_episode():
    def run(seed):
        env = SingleAgentSpadesEnv(episode="hand")
        obs, _ = env.reset(seed=seed)
        out = [obs]
        done = False
        while not done:
            obs, r, term, trunc, _ = env.step(int(np.flatnonzero(env.action_masks())[0]))
            out.append(obs)
            done = term or trunc
        return out

    a, b = run(5), run(5)
    assert len(a) == len(b)
    for x, y in zip(a, b):
        np.testing.assert_array_equal(x, y)


class Recorder:
    """A scripted opponent: plays the highest legal action and records who it played for."""

    def __init__(self, env):
        self.env = env
        self.seats = []

    def act(self, observation):
        assert observation["action_mask"].any()
        self.seats.append(self.env.aec.agent_selection)
        return int(np.flatnonzero(observation["action_mask"])[-1])


def run_hand(env, seed=0):
    env.reset(seed=seed)
    done = False
    while not done:
        _, _, term, trunc, _ = env.step(int(np.flatnonzero(env.action_masks())[0]))
        done = term or trunc


def test_opponents_given_as_a_list_play_the_other_seats_in_order():
    opponents = [Recorder(None), Recorder(None), Recorder(None)]
    env = SingleAgentSpadesEnv(seat=1, episode="hand", opponents=opponents)
    for opp in opponents:
        opp.env = env
    run_hand(env)
    for opp, seat in zip(opponents, (0, 2, 3)):
        assert opp.seats and set(opp.seats) == {f"player_{seat}"}
    assert env.opponents == {0: opponents[0], 2: opponents[1], 3: opponents[2]}


def test_opponents_given_as_a_dict_are_used():
    holder = {}
    env = SingleAgentSpadesEnv(seat=0, episode="hand", opponents=holder)
    holder.update({s: Recorder(env) for s in (1, 2, 3)})
    run_hand(env)
    for seat, opp in holder.items():
        assert set(opp.seats) == {f"player_{seat}"}
        assert len(opp.seats) >= 13
    assert env.opponents == holder


def test_missing_or_extra_opponents_raise():
    env = SingleAgentSpadesEnv(seat=0, opponents={1: None, 2: None})
    with pytest.raises(ValueError, match="3"):
        env.reset(seed=0)
    env = SingleAgentSpadesEnv(seat=0, opponents=[None, None])
    with pytest.raises(ValueError):
        env.reset(seed=0)


@pytest.mark.parametrize(
    "kwargs",
    [
        {"seat": 4},
        {"seat": -1},
        {"seat": True},
        {"seat": "left"},
        {"rules": "cutthroat3", "seat": 3},
        {"observation_format": "image"},
        {"illegal_action": "ignore"},
        {"episode": "set"},
    ],
)
def test_bad_arguments_raise(kwargs):
    with pytest.raises(ValueError):
        SingleAgentSpadesEnv(**kwargs)


def test_reset_options_reach_the_aec_env():
    env = SingleAgentSpadesEnv()
    _, info = env.reset(seed=0, options={"scores": [10, 40], "dealer": 3})
    assert env.aec.game.scores == [10, 40] and env.aec.game.dealer == 3
    assert info["phase"] in (Phase.BLIND, Phase.BID)
    with pytest.raises(ValueError):
        env.reset(seed=0, options={"dealer": 7})


def test_win_loss_reward_at_the_end_only():
    r = spades_env.preset("standard").replace(target_score=60, lose_score=-60)
    env = SingleAgentSpadesEnv(rules=r, reward="win_loss")
    env.reset(seed=2)
    rewards = []
    done = False
    while not done:
        _, reward, term, trunc, _ = env.step(int(np.flatnonzero(env.action_masks())[0]))
        rewards.append(reward)
        done = term or trunc
    assert all(x == 0.0 for x in rewards[:-1])
    winner = env.aec.game.winner
    assert rewards[-1] == (0.0 if winner is None else (1.0 if winner == 0 else -1.0))
