"""The trick history of the batch engine: per table, what the observation's history blocks show.

Three arrays per table, reset when a hand is dealt: ``_card_trick`` (per card, its trick + 1, 0 while
unplayed; one more column takes the writes of the tables not in play), ``_leads`` (a bitboard of the
cards that led their trick) and ``_voids`` (per seat, the suit bitmask of the voids the cards played
show the table). The voids come from the core's table ``core.tricks.VOIDS_SHOWN``, read at the
situation of each play (following, leading before or after spades are broken, the lowest-club first
trick) that the core's ``card_play.situation`` gives on arrays (``_voids_shown``).

With observations on (``BatchEnv(observations=True)``) the history is live: written as each card is
played, before the transition changes the table. Without (the raw engine), a step records only the
order of play (``_play_order``: per card, its number in the hand, 1 for the first card played, from the
count ``_plays`` of cards played at each table); the
history is rebuilt from it, with the same ``_voids_shown``, when an observation or ``state()`` needs
it (``rebuild_history``), so that every observation stays exact.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ..core.card_play import breaks_spades, situation
from ..core.cards import NUM_CARDS, NUM_SUITS
from ..core.ops import ARRAY
from ..core.tricks import VOIDS_SHOWN
from .tables import ACTION_CARD_BIT, ACTION_SUIT, BOARDS_PER_SEAT, MAX_SEATS, START_B, U0

if TYPE_CHECKING:
    from .state import BatchTables

NOT_PLAYED = 0  # _card_trick and _play_order of a card not played this hand
SINK = NUM_CARDS  # the column written by the tables not in play
_SHOWN = VOIDS_SHOWN.ravel()  # [(situation * NUM_SUITS + led) * NUM_SUITS + suit]
_CARDS = np.arange(NUM_CARDS, dtype=np.uint64)
_CARD_BITS = ACTION_CARD_BIT[:NUM_CARDS]
_CARD_SUITS = ACTION_SUIT[:NUM_CARDS]
_TRUMPS = breaks_spades(_CARD_BITS)  # the cards that break spades
_NO_TRUMP = np.iinfo(np.intp).max  # the play number of the first trump of a hand with none played yet


def reset_history(t: BatchTables, T: np.ndarray) -> None:
    """Nothing played yet at the tables T (a hand was dealt)."""
    if not t._live_history:
        t._play_order[T] = NOT_PLAYED
        t._plays[T] = 0
        return
    t._card_trick[T] = NOT_PLAYED
    t._leads[T] = U0
    t._voids[T] = 0


def _voids_shown(
    t: BatchTables,
    leads: np.ndarray,
    broken: np.ndarray,
    first_trick: np.ndarray,
    led: np.ndarray,
    suit: np.ndarray,
    per_card: bool,
) -> np.ndarray:
    """The suits (bitmask) each card of ``suit`` played shows lacking, by its situation (the core's
    ``card_play.situation``: following ``led``, leading freely or before spades are broken, ``broken``
    before the card, the lowest-club first trick). Arrays are one per table, or (tables, cards) with
    ``per_card``."""
    p = t._play
    if per_card and not t._P.uniform:
        p = type(p)(*(field[:, None] for field in p))
    played_in = situation(ARRAY, p, t._P.play_on, first_trick, leads, broken)
    return _SHOWN.take((played_in * NUM_SUITS + led) * NUM_SUITS + suit)


def record_plays(t: BatchTables, a: np.ndarray, card: np.ndarray, playing: np.ndarray | None) -> None:
    """Record the cards ``a`` about to be played at the tables in play (``playing``: a mask, None for all;
    ``card``: ``a`` there, ``SINK`` elsewhere): the history when it is live, else the order of play."""
    if not t._live_history:
        plays = t._plays
        if playing is None:
            plays += 1
        else:
            plays += playing
        t._play_order.ravel()[t._card_rows + card] = plays  # the sink column takes the others' writes
        return
    leads = t.trick_n == 0
    ti = t.trick_index
    t._card_trick.ravel()[t._card_rows + card] = ti + 1
    bit = ACTION_CARD_BIT.take(card)  # the sink column is no card: no bit
    t._leads |= np.where(leads, bit, U0)
    suit = ACTION_SUIT.take(a)
    led = np.where(leads, suit, t._led)
    shown = _voids_shown(t, leads, t.broken, ti == 0, led, suit, per_card=False)
    if playing is not None:
        shown = np.where(playing, shown, 0)
    seat = t._ar * MAX_SEATS + t.cur
    voids = t._voids.ravel()
    voids[seat] = voids.take(seat) | shown


def rebuild_history(t: BatchTables) -> None:
    """The history arrays of every table rebuilt from the order of play (the raw engine, before an
    observation): the same rules as ``record_plays``, over every card at once."""
    n = t.num_players
    order = t._play_order[:, :NUM_CARDS].astype(np.intp)
    played = order != NOT_PLAYED
    number = order - 1
    trick = number // n  # -1 for a card not played
    leads = played & (number % n == 0)
    t._card_trick[:, :NUM_CARDS] = np.where(played, trick + 1, NOT_PLAYED)
    t._leads[:] = np.bitwise_or.reduce(np.where(leads, _CARD_BITS, U0), axis=1)
    # the suit led to each trick: that of the card that led it
    led_of = np.zeros((t.num_envs, t.num_tricks), np.intp)
    tables, cards = np.nonzero(leads)
    led_of[tables, trick[tables, cards]] = _CARD_SUITS.take(cards)
    led = np.take_along_axis(led_of, np.maximum(trick, 0), axis=1)
    # spades are broken before a card once a trump was played earlier in the hand
    first_trump = np.where(played & _TRUMPS, order, _NO_TRUMP).min(axis=1)
    broken = first_trump[:, None] < order
    shown = np.where(played, _voids_shown(t, leads, broken, trick == 0, led, _CARD_SUITS, per_card=True), 0)
    # each card was played by the seat that held it when play began
    start = t._sb[:, np.arange(n) * BOARDS_PER_SEAT + START_B]
    for seat in range(n):
        held = ((start[:, seat, None] >> _CARDS) & np.uint64(1)) != U0
        t._voids[:, seat] = np.bitwise_or.reduce(np.where(held, shown, 0), axis=1)
