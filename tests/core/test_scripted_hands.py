"""Whole hands from literal deals, literal bids and literal plays. Every trick winner,
trick count and score below was worked out by hand from RULES.md."""

import numpy as np

from spades_env.core import Game, Phase, make_deal, parse_action, preset, score_hand

from .helpers import ONE_SUIT_HANDS, bid_round, check_finished_hand, hand_state, play_cards, play_tricks, suit

SPADES_UP = "23456789TJQKA"


def spade_run(ranks, others):
    """Tricks led by seat 3 with the given spade ranks; seats 0, 1, 2 follow with the
    cards of ``others`` (one string of three cards per trick). Seat 3 wins each."""
    return [(3, f"{r}S {o}", 3) for r, o in zip(ranks, others)]


def finish(state, bags=(0, 0)):
    assert state.is_over
    tricks = check_finished_hand(state)  # independent replay of the whole hand
    return tricks, score_hand(state.rules, state.bids, state.tricks_won, list(bags))


def test_standard_one_suit_each_spade_holder_takes_all():
    # dealer 2: seat 3 bids first and leads; it holds only spades, so it may lead one at once
    state = hand_state(preset("standard"), ONE_SUIT_HANDS, dealer=2)
    bid_round(state, {3: "bid 13", 0: "nil", 1: "nil", 2: "nil"})
    tricks = [(3, f"{r}S {r}C {r}D {r}H", 3) for r in SPADES_UP]
    play_tricks(state, tricks)
    counts, result = finish(state)
    assert counts == [0, 0, 0, 13]
    # side 0: two made nils (+200); side 1: 13 made (+130) and a made nil (+100); a Boston
    assert result.points == (200, 230)
    assert result.bags == (0, 0)
    assert result.sides[1].boston


def test_pagat_one_suit_lowest_club_and_nil_counting_for_partner():
    # dealer 1: bids 2, 3, 0, 1; seat 0 holds 2C and leads it; seat 3 (only spades) trumps
    state = hand_state(preset("pagat"), ONE_SUIT_HANDS, dealer=1)
    bid_round(state, {2: "bid 1", 3: "nil", 0: "nil", 1: "bid 4"})
    assert state.current == 0
    play_tricks(state, [(0, "2C 2D 2H 2S", 3)])
    rest = [f"{r}C {r}D {r}H" for r in SPADES_UP[1:]]
    play_tricks(state, spade_run(SPADES_UP[1:], rest))
    counts, result = finish(state)
    assert counts == [0, 0, 0, 13]
    # side 0: nil made +50, bid 1 set -10 -> +40
    # side 1: nil failed -50; its 13 tricks count for the partner's 4: +40 + 9 bags -> -1
    assert result.points == (40, -1)
    assert result.bags == (0, 9)


def test_pagat_blind_nil_with_exchange_scripted():
    # side 0 is behind by 100: seat 0 bids blind nil, then passes AC KC to seat 2, which
    # passes back AC (just received) and 2H
    state = hand_state(preset("pagat"), ONE_SUIT_HANDS, dealer=3, scores=(0, 100))
    bid_round(state, {0: "blind nil", 1: "bid 5", 2: "bid 3", 3: "bid 4"})
    assert state.phase == Phase.EXCHANGE
    play_cards(state, "AC KC AC 2H")
    # first trick: seat 0 leads 2C, seat 1 discards, seat 2 must play its lowest (only) club
    play_tricks(state, [(0, "2C 2D KC 2S", 3)])
    seat0 = ["3C", "4C", "5C", "6C", "7C", "8C", "9C", "TC", "JC", "QC", "AC", "2H"]
    seat1 = [f"{r}D" for r in SPADES_UP[1:]]
    seat2 = [f"{r}H" for r in SPADES_UP[1:]]
    rest = [f"{a} {b} {c}" for a, b, c in zip(seat0, seat1, seat2)]
    play_tricks(state, spade_run(SPADES_UP[1:], rest))
    counts, result = finish(state)
    assert counts == [0, 0, 0, 13]
    # side 0: blind nil made +100 (2 x 50), bid 3 set -30 -> +70; side 1: 9 bid, 13 taken -> +94
    assert result.points == (70, 94)
    assert result.bags == (0, 4)
    assert result.nil_made[0] is True


JOKER_HANDS = [suit("C", "3456789TJQKA") + " LJ", suit("D"), suit("H", "3456789TJQKA") + " BJ", suit("S")]


def test_jokers_one_suit_big_joker_beats_little_joker_and_deuce():
    state = hand_state(preset("jokers"), JOKER_HANDS, dealer=0)
    bid_round(state, {1: "nil", 2: "bid 1", 3: "bid 12", 0: "nil"})
    play_tricks(
        state,
        [
            (1, "AD BJ 2S LJ", 2),  # every player but the leader is void: BJ > LJ > 2S
            (2, "AH 3S 3C 2D", 3),
        ],
    )
    clubs = "456789TJQKA"
    rest = [f"{c}C {d}D {h}H" for c, d, h in zip(clubs, "3456789TJQK", "3456789TJQK")]
    play_tricks(state, spade_run(SPADES_UP[2:], rest))
    counts, result = finish(state)
    assert counts == [0, 0, 1, 12]
    # side 0: nil made +100, bid 1 made exactly +10; side 1: nil made +100, 12 made +120
    assert result.points == (110, 220)
    assert result.bags == (0, 0)


# A realistic deal (dealer 0; seat 1 leads). Every card's trick is listed below.
REALISTIC_HANDS = [
    "2C 4C 9C JC 5D 8D 9D TD QD 3H 4S 6S KS",
    "5C 6C 7C AC 3D 6D KD 4H 8H TH JH 5S 7S",
    "3C 2D 4D 6H 7H 9H KH AH 2S 8S 9S JS AS",
    "8C TC QC KC 7D JD AD 2H 5H QH 3S TS QS",
]
REALISTIC_TRICKS = [
    (1, "AC 3C KC 2C", 1),
    (1, "KD 2D AD 5D", 3),
    (3, "QC 4C 5C 2S", 2),  # seat 2, void in clubs, trumps: spades broken
    (2, "AS 3S 4S 5S", 2),
    (2, "AH 2H 3H 4H", 2),
    (2, "KH 5H 6S 8H", 0),  # seat 0, void in hearts, trumps
    (0, "QD 3D 4D JD", 0),
    (0, "KS 7S 8S QS", 0),
    (0, "JC 6C 6H TC", 0),  # seat 2 discards a heart: no trump, the jack of clubs wins
    (0, "9C 7C 7H 8C", 0),
    (0, "TD 6D 9S 7D", 2),
    (2, "JS TS 8D TH", 2),
    (2, "9H QH 9D JH", 3),
]


def test_standard_realistic_hand():
    state = hand_state(preset("standard"), REALISTIC_HANDS, dealer=0)
    bid_round(state, {1: "nil", 2: "bid 4", 3: "bid 3", 0: "bid 4"})
    play_tricks(state, REALISTIC_TRICKS)
    counts, result = finish(state)
    assert counts == [5, 1, 5, 2]
    # side 0: contract 8, 10 taken: +82, 2 bags
    # side 1: nil failed with 1 trick (-100, +1 as a bag), contract 3 with 2 taken: -30
    assert result.points == (82, -129)
    assert result.bags == (2, 1)


# The realistic deal with seat 0's 9C and seat 1's 7C swapped: seat 1 now wins the tenth
# trick and leads the eleventh, which seat 2 still trumps.
OPENSPIEL_HANDS = [
    "2C 4C 7C JC 5D 8D 9D TD QD 3H 4S 6S KS",
    "5C 6C 9C AC 3D 6D KD 4H 8H TH JH 5S 7S",
    REALISTIC_HANDS[2],
    REALISTIC_HANDS[3],
]
OPENSPIEL_TRICKS = REALISTIC_TRICKS[:9] + [
    (0, "7C 9C 7H 8C", 1),
    (1, "6D 9S 7D TD", 2),
    (2, "JS TS 8D TH", 2),
    (2, "9H QH 9D JH", 3),
]


def test_openspiel_vector_3_through_the_game_with_carried_score_and_bags():
    """Bids 3,3,3,2 and tricks 4,2,5,2 from a score of 99 with 9 bags: -37 -> 62, 2 bags."""
    rules = preset("openspiel")
    game = Game(
        rules,
        np.random.default_rng(0),
        dealer=0,
        scores=[99, 20],
        bags=[9, 3],
        deals=[make_deal(rules, OPENSPIEL_HANDS)],
    )
    hand = game.hand
    bid_round(hand, {1: "bid 3", 2: "bid 3", 3: "bid 2", 0: "bid 3"})
    for leader, cards, winner in OPENSPIEL_TRICKS[:-1]:
        play_tricks(hand, [(leader, cards, winner)])
    *first, last = OPENSPIEL_TRICKS[-1][1].split()
    for card in first:
        assert game.apply(parse_action(card)) is None
    result = game.apply(parse_action(last))
    assert result is not None
    assert result.tricks == (4, 2, 5, 2)
    assert result.points == (-37, -50)  # side 1: contract 5, 4 taken
    assert result.scores == (62, -30)
    assert result.bags == (2, 3)
    assert game.scores == [62, -30] and game.bags == [2, 3]
    assert check_finished_hand(hand) == [4, 2, 5, 2]
