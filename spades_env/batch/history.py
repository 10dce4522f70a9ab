"""The trick history of the batch engine: per table, what the observation's history blocks show.

Three arrays per table, reset when a hand is dealt and written as each card is played (before the
transition changes the table): ``_card_trick`` (per card, its trick + 1, 0 while unplayed; one more
column takes the writes of the tables not in play), ``_leads`` (a bitboard of the cards that led their
trick) and ``_voids`` (per seat, the suit bitmask of the voids the cards played show the table). The
voids come from the core's table ``core.tricks.VOIDS_SHOWN``; the situation of each play (following,
leading before or after spades are broken, the lowest-club first trick) restates
``core.tricks.play_situation`` over arrays, which the lockstep tests check against the AEC encoder.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ..core.cards import NUM_CARDS, NUM_SUITS
from ..core.tricks import FOLLOWS, LEADS_BEFORE_BROKEN, LEADS_FREELY, LOWEST_CLUB_TRICK, VOIDS_SHOWN
from .tables import ACTION_CARD_BIT, ACTION_SUIT, MAX_SEATS, U0

if TYPE_CHECKING:
    from .state import BatchTables

NOT_PLAYED = 0  # _card_trick of a card not played this hand
SINK = NUM_CARDS  # the _card_trick column written by the tables not in play
_SHOWN = VOIDS_SHOWN.ravel()  # [(situation * NUM_SUITS + led) * NUM_SUITS + suit]


def allocate_history(t: BatchTables) -> None:
    """The history arrays of ``t.num_envs`` tables (see the module docstring)."""
    N = t.num_envs
    t._card_trick = np.zeros((N, NUM_CARDS + 1), np.uint8)
    t._leads = np.zeros(N, np.uint64)
    t._voids = np.zeros((N, MAX_SEATS), np.uint8)


def reset_history(t: BatchTables, T: np.ndarray) -> None:
    """Nothing played yet at the tables T (a hand was dealt)."""
    t._card_trick[T] = NOT_PLAYED
    t._leads[T] = U0
    t._voids[T] = 0


def record_plays(t: BatchTables, a: np.ndarray, playing: np.ndarray | None) -> None:
    """Record the cards ``a`` about to be played at the tables in play (``playing``: a mask, None for all)."""
    leads = t.trick_n == 0
    ti = t.trick_index
    card = a if playing is None else np.where(playing, a, SINK)
    t._card_trick.ravel()[t._ar * (NUM_CARDS + 1) + card] = ti + 1
    bit = ACTION_CARD_BIT.take(card)  # the sink column is no card: no bit
    t._leads |= np.where(leads, bit, U0)
    free = t.broken
    if t._any["dealer_leads_any"]:
        free = free | t.p("dealer_leads_any", t._ar)
    situation = np.where(leads, np.where(free, LEADS_FREELY, LEADS_BEFORE_BROKEN), FOLLOWS)
    if t._any["lowest_club"]:
        situation = np.where(t.p("lowest_club", t._ar) & (ti == 0), LOWEST_CLUB_TRICK, situation)
    suit = ACTION_SUIT.take(a)
    led = np.where(leads, suit, t._led)
    shown = _SHOWN.take((situation * NUM_SUITS + led) * NUM_SUITS + suit)
    if playing is not None:
        shown = np.where(playing, shown, 0)
    seat = t._ar * MAX_SEATS + t.cur
    voids = t._voids.ravel()
    voids[seat] = voids.take(seat) | shown
