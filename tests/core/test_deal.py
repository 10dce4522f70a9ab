"""Deals (RULES.md section 2): shuffling, dealing order, literal deals, rotation."""

import numpy as np
import pytest

from spades_env.core import Deal, DealError, deal_cards, format_card, make_deal, parse_card, preset

from .helpers import ONE_SUIT_HANDS, suit


def _strings(cards):
    return {format_card(c) for c in cards}


@pytest.mark.parametrize("name", ["standard", "jokers", "cutthroat", "cutthroat3"])
def test_seeded_deal_is_reproducible(name):
    rules = preset(name)
    a = deal_cards(rules, np.random.default_rng(123), 0)
    b = deal_cards(rules, np.random.default_rng(123), 0)
    c = deal_cards(rules, np.random.default_rng(124), 0)
    assert a == b
    assert a != c


@pytest.mark.parametrize("seed", range(5))
def test_four_players_get_13_cards_each_from_the_52_card_pack(seed):
    deal = deal_cards(preset("standard"), np.random.default_rng(seed), seed % 4)
    assert [len(h) for h in deal.hands] == [13, 13, 13, 13]
    assert deal.set_aside == ()
    assert sorted(c for h in deal.hands for c in h) == list(range(52))


@pytest.mark.parametrize("seed", range(5))
def test_three_players_get_17_each_and_one_card_is_set_aside(seed):
    deal = deal_cards(preset("cutthroat3"), np.random.default_rng(seed), seed % 3)
    assert [len(h) for h in deal.hands] == [17, 17, 17]
    assert len(deal.set_aside) == 1
    assert sorted([c for h in deal.hands for c in h] + list(deal.set_aside)) == list(range(52))


def test_set_aside_card_varies_with_the_shuffle():
    seen = {deal_cards(preset("cutthroat3"), np.random.default_rng(s), 0).set_aside for s in range(40)}
    assert len(seen) > 5


@pytest.mark.parametrize("seed", range(5))
def test_jokers_pack_lacks_2c_2h_and_has_both_jokers(seed):
    deal = deal_cards(preset("jokers"), np.random.default_rng(seed), 0)
    cards = _strings(c for h in deal.hands for c in h)
    assert len(cards) == 52
    assert "2C" not in cards and "2H" not in cards
    assert "BJ" in cards and "LJ" in cards
    assert [len(h) for h in deal.hands] == [13] * 4


def test_dealing_starts_left_of_the_dealer_one_card_at_a_time():
    """The first card of the shuffled pack goes to dealer + 1, the second to dealer + 2, ..."""
    rules = preset("standard")
    order = np.random.default_rng(7).permutation(52)
    for dealer in range(4):
        deal = deal_cards(rules, np.random.default_rng(7), dealer)
        for i in range(8):
            seat = (dealer + 1 + i) % 4
            assert int(order[i]) in deal.hands[seat], (dealer, i)


def test_three_player_deal_sets_aside_the_52nd_card():
    rules = preset("cutthroat3")
    order = np.random.default_rng(11).permutation(52)
    deal = deal_cards(rules, np.random.default_rng(11), 1)
    assert deal.set_aside == (int(order[51]),)
    assert int(order[0]) in deal.hands[2]  # left of dealer 1


def test_same_seed_different_dealer_rotates_who_gets_what():
    rules = preset("standard")
    d0 = deal_cards(rules, np.random.default_rng(5), 0)
    d1 = deal_cards(rules, np.random.default_rng(5), 1)
    assert d1 == d0.rotate(1)


def test_make_deal_sorts_and_accepts_strings_ids_and_10():
    deal = make_deal(
        preset("standard"), [suit("C").replace("TC", "10C"), list(range(13, 26)), suit("H"), suit("S").split()]
    )
    assert deal.hands[0] == tuple(range(13))
    assert deal.hands[1] == tuple(range(13, 26))
    assert deal.set_aside == ()
    assert deal.to_strings()[3] == suit("S").split()


def test_make_deal_three_players_computes_set_aside():
    hands = [
        suit("C") + " 3D 4D 5D 6D",
        suit("D", "789TJQKA") + " " + suit("H", "23456789T"),
        suit("H", "JQKA") + " " + suit("S"),
    ]
    deal = make_deal(preset("cutthroat3"), hands)
    assert deal.set_aside == (parse_card("2D"),)


def _hands_with(seat, replacement):
    hands = [h.split() for h in ONE_SUIT_HANDS]
    hands[seat] = replacement
    return hands


@pytest.mark.parametrize(
    "hands, rules_name, fragment",
    [
        (ONE_SUIT_HANDS[:3], "standard", "4 hands"),
        (ONE_SUIT_HANDS + [suit("S")], "standard", "4 hands"),
        (_hands_with(2, suit("H").split()[:12]), "standard", "seat 2 has 12"),
        (_hands_with(1, suit("D").split() + ["2C"]), "standard", "seat 1 has 14"),
        (_hands_with(3, suit("S").split()[:12] + ["2C"]), "standard", "2C"),  # duplicate of seat 0's 2C
        (_hands_with(2, suit("H").split()[:12] + ["XX"]), "standard", "seat 2"),  # malformed
        (_hands_with(0, suit("C").split()[:12] + [99]), "standard", "seat 0"),  # bad id
        (ONE_SUIT_HANDS, "jokers", "2C"),  # 2C is not in the jokers pack
        ("2C 3C", "standard", "list"),
        (ONE_SUIT_HANDS, "cutthroat3", "3 hands"),
    ],
)
def test_make_deal_rejects_bad_deals_naming_the_problem(hands, rules_name, fragment):
    with pytest.raises(DealError, match=fragment):
        make_deal(preset(rules_name), hands)


def test_make_deal_duplicate_names_both_seats():
    hands = _hands_with(3, suit("S").split()[:12] + ["2C"])
    with pytest.raises(DealError, match=r"seats 0 and 3"):
        make_deal(preset("standard"), hands)


def test_make_deal_rejects_a_joker_without_jokers():
    hands = _hands_with(3, suit("S").split()[:12] + ["BJ"])
    with pytest.raises(DealError, match="BJ"):
        make_deal(preset("standard"), hands)


def test_deal_rotate_moves_each_hand_k_seats_clockwise():
    deal = make_deal(preset("standard"), ONE_SUIT_HANDS)
    rotated = deal.rotate(1)
    assert rotated.hands[1] == deal.hands[0]  # seat 0's clubs now at seat 1
    assert rotated.hands[0] == deal.hands[3]  # seat 3's spades now at seat 0
    assert deal.rotate(4) == deal
    assert deal.rotate(1).rotate(3) == deal
    assert deal.rotate(-1) == deal.rotate(3)


def test_deal_rotate_keeps_set_aside():
    deal = Deal(((1,), (2,), (3,)), (4,))
    assert deal.rotate(1) == Deal(((3,), (1,), (2,)), (4,))
