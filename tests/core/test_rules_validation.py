"""The rules config: presets and validation (RULES.md sections 3, 7, 8, 9)."""

import dataclasses

import pytest

from spades_env.core import PRESETS, Rules, RulesError, preset

EXPECTED_PRESETS = {"standard", "pagat", "online", "openspiel", "jokers", "barmore", "cutthroat", "cutthroat3",
                    "mirror", "suicide", "crazy"}


def test_preset_names_are_those_of_rules_md_section_9():
    assert set(PRESETS) == EXPECTED_PRESETS


def test_default_rules_are_the_standard_preset():
    assert Rules(name="standard") == preset("standard")


@pytest.mark.parametrize("name, option, value", [
    # standard: nil 100, nil tricks are bags, blind nil 200 when behind by 100, no exchange, bags 10 -> -100
    ("standard", "nil_value", 100), ("standard", "nil_tricks_count_for_partner", False),
    ("standard", "blind_nil", True), ("standard", "blind_nil_requires_deficit", 100),
    ("standard", "blind_nil_exchange", 0), ("standard", "bag_limit", 10), ("standard", "bag_penalty", 100),
    ("standard", "target_score", 500), ("standard", "first_trick", "standard"),
    ("pagat", "nil_value", 50), ("pagat", "nil_tricks_count_for_partner", True),
    ("pagat", "blind_nil_exchange", 2), ("pagat", "first_trick", "lowest_club"),
    ("pagat", "blind_nil_requires_deficit", 100),
    ("online", "blind_nil_requires_deficit", None), ("online", "ten_for_200", True),
    ("openspiel", "nil_value", 100), ("openspiel", "nil_tricks_count_for_partner", True),
    ("openspiel", "blind_nil", False), ("openspiel", "ten_for_200", False), ("openspiel", "max_team_bid", 13),
    ("openspiel", "target_score", 500), ("openspiel", "lose_score", -350),
    ("jokers", "jokers", True), ("jokers", "deuce_of_spades_high", False),
    ("barmore", "jokers", True), ("barmore", "deuce_of_spades_high", True), ("barmore", "dealer_leads_any", True),
    ("barmore", "nil", False), ("barmore", "blind_nil", False), ("barmore", "blind_bids", True),
    ("barmore", "blind_bid_min", 7),
    ("cutthroat", "partnerships", False), ("cutthroat", "num_players", 4), ("cutthroat", "blind_nil", True),
    ("cutthroat3", "partnerships", False), ("cutthroat3", "num_players", 3),
    ("mirror", "mirror", True), ("mirror", "blind_nil", False),
    ("suicide", "suicide", True),
    ("crazy", "crazy", ("standard", "jokers", "mirror", "suicide")),
])
def test_preset_option_values(name, option, value):
    assert getattr(preset(name), option) == value


def test_blind_nil_is_worth_twice_nil_by_default():
    assert preset("standard").blind_nil_points == 200
    assert preset("pagat").blind_nil_points == 100
    assert preset("standard").replace(blind_nil_value=150).blind_nil_points == 150


def test_unknown_preset_raises_naming_it():
    with pytest.raises(RulesError, match="nosuch"):
        preset("nosuch")


def test_rules_are_frozen():
    with pytest.raises(dataclasses.FrozenInstanceError):
        preset("standard").nil_value = 5  # type: ignore[misc]


@pytest.mark.parametrize("name", sorted(EXPECTED_PRESETS))
def test_to_dict_from_dict_round_trip(name):
    assert Rules.from_dict(preset(name).to_dict()) == preset(name)


def test_unknown_key_raises_naming_the_key():
    with pytest.raises(RulesError, match="nill"):
        Rules.from_dict({"nill": True})


def test_from_dict_rejects_a_non_mapping():
    with pytest.raises(RulesError):
        Rules.from_dict(["nil"])


@pytest.mark.parametrize("key, value", [
    ("nil", "yes"), ("nil", 1), ("partnerships", None), ("jokers", "true"),
    ("target_score", 1.5), ("target_score", True), ("target_score", "500"), ("nil_value", False),
    ("num_players", 4.0), ("bag_limit", "10"), ("blind_nil_value", 1.5), ("lose_score", True),
    ("blind_nil_requires_deficit", 100.0), ("first_trick", 1), ("crazy", "standard"),
    ("crazy", ("standard", 1)), ("max_team_bid", False), ("name", 3),
])
def test_wrong_type_raises_naming_the_key(key, value):
    with pytest.raises(RulesError, match=f"'{key}'"):
        Rules.from_dict({key: value})


@pytest.mark.parametrize("changes, key", [
    ({"num_players": 5}, "num_players"), ({"num_players": 2}, "num_players"),
    ({"num_players": 3}, "partnerships"),  # three players need partnerships false
    ({"nil_value": -10}, "nil_value"), ({"nil_value": 1001}, "nil_value"),
    ({"blind_nil_value": -1}, "blind_nil_value"),
    ({"blind_nil_requires_deficit": -1}, "blind_nil_requires_deficit"),
    ({"blind_nil_exchange": 1}, "blind_nil_exchange"), ({"blind_nil_exchange": 4}, "blind_nil_exchange"),
    ({"max_team_bid": 0}, "max_team_bid"), ({"max_team_bid": 14}, "max_team_bid"),
    ({"blind_bid_min": 0}, "blind_bid_min"), ({"blind_bid_min": 14}, "blind_bid_min"),
    ({"first_trick": "highest_club"}, "first_trick"),
    ({"bag_value": 11}, "bag_value"), ({"bag_value": -11}, "bag_value"),
    ({"bag_limit": 0}, "bag_limit"), ({"bag_penalty": -1}, "bag_penalty"),
    ({"boston_bonus": -1}, "boston_bonus"),
    ({"target_score": 0}, "target_score"), ({"target_score": -500}, "target_score"),
    ({"lose_score": 0}, "lose_score"), ({"lose_score": 100}, "lose_score"),
    ({"max_hands": 0}, "max_hands"),
    ({"crazy": ()}, "crazy"), ({"crazy": ("standard", "nosuch")}, "crazy"), ({"crazy": ("crazy",)}, "crazy"),
    ({"crazy": ("standard", "cutthroat")}, "crazy"),
])
def test_out_of_range_value_raises_naming_the_key(changes, key):
    with pytest.raises(RulesError, match=f"'{key}'"):
        Rules(**changes)


@pytest.mark.parametrize("changes, key", [
    ({"partnerships": False, "ten_for_200": True}, "ten_for_200"),
    ({"partnerships": False, "blind_bids": True}, "blind_bids"),
    ({"partnerships": False, "suicide": True}, "suicide"),
    ({"partnerships": False, "max_team_bid": 13}, "max_team_bid"),
    ({"partnerships": False, "blind_nil_exchange": 2}, "blind_nil_exchange"),
    ({"mirror": True}, "blind_nil"),  # mirror with blind nil (the default) is refused
    ({"mirror": True, "blind_nil": False, "ten_for_200": True}, "ten_for_200"),
    ({"mirror": True, "blind_nil": False, "blind_bids": True}, "blind_bids"),
    ({"mirror": True, "blind_nil": False, "suicide": True}, "suicide"),
    ({"mirror": True, "blind_nil": False, "max_team_bid": 13}, "max_team_bid"),
    ({"suicide": True, "ten_for_200": True}, "ten_for_200"),
    ({"suicide": True, "blind_bids": True}, "blind_bids"),
    ({"suicide": True, "nil": False, "blind_nil": False}, "suicide"),
    ({"nil": False}, "blind_nil"),  # blind nil needs nil
    ({"blind_nil": False, "blind_nil_exchange": 2}, "blind_nil_exchange"),
    ({"dealer_leads_any": True, "first_trick": "lowest_club"}, "dealer_leads_any"),
    ({"mirror": True, "blind_nil": False, "bids_may_total_tricks": False}, "bids_may_total_tricks"),
    ({"suicide": True, "bids_may_total_tricks": False}, "bids_may_total_tricks"),
    ({"blind_bids": True, "max_team_bid": 6}, "blind_bid_min"),
    ({"num_players": 3, "partnerships": True}, "partnerships"),
])
def test_forbidden_combination_raises_naming_the_key(changes, key):
    with pytest.raises(RulesError, match=f"'{key}'"):
        Rules(**changes)


def test_replace_validates():
    with pytest.raises(RulesError, match="'ten_for_200'"):
        preset("cutthroat").replace(ten_for_200=True)


def test_crazy_config_refuses_per_hand_options_beside_it():
    with pytest.raises(RulesError, match="jokers"):
        Rules.from_dict({"crazy": ["standard", "jokers"], "jokers": True})


def test_crazy_config_accepts_game_level_options_and_lists():
    rules = Rules.from_dict({"crazy": ["standard", "jokers"], "target_score": 200, "max_hands": 7})
    assert rules.crazy == ("standard", "jokers")
    assert rules.hand_rules(1).target_score == 200
    assert rules.hand_rules(1).max_hands == 7
    assert rules.hand_rules(1).jokers is True


@pytest.mark.parametrize("name, players, sides, hand_size", [
    ("standard", 4, 2, 13), ("cutthroat", 4, 4, 13), ("cutthroat3", 3, 3, 17),
])
def test_derived_sizes(name, players, sides, hand_size):
    rules = preset(name)
    assert (rules.num_players, rules.num_sides, rules.hand_size, rules.num_tricks) == (players, sides, hand_size,
                                                                                      hand_size)


def test_sides_and_partners():
    std, cut = preset("standard"), preset("cutthroat")
    assert [std.side_of(s) for s in range(4)] == [0, 1, 0, 1]
    assert [std.partner_of(s) for s in range(4)] == [2, 3, 0, 1]
    assert [cut.side_of(s) for s in range(4)] == [0, 1, 2, 3]
    assert [cut.partner_of(s) for s in range(4)] == [None] * 4
