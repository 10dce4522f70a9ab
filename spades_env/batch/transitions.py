"""Transitions: drawing (two players), bids, the blind nil exchange, card play and the end of each trick.

Tables in play are stepped with whole-array operations (tables in another
phase are masked out); the bidding and exchange phases run on their index
groups. What each action does by the rules (turn order, a side bid's effect on
the partner, the exchange's passes, the first leader) is the core's, called on
arrays; this module moves the tables' arrays. A lockstep test compares every
decision with the core's ``HandState`` on every preset.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ..core import actions as A
from ..core.bidding import bid_effect_on_partner, bidder, next_bid_position, takes_turns
from ..core.card_play import breaks_spades, first_leader
from ..core.drawing import DRAW_TURNS, drawer, drawn_cards
from ..core.exchange import Givers, exchange_givers, exchange_length, exchange_pass
from ..core.ops import ARRAY
from ..core.tricks import winning_place
from .history import SINK, record_plays
from .legality import blind_decisions
from .params import Gathered
from .pieces import MID_W, TRICKS_AT
from .tables import (
    ACTION_CARD_BIT,
    ACTION_CODE,
    ACTION_KIND,
    ACTION_SUIT,
    ACTION_VALUE,
    BID,
    BLIND,
    BOARDS,
    BOARDS_PER_SEAT,
    CARD_BIT,
    CODE,
    CODE_STRIDE,
    EXCHANGE,
    HAND_B,
    HAND_COLS,
    KIND,
    LOOKED,
    MAX_SEATS,
    OVER,
    PASSED_B,
    PLAY,
    RECEIVED_B,
    SEAT_W,
    START_B,
    TRICK_B,
    U0,
    U1,
    VALUE,
    WON,
    popcount,
)

if TYPE_CHECKING:
    from .state import BatchTables


def draw(t: BatchTables, D: np.ndarray, a: np.ndarray) -> None:
    """Take the drawing decisions ``a`` (KEEP or DISCARD) at the tables D: the kept card goes to the hand (and
    to the start board: the cards played are start ^ hand), the other to the seat's discards (core.drawing);
    after the last turn the non-dealer bids."""
    turn = t.draw_turn.take(D)
    seat = t.cur.take(D)
    at = 2 * turn
    top, second = t._stock[D, at], t._stock[D, at + 1]
    kept, discarded = drawn_cards(ARRAY, a == A.KEEP, top, second)
    bit = CARD_BIT.take(kept)
    sbf = t._sb.ravel()
    base = D * BOARDS + seat * BOARDS_PER_SEAT
    for index in (base + HAND_B, base + START_B):
        sbf[index] = sbf.take(index) | bit
    t._discards[D, seat] |= CARD_BIT.take(discarded)
    turn = turn + 1
    t.draw_turn[D] = turn
    dealer = t.dealer.take(D)
    more = turn < DRAW_TURNS
    t.cur[D] = np.where(more, drawer(dealer, turn), bidder(dealer, 0, t.num_players))
    if not more.all():
        B = D[~more]
        begin_bid_turn(t, B, t.cur.take(B))


def begin_bid_turn(t: BatchTables, T: np.ndarray, seat: np.ndarray) -> None:
    """The seat to bid looks at its cards unless it decides blind first (phase BLIND)."""
    flat = t._seat.ravel()
    f = T * SEAT_W + seat + LOOKED * MAX_SEATS
    if not t._P.blind:
        t.phase[T] = BID
        flat[f] = 1
        return
    blind = blind_decisions(t, T, seat, flat.take(f) != 0)
    t.phase[T] = np.where(blind, BLIND, BID)
    flat[f[~blind]] = 1


def bid(t: BatchTables, B: np.ndarray, a: np.ndarray) -> None:
    """Take the bids (or SEE CARDS) ``a`` at the tables B, in the bidding or blind phase."""
    n = t.num_players
    seat = t.cur.take(B)
    flat = t._seat.ravel()
    if t._P.blind:
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
    kind = ACTION_KIND.take(a)
    flat[f + LOOKED * MAX_SEATS] = 1
    flat[f + KIND * MAX_SEATS] = kind
    flat[f + VALUE * MAX_SEATS] = ACTION_VALUE.take(a)
    flat[f + CODE * MAX_SEATS] = ACTION_CODE.take(a)
    if t.partnerships and takes_turns(t._P.bid_on):
        fp = B * SEAT_W + t._partner_seat.take(seat)
        new = bid_effect_on_partner(ARRAY, kind, flat.take(fp + KIND * MAX_SEATS))
        flat[fp + KIND * MAX_SEATS] = new
        flat[fp + CODE * MAX_SEATS] = new * CODE_STRIDE + flat.take(fp + VALUE * MAX_SEATS)
    dealer = t.dealer.take(B)
    kinds = t.bid_kind[B] if takes_turns(t._P.bid_on) else None  # read only when a turn can be taken
    pos = next_bid_position(ARRAY, t._P.bid_on, n, kinds, dealer, t.bid_pos.take(B))
    t.bid_pos[B] = pos
    done = pos >= n
    if done.all():
        end_bidding(t, B)
        return
    go = ~done
    G = B[go]
    nxt = bidder(dealer[go], pos[go], n)
    t.cur[G] = nxt
    begin_bid_turn(t, G, nxt)
    if done.any():
        end_bidding(t, B[done])


def end_bidding(t: BatchTables, D: np.ndarray) -> None:
    """After the last bid: the blind nil exchange where the rules have one, else play begins."""
    if not t._P.exchange:
        begin_play(t, D)
        return
    cards = np.broadcast_to(t._P.bid_at(t.rid, D).exchange, (len(D),))
    X, cards = D[cards > 0], cards[cards > 0]
    if len(X):
        givers = exchange_givers(ARRAY, t.num_players, t.bid_kind[X], t.dealer.take(X))
        length = exchange_length(givers, cards)
        t._ex_givers[X, 0] = givers.first
        t._ex_givers[X, 1] = givers.second
        t._ex_len[X] = length
        t._ex_pos[X] = 0
        E = X[length > 0]
        if len(E):
            t.phase[E] = EXCHANGE
            first = givers.first[length > 0]
            t.cur[E] = first
            t._seat[E, LOOKED, first] = 1
            D = D[t.phase.take(D) != EXCHANGE]
    begin_play(t, D)


def _passes(t: BatchTables, X: np.ndarray, step: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(seat passing, seat receiving) at pass ``step`` of the exchange at the tables X (core.exchange)."""
    givers = Givers(t._ex_givers[X, 0], t._ex_givers[X, 1], None)
    cards = t._P.bid_at(t.rid, X).exchange
    return exchange_pass(ARRAY, t.num_players, givers, cards, step)


def exchange(t: BatchTables, X: np.ndarray, a: np.ndarray) -> None:
    """Pass the cards ``a`` at the tables X (the exchange phase); play begins after the last pass."""
    pos = t._ex_pos.take(X)
    seat, receiver = _passes(t, X, pos)
    bit = CARD_BIT.take(a)
    sbf = t._sb.ravel()
    base = X * BOARDS
    giver, taker = base + seat * BOARDS_PER_SEAT, base + receiver * BOARDS_PER_SEAT
    for index, op in (
        (giver + HAND_B, np.bitwise_xor),
        (taker + HAND_B, np.bitwise_or),
        (giver + START_B, np.bitwise_xor),
        (taker + START_B, np.bitwise_or),
        (giver + PASSED_B, np.bitwise_or),
        (taker + RECEIVED_B, np.bitwise_or),
    ):
        sbf[index] = op(sbf.take(index), bit)
    pos = pos + 1
    t._ex_pos[X] = pos
    more = pos < t._ex_len.take(X)
    M = X[more]
    if len(M):
        nxt, _ = _passes(t, M, pos[more])
        t.cur[M] = nxt
        t._seat[M, LOOKED, nxt] = 1
    if not more.all():
        begin_play(t, X[~more])


def begin_play(t: BatchTables, P: np.ndarray) -> None:
    """Play begins at the tables P: the core's first leader is to act."""
    if not len(P):
        return
    n = t.num_players
    on = t._P.play_on
    hands = t._sb[P[:, None], HAND_COLS[:n]] if on.lowest_club else None
    p = t._play if t._P.uniform else Gathered(t._play, P)  # the tables' play records, read lazily
    leader = first_leader(ARRAY, p, on, n, t.dealer.take(P), hands)
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
    f += t._board_rows
    bit = ACTION_CARD_BIT.take(card)
    sbf = t._sb.ravel()
    sbf[f] = sbf.take(f) ^ bit
    f += TRICK_B
    sbf[f] = bit  # at tables not in play, a trick board that is empty anyway
    t.broken |= breaks_spades(bit)
    led = t._led = np.where(tn == 0, ACTION_SUIT.take(a), t._led)
    nxt = t._next_seat.take(cur)  # core.card_play.next_seat, tabled
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
    """Score the full tricks at the tables F (``led``: their suits led): the core's winning place
    (core.tricks); the winner leads next. Returns the tables whose hand ended."""
    index = (F * BOARDS)[:, None] + t._trick_cols
    sbf = t._sb.ravel()
    cards = popcount(sbf.take(index) - U1)  # one card per seat: its index is the bits below it
    sbf[index] = U0
    start = None if t._uniform else t._key_offset.take(t.rid.take(F))  # a rotation: each table's rules' row
    winner = winning_place(ARRAY, t._keys, cards, led, start)  # trick boards are in seat order: a seat
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
