"""The plain-value paths of one game against the array forms they share their rules with.

``game_end_one`` (what ``Game`` calls after each hand) runs the same lines as ``game_end`` on ints;
``deal_cards`` deals with list slices what the pack's shuffle says: card ``i`` of the shuffled pack
goes to seat ``(dealer + 1 + i) % n``.
"""

from __future__ import annotations

import copy

import numpy as np
import pytest

from spades_env.core import PRESETS, preset
from spades_env.core.cards import deck
from spades_env.core.deal import deal_cards
from spades_env.core.game import NO_WINNER, game_end, game_end_one


@pytest.mark.parametrize("name", sorted(PRESETS))
def test_one_game_end_on_ints_matches_the_array_game_end(name):
    rules = preset(name).replace(max_hands=5)
    rng = np.random.default_rng(sum(map(ord, name)) + 1)
    k = 400
    scores = rng.integers(-600, 700, size=(k, rules.num_sides)) // 50 * 50  # coarse, so ties happen
    hands = rng.integers(1, 8, size=k)
    winner, truncated = game_end(rules, scores, hands)
    for t in range(k):
        one = game_end_one(rules, scores[t].tolist(), int(hands[t]))
        assert one == (int(winner[t]), bool(truncated[t])), (scores[t], hands[t])
        assert type(one[0]) is int and type(one[1]) is bool


def test_a_shared_highest_score_has_no_winner_on_the_one_game_path():
    assert game_end_one(preset("standard"), [510, 510], 3) == (NO_WINNER, False)


@pytest.mark.parametrize("name", ["standard", "cutthroat3", "jokers"])
def test_card_i_of_the_shuffled_pack_goes_to_the_seat_dealer_plus_one_plus_i(name):
    rules = preset(name)
    n = rules.num_players
    for seed, dealer in [(0, 0), (1, n - 1), (7, 1)]:
        rng = np.random.default_rng(seed)
        pack = deck(rules.jokers)
        shuffled = [pack[i] for i in copy.deepcopy(rng).permutation(len(pack))]
        deal = deal_cards(rules, rng, dealer)
        dealt = rules.hand_size * n
        for i, card in enumerate(shuffled[:dealt]):
            assert card in deal.hands[(dealer + 1 + i) % n]
        assert deal.set_aside == tuple(sorted(shuffled[dealt:]))
        assert all(list(hand) == sorted(hand) and len(hand) == rules.hand_size for hand in deal.hands)
