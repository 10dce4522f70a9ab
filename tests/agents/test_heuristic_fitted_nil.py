"""Fitted nil risk (strong style, ``fitted_nil``): the nil decision reads the logistic model of
``heuristic.nil_model`` where it applies (four players in partnerships, 52 cards, the deuce low)."""

from __future__ import annotations

import numpy as np
import pytest

from spades_env.agents.heuristic import STRONG, Style, choose_bid
from spades_env.agents.heuristic.nil_model import NUM_FEATURES, WEIGHTS, features, fits, fitted_nil_risk
from spades_env.core import actions as A
from spades_env.core import preset
from spades_env.core.cards import NUM_CARDS, NUM_STANDARD_CARDS, mask_of, parse_cards
from spades_env.core.scoring import BidKind

STD = preset("standard")
ALL_BIDS = sum(1 << (A.BID_OFFSET + b) for b in range(A.MAX_BID + 1))
# Seat 0 bids third: its partner (seat 2) has not bid, the opponents (seats 1 and 3) bid three each.
KINDS = [BidKind.NONE, BidKind.NUMBER, BidKind.NONE, BidKind.NUMBER]
VALUES = [0, 3, 0, 3]
HAND_WRITTEN = Style(**{**vars(STRONG), "fitted_nil": False})


def bid(style: Style, hand: int, rules=STD, kinds=KINDS) -> int:
    """The bid action of seat 0 at 0-0 with no bags."""
    return choose_bid(rules, hand, ALL_BIDS, 0, kinds, VALUES, [0] * 4, [0] * 4, style=style)


def risk(cards: str) -> float:
    return fitted_nil_risk(mask_of(parse_cards(cards)), KINDS, 0, 2, VALUES)


@pytest.mark.parametrize(
    "cards, low, high",
    [
        ("2C 3C 4C 2D 3D 4D 5D 2H 3H 4H 5H 2S 3S", 0.0, 0.3),  # nothing above a five
        ("2C 3C 4C 2D 3D 4D 5D 2H 3H 4H 5H 2S KS", 0.2, 0.6),  # the king of spades, one small guard
        ("2C 3C 4C 2D 3D 4D 5D 2H 3H 4H 5H 2S AS", 0.95, 1.0),  # the ace of spades always takes a trick
        ("AC KC 2C AD KD 3D AH KH 4H AS KS 5S 6S", 0.99, 1.0),  # a 10-for-200 hand
    ],
)
def test_fitted_nil_risk_by_hand(cards, low, high):
    assert low <= risk(cards) <= high


def test_every_high_card_added_raises_the_risk():
    base = "2C 3C 4C 2D 3D 4D 5D 2H 3H 4H 5H 2S 3S"
    for swap in ("5H AH", "5D AD", "3S QS"):
        old, new = swap.split()
        assert risk(base.replace(old, new)) > risk(base), swap


def test_weights_match_the_features():
    assert len(WEIGHTS) == NUM_FEATURES == len(features(0, 0, -1))


def test_fitted_nil_is_the_switch_that_bids_this_nil():
    hand = mask_of(parse_cards("3C 5C 9C TC 5D 8D TD 4H 5H 6H 7H 8S QS"))  # fitted risk 0.41
    assert bid(STRONG, hand) == A.BID_OFFSET
    assert bid(HAND_WRITTEN, hand) > A.BID_OFFSET


def test_fitted_nil_is_the_switch_that_keeps_this_hand_on_a_number():
    hand = mask_of(parse_cards("4C JC QC 8D TD QD 2H 4H 7H 8H 4S 6S 7S"))  # fitted risk 0.53
    assert bid(STRONG, hand) > A.BID_OFFSET
    assert bid(HAND_WRITTEN, hand) == A.BID_OFFSET


def test_no_double_nil_with_the_fitted_model():
    hand = mask_of(parse_cards("2C 3C 4C 2D 3D 4D 5D 2H 3H 4H 5H 2S 3S"))
    partner_nil = [BidKind.NONE, BidKind.NUMBER, BidKind.NIL, BidKind.NUMBER]
    assert bid(STRONG, hand) == A.BID_OFFSET
    assert bid(STRONG, hand, kinds=partner_nil) != A.BID_OFFSET


@pytest.mark.parametrize(
    "name, applies",
    [
        ("standard", True),
        ("pagat", True),
        ("suicide", True),
        ("jokers", False),
        ("barmore", False),
        ("cutthroat", False),
        ("cutthroat3", False),
    ],
)
def test_fits_only_the_tables_it_was_fitted_on(name, applies):
    assert fits(preset(name)) is applies


@pytest.mark.parametrize("name", ["jokers", "cutthroat"])
def test_elsewhere_the_strong_style_keeps_the_hand_written_risk(name):
    rules = preset(name)
    rng = np.random.default_rng(5)
    pack = NUM_CARDS if rules.jokers else NUM_STANDARD_CARDS
    kinds = [BidKind.NONE] * 4
    nils = 0
    for _ in range(300):
        hand = sum(1 << int(c) for c in rng.permutation(pack)[: rules.hand_size])
        action = bid(STRONG, hand, rules, kinds)
        assert action == bid(HAND_WRITTEN, hand, rules, kinds)
        nils += action == A.BID_OFFSET
    assert nils  # some of these hands bid nil: the comparison covers the nil decision
