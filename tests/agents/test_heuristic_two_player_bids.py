"""The heuristic's two-player bids (style ``two_player_bids``) and the PIMC agent's model of them."""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np
import pytest

from spades_env.agents.heuristic import CLASSIC, STRONG, choose_bid, estimate_tricks
from spades_env.agents.heuristic.bidding import TWO_PLAYER_BIAS, two_player_tricks
from spades_env.agents.pimc import bid_weight
from spades_env.core import actions as A
from spades_env.core import preset
from spades_env.core.cards import deck, parse_cards
from spades_env.core.scoring import BidKind

TWO = preset("two_player")
NONE, NUMBER = BidKind.NONE, BidKind.NUMBER
ANY_BID = sum(1 << (A.BID_OFFSET + b) for b in range(A.MAX_BID + 1))
NO_SWITCH = replace(STRONG, two_player_bids=False)
ALL_SPADES = "AS KS QS JS TS 9S 8S 7S 6S 5S 4S 3S 2S"
MIDDLING = "KH QH 4H KD 5D 3D KC 7C 2C 9S 6S 4S 3S"  # four-player estimate 2.69
NIL_HAND = "2H 3H 5H 2D 4D 6D 2C 3C 5C 7C 2S 3S 4S"  # nil risk 0.33


def board(text: str) -> int:
    return sum(1 << c for c in parse_cards(text))


def bid(hand: str, first_bid: int | None = None, style=STRONG, gone: str = "", rules=TWO) -> int:
    """The bid (tricks; 0 is nil) of slot 0, bidding first or after the other's number bid."""
    kinds = [NONE, NONE if first_bid is None else NUMBER]
    values = [0, first_bid or 0]
    action = choose_bid(
        rules, board(hand), ANY_BID, 0, kinds, values, [0, 0], [0, 0], style=style, gone=board(gone) if gone else 0
    )
    return action - A.BID_OFFSET


# Hand-computed from the fitted model: floor(a + b * estimate [+ c * first bid] - 0.5).
@pytest.mark.parametrize(
    "hand, first_bid, expected",
    [
        (ALL_SPADES, None, 11),  # 0.893 + 0.883 * 13 - 0.5 = 11.87
        (ALL_SPADES, 1, 12),  # 6.136 + 0.545 * 13 - 0.512 - 0.5 = 12.21
        (MIDDLING, None, 2),  # 0.893 + 0.883 * 2.69 - 0.5 = 2.77
        (MIDDLING, 1, 6),  # 6.136 + 0.545 * 2.69 - 0.512 - 0.5 = 6.59
        (MIDDLING, 4, 5),  # ... - 4 * 0.512 = 5.05
        (MIDDLING, 9, 2),  # ... - 9 * 0.512 = 2.49
    ],
)
def test_two_player_bids_follow_the_fitted_model(hand, first_bid, expected):
    assert estimate_tricks(board(MIDDLING), TWO) == pytest.approx(2.69)
    assert bid(hand, first_bid) == expected


def test_the_second_bid_falls_as_the_first_bid_rises():
    bids = [bid(MIDDLING, first) for first in range(1, 11)]
    assert bids == sorted(bids, reverse=True) and bids[0] > bids[-1]


def test_the_discards_seen_raise_the_bid_past_the_cards_they_promote():
    assert bid(MIDDLING) == 2
    assert bid(MIDDLING, gone="AH") == 3  # the king of hearts is the top heart: 0.893 + 0.883 * 3.39 - 0.5
    assert two_player_tricks(board(MIDDLING), TWO, board("AH")) > two_player_tricks(board(MIDDLING), TWO)


def test_two_players_bid_nil_only_on_a_very_safe_hand():
    assert bid(NIL_HAND, style=NO_SWITCH) == 0  # the four-player nil model would bid nil
    assert bid(NIL_HAND) == 1  # two-player nils at such risks were made about one time in eight


def test_the_switch_changes_no_bid_with_three_or_four_players():
    rng = np.random.default_rng(0)
    for name in ("standard", "cutthroat", "cutthroat3"):
        rules = preset(name)
        n = rules.num_players
        cards = deck(rules.jokers)
        for _ in range(150):
            hand = sum(1 << int(c) for c in rng.choice(cards, rules.hand_size, replace=False))
            kinds = [NONE] * n
            values = [0] * n
            for seat in range(1, n):  # some bids already made
                if rng.random() < 0.5:
                    kinds[seat], values[seat] = NUMBER, int(rng.integers(1, 6))
            args = (rules, hand, ANY_BID, 0, kinds, values, [0] * n, [0] * n)
            assert choose_bid(*args, style=STRONG) == choose_bid(*args, style=NO_SWITCH)
            assert choose_bid(*args, style=replace(CLASSIC, two_player_bids=True)) == choose_bid(*args, style=CLASSIC)


def test_pimc_models_the_other_players_bid_with_the_two_player_model():
    hands = [0, board(MIDDLING)]
    first = two_player_tricks(hands[1], TWO) + TWO_PLAYER_BIAS - 0.5  # the other bid first (slot 0 deals)
    second = two_player_tricks(hands[1], TWO, 0, 4) + TWO_PLAYER_BIAS - 0.5  # after slot 0's bid of 4

    def weight(value: int, dealer: int) -> float:
        return bid_weight(TWO, hands, [NUMBER, NUMBER], [4, value], dealer=dealer)

    assert weight(2, dealer=0) == pytest.approx(math.exp(-0.5 * (first - 2) ** 2))
    assert weight(4, dealer=1) == pytest.approx(math.exp(-0.5 * (second - 4) ** 2))
    assert max(range(1, 13), key=lambda v: weight(v, 0)) == round(first)
    assert max(range(1, 13), key=lambda v: weight(v, 1)) == round(second)
