"""The tracker records the action that ends a hand (``end_hand``) to the same buffer as a full re-encode of
the finished hand (``start_hand``), for every seat's private blocks as well."""

from __future__ import annotations

import numpy as np
import pytest

from spades_env.core.game import Game
from spades_env.obs.tracker import ObservationTracker
from tests.env.helpers import PRESET_NAMES


@pytest.mark.parametrize("rules_name", PRESET_NAMES)
def test_end_hand_equals_reencoding_the_finished_hand(rules_name):
    import spades_env

    rules = spades_env.load_rules(rules_name)
    rng = np.random.default_rng(3)
    game = Game(rules, rng, scores=[40] * rules.num_sides)
    hand = game.hand
    tracker = ObservationTracker()
    tracker.start_hand(hand, game.scores, game.bags, rules)
    while True:
        result = game.apply(int(rng.choice(hand.legal_actions())))
        if result is not None:
            break
        tracker.update(hand, hand.last_transition)
    tracker.end_hand(hand, hand.last_transition, game.scores, game.bags, rules)
    reference = ObservationTracker()
    reference.start_hand(hand, game.scores, game.bags, rules)
    assert list(game.scores) != [40] * rules.num_sides or any(game.bags)  # the hand changed them
    np.testing.assert_array_equal(tracker.buf, reference.buf)
