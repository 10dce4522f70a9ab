"""A fitted nil risk: the chance that a nil with this hand takes a trick, from its cards and the bidding so far.

A logistic model over the features below, fitted by ``benchmarks/fit_nil_risk.py`` on simulated nils:
deals of ``standard`` where one random seat (with a trick estimate under 4) bids nil at its turn and the
strong heuristic plays every seat (its partner covers, the opponents attack). On 9,668 held-out nils its
log loss is 0.386 against 0.471 for the hand-written :func:`~.bidding.nil_risk` (calibrated on the same
data), and its AUC 0.868 against 0.788. It applies to the tables it was fitted on (:func:`fits`: four
players in partnerships, 52 cards, the deuce of spades low); other rules keep the hand-written model.

==================  =====  =====================================================================
feature             count  value
==================  =====  =====================================================================
spade by rank       13     1 if the hand holds the spade of that rank (2 .. ace)
spades              2      spades held; spades beyond three
side honours        18     for the ace, king, queen, jack, ten and nine of the side suits: how
                           many are held with 0, 1, 2+ lower cards of their suit (guards)
side shape          4      voids, singletons, suits of 5+ cards, suits of 6+ cards (side suits)
bids before mine    4      one-hot: 0, 1, 2, 3 bids already made at the table
partner             4      not bid yet; bid something other than a number (a nil); its number
                           bid; that bid is 5 or more
bias                1      1
==================  =====  =====================================================================
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from ...core.cards import NUM_RANKS, TRUMP, make_card
from ...core.rules import Rules
from ...core.scoring import BidKind
from .table import SIDE_SUITS

NUM_PLAYERS = 4  # the model's table
HONOUR_RANKS = (12, 11, 10, 9, 8, 7)  # ace, king, queen, jack, ten, nine (rank index, 2 = 0)
GUARD_CLASSES = 3  # 0, 1, 2+ lower cards in the suit
SPADES_OK = 3  # spades a nil holds before each further one counts as extra risk
LONG_SUIT, VERY_LONG_SUIT = 5, 6
STRONG_PARTNER_BID = 5
NOT_BID, OTHER_BID = -1, -2  # partner codes of the features (a number bid is its value)
NUM_FEATURES = NUM_RANKS + 2 + len(HONOUR_RANKS) * GUARD_CLASSES + 4 + NUM_PLAYERS + 4 + 1

# Fitted by ``python benchmarks/fit_nil_risk.py`` (seed 0, 60,000 deals, 48,340 nils, L2 1.0), in the
# order of ``features``.
WEIGHTS = (
    # spade by rank, 2 .. ace
    -0.930,
    -0.860,
    -0.807,
    -0.807,
    -0.717,
    -0.689,
    -0.574,
    -0.508,
    -0.409,
    -0.168,
    0.140,
    0.572,
    6.433,
    0.675,
    1.078,  # spades; spades beyond three
    # side honours: ace, king, queen, jack, ten, nine; each with 0 / 1 / 2+ guards
    4.359,
    3.056,
    0.599,
    1.658,
    1.449,
    0.352,
    1.003,
    1.148,
    0.250,
    0.720,
    0.778,
    0.116,
    0.627,
    0.581,
    0.110,
    0.463,
    0.377,
    0.047,
    -0.122,
    -0.122,
    -0.341,
    -0.307,  # voids, singletons, 5+ suits, 6+ suits
    -0.098,
    -0.246,
    -0.268,
    -0.308,  # 0, 1, 2, 3 bids before mine
    -0.344,
    1.101,
    -0.133,
    0.049,  # partner: not bid, other bid, its number, 5+
    -0.919,  # bias
)
assert len(WEIGHTS) == NUM_FEATURES


def fits(rules: Rules) -> bool:
    """Whether the fitted model applies to these rules (the pack and table it was fitted on: a partner covers)."""
    return (
        rules.num_players == NUM_PLAYERS and rules.partnerships and not rules.jokers and not rules.deuce_of_spades_high
    )


def features(hand: int, bids_before: int, partner_bid: int) -> list[float]:
    """The model's features (see the module docstring); ``partner_bid``: its number, or NOT_BID / OTHER_BID."""
    spades = [float(hand >> make_card(TRUMP, rank) & 1) for rank in range(NUM_RANKS)]
    count = sum(spades)
    honours = [0.0] * (len(HONOUR_RANKS) * GUARD_CLASSES)
    lengths = []
    for suit in SIDE_SUITS:
        ranks = [rank for rank in range(NUM_RANKS) if hand >> make_card(suit, rank) & 1]
        lengths.append(len(ranks))
        for i, honour in enumerate(HONOUR_RANKS):
            if honour in ranks:
                lower = sum(1 for rank in ranks if rank < honour)
                honours[i * GUARD_CLASSES + min(lower, GUARD_CLASSES - 1)] += 1.0
    shape = [
        sum(n == 0 for n in lengths),
        sum(n == 1 for n in lengths),
        sum(n >= LONG_SUIT for n in lengths),
        sum(n >= VERY_LONG_SUIT for n in lengths),
    ]
    seat = [float(bids_before == k) for k in range(NUM_PLAYERS)]
    number = max(partner_bid, 0)
    partner = [
        float(partner_bid == NOT_BID),
        float(partner_bid == OTHER_BID),
        float(number),
        float(number >= STRONG_PARTNER_BID),
    ]
    return spades + [count, max(count - SPADES_OK, 0.0)] + honours + [float(x) for x in shape] + seat + partner + [1.0]


def partner_code(kind: int, value: int) -> int:
    """The partner feature's code of a partner's bid so far."""
    if kind == BidKind.NONE:
        return NOT_BID
    return value if kind == BidKind.NUMBER else OTHER_BID


def bids_before(kinds: Sequence[int], me: int) -> int:
    """The bids already made at the table when seat ``me`` bids (the seat feature's count)."""
    return sum(1 for seat, kind in enumerate(kinds) if seat != me and kind != BidKind.NONE)


def fitted_nil_risk(hand: int, kinds: Sequence[int], me: int, partner: int, values: Sequence[int]) -> float:
    """The fitted chance that a nil by seat ``me`` with ``hand`` takes a trick, given the bids so far."""
    code = partner_code(kinds[partner], values[partner]) if partner >= 0 else NOT_BID
    z = sum(w * x for w, x in zip(WEIGHTS, features(hand, bids_before(kinds, me), code)))
    return 1.0 / (1.0 + math.exp(-z))
