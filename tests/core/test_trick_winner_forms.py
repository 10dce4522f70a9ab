"""Who wins a trick (``core.tricks.winning_place``) is one rule for one hand and for many tables.

Random tricks of every key row (``deuce_of_spades_high`` False and True) and of both packs (the jokers
presets' and the standard one), of two, three and four cards, are decided by ``winning_place`` on plain
ints (one trick at a time, as ``HandState`` does), on numpy arrays (every trick at once, the tables' rows
mixed as a crazy rotation's are, or one row for all as one rules id), and with the cards in another order
than play (the numpy engine's trick boards are in seat order): each answer must be the card that an
independent reference (``tests.core.helpers.reference_winner``) picks. The torch form is compared in
``tests/batch/test_torch_rule_forms.py``.
"""

from __future__ import annotations

import numpy as np
import pytest

from spades_env.core import deal_cards, preset, trick_winner
from spades_env.core.cards import CARD_NAMES, CARD_SUIT, deck
from spades_env.core.hand import HandState
from spades_env.core.ops import ARRAY, INT
from spades_env.core.tricks import DEUCE_HIGH_CHOICES, TRICK_KEYS, key_start, led_keys, winning_index, winning_place

from .helpers import reference_winner

K = 3000  # random tricks per case
PACKS = {"standard": np.array(deck(False)), "jokers": np.array(deck(True))}


def random_tricks(rng: np.random.Generator, pack: str, places: int, k: int = K) -> np.ndarray:
    """``k`` tricks of ``places`` distinct cards of the pack, in play order, as a ``(k, places)`` array."""
    cards = PACKS[pack]
    return np.stack([rng.choice(cards, size=places, replace=False) for _ in range(k)])


def reference(tricks: np.ndarray, deuce_high) -> np.ndarray:
    """The reference's winning place of every trick (``deuce_high``: one for all, or one per trick)."""
    deuce_high = np.broadcast_to(deuce_high, len(tricks))
    return np.array([reference_winner([CARD_NAMES[c] for c in t], bool(d)) for t, d in zip(tricks, deuce_high)])


@pytest.mark.parametrize("places", [2, 3, 4])
@pytest.mark.parametrize("pack", sorted(PACKS))
@pytest.mark.parametrize("deuce_high", DEUCE_HIGH_CHOICES)
def test_one_hand_form_picks_the_reference_winner(deuce_high, pack, places):
    rng = np.random.default_rng([int(deuce_high), int(pack == "jokers"), places])
    tricks = random_tricks(rng, pack, places)
    expected = reference(tricks, deuce_high)
    keys = led_keys(deuce_high)
    for trick, want in zip(tricks.tolist(), expected.tolist()):
        led = CARD_SUIT[trick[0]]
        assert winning_place(INT, keys, trick, led) == want
        assert winning_place(INT, keys, tuple(trick), led) == want  # a played trick is kept as a tuple
        assert winning_index(keys, trick) == want  # the older name, now the same rule


@pytest.mark.parametrize("places", [2, 3, 4])
@pytest.mark.parametrize("pack", sorted(PACKS))
def test_array_form_picks_the_one_hand_winner_at_every_table(pack, places):
    rng = np.random.default_rng([7, int(pack == "jokers"), places])
    tricks = random_tricks(rng, pack, places)
    deuce_high = rng.random(K) < 0.5  # each table's rules, mixed as a rotation's tables are
    led = np.array([CARD_SUIT[c] for c in tricks[:, 0]])
    one_hand = np.array(
        [winning_place(INT, led_keys(d), t, CARD_SUIT[t[0]]) for t, d in zip(tricks.tolist(), deuce_high.tolist())]
    )
    assert np.array_equal(one_hand, reference(tricks, deuce_high))
    start = np.array([key_start(d) for d in deuce_high.tolist()])
    many = winning_place(ARRAY, TRICK_KEYS.ravel(), tricks, led, start)
    assert many.shape == (K,)
    assert np.array_equal(many, one_hand)
    for row, d in enumerate(DEUCE_HIGH_CHOICES):  # one rules id: its row alone, no start
        same = deuce_high == d
        assert np.array_equal(winning_place(ARRAY, TRICK_KEYS[row], tricks[same], led[same]), one_hand[same])


@pytest.mark.parametrize("pack", sorted(PACKS))
def test_the_places_may_be_in_any_order_given_the_suit_led(pack):
    rng = np.random.default_rng([11, int(pack == "jokers")])
    tricks = random_tricks(rng, pack, 4)
    deuce_high = rng.random(K) < 0.5
    led = np.array([CARD_SUIT[c] for c in tricks[:, 0]])
    winners = tricks[np.arange(K), reference(tricks, deuce_high)]
    order = np.argsort(rng.random((K, 4)), axis=1)  # e.g. seat order, the leader anywhere
    shuffled = np.take_along_axis(tricks, order, axis=1)
    start = np.array([key_start(d) for d in deuce_high.tolist()])
    many = winning_place(ARRAY, TRICK_KEYS.ravel(), shuffled, led, start)
    assert np.array_equal(shuffled[np.arange(K), many], winners)
    for i in range(0, K, 10):
        place = winning_place(INT, led_keys(deuce_high[i]), shuffled[i].tolist(), int(led[i]))
        assert shuffled[i, place] == winners[i]


def test_key_start_is_the_row_of_the_rules_in_the_flat_table():
    flat = TRICK_KEYS.ravel()
    for row, deuce_high in enumerate(DEUCE_HIGH_CHOICES):
        start = key_start(deuce_high)
        assert flat[start : start + TRICK_KEYS.shape[1]].tolist() == TRICK_KEYS[row].tolist()


@pytest.mark.parametrize("name", ["standard", "jokers", "barmore", "cutthroat3", "two_player"])
def test_hand_state_scores_each_trick_for_the_reference_winner(name):
    """``HandState`` decides its tricks by ``winning_place``: random hands, every trick checked."""
    rules = preset(name)
    rng = np.random.default_rng(3)
    checked = 0
    for hand in range(20):
        dealer = hand % rules.num_players
        state = HandState(rules, deal_cards(rules, rng, dealer), dealer)
        while not state.is_over:
            legal = state.legal_actions()
            done = state.apply(legal[int(rng.integers(len(legal)))])
            if done.trick_winner >= 0:
                _, seats, cards, winner = state.last_trick
                place = reference_winner([CARD_NAMES[c] for c in cards], rules.deuce_of_spades_high)
                assert done.trick_winner == winner == seats[place]
                assert trick_winner(rules, seats, cards) == winner
                checked += 1
    assert checked == 20 * rules.num_tricks
