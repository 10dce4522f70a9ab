"""Constant tables of the batch engine: bit words, board and plane layout, seat rotations.

Hands are uint64 bitboards (card ``c`` is bit ``c``). A legal-action mask is two
uint64 words: actions 0..63 and 64..89. Every table here is built once from the
core's definitions (actions, cards, bid kinds, phases); nothing is redefined.
"""

from __future__ import annotations

import numpy as np

from ..core import actions as A
from ..core.cards import CARD_SUIT, NUM_CARDS, SPADE_MASK
from ..core.hand import Phase
from ..core.ops import ARRAY
from ..core.scoring import BidKind
from ..obs.layout import MAX_BID_ONE_HOT, NUM_BID_KINDS, NUM_SLOTS

NUM_ACTIONS = A.NUM_ACTIONS
WORD_BITS = 64  # a legal-action mask is two words: actions 0..63, 64..89
LOW_WORD = (1 << WORD_BITS) - 1
LEGAL_WORDS = 2
DRAW_HIGH_WORD = np.uint64(A.DRAW_MASK >> WORD_BITS)  # the legal actions of a drawing turn (high word; low 0)
ACTIONS_PER_BYTE = 8
MASK_BYTES = -(-NUM_ACTIONS // ACTIONS_PER_BYTE)  # bytes of the legal words that hold actions (12)
if NUM_ACTIONS > LEGAL_WORDS * WORD_BITS:
    raise ValueError("a legal-action mask is two words: NUM_ACTIONS must fit in 128 bits")
MAX_SEATS = NUM_SLOTS  # per-seat arrays have one column per slot; a 3-player table leaves the last empty

U0 = np.uint64(0)
U1 = np.uint64(1)
BLIND, BID, EXCHANGE, PLAY, OVER, DRAW = (int(p) for p in Phase)
NONE, NUMBER, NIL, BLIND_NIL, TEN, BLINDBID, SKIPPED, CANCELLED = (int(k) for k in BidKind)
CODE_STRIDE = MAX_BID_ONE_HOT  # bid code = kind * CODE_STRIDE + value (one row of the bid feature table)
ZERO_CODE = NUM_BID_KINDS * CODE_STRIDE  # a bid slot that encodes as zeros (slot 3 with 3 players)

CARD_BIT = np.array([1 << c for c in range(WORD_BITS)], dtype=np.uint64)
# By action: the card's bit (0 for the other actions) and suit (0 for the other actions).
ACTION_CARD_BIT = np.array([1 << a if a < NUM_CARDS else 0 for a in range(NUM_ACTIONS)], dtype=np.uint64)
ACTION_SUIT = np.array([CARD_SUIT[a] if a < NUM_CARDS else 0 for a in range(NUM_ACTIONS)], dtype=np.intp)
SPADES = np.uint64(SPADE_MASK)
ACTION_KIND = np.array(A.BID_ACTION_KIND, np.intp)
ACTION_VALUE = np.array(A.BID_ACTION_VALUE, np.intp)
ACTION_CODE = ACTION_KIND * CODE_STRIDE + ACTION_VALUE

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


popcount = ARRAY.popcount  # cards in each bitboard


def unpack_cards(boards: np.ndarray) -> np.ndarray:
    """(..., k) uint64 boards -> (..., k, NUM_CARDS) uint8 card bits."""
    boards = np.ascontiguousarray(boards, dtype=np.uint64)
    bits = np.unpackbits(boards.view(np.uint8), bitorder="little")
    return bits.reshape(boards.shape + (WORD_BITS,))[..., :NUM_CARDS]
