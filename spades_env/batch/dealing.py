"""Dealing: new games, new hands, the deal pools and the deal log.

Deals are drawn in batches from the engine's own ``numpy.random.Generator``:
a pool of shuffled packs per rules id; card ``i`` of a shuffled pack goes to
deal position ``i % n`` (the dealer's left first, as the core deals), and the
cards after the last full round are set aside.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from .encoding import mid_rows
from .history import reset_history
from .tables import BID, BLIND, CARD_BIT, MAX_SEATS, SEAT_W, U0

if TYPE_CHECKING:
    from .state import BatchTables


def new_games(t: BatchTables, T: np.ndarray) -> None:
    """Start new games at the tables T: a random first dealer, zero scores and bags, a new hand."""
    dealer = t.rng.integers(t.num_players, size=len(T))
    t.dealer[T] = dealer
    t.first_dealer[T] = dealer
    t.scores[T] = 0
    t.bags[T] = 0
    t.hand_index[T] = 0
    start_hands(t, T, dealer)


def _deals(t: BatchTables, r: int, k: int) -> tuple[np.ndarray, np.ndarray]:
    """k shuffled deals of rules id r: hands by deal position (k, n) and the set-aside cards (k,)."""
    pool = t._pools[r]
    out_pos, out_aside = [], []
    while k:
        if pool is None or pool[2] == len(pool[0]):
            pool = _fill_pool(t, r)
        pos, aside, ptr = pool
        take = min(k, len(pos) - ptr)
        out_pos.append(pos[ptr:ptr + take])
        out_aside.append(aside[ptr:ptr + take])
        pool[2] = ptr + take
        k -= take
    t._pools[r] = pool
    if len(out_pos) == 1:
        return out_pos[0], out_aside[0]
    return np.concatenate(out_pos), np.concatenate(out_aside)


def _fill_pool(t: BatchTables, r: int) -> list:
    """A batch of shuffled packs of rules id r, as [hands by deal position, set-aside cards, next]."""
    n, hs = t.num_players, t.hand_size
    m = t._pool_size
    pack = t._P.packs[r]
    cards = t.rng.permuted(np.broadcast_to(pack, (m, len(pack))), axis=1)
    bits = CARD_BIT[cards]
    dealt = hs * n
    by_position = bits[:, :dealt].reshape(m, hs, n).sum(axis=1, dtype=np.uint64)
    aside = bits[:, dealt:].sum(axis=1, dtype=np.uint64)
    return [by_position, aside, 0]


def _draw(t: BatchTables, T: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Deals for the tables T (a rotation sets each table's rules id first)."""
    k = len(T)
    if t._uniform:
        return _deals(t, 0, k)
    rid = t.hand_index.take(T) % t._num_rules
    t.rid[T] = rid
    by_position = np.zeros((k, t.num_players), np.uint64)
    aside = np.zeros(k, np.uint64)
    for r in range(t._num_rules):
        m = rid == r
        if m.any():
            by_position[m], aside[m] = _deals(t, r, int(m.sum()))
    return by_position, aside


def start_hands(t: BatchTables, T: np.ndarray, dealer: np.ndarray) -> None:
    """Deal new hands at the tables T (scores, bags, dealer and hand_index already set)."""
    n = t.num_players
    k = len(T)
    by_position, aside = _draw(t, T)
    hands = by_position.ravel().take(t._arn[:k, None] + t._perm["deal"].take(dealer, axis=0))
    t._sb[T] = U0
    t._sb[T[:, None], t._hand_start_cols] = np.concatenate([hands, hands], axis=1)  # start ^ hand == 0
    if n < MAX_SEATS:
        t._aside[T] = aside
    if t.record_deals:
        _log_deals(t, T, hands)
    t._seat[T] = t._seat_init
    t.bid_pos[T] = 0
    t.trick_n[T] = 0
    t.trick_index[T] = 0
    t.broken[T] = False
    reset_history(t, T)
    if t._live_history:
        t._mid[T] = mid_rows(t, T)  # tricks 0, scores and bags by seat (the observation's MID floats)
    first = (dealer + 1) % n
    t.cur[T] = first
    _first_turn(t, T, first)


def _first_turn(t: BatchTables, T: np.ndarray, first: np.ndarray) -> None:
    """The first bidder's turn: its partner has not bid, so its blind options are blind nil (on the
    scores) and blind bids; no bid can hook yet. It looks at its cards unless it decides blind."""
    k = len(T)
    if not t._any["blind"]:
        t.phase[T] = BID
        t._seat.ravel()[T * SEAT_W + first] = 1
        return
    blind = np.zeros(k, bool)
    if t._any["blind_nil"]:
        eligible = blind_nil_eligibility(t, T, t.scores[T])
        t._bn_eligible[T, :t.num_players] = eligible
        blind |= eligible[np.arange(k), first]
    if t._any["blind_bids"]:
        blind |= t.p("blind_bids", T) & (t.p("blind_bid_hi", T) != U0)
    t.phase[T] = np.where(blind, BLIND, BID)
    t._seat.ravel()[T * SEAT_W + first] = ~blind


def blind_nil_eligibility(t: BatchTables, T: np.ndarray, scores: np.ndarray) -> np.ndarray:
    """Blind nil for each seat (k, n), judged on the scores before the hand (suicide: at the turn)."""
    S = t.num_sides
    if S == 2:
        best_other = scores[:, ::-1]
    else:
        order = np.argsort(scores, axis=1, kind="stable")
        first = np.take_along_axis(scores, order[:, -1:], axis=1)
        second = np.take_along_axis(scores, order[:, -2:-1], axis=1)
        best_other = np.where(np.arange(S) == order[:, -1:], second, first)
    behind = (best_other - scores)[:, t._seat_side]
    P = t._P
    if t._uniform:
        if not P.blind_nil[0]:
            return np.zeros(behind.shape, bool)
        return behind >= P.deficit[0] if not P.deficit_none[0] else np.ones(behind.shape, bool)
    r = t.rid.take(T)[:, None]
    return P.blind_nil[r] & (P.deficit_none[r] | (behind >= P.deficit[r]))


def _log_deals(t: BatchTables, T: np.ndarray, hands: np.ndarray) -> None:
    hi = t.hand_index[T]
    need = int(hi.max()) + 1
    if need > t._log.shape[1]:
        size = min(max(need, 2 * t._log.shape[1]), t.rules.max_hands)
        grown = np.zeros((t.num_envs, size, MAX_SEATS), np.uint64)
        grown[:, :t._log.shape[1]] = t._log
        t._log = grown
    t._log[T, hi, :t.num_players] = hands
