"""Who wins a trick: the trick order keys, built once and read by both engines.

Every card has a *key given the suit led*: a trump (a spade, or a joker) keys
``TRUMP_BONUS + power``, a card of the suit led keys its power, any other card
keys ``CANNOT_WIN`` (-1). The highest key of a trick wins it; the keys of the
cards that can win are distinct, so there are no ties (RULES.md section 4).

``TRICK_KEYS[deuce_high, card * NUM_SUITS + led]`` is that table as a numpy
array (the batch engines gather from it); ``led_keys(deuce_high)`` is the same
row as a tuple of Python ints (the scalar core reads it per card played), so
every engine decides every trick from the same numbers.

*Who wins* is stated once, by :func:`winning_place` for every form of
:mod:`~spades_env.core.ops`: the place of the highest key among the trick's
cards (a tuple for one hand, a ``(tables, places)`` array for many). The
places may be in play order (the scalar ``HandState``, the masked engine) or
in seat order (the numpy engine's trick boards): the suit led is given, so
the order does not matter. What the end of a trick then does (the winner
takes it and leads the next one; the hand is over after the last) is one
comparison that each engine writes in its own form of state (a branch for one
hand, masks or index groups for many).

*What a trick shows* (the one home of public voids): a card played shows the
table that its player lacks some suits, and which depends only on the card's
suit, the suit led and the *situation* of the play (``core.card_play.situation``):

* ``FOLLOWS``: a card that does not follow the suit led shows a void in it;
* ``LEADS_BEFORE_BROKEN``: a spade (or joker) led before spades are broken, where
  the rules forbid it unless the leader holds only spades (not with
  ``dealer_leads_any``), shows no club, diamond or heart;
* ``LEADS_FREELY``: any other lead shows nothing;
* ``LOWEST_CLUB_TRICK``: on the first trick under ``first_trick: lowest_club``
  every player (the leader too) must play its lowest club, else a diamond or a
  heart, a spade only when it holds nothing else: a non-club shows no club, a
  spade shows no club, diamond or heart.

``VOIDS_SHOWN[situation, led, suit]`` is that table (a suit bitmask, bit ``s``
= suit ``s``); the scalar core (:func:`trick_voids`), the observation
encoders and the batch engine all read it. Jokers count as spades. What one
observer may deduce beyond this (every card of a suit seen) is not public and
is left to the agents.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from .card_play import (  # noqa: F401 - the situations are re-exported: what a card shows depends on them
    FOLLOWS,
    LEADS_BEFORE_BROKEN,
    LEADS_FREELY,
    LOWEST_CLUB_TRICK,
    NUM_SITUATIONS,
    play_situation,
)
from .cards import CARD_SUIT, NUM_CARDS, NUM_SUITS, SPADE_MASK, TRUMP, Suit, card_power
from .ops import INT, Ops
from .rules import Rules

TRUMP_BONUS = 100  # any trump outranks every card of the suit led
CANNOT_WIN = -1  # key of a card that neither follows the suit led nor trumps
DEUCE_HIGH_CHOICES = (False, True)  # row index of TRICK_KEYS: rules.deuce_of_spades_high
KEY_ROW = NUM_CARDS * NUM_SUITS  # the length of a row of TRICK_KEYS

_WIN_KEYS: dict[bool, tuple[tuple[int, ...], tuple[int, ...]]] = {}


def win_keys(deuce_high: bool) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """(key when the card is a trump, key when it follows the suit led) per card."""
    if deuce_high not in _WIN_KEYS:
        power = [card_power(c, deuce_high) for c in range(NUM_CARDS)]
        trump = tuple(TRUMP_BONUS + power[c] if CARD_SUIT[c] == TRUMP else CANNOT_WIN for c in range(NUM_CARDS))
        _WIN_KEYS[deuce_high] = (trump, tuple(power))
    return _WIN_KEYS[deuce_high]


def _key_given_led(deuce_high: bool, card: int, led: int) -> int:
    trump, power = win_keys(deuce_high)
    if trump[card] != CANNOT_WIN:
        return trump[card]
    return power[card] if CARD_SUIT[card] == led else CANNOT_WIN


def _build_trick_keys() -> np.ndarray:
    out = np.full((len(DEUCE_HIGH_CHOICES), NUM_CARDS * NUM_SUITS), CANNOT_WIN, np.intp)
    for row, deuce_high in enumerate(DEUCE_HIGH_CHOICES):
        for card in range(NUM_CARDS):
            for led in range(NUM_SUITS):
                out[row, card * NUM_SUITS + led] = _key_given_led(deuce_high, card, led)
    out.setflags(write=False)
    return out


TRICK_KEYS = _build_trick_keys()
_LED_KEYS = {deuce_high: tuple(int(k) for k in TRICK_KEYS[row]) for row, deuce_high in enumerate(DEUCE_HIGH_CHOICES)}


def led_keys(deuce_high: bool) -> tuple[int, ...]:
    """The row of ``TRICK_KEYS`` for these rules, as Python ints (index ``card * NUM_SUITS + led``)."""
    return _LED_KEYS[bool(deuce_high)]


def key_start(deuce_high: bool) -> int:
    """Where the row of the rules (``deuce_of_spades_high``) starts in ``TRICK_KEYS`` flattened."""
    return DEUCE_HIGH_CHOICES.index(bool(deuce_high)) * KEY_ROW


def winning_place(ops: Ops, keys: Any, cards: Any, led: Any, start: Any = None) -> Any:
    """The place in a trick (an index along ``cards``' last axis) of the card that wins it: the highest key given
    the suit ``led``; ``keys``: the rules' row (``led_keys``), or ``TRICK_KEYS`` flat with ``start`` each table's
    row (``key_start``)."""
    # the highest key is a trump's or one of the suit led: those keys are distinct, so no two places tie
    return ops.argmax_lookup(keys, cards, NUM_SUITS, led if start is None else led + start)


def winning_index(keys: Sequence[int], cards: Sequence[int]) -> int:
    """Index in ``cards`` (the trick in play order) of the card that wins it."""
    return winning_place(INT, keys, cards, CARD_SUIT[cards[0]])


def best_of_trick(trump_key: Sequence[int], power: Sequence[int], cards: Sequence[int]) -> tuple[int, int]:
    """(index, key) of the card winning a trick so far: the highest trump, else the highest of the suit led."""
    led = CARD_SUIT[cards[0]]
    best_key, best_i = CANNOT_WIN - 1, 0
    for i, card in enumerate(cards):
        key = trump_key[card]
        if key < 0:
            key = power[card] if CARD_SUIT[card] == led else CANNOT_WIN
        if key > best_key:
            best_key, best_i = key, i
    return best_i, best_key


# ------------------------------------------------------------------ what a trick shows
CLUB_BIT = 1 << Suit.CLUBS
SIDE_SUITS = sum(1 << s for s in Suit if s != TRUMP)  # clubs, diamonds, hearts as a suit bitmask


def _shown(situation: int, led: int, suit: int) -> int:
    """Suits (bitmask) a card of ``suit`` played in ``situation`` to a trick led in ``led`` shows lacking."""
    if situation == LOWEST_CLUB_TRICK:
        if suit == Suit.CLUBS:
            return 0
        return SIDE_SUITS if suit == TRUMP else CLUB_BIT
    if situation == LEADS_BEFORE_BROKEN:
        return SIDE_SUITS if suit == TRUMP else 0
    if situation == FOLLOWS and suit != led:
        return 1 << led
    return 0


def _build_voids_shown() -> np.ndarray:
    out = np.zeros((NUM_SITUATIONS, NUM_SUITS, NUM_SUITS), np.uint8)
    for situation in range(NUM_SITUATIONS):
        for led in range(NUM_SUITS):
            for suit in range(NUM_SUITS):
                out[situation, led, suit] = _shown(situation, led, suit)
    out.setflags(write=False)
    return out


VOIDS_SHOWN = _build_voids_shown()
_SHOWN = tuple(tuple(tuple(int(m) for m in row) for row in plane) for plane in VOIDS_SHOWN)  # as Python ints


def voids_shown(situation: int, led: int, card: int) -> int:
    """Suit bitmask that playing ``card`` in ``situation`` to a trick led in suit ``led`` shows lacking."""
    return _SHOWN[situation][led][CARD_SUIT[card]]


_VOIDS_TABLES: dict[Rules, tuple] = {}
_VOIDS_TABLES_LIMIT = 256  # distinct rules seen in one process: presets and a crazy rotation fit many times over


def voids_shown_table(rules: Rules) -> tuple:
    """``voids_shown(play_situation(rules, first_trick, leads, broken_before), led, card)`` for every case under
    ``rules``, as nested tuples of ints indexed ``[first_trick][leads][broken_before][led][card]`` (built once per
    rules, for per-card hot paths)."""
    table = _VOIDS_TABLES.get(rules)
    if table is None:
        table = tuple(
            tuple(
                tuple(
                    tuple(
                        tuple(
                            voids_shown(play_situation(rules, first, leads, broken), led, card)
                            for card in range(NUM_CARDS)
                        )
                        for led in range(NUM_SUITS)
                    )
                    for broken in (False, True)
                )
                for leads in (False, True)
            )
            for first in (False, True)
        )
        if len(_VOIDS_TABLES) >= _VOIDS_TABLES_LIMIT:
            _VOIDS_TABLES.clear()
        _VOIDS_TABLES[rules] = table
    return table


def trick_voids(
    rules: Rules, seats: Sequence[int], cards: Sequence[int], gone_before: int, first_trick: bool, voids: list[int]
) -> None:
    """Add to ``voids`` (suit bitmasks per seat) what one trick's cards (in play order) show the table;
    ``gone_before``: the cards played before the trick."""
    if not cards:
        return
    led = CARD_SUIT[cards[0]]
    broken = bool(gone_before & SPADE_MASK)
    for i, (seat, card) in enumerate(zip(seats, cards)):
        voids[seat] |= _SHOWN[play_situation(rules, first_trick, i == 0, broken)][led][CARD_SUIT[card]]
