"""Observation bounds: finite, true for every preset, and never left by an observation or a state."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import spades_env
from spades_env.core.scoring import hand_points_bound
from spades_env.obs.bounds import START_SCORE_TARGETS, observation_bounds, score_bound, space_bounds
from spades_env.obs.layout import OBSERVATION, STATE
from tests.env.helpers import PRESET_NAMES


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
    low, high = space_bounds(env.rules, STATE)
    np.testing.assert_array_equal(low[: OBSERVATION.size], env.observation_space("player_0")["observation"].low)
    np.testing.assert_array_equal(high[OBSERVATION.size :], 1.0)


@pytest.mark.parametrize("rules", ["standard", "two_player", "crazy"])
def test_item26_gymnasium_check_env_warns_of_no_bounds(rules):
    """Issue 30, item 26: neither infinite bounds nor equal minimum and maximum values (constant entries are widened
    to the range they take across variants)."""
    from gymnasium.utils.env_checker import check_env

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        check_env(spades_env.SingleAgentSpadesEnv(rules=rules), skip_render_check=True)
    assert not [w for w in caught if "inf" in str(w.message).lower() or "are equal" in str(w.message)]


def test_space_bounds_widen_only_the_entries_constant_under_the_rules():
    rules = spades_env.load_rules("standard")
    low, high = observation_bounds(rules)
    space_low, space_high = space_bounds(rules)
    constant = low == high
    assert constant[OBSERVATION["target_score"]].all() and constant[OBSERVATION["kept"]].all()
    np.testing.assert_array_equal(space_low[~constant], low[~constant])
    np.testing.assert_array_equal(space_high[~constant], high[~constant])
    assert (space_low[constant] <= low[constant]).all() and (space_high[constant] >= high[constant]).all()
    assert (space_low < space_high).all()


@pytest.mark.parametrize("rules", PRESET_NAMES)
def test_hand_points_bound_holds_for_the_scoring_of_random_bids_and_tricks(rules):
    """core's score_hand on random bids (every kind), trick splits (Bostons too) and carried bags."""
    from spades_env.core.scoring import Bid, BidKind, ScoringError, score_hand

    game_rules = spades_env.preset(rules)
    bound = hand_points_bound(game_rules)
    rotation = range(len(game_rules.crazy)) if game_rules.crazy else []
    hands = [game_rules.hand_rules(i) for i in rotation] or [game_rules]
    kinds = [BidKind.NUMBER, BidKind.NIL, BidKind.BLIND_NIL, BidKind.TEN_FOR_200, BidKind.BLIND, BidKind.SKIPPED]
    values = {BidKind.NUMBER: range(1, 14), BidKind.BLIND: range(1, 14), BidKind.TEN_FOR_200: [10]}
    rng = np.random.default_rng(0)
    scored = 0
    for hand in hands:
        n, tricks_per_hand = hand.num_players, hand.num_tricks
        for _ in range(1000):
            bids = []
            for _ in range(n):
                kind = kinds[rng.integers(len(kinds))]
                options = values.get(kind, [0])
                bids.append(Bid(kind, int(options[rng.integers(len(options))])))
            if rng.random() < 0.3:  # one seat takes every trick
                tricks = [0] * n
                tricks[rng.integers(n)] = tricks_per_hand
            else:
                cuts = np.sort(rng.integers(0, tricks_per_hand + 1, n - 1))
                tricks = np.diff(np.concatenate([[0], cuts, [tricks_per_hand]])).tolist()
            limit = hand.bag_limit or 50
            bags = [int(rng.integers(limit)) for _ in range(hand.num_sides)]
            try:
                points = score_hand(hand, bids, tricks, bags).points
            except ScoringError:  # a combination no game reaches (e.g. a skipped seat without a partner's bid)
                continue
            assert max(abs(p) for p in points) <= bound, (hand.name, bids, tricks, bags, points)
            scored += 1
    assert scored >= 300
