"""core.explain: why an action is not legal. The mask stays the judge (None exactly when legal), and every
illegal action met in random play of every preset gets a reason naming its rule, never the catch-all."""

import random

import numpy as np
import pytest

from spades_env.core import NUM_ACTIONS, PRESETS, Game, Phase, parse_action, preset, why_illegal
from spades_env.core.cards import parse_card

from .helpers import MIXED_HANDS, hand_state, start_play, suit

CATCH_ALL = ("is not open now (legal:", "is not legal now")


def reasons_in_random_games(rules, seed, games=2, scores=None):
    """Every reason given for an illegal action at every decision of random games; asserts the mask agrees."""
    rng = random.Random(seed)
    seen = set()
    for g in range(games):
        game = Game(rules, np.random.default_rng(seed * 100 + g), scores=scores)
        while not game.over:
            hand = game.hand
            legal = hand.legal_mask()
            for action in range(NUM_ACTIONS):
                reason = why_illegal(hand, action)
                assert (reason is None) == bool((legal >> action) & 1), (action, reason)
                if reason is not None:
                    assert reason and not any(c in reason for c in CATCH_ALL), (hand.phase, action, reason)
                    seen.add(reason)
            game.apply(rng.choice(hand.legal_actions()))
    return seen


@pytest.mark.parametrize("name", sorted(PRESETS))
def test_every_illegal_action_of_random_play_gets_a_named_reason(name):
    seen = reasons_in_random_games(preset(name).replace(max_hands=2), seed=len(name), scores=None)
    assert any("not hold" in r for r in seen)


def test_the_rules_behind_the_reasons():
    standard = preset("standard")
    seen = reasons_in_random_games(standard.replace(max_hands=3), seed=1)
    assert any("follow suit" in r for r in seen)
    assert "spades are not broken: lead another suit while you hold one" in seen
    assert "you may bid at most 13 tricks" in seen
    assert "it is the bidding: make a bid, not AS" in seen
    behind = reasons_in_random_games(standard.replace(max_hands=1), seed=2, games=1, scores=[0, 200])
    assert "blind nil is open only to a side behind by at least 100 points" in behind | seen
    seen = reasons_in_random_games(preset("mirror").replace(max_hands=2), seed=3)
    assert any(r.startswith("mirror: you bid the number of spades you hold") for r in seen)
    seen = reasons_in_random_games(preset("suicide").replace(max_hands=2), seed=4)
    assert "suicide: one partner bids nil and the other a number" in seen
    seen = reasons_in_random_games(preset("openspiel").replace(max_hands=3), seed=5)
    assert "your side may bid at most 13 tricks together (max_team_bid)" in seen
    seen = reasons_in_random_games(preset("barmore").replace(max_hands=2), seed=6)
    assert "nil is not in these rules" in seen and "a blind bid is from 7 to 13 tricks" in seen
    seen = reasons_in_random_games(standard.replace(bids_may_total_tricks=False, max_hands=4), seed=7)
    assert "the last bid may not make the table's bids total the 13 tricks" in seen
    seen = reasons_in_random_games(preset("two_player").replace(max_hands=1), seed=8, games=1)
    assert any(r.startswith("it is the drawing from the stock") for r in seen)


def test_follow_suit_names_the_suit_led():
    state = start_play(preset("standard"), MIXED_HANDS, dealer=0)  # seat 1 leads
    state.apply(parse_card("AH"))
    state.apply(parse_card("3D"))
    assert state.current == 3
    assert why_illegal(state, parse_card("QS")) == "hearts were led and you hold some: follow suit"
    assert why_illegal(state, parse_card("2H")) is None
    assert why_illegal(state, parse_card("AS")) == "you do not hold AS"


def test_the_lowest_club_leads_the_first_trick_in_pagat():
    rules = preset("pagat")
    hands = [suit("C"), suit("D"), suit("H"), suit("S")]
    state = start_play(rules, hands, dealer=3)
    assert state.current == 0 and state.phase == Phase.PLAY
    assert why_illegal(state, parse_card("5C")) == "on the first trick you play your lowest club, 2C"


def test_a_blind_bid_after_the_partner_s_bid_is_named():
    game = Game(preset("barmore"), np.random.default_rng(0), dealer=3)
    state = game.hand
    for bid in ("bid 4", "bid 3"):  # seats 0 and 1 look, then bid
        assert state.phase == Phase.BLIND
        state.apply(parse_action("see cards"))
        state.apply(parse_action(bid))
    assert state.current == 2 and state.phase == Phase.BID  # the partner has bid: no blind option is left
    assert why_illegal(state, parse_action("blind 7")) == "blind 7 is not open after your partner's number bid"
    assert why_illegal(state, parse_action("see cards")) == "you have already looked at your cards"
    assert why_illegal(state, parse_action("nil")) == "nil is not in these rules"


def test_bad_inputs_are_named_and_change_nothing():
    state = hand_state(preset("standard"), [suit("C"), suit("D"), suit("H"), suit("S")], dealer=3)
    before = state.legal_mask(), list(state.history)
    for bad in (-1, NUM_ACTIONS, 1.5, "AS", None, True):
        assert "is not an action" in why_illegal(state, bad)
    assert why_illegal(state, "x" * 10_000).__len__() <= 200
    assert (state.legal_mask(), list(state.history)) == before
