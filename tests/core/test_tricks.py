"""The trick order keys (``core.tricks``): one table read by the core and by the batch engine."""

from __future__ import annotations

import numpy as np
import pytest

from spades_env.core import preset, trick_winner
from spades_env.core.cards import CARD_NAMES, CARD_SUIT, NUM_CARDS, NUM_SUITS, TRUMP, deck
from spades_env.core.tricks import CANNOT_WIN, DEUCE_HIGH_CHOICES, TRICK_KEYS, led_keys, winning_index

from .helpers import reference_winner

TRICKS_PER_CASE = 2000


@pytest.mark.parametrize("deuce_high", DEUCE_HIGH_CHOICES)
@pytest.mark.parametrize("jokers", [False, True])
def test_trick_keys_pick_the_reference_winner_of_random_tricks(deuce_high, jokers):
    rng = np.random.default_rng(int(deuce_high) * 2 + int(jokers))
    pack = np.array(deck(jokers))
    rules = preset("jokers" if jokers else "standard").replace(deuce_of_spades_high=deuce_high)
    for _ in range(TRICKS_PER_CASE):
        cards = [int(c) for c in rng.choice(pack, size=4, replace=False)]
        expected = reference_winner([CARD_NAMES[c] for c in cards], deuce_high)
        assert winning_index(led_keys(deuce_high), cards) == expected
        assert trick_winner(rules, [3, 0, 1, 2], cards) == [3, 0, 1, 2][expected]


@pytest.mark.parametrize("row", range(len(DEUCE_HIGH_CHOICES)))
def test_cards_that_can_win_have_distinct_keys_given_the_suit_led(row):
    for led in range(NUM_SUITS):
        keys = [int(TRICK_KEYS[row, c * NUM_SUITS + led]) for c in range(NUM_CARDS)]
        winners = [k for k in keys if k != CANNOT_WIN]
        assert len(winners) == len(set(winners))
        # a card of the suit led or a trump can win; any other card cannot
        assert all((k != CANNOT_WIN) == (CARD_SUIT[c] in (led, TRUMP)) for c, k in enumerate(keys))


def test_the_table_is_read_only_and_the_scalar_rows_are_the_same_numbers():
    assert not TRICK_KEYS.flags.writeable
    for row, deuce_high in enumerate(DEUCE_HIGH_CHOICES):
        assert list(led_keys(deuce_high)) == TRICK_KEYS[row].tolist()
