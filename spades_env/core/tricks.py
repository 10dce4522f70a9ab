"""Who wins a trick: the trick order keys, built once and read by both engines.

Every card has a *key given the suit led*: a trump (a spade, or a joker) keys
``TRUMP_BONUS + power``, a card of the suit led keys its power, any other card
keys ``CANNOT_WIN`` (-1). The highest key of a trick wins it; the keys of the
cards that can win are distinct, so there are no ties (RULES.md section 4).

``TRICK_KEYS[deuce_high, card * NUM_SUITS + led]`` is that table as a numpy
array (the batch engine gathers from it); ``led_keys(deuce_high)`` is the same
row as a tuple of Python ints (the scalar core reads it per card played), so
both engines decide every trick from the same numbers.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

from .cards import CARD_SUIT, NUM_CARDS, NUM_SUITS, TRUMP, card_power

TRUMP_BONUS = 100  # any trump outranks every card of the suit led
CANNOT_WIN = -1  # key of a card that neither follows the suit led nor trumps
DEUCE_HIGH_CHOICES = (False, True)  # row index of TRICK_KEYS: rules.deuce_of_spades_high

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


def winning_index(keys: Sequence[int], cards: Sequence[int]) -> int:
    """Index in ``cards`` (the trick in play order) of the card that wins it."""
    led = CARD_SUIT[cards[0]]
    best_i, best_key = 0, CANNOT_WIN - 1
    for i, card in enumerate(cards):
        key = keys[card * NUM_SUITS + led]
        if key > best_key:
            best_key, best_i = key, i
    return best_i


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
