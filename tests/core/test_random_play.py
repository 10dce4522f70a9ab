"""Random play under every preset, and property tests checked against an independent
replay of each hand (helpers.check_finished_hand)."""

import random

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from spades_env.core import PRESETS, Game, HandState, Phase, deal_cards, preset, score_hand

from .helpers import check_finished_hand, play_random_game

PRESET_NAMES = sorted(PRESETS)


def _scores_for(rules, pick):
    """Scores before a hand: often level, sometimes one side far behind (blind nil)."""
    sides = rules.num_sides
    kind = pick.randrange(3)
    if kind == 0:
        return None
    scores = [pick.choice((0, 50, 120, 300)) for _ in range(sides)]
    scores[pick.randrange(sides)] -= 150 if kind == 1 else 0
    return scores


@pytest.mark.parametrize("name", PRESET_NAMES)
def test_one_thousand_random_hands(name):
    base = preset(name)
    pick = random.Random(name)
    rng = np.random.default_rng(sum(map(ord, name)))
    phases = set()
    for i in range(1000):
        rules = base.hand_rules(i)
        dealer = i % rules.num_players
        state = HandState(rules, deal_cards(rules, rng, dealer), dealer, _scores_for(rules, pick))
        while not state.is_over:
            phases.add(state.phase)
            legal = state.legal_actions()
            assert legal, f"no legal action in phase {state.phase!r}"
            state.apply(pick.choice(legal))
        assert sum(state.tricks_won) == rules.num_tricks
        assert state.legal_mask() == 0
        score = score_hand(rules, state.bids, state.tricks_won, [0] * rules.num_sides)
        assert len(score.sides) == rules.num_sides
        if i % 5 == 0:
            check_finished_hand(state)
    assert {Phase.BID, Phase.PLAY} <= phases
    if base.blind_nil and base.blind_nil_exchange:
        assert Phase.EXCHANGE in phases
    if base.blind_nil or base.blind_bids:
        assert Phase.BLIND in phases


@pytest.mark.parametrize("name", PRESET_NAMES)
def test_random_games_short_and_under_the_real_rules(name):
    short = preset(name).replace(max_hands=6)
    for seed in range(24):
        game = Game(short, np.random.default_rng(seed))
        play_random_game(game, seed)
        assert game.over
        assert len(game.results) <= 6
        assert (game.winner is None) == game.truncated
    for seed in range(3):  # whole games under the preset's own rules (target 500, 100 hands)
        game = Game(preset(name), np.random.default_rng(1000 + seed))
        play_random_game(game, seed)
        assert game.over
        if game.winner is not None:
            best = max(game.scores)
            assert game.scores[game.winner] == best and game.scores.count(best) == 1
            assert best >= preset(name).target_score or min(game.scores) <= (preset(name).lose_score or -(10**9))
        else:
            assert len(game.results) == preset(name).max_hands


def _check_game(name: str, seed: int, max_hands: int) -> int:
    rules = preset(name).replace(max_hands=max_hands)
    assert rules.bag_value == 1 and rules.boston_bonus == 0 and rules.bag_penalty % 10 == 0
    game = Game(rules, np.random.default_rng(seed))
    pick = random.Random(seed)
    hands = 0
    while not game.over:
        hand = game.hand
        hand_rules = hand.rules
        assert hand_rules.nil_value % 10 == 0 and hand_rules.blind_nil_points % 10 == 0
        result = game.apply(pick.choice(hand.legal_actions()))
        if result is None:
            continue
        hands += 1
        tricks = check_finished_hand(hand)  # cards, follow suit, leads, winners, trick counts
        assert list(result.tricks) == tricks
        assert sum(tricks) == hand_rules.num_tricks
        for score, bags in zip(result.scores, result.bags):
            assert (score - bags) % 10 == 0, (result.scores, result.bags)
            assert 0 <= bags < hand_rules.bag_limit
    return hands


@settings(max_examples=150, deadline=None)
@given(name=st.sampled_from(PRESET_NAMES), seed=st.integers(0, 2**32 - 1))
def test_property_random_games_obey_the_rules(name, seed):
    assert _check_game(name, seed, max_hands=3) >= 1


@pytest.mark.parametrize("name", ["pagat", "jokers", "barmore", "cutthroat3"])
@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_property_per_preset(name, seed):
    """A few presets with unusual play rules get examples of their own."""
    assert _check_game(name, seed, max_hands=2) >= 1


@pytest.mark.slow
@pytest.mark.parametrize("name", PRESET_NAMES)
def test_many_random_games_slow(name):
    for seed in range(60):
        _check_game(name, seed, max_hands=100)
