"""The per-side tally of a hand: which tricks count toward the exact-bid rate, and which bids a seat made.

Each row is a finished hand scored by the core; the expected counts are worked out by hand from the
rules (RULES.md section 5): a nil bidder's tricks count toward its side's contract only with
``nil_tricks_count_for_partner``; a blind bid or 10 for 200 is the side's one contract, which every
trick of the side counts toward; a skipped or cancelled bid is no bid of the seat.
"""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from spades_env.core import BidKind, preset, score_hand
from spades_env.core.scoring import Bid
from spades_env.evaluation import tally_hand

NIL_FOR_SIDE = preset("standard").replace(nil_tricks_count_for_partner=True)
NIL_ALONE = preset("standard").replace(nil_tricks_count_for_partner=False)
SIDE_BIDS = preset("standard").replace(ten_for_200=True, blind_bids=True)

N, NIL, BLIND_NIL, BLIND, TEN, SKIP, CANCEL = (
    BidKind.NUMBER,
    BidKind.NIL,
    BidKind.BLIND_NIL,
    BidKind.BLIND,
    BidKind.TEN_FOR_200,
    BidKind.SKIPPED,
    BidKind.CANCELLED,
)

FIELDS = (
    "contracts",
    "sets",
    "exact",
    "bid_sum",
    "seat_bids",
    "seat_bid_sum",
    "nil_bids",
    "nil_made",
    "blind_nil_bids",
    "blind_nil_made",
)

# (id, rules, bids per seat as (kind, value), tricks per seat, side 0's expected FIELDS)
CASES = [
    # Seat 0's failed nil took 2 tricks; seat 2 bid 4 and took 4: only the 4 count, so the bid is exact.
    (
        "failed nil not counted when nil tricks are the nil bidder's own",
        NIL_ALONE,
        [(NIL, 0), (N, 4), (N, 4), (N, 3)],
        [2, 4, 4, 3],
        (1, 0, 1, 4, 1, 4, 1, 0, 0, 0),
    ),
    # The same hand with 3 nil tricks: still exact (they are bags of the nil, not overtricks).
    (
        "failed nil's extra tricks are no overtricks of the partner",
        NIL_ALONE,
        [(NIL, 0), (N, 4), (N, 4), (N, 2)],
        [3, 4, 4, 2],
        (1, 0, 1, 4, 1, 4, 1, 0, 0, 0),
    ),
    # The partner took 2 of its 4 and the failed nil 2: with the option on they make exactly 4.
    (
        "failed nil counted for the partner with the option on",
        NIL_FOR_SIDE,
        [(NIL, 0), (N, 4), (N, 4), (N, 5)],
        [2, 4, 2, 5],
        (1, 0, 1, 4, 1, 4, 1, 0, 0, 0),
    ),
    # Option on, 2 + 3 tricks against a contract of 4: made with an overtrick, not exact.
    (
        "failed nil's tricks are overtricks with the option on",
        NIL_FOR_SIDE,
        [(NIL, 0), (N, 4), (N, 4), (N, 4)],
        [3, 4, 2, 4],
        (1, 0, 0, 4, 1, 4, 1, 0, 0, 0),
    ),
    # Option off, partner 2 of its 4 with the nil's 2 beside it: set, not exact.
    (
        "failed nil does not rescue the partner with the option off",
        NIL_ALONE,
        [(NIL, 0), (N, 4), (N, 4), (N, 5)],
        [2, 4, 2, 5],
        (1, 1, 0, 4, 1, 4, 1, 0, 0, 0),
    ),
    # A made blind nil (no trick) beside an exact 5.
    (
        "made blind nil beside an exact bid",
        NIL_ALONE,
        [(BLIND_NIL, 0), (N, 4), (N, 5), (N, 4)],
        [0, 4, 5, 4],
        (1, 0, 1, 5, 1, 5, 0, 0, 1, 1),
    ),
    # Blind 7 for the side: the bidder's 4 and the skipped partner's 3 make exactly 7.
    (
        "blind bid counts every trick of the side",
        SIDE_BIDS,
        [(BLIND, 7), (N, 3), (SKIP, 0), (N, 3)],
        [4, 3, 3, 3],
        (1, 0, 1, 7, 1, 7, 0, 0, 0, 0),
    ),
    # The partner made the blind bid (listed second in the side): the same count.
    (
        "blind bid by the second seat of the side",
        SIDE_BIDS,
        [(SKIP, 0), (N, 3), (BLIND, 7), (N, 3)],
        [3, 3, 4, 3],
        (1, 0, 1, 7, 1, 7, 0, 0, 0, 0),
    ),
    # Blind 7 with 8 tricks: made, an overtrick, not exact.
    (
        "blind bid with an overtrick is not exact",
        SIDE_BIDS,
        [(BLIND, 7), (N, 3), (SKIP, 0), (N, 2)],
        [5, 3, 3, 2],
        (1, 0, 0, 7, 1, 7, 0, 0, 0, 0),
    ),
    # 10 for 200 cancelling the partner's earlier 3: 6 + 4 = 10, exact; the cancelled 3 is no seat bid.
    (
        "10 for 200 counts every trick of the side",
        SIDE_BIDS,
        [(TEN, 10), (N, 2), (CANCEL, 3), (N, 1)],
        [6, 2, 4, 1],
        (1, 0, 1, 10, 1, 10, 0, 0, 0, 0),
    ),
    # 10 for 200 with 9 tricks: set.
    (
        "10 for 200 with nine tricks is set",
        SIDE_BIDS,
        [(SKIP, 0), (N, 2), (TEN, 10), (N, 2)],
        [4, 2, 5, 2],
        (1, 1, 0, 10, 1, 10, 0, 0, 0, 0),
    ),
    # 10 for 200 with 11 tricks: made, not exact.
    (
        "10 for 200 with eleven tricks is not exact",
        SIDE_BIDS,
        [(TEN, 10), (N, 1), (SKIP, 0), (N, 1)],
        [6, 1, 5, 1],
        (1, 0, 0, 10, 1, 10, 0, 0, 0, 0),
    ),
]


def finished_hand(rules, bids, tricks) -> SimpleNamespace:
    """A finished hand as the tally reads it: bids, tricks and the core's scoring."""
    bids = tuple(Bid(kind, value) for kind, value in bids)
    return SimpleNamespace(bids=bids, tricks=tuple(tricks), score=score_hand(rules, bids, tricks, [0, 0]))


@pytest.mark.parametrize("rules,bids,tricks,expected", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_exact_bid_tally_counts_only_the_tricks_toward_the_contract(rules, bids, tricks, expected):
    tally = tally_hand(rules, finished_hand(rules, bids, tricks), 0).to_dict()
    assert tuple(tally[f] for f in FIELDS) == expected


def test_the_nil_option_changes_the_exact_bid_tally_of_the_same_hand():
    bids, tricks = [(NIL, 0), (N, 4), (N, 4), (N, 3)], [2, 4, 4, 3]
    alone = tally_hand(NIL_ALONE, finished_hand(NIL_ALONE, bids, tricks), 0)
    for_side = tally_hand(NIL_FOR_SIDE, finished_hand(NIL_FOR_SIDE, bids, tricks), 0)
    assert (alone.exact, for_side.exact) == (1, 0)  # 4 counted of 4, or 6 counted of 4
