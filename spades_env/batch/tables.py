"""Constant tables of the batch engine: bit words, board and plane layout, seat rotations.

Hands are uint64 bitboards (card ``c`` is bit ``c``). A legal-action mask is two
uint64 words: actions 0..63 and 64..87. Every table here is built once from the
core's definitions (actions, cards, bid kinds, phases); nothing is redefined.
"""

from __future__ import annotations

import numpy as np

from ..core import actions as A
from ..core.cards import CARD_SUIT, NON_SPADE_MASK, NUM_CARDS, SPADE_MASK, SUIT_MASKS
from ..core.hand import CLUB_MASK, RED_MASK, Phase
from ..core.rules import TEN_FOR_200_TRICKS
from ..core.scoring import BidKind
from ..layout import MAX_BID_ONE_HOT, NUM_BID_KINDS, NUM_SLOTS

NUM_ACTIONS = A.NUM_ACTIONS
WORD_BITS = 64  # a legal-action mask is two words: actions 0..63, 64..87
LOW_WORD = (1 << WORD_BITS) - 1
LEGAL_WORDS = 2
ACTIONS_PER_BYTE = 8
MASK_BYTES = NUM_ACTIONS // ACTIONS_PER_BYTE  # bytes of the legal words that hold actions (11)
if NUM_ACTIONS % ACTIONS_PER_BYTE:
    raise ValueError("the int8 masks unpack whole bytes of the legal words: NUM_ACTIONS must be a multiple of 8")
MAX_SEATS = NUM_SLOTS  # per-seat arrays have one column per slot; a 3-player table leaves the last empty

U0 = np.uint64(0)
U1 = np.uint64(1)
BLIND, BID, EXCHANGE, PLAY, OVER = (int(p) for p in Phase)
NONE, NUMBER, NIL, BLIND_NIL, TEN, BLINDBID, SKIPPED, CANCELLED = (int(k) for k in BidKind)
CODE_STRIDE = MAX_BID_ONE_HOT  # bid code = kind * CODE_STRIDE + value (one row of the bid feature table)
ZERO_CODE = NUM_BID_KINDS * CODE_STRIDE  # a bid slot that encodes as zeros (slot 3 with 3 players)

CARD_BIT = np.array([1 << c for c in range(WORD_BITS)], dtype=np.uint64)
# By action: the card's bit (0 for the other actions) and suit (0 for the other actions).
ACTION_CARD_BIT = np.array([1 << a if a < NUM_CARDS else 0 for a in range(NUM_ACTIONS)], dtype=np.uint64)
ACTION_SUIT = np.array([CARD_SUIT[a] if a < NUM_CARDS else 0 for a in range(NUM_ACTIONS)], dtype=np.intp)
SPADES = np.uint64(SPADE_MASK)
# PLAY_FILTER[row]: the cards a seat must play if it holds any: rows 0..3 follow the suit led, then
# LEAD_ROW leads before spades are broken (no spade), LEAD_ROW + 1 leads freely (core rule:
# HandState.legal_mask; a seat holding none of the filtered cards may play any card).
LEAD_ROW = len(SUIT_MASKS)
PLAY_FILTER = np.array(list(SUIT_MASKS) + [NON_SPADE_MASK, LOW_WORD], dtype=np.uint64)
CLUBS = np.uint64(CLUB_MASK)
REDS = np.uint64(RED_MASK)


def split(mask: int) -> tuple[int, int]:
    """A legal-action bitmask as two uint64 words: actions 0..63 and 64..87."""
    return mask & LOW_WORD, mask >> WORD_BITS


def high_bit(action: int) -> np.uint64:
    """The high-word bit of an action of 64 or more."""
    if action < WORD_BITS:
        raise ValueError(f"action {action} is in the low word")
    return np.uint64(1 << (action - WORD_BITS))


BLIND_NIL_HI = high_bit(A.BLIND_NIL)
SEE_HI = high_bit(A.SEE_CARDS)
TEN_HI = high_bit(A.TEN_FOR_200)


def _range_tables() -> tuple[np.ndarray, np.ndarray]:
    """RANGE[low, high + 1]: the (lo, hi) words of the bids low..high (none if high < low)."""
    lo = np.zeros((A.MAX_BID + 1, A.MAX_BID + 2), np.uint64)
    hi = np.zeros_like(lo)
    for low in range(A.MAX_BID + 1):
        for high in range(-1, A.MAX_BID + 1):
            lo[low, high + 1], hi[low, high + 1] = split(A.bid_range_mask(low, high))
    return lo, hi


RANGE_LO, RANGE_HI = _range_tables()
BID_LO = np.array([split(1 << A.bid_action(b))[0] for b in range(A.MAX_BID + 1)], np.uint64)
BID_HI = np.array([split(1 << A.bid_action(b))[1] for b in range(A.MAX_BID + 1)], np.uint64)
BLINDBID_HI = np.array([0] + [split(1 << A.blind_bid_action(b))[1] for b in range(1, A.MAX_BLIND_BID + 1)],
                       np.uint64)
ACTION_KIND = np.array(A.BID_ACTION_KIND, np.intp)
ACTION_VALUE = np.array(A.BID_ACTION_VALUE, np.intp)
ACTION_CODE = ACTION_KIND * CODE_STRIDE + ACTION_VALUE
IS_NIL = np.array([k in (NIL, BLIND_NIL) for k in range(NUM_BID_KINDS)], bool)
SIDE_BID_TRICKS = TEN_FOR_200_TRICKS

# Per-table bitboards: seat s holds BOARDS_PER_SEAT boards at s * BOARDS_PER_SEAT + (hand, trick, start,
# passed, received), where start is the hand the seat held when play began (so the cards it played are
# start ^ hand); the last board stays empty (a hidden hand).
HAND_B, TRICK_B, START_B, PASSED_B, RECEIVED_B = range(5)
BOARDS_PER_SEAT = 5
EMPTY_BOARD = MAX_SEATS * BOARDS_PER_SEAT
BOARDS = EMPTY_BOARD + 1
HAND_COLS = np.arange(MAX_SEATS) * BOARDS_PER_SEAT + HAND_B
TRICK_COLS = np.arange(MAX_SEATS) * BOARDS_PER_SEAT + TRICK_B
# Per-table, per-seat integers: planes of MAX_SEATS seats.
LOOKED, KIND, VALUE, CODE, WON = range(5)
SEAT_PLANES = 5
SEAT_W = SEAT_PLANES * MAX_SEATS


if hasattr(np, "bitwise_count"):
    def popcount(x: np.ndarray) -> np.ndarray:
        """Cards in each bitboard."""
        return np.bitwise_count(x).astype(np.intp)
else:  # pragma: no cover - numpy < 2.0
    _POP8 = np.array([bin(i).count("1") for i in range(256)], np.intp)

    def popcount(x: np.ndarray) -> np.ndarray:
        """Cards in each bitboard."""
        x = np.ascontiguousarray(x, dtype=np.uint64)
        return _POP8[x.view(np.uint8).reshape(x.shape + (8,))].sum(-1)


def lowbit(x: np.ndarray) -> np.ndarray:
    """The lowest card of each bitboard (0 for an empty one)."""
    return x & (~x + U1)


def unpack_cards(boards: np.ndarray) -> np.ndarray:
    """(..., k) uint64 boards -> (..., k, NUM_CARDS) uint8 card bits."""
    boards = np.ascontiguousarray(boards, dtype=np.uint64)
    bits = np.unpackbits(boards.view(np.uint8), bitorder="little")
    return bits.reshape(boards.shape + (WORD_BITS,))[..., :NUM_CARDS]
