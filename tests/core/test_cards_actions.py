"""Cards, notation and the action space (RULES.md notation; actions.py table)."""

import numpy as np
import pytest

from spades_env.core import (
    BLIND_NIL,
    NUM_ACTIONS,
    PRESETS,
    SEE_CARDS,
    TEN_FOR_200,
    ActionError,
    CardError,
    HandState,
    action_name,
    bid_action,
    blind_bid_action,
    card_action,
    deal_cards,
    format_card,
    format_cards,
    parse_action,
    parse_card,
    parse_cards,
    preset,
)

ALL_CARD_STRINGS = [r + s for s in "CDHS" for r in "23456789TJQKA"] + ["LJ", "BJ"]


def test_there_are_54_distinct_card_strings():
    assert len(set(ALL_CARD_STRINGS)) == 54


@pytest.mark.parametrize("text", ALL_CARD_STRINGS)
def test_card_parse_format_round_trip(text):
    card = parse_card(text)
    assert 0 <= card < 54
    assert format_card(card) == text


def test_card_ids_are_distinct_and_cover_0_to_53():
    assert sorted(parse_card(t) for t in ALL_CARD_STRINGS) == list(range(54))


@pytest.mark.parametrize(
    "text, card_id",
    [
        ("2C", 0),
        ("AC", 12),
        ("2D", 13),
        ("TD", 21),
        ("2H", 26),
        ("AH", 38),
        ("2S", 39),
        ("AS", 51),
        ("LJ", 52),
        ("BJ", 53),
    ],
)
def test_card_ids_follow_openspiel_numbering(text, card_id):
    assert parse_card(text) == card_id


@pytest.mark.parametrize("ten", ["10D", "10d", "td", "TD", " 10D "])
def test_ten_can_be_written_10_or_T(ten):
    assert parse_card(ten) == parse_card("TD")


@pytest.mark.parametrize("text, expected", [("as", "AS"), ("qh", "QH"), ("bj", "BJ"), ("Lj", "LJ"), ("kD", "KD")])
def test_card_parsing_is_case_insensitive(text, expected):
    assert format_card(parse_card(text)) == expected


@pytest.mark.parametrize("bad", ["1S", "AX", "", "JJ", 5, None, "10", "11S", "ASS", "S", "0S", "BJS", b"AS"])
def test_malformed_card_raises_card_error(bad):
    with pytest.raises(CardError):
        parse_card(bad)


@pytest.mark.parametrize("bad", [-1, 54, 1.0, True, "AS"])
def test_format_card_rejects_bad_ids(bad):
    with pytest.raises(CardError):
        format_card(bad)


def test_parse_cards_accepts_a_string_or_a_list():
    assert parse_cards("AS 10D 2c") == [51, 21, 0]
    assert parse_cards(["AS", "TD", 0]) == [51, 21, 0]
    assert format_cards([51, 21, 0]) == "AS TD 2C"
    with pytest.raises(CardError):
        parse_cards(["AS", 99])


# --- actions ------------------------------------------------------------------


def test_action_space_has_90_actions_with_the_drawing_ones_last():
    assert NUM_ACTIONS == 90
    assert (parse_action("keep"), parse_action("discard")) == (88, 89)
    assert (action_name(88), action_name(89)) == ("keep", "discard")
    assert parse_action("  KEEP ") == 88


@pytest.mark.parametrize("card", ALL_CARD_STRINGS)
def test_card_action_is_the_card_id(card):
    assert card_action(card) == parse_card(card)
    assert card_action(parse_card(card)) == parse_card(card)
    assert action_name(card_action(card)) == card


@pytest.mark.parametrize("bad", [-1, 54, True, 3.0])
def test_card_action_rejects_bad_ids(bad):
    with pytest.raises(CardError):
        card_action(bad)


@pytest.mark.parametrize(
    "n, action, name",
    [
        (0, 54, "nil"),
        (1, 55, "bid 1"),
        (4, 58, "bid 4"),
        (13, 67, "bid 13"),
        (17, 71, "bid 17"),
    ],
)
def test_bid_action_numbers_and_names(n, action, name):
    assert bid_action(n) == action
    assert action_name(action) == name
    assert parse_action(name) == action


@pytest.mark.parametrize("bad", [-1, 18, 100, True, 2.0, "3"])
def test_bid_action_out_of_range_raises(bad):
    with pytest.raises(ActionError):
        bid_action(bad)


@pytest.mark.parametrize("n, action", [(1, 75), (7, 81), (13, 87)])
def test_blind_bid_actions(n, action):
    assert blind_bid_action(n) == action
    assert action_name(action) == f"blind {n}"
    assert parse_action(f"blind {n}") == action


@pytest.mark.parametrize("bad", [0, 14, -3])
def test_blind_bid_action_out_of_range_raises(bad):
    with pytest.raises(ActionError):
        blind_bid_action(bad)


@pytest.mark.parametrize(
    "action, name",
    [
        (BLIND_NIL, "blind nil"),
        (SEE_CARDS, "see cards"),
        (TEN_FOR_200, "10 for 200"),
        (72, "blind nil"),
        (73, "see cards"),
        (74, "10 for 200"),
    ],
)
def test_special_action_names(action, name):
    assert action_name(action) == name
    assert parse_action(name) == action


def test_every_action_name_parses_back_to_its_action():
    names = [action_name(a) for a in range(NUM_ACTIONS)]
    assert len(set(names)) == NUM_ACTIONS
    assert [parse_action(n) for n in names] == list(range(NUM_ACTIONS))


@pytest.mark.parametrize(
    "text, action",
    [
        ("10D", 21),
        ("td", 21),
        ("  Bid   4 ", 58),
        ("NIL", 54),
        ("Blind Nil", 72),
        ("SEE CARDS", 73),
        ("bj", 53),
    ],
)
def test_parse_action_is_lenient_about_case_and_spacing(text, action):
    assert parse_action(text) == action


@pytest.mark.parametrize("bad", ["bid 18", "bid", "pass", "", "1S", 5, None, "blind 14"])
def test_parse_action_rejects_unknown_names(bad):
    with pytest.raises(ActionError):
        parse_action(bad)


@pytest.mark.parametrize("bad", [-1, 90, 1000, "AS", None])
def test_action_name_rejects_out_of_range(bad):
    with pytest.raises(ActionError):
        action_name(bad)


def test_action_name_accepts_numpy_integers():
    assert action_name(np.int64(51)) == "AS"
    assert action_name(np.int32(54)) == "nil"


@pytest.mark.parametrize("name", sorted(PRESETS))
def test_action_space_is_constant_across_presets(name):
    """Every legal-action mask of every preset lies inside the same 90-action space."""
    import random

    rules = preset(name)
    for hand_index in range(4):  # the crazy rotation changes variant by hand
        hand_rules = rules.hand_rules(hand_index)
        state = HandState(hand_rules, deal_cards(hand_rules, np.random.default_rng(hand_index), 0), 0)
        pick = random.Random(hand_index)
        while not state.is_over:
            mask = state.legal_mask()
            assert mask != 0 and mask >> NUM_ACTIONS == 0
            state.apply(pick.choice(state.legal_actions()))
