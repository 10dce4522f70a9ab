"""Bold nil (strong style): the heuristic bids nil on a higher estimated risk than the classic style.

Bold nil scales the hand-written nil risk; the strong style reads the fitted model instead where it applies
(``fitted_nil``, tested in ``test_heuristic_fitted_nil.py``), so these tests switch that off."""

from __future__ import annotations

from spades_env.agents.heuristic import CLASSIC, STRONG, Style, choose_bid
from spades_env.core import actions as A
from spades_env.core import preset
from spades_env.core.cards import mask_of, parse_cards
from spades_env.core.scoring import BidKind

STD = preset("standard")
ALL_BIDS = sum(1 << (A.BID_OFFSET + b) for b in range(A.MAX_BID + 1))
# A weak hand with two risky cards (the king of diamonds, the jack of spades): a nil at the edge of the risk.
EDGE_NIL_HAND = mask_of(parse_cards("6C 8C 9C TC 2D 5D KD 4H 6H 7H QH 4S JS"))
# Seat 0 bids third: its partner (seat 2) has not bid, the opponents (seats 1 and 3) bid three each.
KINDS = [BidKind.NONE, BidKind.NUMBER, BidKind.NONE, BidKind.NUMBER]
VALUES = [0, 3, 0, 3]
HAND_WRITTEN = Style(**{**vars(STRONG), "fitted_nil": False})  # the strong style on the hand-written nil risk


def bid(style: Style, hand: int = EDGE_NIL_HAND, kinds=KINDS) -> int:
    """The bid action of seat 0 at 0-0 with no bags."""
    return choose_bid(STD, hand, ALL_BIDS, 0, kinds, VALUES, [0] * 4, [0] * 4, style=style)


def test_bold_nil_bids_nil_where_the_classic_style_bids_one():
    assert bid(CLASSIC) == A.BID_OFFSET + 1
    assert bid(HAND_WRITTEN) == A.BID_OFFSET  # nil


def test_bold_nil_is_the_switch_that_bids_the_nil():
    assert bid(Style(**{**vars(HAND_WRITTEN), "bold_nil": False})) == A.BID_OFFSET + 1


def test_bold_nil_still_no_double_nil():
    partner_nil = [BidKind.NONE, BidKind.NUMBER, BidKind.NIL, BidKind.NUMBER]
    assert bid(HAND_WRITTEN, kinds=partner_nil) != A.BID_OFFSET
    assert bid(STRONG, kinds=partner_nil) != A.BID_OFFSET


def test_bold_nil_keeps_a_strong_hand_on_a_number_bid():
    strong_hand = mask_of(parse_cards("AC KC 2C AD KD 3D AH KH 4H AS KS 5S 6S"))
    assert bid(HAND_WRITTEN, hand=strong_hand) > A.BID_OFFSET
    assert bid(STRONG, hand=strong_hand) > A.BID_OFFSET
