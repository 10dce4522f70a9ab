"""Transitions: bids, the blind nil exchange, card play and the end of each trick.

Tables in play are stepped with whole-array operations (tables in another
phase are masked out); the bidding and exchange phases run on their index
groups. Each function mirrors the core's ``HandState`` transition of the same
name; a lockstep test compares the two on every preset.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ..core import actions as A
from ..core.cards import NUM_SUITS
from .encoding import MID_W, TRICKS_AT
from .history import SINK, record_plays
from .legality import blind_bits
from .tables import (
    ACTION_CARD_BIT,
    ACTION_CODE,
    ACTION_KIND,
    ACTION_SUIT,
    ACTION_VALUE,
    BID,
    BLIND,
    BLIND_NIL,
    BOARDS,
    BOARDS_PER_SEAT,
    CANCELLED,
    CARD_BIT,
    CLUBS,
    CODE,
    CODE_STRIDE,
    EXCHANGE,
    HAND_B,
    HAND_COLS,
    KIND,
    LOOKED,
    MAX_SEATS,
    NONE,
    OVER,
    PASSED_B,
    PLAY,
    RECEIVED_B,
    SEAT_W,
    SKIPPED,
    SPADES,
    START_B,
    TRICK_B,
    U0,
    U1,
    VALUE,
    WON,
    lowbit,
    popcount,
)

if TYPE_CHECKING:
    from .state import BatchTables


def begin_bid_turn(t: BatchTables, T: np.ndarray, seat: np.ndarray) -> None:
    """The seat to bid looks at its cards unless a blind option is open to it (phase BLIND)."""
    looked = t._seat.ravel()
    f = T * SEAT_W + seat + LOOKED * MAX_SEATS
    if not t._any["blind"]:
        t.phase[T] = BID
        looked[f] = 1
        return
    blind = (looked.take(f) == 0) & (blind_bits(t, T, seat) != U0)
    t.phase[T] = np.where(blind, BLIND, BID)
    looked[f[~blind]] = 1


def _side_bids(t: BatchTables, B: np.ndarray, a: np.ndarray, seat: np.ndarray, pos: np.ndarray,
               dealer: np.ndarray) -> np.ndarray:
    """A 10 for 200 or a blind bid takes the partner's turn (SKIPPED) or cancels its bid (CANCELLED);
    returns the bid positions moved past the partners whose turn was taken."""
    n = t.num_players
    flat = t._seat.ravel()
    team = a >= A.TEN_FOR_200
    if team.any():
        fp = B[team] * SEAT_W + t._partner_seat.take(seat[team])
        pk = flat.take(fp + KIND * MAX_SEATS)
        new = np.where((a[team] == A.TEN_FOR_200) & (pk != NONE), CANCELLED, SKIPPED)
        flat[fp + KIND * MAX_SEATS] = new
        flat[fp + CODE * MAX_SEATS] = new * CODE_STRIDE + flat.take(fp + VALUE * MAX_SEATS)
    for _ in range(n - 1):  # skip the partners whose turn was taken
        nxt = B * SEAT_W + KIND * MAX_SEATS + (dealer + 1 + pos) % n
        skip = (pos < n) & (flat.take(nxt) != NONE)
        if not skip.any():
            break
        pos = pos + skip
    return pos


def bid(t: BatchTables, B: np.ndarray, a: np.ndarray) -> None:
    """Take the bids (or SEE CARDS) ``a`` at the tables B, in the bidding or blind phase."""
    n = t.num_players
    seat = t.cur.take(B)
    flat = t._seat.ravel()
    if t._any["blind"]:
        see = a == A.SEE_CARDS
        if see.any():
            Bs = B[see]
            flat[Bs * SEAT_W + seat[see] + LOOKED * MAX_SEATS] = 1
            t.phase[Bs] = BID
            keep = ~see
            B, a, seat = B[keep], a[keep], seat[keep]
            if not len(B):
                return
    f = B * SEAT_W + seat
    flat[f + LOOKED * MAX_SEATS] = 1
    flat[f + KIND * MAX_SEATS] = ACTION_KIND.take(a)
    flat[f + VALUE * MAX_SEATS] = ACTION_VALUE.take(a)
    flat[f + CODE * MAX_SEATS] = ACTION_CODE.take(a)
    pos = t.bid_pos.take(B) + 1
    dealer = t.dealer.take(B)
    if t._any["team"] and t.partnerships:
        pos = _side_bids(t, B, a, seat, pos, dealer)
    t.bid_pos[B] = pos
    done = pos >= n
    if done.all():
        end_bidding(t, B)
        return
    go = ~done
    G = B[go]
    nxt = (dealer[go] + 1 + pos[go]) % n
    t.cur[G] = nxt
    begin_bid_turn(t, G, nxt)
    if done.any():
        end_bidding(t, B[done])


def _exchange_schedule(t: BatchTables, X: np.ndarray, kx: np.ndarray) -> np.ndarray:
    """Write the passes of the tables X (``kx`` cards each way): each blind nil bidder, in bidding order,
    whose partner did not bid blind nil passes to the partner, then the partner passes back. Returns
    the number of passes per table."""
    n = t.num_players
    length = np.zeros(len(X), np.intp)
    rows = np.arange(len(X))
    kinds = t.bid_kind[X]
    dealer = t.dealer[X]
    ex_from = t._ex_from[X]
    ex_to = t._ex_to[X]
    for pos in range(n):
        s = (dealer + 1 + pos) % n
        pt = t._partner_seat.take(s)
        go = (kinds[rows, s] == BLIND_NIL) & (kinds[rows, pt] != BLIND_NIL)
        if not go.any():
            continue
        for j in range(int(kx.max())):
            w = go & (j < kx)
            r = rows[w]
            ex_from[r, length[w] + j] = s[w]
            ex_to[r, length[w] + j] = pt[w]
            ex_from[r, length[w] + kx[w] + j] = pt[w]
            ex_to[r, length[w] + kx[w] + j] = s[w]
        length += np.where(go, 2 * kx, 0)
    t._ex_from[X] = ex_from
    t._ex_to[X] = ex_to
    t._ex_len[X] = length
    t._ex_pos[X] = 0
    return length


def end_bidding(t: BatchTables, D: np.ndarray) -> None:
    """After the last bid: the blind nil exchange where the rules have one, else play begins."""
    if not t._any["exchange"]:
        begin_play(t, D)
        return
    k = np.broadcast_to(t.p("exchange", D), (len(D),))
    X = D[k > 0]
    if len(X):
        length = _exchange_schedule(t, X, k[k > 0])
        E = X[length > 0]
        if len(E):
            t.phase[E] = EXCHANGE
            first = t._ex_from[E, 0]
            t.cur[E] = first
            t._seat[E, LOOKED, first] = 1
            D = D[t.phase.take(D) != EXCHANGE]
    begin_play(t, D)


def exchange(t: BatchTables, X: np.ndarray, a: np.ndarray) -> None:
    """Pass the cards ``a`` at the tables X (the exchange phase); play begins after the last pass."""
    seat = t.cur.take(X)
    pos = t._ex_pos.take(X)
    receiver = t._ex_to[X, pos]
    bit = CARD_BIT.take(a)
    sbf = t._sb.ravel()
    base = X * BOARDS
    giver, taker = base + seat * BOARDS_PER_SEAT, base + receiver * BOARDS_PER_SEAT
    for index, op in ((giver + HAND_B, np.bitwise_xor), (taker + HAND_B, np.bitwise_or),
                      (giver + START_B, np.bitwise_xor), (taker + START_B, np.bitwise_or),
                      (giver + PASSED_B, np.bitwise_or), (taker + RECEIVED_B, np.bitwise_or)):
        sbf[index] = op(sbf.take(index), bit)
    pos = pos + 1
    t._ex_pos[X] = pos
    more = pos < t._ex_len.take(X)
    M = X[more]
    if len(M):
        nxt = t._ex_from[M, pos[more]]
        t.cur[M] = nxt
        t._seat[M, LOOKED, nxt] = 1
    if not more.all():
        begin_play(t, X[~more])


def begin_play(t: BatchTables, P: np.ndarray) -> None:
    """Play begins at the tables P: the first leader (left of the dealer, the dealer, or the holder of
    the lowest club) is to act."""
    if not len(P):
        return
    n = t.num_players
    dealer = t.dealer.take(P)
    leader = (dealer + 1) % n
    if t._any["dealer_leads_any"]:
        leader = np.where(t.p("dealer_leads_any", P), dealer, leader)
    if t._any["lowest_club"]:
        lc = np.broadcast_to(t.p("lowest_club", P), (len(P),))
        if lc.any():
            L = P[lc]
            hands = t._sb[L[:, None], HAND_COLS[:n]]
            lowest = lowbit(np.bitwise_or.reduce(hands & CLUBS, axis=1))
            leader[lc] = ((hands & lowest[:, None]) != U0).argmax(axis=1)
    t.phase[P] = PLAY
    t.cur[P] = leader
    t._seat.ravel()[P * SEAT_W + leader + LOOKED * MAX_SEATS] = 1
    t.trick_n[P] = 0


def play(t: BatchTables, a: np.ndarray, playing: np.ndarray | None) -> np.ndarray | None:
    """Play the cards ``a`` at the tables in play (``playing``: a mask, None for all); return the tables
    whose hand ended.

    Every operation runs on whole arrays; at tables not in play the card is masked to nothing and
    the seat to act and the trick count are kept. Seats in play are not marked as having looked
    here: ``looked`` derives it (a seat that has played a card or is to act has looked).
    """
    n = t.num_players
    card = a if playing is None else np.where(playing, a, SINK)  # the sink is no card: exchange passes are cards too
    record_plays(t, a, card, playing)  # the history blocks, read before the table changes
    cur, tn = t.cur, t.trick_n
    f = cur * BOARDS_PER_SEAT
    f += t._base21
    bit = ACTION_CARD_BIT.take(card)
    sbf = t._sb.ravel()
    sbf[f] = sbf.take(f) ^ bit
    f += TRICK_B
    sbf[f] = bit  # at tables not in play, a trick board that is empty anyway
    t.broken |= (bit & SPADES) != U0
    led = t._led = np.where(tn == 0, ACTION_SUIT.take(a), t._led)
    nxt = cur + 1
    if n == MAX_SEATS:
        nxt &= MAX_SEATS - 1  # a cheaper modulo for four seats
    else:
        nxt %= n
    if playing is None:
        tn += 1
        t.cur = nxt
    else:
        tn += playing
        t.cur = np.where(playing, nxt, cur)
    full = tn == n
    ended = np.count_nonzero(full)
    if ended == len(full):
        return end_tricks(t, t._ar, led)
    if not ended:
        return None
    F = np.flatnonzero(full)
    return end_tricks(t, F, led.take(F))


def end_tricks(t: BatchTables, F: np.ndarray, led: np.ndarray) -> np.ndarray | None:
    """Score the full tricks at the tables F (``led``: their suits led) with the core's trick keys;
    the winner leads next. Returns the tables whose hand ended."""
    index = (F * BOARDS)[:, None] + t._trick_cols
    sbf = t._sb.ravel()
    cards = popcount(sbf.take(index) - U1)  # one card per seat: its index is the bits below it
    sbf[index] = U0
    key = cards * NUM_SUITS + led[:, None]
    if not t._uniform:
        key += t._key_offset.take(t.rid.take(F))[:, None]
    winner = t._keys.take(key).argmax(axis=1)  # the keys of the cards that can win are distinct
    fw = F * SEAT_W + WON * MAX_SEATS + winner
    flat = t._seat.ravel()
    won = flat.take(fw) + 1
    flat[fw] = won
    if t._live_history:  # the observation's tricks_won by seat (rebuilt when observed otherwise)
        t._mid.ravel()[F * MID_W + TRICKS_AT + winner] = won / t._size
    t.trick_n[F] = 0
    ti = t.trick_index.take(F) + 1
    t.trick_index[F] = ti
    t.cur[F] = winner
    over = ti == t.num_tricks
    if not over.any():
        return None
    E = F[over]
    t.phase[E] = OVER
    return E
