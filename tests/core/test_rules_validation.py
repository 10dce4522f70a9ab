"""The rules config: presets and validation (RULES.md sections 3, 7, 8, 9)."""

import dataclasses
import itertools

import numpy as np
import pytest

from spades_env.core import (
    BID_OFFSET,
    BLIND_BID_OFFSET,
    NUM_ACTIONS,
    PRESETS,
    HandState,
    Phase,
    Rules,
    RulesError,
    deal_cards,
    preset,
)
from spades_env.core.rules import MAX_QUOTED_CHARS, quoted

from .helpers import ONE_SUIT_HANDS

EXPECTED_PRESETS = {
    "standard",
    "pagat",
    "online",
    "openspiel",
    "jokers",
    "barmore",
    "cutthroat",
    "cutthroat3",
    "mirror",
    "suicide",
    "crazy",
    "two_player",
}


def test_preset_names_are_those_of_rules_md_section_10():
    assert set(PRESETS) == EXPECTED_PRESETS


def test_default_rules_are_the_standard_preset():
    assert Rules(name="standard") == preset("standard")


@pytest.mark.parametrize(
    "name, option, value",
    [
        # standard: nil 100, nil tricks are bags, blind nil 200 when behind by 100, no exchange, bags 10 -> -100
        ("standard", "nil_value", 100),
        ("standard", "nil_tricks_count_for_partner", False),
        ("standard", "blind_nil", True),
        ("standard", "blind_nil_requires_deficit", 100),
        ("standard", "blind_nil_exchange", 0),
        ("standard", "bag_limit", 10),
        ("standard", "bag_penalty", 100),
        ("standard", "target_score", 500),
        ("standard", "first_trick", "standard"),
        ("pagat", "nil_value", 50),
        ("pagat", "nil_tricks_count_for_partner", True),
        ("pagat", "blind_nil_exchange", 2),
        ("pagat", "first_trick", "lowest_club"),
        ("pagat", "blind_nil_requires_deficit", 100),
        ("online", "blind_nil_requires_deficit", None),
        ("online", "ten_for_200", True),
        ("openspiel", "nil_value", 100),
        ("openspiel", "nil_tricks_count_for_partner", True),
        ("openspiel", "blind_nil", False),
        ("openspiel", "ten_for_200", False),
        ("openspiel", "max_team_bid", 13),
        ("openspiel", "target_score", 500),
        ("openspiel", "lose_score", -350),
        ("jokers", "jokers", True),
        ("jokers", "deuce_of_spades_high", False),
        ("barmore", "jokers", True),
        ("barmore", "deuce_of_spades_high", True),
        ("barmore", "dealer_leads_any", True),
        ("barmore", "nil", False),
        ("barmore", "blind_nil", False),
        ("barmore", "blind_bids", True),
        ("barmore", "blind_bid_min", 7),
        ("cutthroat", "partnerships", False),
        ("cutthroat", "num_players", 4),
        ("cutthroat", "blind_nil", True),
        ("cutthroat3", "partnerships", False),
        ("cutthroat3", "num_players", 3),
        ("mirror", "mirror", True),
        ("mirror", "blind_nil", False),
        ("suicide", "suicide", True),
        ("crazy", "crazy", ("standard", "jokers", "mirror", "suicide")),
    ],
)
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


@pytest.mark.parametrize(
    "key, value",
    [
        ("nil", "yes"),
        ("nil", 1),
        ("partnerships", None),
        ("jokers", "true"),
        ("target_score", 1.5),
        ("target_score", True),
        ("target_score", "500"),
        ("nil_value", False),
        ("num_players", 4.0),
        ("bag_limit", "10"),
        ("blind_nil_value", 1.5),
        ("lose_score", True),
        ("blind_nil_requires_deficit", 100.0),
        ("first_trick", 1),
        ("crazy", "standard"),
        ("crazy", ("standard", 1)),
        ("max_team_bid", False),
        ("name", 3),
    ],
)
def test_wrong_type_raises_naming_the_key(key, value):
    with pytest.raises(RulesError, match=f"'{key}'"):
        Rules.from_dict({key: value})


@pytest.mark.parametrize(
    "changes, key",
    [
        ({"num_players": 5}, "num_players"),
        ({"num_players": 1}, "num_players"),
        ({"num_players": 2}, "partnerships"),  # two players need partnerships false
        ({"num_players": 3}, "partnerships"),  # three players need partnerships false
        ({"nil_value": -10}, "nil_value"),
        ({"nil_value": 1001}, "nil_value"),
        ({"blind_nil_value": -1}, "blind_nil_value"),
        ({"blind_nil_requires_deficit": -1}, "blind_nil_requires_deficit"),
        ({"blind_nil_exchange": 1}, "blind_nil_exchange"),
        ({"blind_nil_exchange": 4}, "blind_nil_exchange"),
        ({"max_team_bid": 0}, "max_team_bid"),
        ({"max_team_bid": 14}, "max_team_bid"),
        ({"blind_bid_min": 0}, "blind_bid_min"),
        ({"blind_bid_min": 14}, "blind_bid_min"),
        ({"first_trick": "highest_club"}, "first_trick"),
        ({"bag_value": 11}, "bag_value"),
        ({"bag_value": -11}, "bag_value"),
        ({"bag_limit": 0}, "bag_limit"),
        ({"bag_penalty": -1}, "bag_penalty"),
        ({"boston_bonus": -1}, "boston_bonus"),
        ({"target_score": 0}, "target_score"),
        ({"target_score": -500}, "target_score"),
        ({"lose_score": 0}, "lose_score"),
        ({"lose_score": 100}, "lose_score"),
        ({"max_hands": 0}, "max_hands"),
        ({"crazy": ()}, "crazy"),
        ({"crazy": ("standard", "nosuch")}, "crazy"),
        ({"crazy": ("crazy",)}, "crazy"),
        ({"crazy": ("standard", "cutthroat")}, "crazy"),
    ],
)
def test_out_of_range_value_raises_naming_the_key(changes, key):
    with pytest.raises(RulesError, match=f"'{key}'"):
        Rules(**changes)


@pytest.mark.parametrize(
    "changes, key",
    [
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
    ],
)
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


@pytest.mark.parametrize(
    "name, players, sides, hand_size",
    [
        ("standard", 4, 2, 13),
        ("cutthroat", 4, 4, 13),
        ("cutthroat3", 3, 3, 17),
    ],
)
def test_derived_sizes(name, players, sides, hand_size):
    rules = preset(name)
    assert (rules.num_players, rules.num_sides, rules.hand_size, rules.num_tricks) == (
        players,
        sides,
        hand_size,
        hand_size,
    )


def test_sides_and_partners():
    std, cut = preset("standard"), preset("cutthroat")
    assert [std.side_of(s) for s in range(4)] == [0, 1, 0, 1]
    assert [std.partner_of(s) for s in range(4)] == [2, 3, 0, 1]
    assert [cut.side_of(s) for s in range(4)] == [0, 1, 2, 3]
    assert [cut.partner_of(s) for s in range(4)] == [None] * 4


MESSAGE_BOUND = 1000


NUMBER_BIDS = range(BID_OFFSET, BID_OFFSET + 18)


BLIND_BIDS = range(BLIND_BID_OFFSET, NUM_ACTIONS)


@pytest.mark.parametrize(
    "changes, names",
    [
        # 10 for 200 is 10 tricks for the partnership: a cap below 10 means it can never be bid
        ({"ten_for_200": True, "max_team_bid": 9}, ["'ten_for_200'", "'max_team_bid'"]),
        ({"ten_for_200": True, "max_team_bid": 1}, ["'ten_for_200'", "'max_team_bid'"]),
        # without nil every bid is 1+: a cap of 1 leaves the second partner (or the first) without a bid
        ({"nil": False, "blind_nil": False, "max_team_bid": 1}, ["'max_team_bid'", "'nil'"]),
        ({"nil": False, "blind_nil": False, "max_team_bid": 0}, ["'max_team_bid'"]),
        ({"max_team_bid": 0}, ["'max_team_bid'"]),
        ({"max_team_bid": 14}, ["'max_team_bid'"]),
        ({"max_team_bid": -3}, ["'max_team_bid'"]),
    ],
)
def test_combination_that_can_never_apply_or_leaves_a_seat_without_a_bid_is_rejected(changes, names):
    with pytest.raises(RulesError) as info:
        Rules(**changes)
    for name in names:
        assert name in str(info.value)


@pytest.mark.parametrize(
    "changes",
    [
        {"ten_for_200": True, "max_team_bid": 10},
        {"ten_for_200": True, "max_team_bid": 13},
        {"ten_for_200": True},
        {"nil": False, "blind_nil": False, "max_team_bid": 2},
        {"max_team_bid": 1},
        {"suicide": True, "max_team_bid": 1},
    ],
)
def test_boundary_combination_is_accepted(changes):
    Rules(**changes)


@pytest.mark.parametrize("name", sorted(PRESETS))
def test_every_preset_is_still_valid(name):
    assert Rules.from_dict(preset(name).to_dict()) == preset(name)


STRUCTURES = [(4, True), (4, False), (3, False)]


NILS = [(True, True), (True, False), (False, False)]


CAPS = [None, 0, 1, 2, 3, 9, 10, 13]


BLIND_BID_SETTINGS = [(False, 7), (True, 1), (True, 7)]


def bidding_grid():
    """Every combination of the grid that validates, as Rules."""
    out = []
    for (players, partners), (nil, blind_nil), cap, ten, suicide, (
        blind,
        blind_min,
    ), no_hook, mirror in itertools.product(
        STRUCTURES, NILS, CAPS, [False, True], [False, True], BLIND_BID_SETTINGS, [False, True], [False, True]
    ):
        try:
            out.append(
                Rules(
                    num_players=players,
                    partnerships=partners,
                    nil=nil,
                    blind_nil=blind_nil,
                    blind_nil_requires_deficit=None,
                    max_team_bid=cap,
                    ten_for_200=ten,
                    suicide=suicide,
                    blind_bids=blind,
                    blind_bid_min=blind_min,
                    bids_may_total_tricks=not no_hook,
                    mirror=mirror,
                )
            )
        except RulesError:
            pass
    return out


def branches(state):
    """Legal actions worth exploring: every action but the number bids and blind bids in between."""
    legal = state.legal_actions()
    numbers = [a for a in legal if a in NUMBER_BIDS]
    blinds = [a for a in legal if a in BLIND_BIDS]
    extremes = {min(numbers), max(numbers)} if numbers else set()
    extremes |= {min(blinds), max(blinds)} if blinds else set()
    return [a for a in legal if a not in NUMBER_BIDS and a not in BLIND_BIDS] + sorted(extremes)


def seats_without_a_bid(rules, deal, dealer):
    """Bidding positions (as action histories) where the seat to bid has no legal action."""
    stuck = []
    stack = [HandState(rules, deal, dealer)]
    while stack:
        state = stack.pop()
        if state.phase not in (Phase.BLIND, Phase.BID):
            continue
        options = branches(state)
        if not options:
            stuck.append(list(state.history))
        for action in options:
            child = state.clone()
            child.apply(action)
            stack.append(child)
    return stuck


def deals_for(rules):
    """A deal where three seats hold no spade (forced nils in mirror) and a random one."""
    rng = np.random.default_rng(0)
    out = [deal_cards(rules, rng, 0)]
    if rules.num_players == 4 and not rules.jokers:
        from spades_env.core import make_deal

        out.append(make_deal(rules, [h.split() for h in ONE_SUIT_HANDS]))
    return out


GRID = bidding_grid()


def test_the_grid_covers_accepted_tables_of_every_structure():
    assert {(r.num_players, r.partnerships) for r in GRID} == set(STRUCTURES)
    assert {r.max_team_bid for r in GRID} >= {None, 1, 2, 9, 10, 13}


@pytest.mark.parametrize("rules", GRID[::7], ids=lambda r: "grid")
def test_every_accepted_table_leaves_every_seat_a_legal_bid(rules):
    for deal in deals_for(rules):
        for dealer in range(rules.num_players):
            assert seats_without_a_bid(rules, deal, dealer) == []


@pytest.mark.slow
@pytest.mark.parametrize("rules", GRID, ids=lambda r: "grid")
def test_every_accepted_table_leaves_every_seat_a_legal_bid_full_grid(rules):
    for deal in deals_for(rules):
        for dealer in range(rules.num_players):
            assert seats_without_a_bid(rules, deal, dealer) == []


def test_non_string_option_names_are_rejected_naming_them():
    with pytest.raises(RulesError, match=r"must be strings.*3 \(int\)"):
        Rules.from_dict({3: True, "nil": True})


@pytest.mark.parametrize(
    "changes, key",
    [
        ({"name": ["x" * 10] * 10**5}, "'name'"),
        ({"first_trick": "z" * 10**6}, "'first_trick'"),
        ({"crazy": ("q" * 10**6,)}, "'crazy'"),
        ({"nil": {i: i for i in range(10**5)}}, "'nil'"),
    ],
)
def test_error_messages_quote_huge_values_briefly(changes, key):
    with pytest.raises(RulesError, match=key) as info:
        Rules(**changes)
    assert len(str(info.value)) < MESSAGE_BOUND


def test_many_unknown_options_are_listed_briefly():
    with pytest.raises(RulesError, match="more") as info:
        Rules.from_dict({f"option{i}" * 50: 1 for i in range(1000)})
    assert len(str(info.value)) < MESSAGE_BOUND + 2000  # the known options are listed in full


@pytest.mark.parametrize("value", ["short", 12, None, ("a", "b"), "x" * 10_000, [[1] * 1000] * 1000])
def test_quoted_is_bounded_and_keeps_short_values_whole(value):
    text = quoted(value)
    assert len(text) <= MAX_QUOTED_CHARS + len("...")
    if len(repr(value)) <= MAX_QUOTED_CHARS:
        assert text == repr(value)


def test_mirror_without_nil_raises_naming_mirror():
    with pytest.raises(RulesError, match="'mirror'"):
        Rules(mirror=True, nil=False, blind_nil=False)


def test_crazy_with_per_hand_option_raises_naming_crazy():
    with pytest.raises(RulesError, match="'crazy'"):
        Rules(crazy=("standard", "jokers"), jokers=True)


def test_crazy_preset_round_trips_through_dict():
    rules = preset("crazy")
    data = rules.to_dict()
    assert data["crazy"] == ["standard", "jokers", "mirror", "suicide"]
    assert Rules.from_dict(data) == rules
