"""Observation bounds: finite, true for every preset, and never left by an observation or a state."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import spades_env
from spades_env.aec import START_SCORE_TARGETS, hand_points_bound, observation_bounds, score_bound
from spades_env.layout import OBSERVATION, STATE

from .helpers import PRESET_NAMES


def assert_within(space, array, where):
    low, high = space.low, space.high
    outside = np.flatnonzero((array < low) | (array > high))
    first = outside[:5]
    assert not len(outside), f"{where}: entries {first} = {array[first]} outside {low[first]}..{high[first]}"


@pytest.mark.parametrize("rules", PRESET_NAMES)
def test_bounds_are_finite_and_ordered(rules):
    env = spades_env.raw_env(rules=rules)
    for space in (env.observation_space("player_0")["observation"], env.state_space):
        assert np.isfinite(space.low).all() and np.isfinite(space.high).all()
        assert (space.low <= space.high).all()


@pytest.mark.parametrize("rules", PRESET_NAMES)
def test_random_play_stays_within_the_bounds(rules):
    """Two seeded random games per preset, every seat's observation and the state at every step."""
    env = spades_env.raw_env(rules=spades_env.load_rules(rules).replace(max_hands=4), episode="game")
    obs_space = env.observation_space("player_0")["observation"]
    for seed in range(2):
        env.reset(seed=seed)
        rng = np.random.default_rng(seed)
        while not env.episode_over:
            for agent in env.possible_agents:
                assert_within(obs_space, env.observe(agent)["observation"], f"{rules} {agent}")
            assert_within(env.state_space, env.state(), f"{rules} state")
            env.step(int(rng.choice(env.legal_actions())))
        for agent in env.possible_agents:
            assert_within(obs_space, env.observe(agent)["observation"], f"{rules} {agent} at the end")


@pytest.mark.parametrize("scores, bags", [([-5000, 5000], [9, 0]), ([4990, -4990], [0, 9])])
def test_extreme_starting_scores_and_bags_stay_within_the_bounds(scores, bags):
    """The largest starting scores and bags reset accepts, then a hand: still inside."""
    env = spades_env.raw_env()
    assert max(abs(s) for s in scores) <= START_SCORE_TARGETS * env.rules.target_score
    env.reset(seed=0, options={"scores": scores, "bags": bags})
    space = env.observation_space("player_0")["observation"]
    rng = np.random.default_rng(0)
    while not env.episode_over:
        assert_within(space, env.observe(env.agent_selection)["observation"], "extreme start")
        env.step(int(rng.choice(env.legal_actions())))
    assert_within(space, env.observe("player_0")["observation"], "extreme start, after the hand")


def test_scores_can_go_below_zero_and_past_the_target():
    env = spades_env.raw_env()
    low, high = observation_bounds(env.rules)
    scores = OBSERVATION["scores"]
    assert (low[scores] < 0).all() and (high[scores] > 1).all()  # a score may pass the target (ties play on)
    assert score_bound(env.rules) >= env.rules.max_hands * hand_points_bound(env.rules)


def test_state_bounds_extend_the_observation_bounds():
    env = spades_env.raw_env(rules="crazy")
    low, high = observation_bounds(env.rules, STATE)
    np.testing.assert_array_equal(low[:OBSERVATION.size], env.observation_space("player_0")["observation"].low)
    np.testing.assert_array_equal(high[OBSERVATION.size:], 1.0)


def test_gymnasium_check_env_has_no_infinite_bounds_warning():
    from gymnasium.utils.env_checker import check_env

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        check_env(spades_env.SingleAgentSpadesEnv(), skip_render_check=True)
    assert not [w for w in caught if "inf" in str(w.message).lower()]
