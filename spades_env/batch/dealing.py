"""Dealing: new games, new hands, the deal pools and the deal log.

Deals are drawn in batches from the engine's own ``numpy.random.Generator``:
a pool of shuffled packs per rules id, dealt by the core's
:func:`~spades_env.core.deal.deal_positions` and given to the seats in the
core's order (:func:`~spades_env.core.bidding.bidder`). The first bidder's turn
and blind nil by the scores are the core's too. Two players are dealt no
cards: each new hand gets a shuffled pack as its stock, and the non-dealer
draws first (:func:`~spades_env.core.drawing.drawer`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ..core.bidding import bidder, blind_nil_by_score
from ..core.deal import deal_positions
from ..core.drawing import drawer
from ..core.game import first_dealer
from ..core.ops import ARRAY
from .encoding import mid_rows
from .history import reset_history
from .tables import CARD_BIT, DRAW, LOOKED, MAX_SEATS, U0
from .transitions import begin_bid_turn

if TYPE_CHECKING:
    from .state import BatchTables


def new_games(t: BatchTables, T: np.ndarray) -> None:
    """Start new games at the tables T: a random first dealer, zero scores and bags, a new hand."""
    dealer = first_dealer(t.rng, t.num_players, size=len(T))
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
        out_pos.append(pos[ptr : ptr + take])
        out_aside.append(aside[ptr : ptr + take])
        pool[2] = ptr + take
        k -= take
    t._pools[r] = pool
    if len(out_pos) == 1:
        return out_pos[0], out_aside[0]
    return np.concatenate(out_pos), np.concatenate(out_aside)


def _fill_pool(t: BatchTables, r: int) -> list:
    """A batch of shuffled packs of rules id r, as [hands by deal position, set-aside cards, next]."""
    m = t._pool_size
    pack = t._P.packs[r]
    cards = t.rng.permuted(np.broadcast_to(pack, (m, len(pack))), axis=1)
    by_position, aside = deal_positions(cards, t.num_players, t.hand_size)
    return [CARD_BIT[by_position].sum(axis=-1, dtype=np.uint64), CARD_BIT[aside].sum(axis=-1, dtype=np.uint64), 0]


def _draw(t: BatchTables, T: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Deals for the tables T (a rotation sets each table's rules id first)."""
    k = len(T)
    if t._uniform:
        return _deals(t, 0, k)
    rid = t.hand_index.take(T) % t._num_rules
    t.rid[T] = rid
    for table_field, rules_field in zip(t._play, t._P.play):
        table_field[T] = rules_field.take(rid)
    by_position = np.zeros((k, t.num_players), np.uint64)
    aside = np.zeros(k, np.uint64)
    for r in range(t._num_rules):
        m = rid == r
        if m.any():
            by_position[m], aside[m] = _deals(t, r, int(m.sum()))
    return by_position, aside


def _start_drawing(t: BatchTables, T: np.ndarray, dealer: np.ndarray) -> None:
    """Two players: a shuffled pack as the stock of each table T, empty hands, the non-dealer to draw."""
    n = t.num_players
    pack = t._P.packs[0]
    stocks = t.rng.permuted(np.broadcast_to(pack, (len(T), len(pack))), axis=1)
    t._stock[T] = stocks
    t._sb[T] = U0
    t._discards[T] = U0
    t.draw_turn[T] = 0
    if t.record_deals:
        _log_stocks(t, T, stocks)
    t._seat[T] = t._seat_init
    t._seat[T, LOOKED, :n] = 1  # each player sees its cards as it draws them
    t.bid_pos[T] = 0
    t.trick_n[T] = 0
    t.trick_index[T] = 0
    t.broken[T] = False
    reset_history(t, T)
    if t._live_history:
        t._mid[T] = mid_rows(t, T)
    t.phase[T] = DRAW
    t.cur[T] = drawer(dealer, 0)


def start_hands(t: BatchTables, T: np.ndarray, dealer: np.ndarray) -> None:
    """Deal new hands at the tables T (scores, bags, dealer and hand_index already set)."""
    if t._drawing:
        _start_drawing(t, T, dealer)
        return
    n = t.num_players
    k = len(T)
    by_position, aside = _draw(t, T)
    hands = np.empty_like(by_position)
    hands[np.arange(k)[:, None], t._deal_seats.take(dealer, axis=0)] = by_position
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
    if t._P.bid_on.blind_nil:
        t._bn_eligible[T, :n] = blind_nil_eligibility(t, T)
    first = bidder(dealer, 0, n)
    t.cur[T] = first
    begin_bid_turn(t, T, first)


def blind_nil_eligibility(t: BatchTables, T: np.ndarray) -> np.ndarray:
    """Blind nil for each seat (k, n) by the scores before the hand (the core's ``blind_nil_by_score``)."""
    p = t._P.bid_at(t.rid, T)
    scores = t.scores[T]
    sides = [blind_nil_by_score(ARRAY, p, scores, side, t.num_sides) for side in range(t.num_sides)]
    return np.array(sides).take(t._seat_side, axis=0).T  # (k, n): each seat its side's (np.stack costs more)


def _log_stocks(t: BatchTables, T: np.ndarray, stocks: np.ndarray) -> None:
    hi = t.hand_index[T]
    need = int(hi.max()) + 1
    if need > t._stock_log.shape[1]:
        size = min(max(need, 2 * t._stock_log.shape[1]), t.rules.max_hands)
        grown = np.zeros((t.num_envs, size, t._stock_log.shape[2]), np.uint8)
        grown[:, : t._stock_log.shape[1]] = t._stock_log
        t._stock_log = grown
    t._stock_log[T, hi] = stocks


def _log_deals(t: BatchTables, T: np.ndarray, hands: np.ndarray) -> None:
    hi = t.hand_index[T]
    need = int(hi.max()) + 1
    if need > t._log.shape[1]:
        size = min(max(need, 2 * t._log.shape[1]), t.rules.max_hands)
        grown = np.zeros((t.num_envs, size, MAX_SEATS), np.uint64)
        grown[:, : t._log.shape[1]] = t._log
        t._log = grown
    t._log[T, hi, : t.num_players] = hands
