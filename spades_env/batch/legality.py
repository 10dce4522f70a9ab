"""Legal actions of every table, as two uint64 words (actions 0..63 and 64..87).

The rules are the core's (``HandState.legal_mask``), run on whole arrays:
the play rule at every table, then the bidding, blind and exchange phases on
their tables. Bid ranges, bid kinds and trick keys come from the core's tables
(``core.actions``, ``core.tricks``); a test steps every preset in lockstep with
the core.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ..core import actions as A
from .tables import (
    BID_HI,
    BID_LO,
    BLIND,
    BLIND_NIL_HI,
    BLINDBID,
    BLINDBID_HI,
    BOARDS,
    BOARDS_PER_SEAT,
    CLUBS,
    EXCHANGE,
    HAND_B,
    IS_NIL,
    KIND,
    LEAD_ROW,
    MAX_SEATS,
    NONE,
    NUMBER,
    PLAY,
    PLAY_FILTER,
    RANGE_HI,
    RANGE_LO,
    REDS,
    SEAT_W,
    SEE_HI,
    SIDE_BID_TRICKS,
    SPADES,
    TEN,
    TEN_HI,
    U0,
    VALUE,
    lowbit,
    popcount,
)

if TYPE_CHECKING:
    from .state import BatchTables


def compute_legal(t: BatchTables) -> None:
    """Legal-action words of every table: the play rule on whole arrays, then the other phases."""
    play_legal(t)
    other = t.phase != PLAY
    if not other.any():
        return
    O = np.flatnonzero(other)
    ph = t.phase.take(O)
    if t._any["blind"]:
        blind = ph == BLIND
        if blind.any():
            T = O[blind]
            t._legal[T, 0] = U0
            t._legal[T, 1] = SEE_HI | blind_bits(t, T, t.cur.take(T))
            O, ph = O[~blind], ph[~blind]
    if t._any["exchange"]:
        ex = ph == EXCHANGE
        if ex.any():
            T = O[ex]
            t._legal[T, 0] = t._sb.ravel().take(T * BOARDS + t.cur.take(T) * BOARDS_PER_SEAT + HAND_B)
            t._legal[T, 1] = U0
            O = O[~ex]
    if len(O):
        if t._P.simple_bids:
            t._legal[O] = t._simple_bid_words
        else:
            lo, hi = bid_bits(t, O, t.cur.take(O))
            t._legal[O, 0] = lo
            t._legal[O, 1] = hi


def play_legal(t: BatchTables) -> None:
    """The play rule at every table (rows of tables in another phase are overwritten after)."""
    at = t.cur * BOARDS_PER_SEAT
    at += t._base21
    hand = t._sb.ravel().take(at)
    lead = t.trick_n == 0
    free = t.broken
    if t._any["dealer_leads_any"]:
        free = free | t.p("dealer_leads_any", slice(None))
    # one filter: the suit led when following, no spade (or any card once free) when leading
    playable = hand & PLAY_FILTER.take(np.where(lead, np.where(free, LEAD_ROW + 1, LEAD_ROW), t._led))
    mask = np.where(playable != U0, playable, hand)
    if t._any["lowest_club"]:
        first = (t.trick_index == 0) & t.p("lowest_club", slice(None))
        if first.any():
            clubs = hand & CLUBS
            reds = hand & REDS
            lc_mask = np.where(lead | (clubs != U0), lowbit(clubs), np.where(reds != U0, reds, hand))
            mask = np.where(first, lc_mask, mask)
    legal = t._legal
    legal[:, 0] = mask
    legal[:, 1] = U0


def partner_bid(t: BatchTables, T: np.ndarray, seat: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Partner's bid kind and value (NONE, 0 in cutthroat)."""
    if not t.partnerships:
        z = np.zeros(len(T), np.intp)
        return z, z
    f = T * SEAT_W + t._partner_seat.take(seat)
    flat = t._seat.ravel()
    return flat.take(f + KIND * MAX_SEATS), flat.take(f + VALUE * MAX_SEATS)


def blind_bits(t: BatchTables, T: np.ndarray, seat: np.ndarray) -> np.ndarray:
    """High-word bits of the blind options open to ``seat`` (SEE CARDS not included)."""
    bits = np.zeros(len(T), np.uint64)
    if t._any["suicide"] or t._any["blind_bids"]:
        pk, _ = partner_bid(t, T, seat)
    if t._any["blind_nil"]:
        eligible = t._bn_eligible.ravel().take(T * MAX_SEATS + seat)
        if t._any["suicide"]:
            eligible &= ~(t.p("suicide", T) & IS_NIL.take(pk))
        bits |= np.where(eligible, BLIND_NIL_HI, U0)
    if t._any["blind_bids"]:
        bits |= np.where(t.p("blind_bids", T) & (pk == NONE), t.p("blind_bid_hi", T), U0)
    if t._any["no_hook"]:
        # SEE CARDS is always there: a hooking blind option is dropped even when none is left (core rule).
        _, bits = no_hook(t, T, seat, np.zeros(len(T), np.uint64), bits, keep_if_forced=False)
    return bits


def bid_bits(t: BatchTables, T: np.ndarray, seat: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(lo, hi) words of the number bids and 10 for 200 open to ``seat`` (it has looked)."""
    k = len(T)
    pk, pv = partner_bid(t, T, seat)
    low = t.p("low_bid", T)
    high = t.num_tricks
    if t._any["suicide"]:
        sui = t.p("suicide", T)
        partner_nil = IS_NIL.take(pk)
        low = np.where(sui & partner_nil, 1, low)  # the partner bid nil: this seat may not
        high = np.where(sui & ~partner_nil & (pk != NONE), 0, high)  # the partner bid a number: nil only
    if t._any["mtb"]:
        partner_least = np.where(pk == NUMBER, pv, np.where(pk == NONE, t.p("low_bid", T), 0))
        high = np.where(t.p("mtb_none", T), high, np.minimum(high, t.p("mtb", T) - partner_least))
    high = np.clip(high, -1, A.MAX_BID) + 1
    low = np.broadcast_to(low, (k,))
    lo = RANGE_LO[low, high]
    hi = RANGE_HI[low, high]
    if t._any["ten_ok"]:
        hi = hi | np.where(t.p("ten_ok", T) & (pk != TEN), TEN_HI, U0)
    if t._any["mirror"]:
        mirror = t.p("mirror", T)
        hands = t._sb.ravel().take(T * BOARDS + seat * BOARDS_PER_SEAT + HAND_B)
        spades = popcount(hands & SPADES)
        lo = np.where(mirror, BID_LO[spades], lo)
        hi = np.where(mirror, BID_HI[spades], hi)
    if t._any["no_hook"]:
        lo, hi = no_hook(t, T, seat, lo, hi)
    return lo, hi


def _bids_left(t: BatchTables, T: np.ndarray, seat: np.ndarray, kinds: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Whether ``seat``'s bid is the last of the bidding: (no later seat still to bid, no later seat other
    than the partner still to bid; a side bid takes the partner's turn)."""
    n = t.num_players
    k = len(T)
    rows = np.arange(k)
    pos = t.bid_pos[T]
    dealer = t.dealer[T]
    partner = t._partner_seat.take(seat)
    later_none = np.zeros(k, np.intp)
    partner_later_none = np.zeros(k, bool)
    for step in range(1, n):
        p = pos + step
        s = (dealer + 1 + p) % n
        none = (p < n) & (kinds[rows, s] == NONE)
        later_none += none
        partner_later_none |= none & (s == partner)
    return later_none == 0, (later_none - partner_later_none) == 0


def no_hook(t: BatchTables, T: np.ndarray, seat: np.ndarray, lo: np.ndarray, hi: np.ndarray,
            keep_if_forced: bool = True) -> tuple[np.ndarray, np.ndarray]:
    """Drop the bids that end the bidding with a total equal to the number of tricks (core rule)."""
    k = len(T)
    rows = np.arange(k)
    kinds = t.bid_kind[T]
    values = t.bid_value[T]
    last_plain, last_team = _bids_left(t, T, seat, kinds)
    counted = (kinds == NUMBER) | (kinds == TEN) | (kinds == BLINDBID)
    total = (values * counted).sum(axis=1)
    need = t.num_tricks - total  # the bid that would hook
    if t.partnerships:
        partner = t._partner_seat.take(seat)
        pk, pv = kinds[rows, partner], values[rows, partner]
    else:
        pk = pv = np.zeros(k, np.intp)
    cancelled = np.where(pk == NUMBER, pv, 0)  # a 10 for 200 cancels the partner's number bid
    ok_num = last_plain & (need >= 0) & (need <= A.MAX_BID)
    needc = np.clip(need, 0, A.MAX_BID)
    rm_lo = np.where(ok_num, BID_LO[needc], U0)
    rm_hi = np.where(ok_num, BID_HI[needc], U0)
    rm_hi |= np.where(last_plain & (need == 0), BLIND_NIL_HI, U0)
    rm_hi |= np.where(last_team & (total + SIDE_BID_TRICKS - cancelled == t.num_tricks), TEN_HI, U0)
    ok_blind = last_team & (need >= 1) & (need <= A.MAX_BLIND_BID)
    rm_hi |= np.where(ok_blind, BLINDBID_HI[np.clip(need, 0, A.MAX_BLIND_BID)], U0)
    new_lo = lo & ~rm_lo
    new_hi = hi & ~rm_hi
    on = t.p("no_hook", T)
    use = on & ((new_lo | new_hi) != U0) if keep_if_forced else on
    return np.where(use, new_lo, lo), np.where(use, new_hi, hi)
