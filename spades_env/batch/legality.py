"""Legal actions of every table, as two uint64 words (actions 0..63 and 64..87).

The rules are the core's, called on arrays (``core.ops.ARRAY``): the legal
cards of :mod:`spades_env.core.card_play` at every table, then the legal bids
of :mod:`spades_env.core.bidding` and the exchange's pass (any card held) on
the tables in those phases. Nothing here states a rule: this module gathers
each table's inputs and writes the words.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ..core import actions as A
from ..core.bidding import bid_context, decides_blind, legal_bids, partner_bid, reads_partner, reads_partner_value
from ..core.card_play import legal_cards, passable, situation
from ..core.ops import ARRAY
from ..core.scoring import BidKind
from .tables import (
    BLIND,
    BOARDS,
    BOARDS_PER_SEAT,
    DRAW,
    DRAW_HIGH_WORD,
    EXCHANGE,
    HAND_B,
    KIND,
    MAX_SEATS,
    PLAY,
    SEAT_W,
    U0,
    VALUE,
    WORD_BITS,
)

if TYPE_CHECKING:
    from .state import BatchTables

NO_BID = int(BidKind.NONE)
_BID_SHIFT = np.uint64(A.BID_OFFSET)  # a bid word's bit i is action BID_OFFSET + i
_HIGH_SHIFT = np.uint64(WORD_BITS - A.BID_OFFSET)  # ... which is bit i - (64 - BID_OFFSET) of the high word


def compute_legal(t: BatchTables) -> None:
    """Legal-action words of every table: the legal cards on whole arrays, then the other phases."""
    play_legal(t)
    other = t.phase != PLAY
    if not other.any():
        return
    O = np.flatnonzero(other)
    ph = t.phase.take(O)
    if t._drawing:
        dr = ph == DRAW
        if dr.any():
            T = O[dr]
            t._legal[T, 0] = U0
            t._legal[T, 1] = DRAW_HIGH_WORD
            O, ph = O[~dr], ph[~dr]
    if t._P.exchange:
        ex = ph == EXCHANGE
        if ex.any():
            T = O[ex]
            t._legal[T, 0] = passable(t._sb.ravel().take(T * BOARDS + t.cur.take(T) * BOARDS_PER_SEAT + HAND_B))
            t._legal[T, 1] = U0
            O, ph = O[~ex], ph[~ex]
    if not len(O):
        return
    blind = ph == BLIND
    if blind.any():
        Bl = O[blind]
        word = bid_words(t, Bl, True)
        t._legal[Bl, 0] = word << _BID_SHIFT
        t._legal[Bl, 1] = word >> _HIGH_SHIFT
        O = O[~blind]
    if len(O):
        if t._P.constant_bids is not None:
            t._legal[O] = t._P.constant_bids
        else:
            word = bid_words(t, O, False)
            t._legal[O, 0] = word << _BID_SHIFT
            t._legal[O, 1] = word >> _HIGH_SHIFT


def play_legal(t: BatchTables) -> None:
    """The legal cards at every table (rows of tables in another phase are overwritten after)."""
    at = t.cur * BOARDS_PER_SEAT
    at += t._board_rows
    hand = t._sb.ravel().take(at)
    on = t._P.play_on
    first_trick = t.trick_index == 0 if on.lowest_club else False  # read only on the lowest-club trick
    played_in = situation(ARRAY, t._play, on, first_trick, t.trick_n == 0, t.broken)
    legal = t._legal
    legal[:, 0] = legal_cards(ARRAY, on, hand, played_in, t._led)
    legal[:, 1] = U0


def bid_inputs(t: BatchTables, B: np.ndarray, seat: np.ndarray) -> tuple:
    """(partner's kind, partner's value, the no-hook context or None) of the seats to bid at tables B."""
    on = t._P.bid_on
    if not (reads_partner(on) or on.no_hook):
        return NO_BID, 0, None
    partner = t._partner_seat.take(seat)
    pk, pv = NO_BID, 0
    if reads_partner(on):  # the bid at the partner's seat (a seat of the same table without one: not read)
        f = B * SEAT_W + partner
        flat = t._seat.ravel()
        value = flat.take(f + VALUE * MAX_SEATS) if reads_partner_value(on) else 0
        pk, pv = partner_bid(ARRAY, flat.take(f + KIND * MAX_SEATS), value, t.partnerships)
    context = None
    if on.no_hook:
        context = bid_context(
            ARRAY, t.num_players, t.bid_kind[B], t.bid_value[B], t.dealer.take(B), t.bid_pos.take(B), partner
        )
    return pk, pv, context


def blind_nil_ok(t: BatchTables, B: np.ndarray, seat: np.ndarray) -> np.ndarray | bool:
    """Blind nil by the scores before the hand, for the seats at tables B (False where no rules id has it)."""
    if not t._P.bid_on.blind_nil:
        return False
    return t._bn_eligible.ravel().take(B * MAX_SEATS + seat)


def bid_words(t: BatchTables, B: np.ndarray, blind: np.ndarray) -> np.ndarray:
    """The core's legal bids (bid words) of the seats to bid at tables B (``blind``: the blind decision)."""
    seat = t.cur.take(B)
    pk, pv, context = bid_inputs(t, B, seat)
    hands = t._sb.ravel().take(B * BOARDS + seat * BOARDS_PER_SEAT + HAND_B) if t._P.bid_on.mirror else U0
    return legal_bids(
        ARRAY, t._P.bid_at(t.rid, B), t._P.bid_on, blind, blind_nil_ok(t, B, seat), hands, pk, pv, context
    )


def blind_decisions(t: BatchTables, B: np.ndarray, seat: np.ndarray, looked: np.ndarray) -> np.ndarray:
    """Whether the seats whose turn it is at tables B (``looked``: whether they have looked at their cards)
    decide blind first (the core's ``decides_blind``)."""
    pk, _, context = bid_inputs(t, B, seat)
    return decides_blind(ARRAY, t._P.bid_at(t.rid, B), t._P.bid_on, looked, blind_nil_ok(t, B, seat), pk, context)
