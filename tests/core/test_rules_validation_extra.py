"""Rules validation beyond single options: options that could never apply, tables where some seat
would have no legal bid (RULES.md section 3), bounded error messages."""

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

MESSAGE_BOUND = 1000
NUMBER_BIDS = range(BID_OFFSET, BID_OFFSET + 18)
BLIND_BIDS = range(BLIND_BID_OFFSET, NUM_ACTIONS)


@pytest.mark.parametrize("changes, names", [
    # 10 for 200 is 10 tricks for the partnership: a cap below 10 means it can never be bid
    ({"ten_for_200": True, "max_team_bid": 9}, ["'ten_for_200'", "'max_team_bid'"]),
    ({"ten_for_200": True, "max_team_bid": 1}, ["'ten_for_200'", "'max_team_bid'"]),
    # without nil every bid is 1+: a cap of 1 leaves the second partner (or the first) without a bid
    ({"nil": False, "blind_nil": False, "max_team_bid": 1}, ["'max_team_bid'", "'nil'"]),
    ({"nil": False, "blind_nil": False, "max_team_bid": 0}, ["'max_team_bid'"]),
    ({"max_team_bid": 0}, ["'max_team_bid'"]),
    ({"max_team_bid": 14}, ["'max_team_bid'"]),
    ({"max_team_bid": -3}, ["'max_team_bid'"]),
])
def test_combination_that_can_never_apply_or_leaves_a_seat_without_a_bid_is_rejected(changes, names):
    with pytest.raises(RulesError) as info:
        Rules(**changes)
    for name in names:
        assert name in str(info.value)


@pytest.mark.parametrize("changes", [
    {"ten_for_200": True, "max_team_bid": 10},
    {"ten_for_200": True, "max_team_bid": 13},
    {"ten_for_200": True},
    {"nil": False, "blind_nil": False, "max_team_bid": 2},
    {"max_team_bid": 1},
    {"suicide": True, "max_team_bid": 1},
])
def test_boundary_combination_is_accepted(changes):
    Rules(**changes)


@pytest.mark.parametrize("name", sorted(PRESETS))
def test_every_preset_is_still_valid(name):
    assert Rules.from_dict(preset(name).to_dict()) == preset(name)


# A grid of the options that shape the bidding. Every combination the validation accepts is
# explored below; the rejected ones are not tables at all.
STRUCTURES = [(4, True), (4, False), (3, False)]
NILS = [(True, True), (True, False), (False, False)]
CAPS = [None, 0, 1, 2, 3, 9, 10, 13]
BLIND_BID_SETTINGS = [(False, 7), (True, 1), (True, 7)]


def bidding_grid():
    """Every combination of the grid that validates, as Rules."""
    out = []
    for (players, partners), (nil, blind_nil), cap, ten, suicide, (blind, blind_min), no_hook, mirror in \
            itertools.product(STRUCTURES, NILS, CAPS, [False, True], [False, True], BLIND_BID_SETTINGS,
                              [False, True], [False, True]):
        try:
            out.append(Rules(num_players=players, partnerships=partners, nil=nil, blind_nil=blind_nil,
                             blind_nil_requires_deficit=None, max_team_bid=cap, ten_for_200=ten, suicide=suicide,
                             blind_bids=blind, blind_bid_min=blind_min, bids_may_total_tricks=not no_hook,
                             mirror=mirror))
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


@pytest.mark.parametrize("changes, key", [
    ({"name": ["x" * 10] * 10 ** 5}, "'name'"),
    ({"first_trick": "z" * 10 ** 6}, "'first_trick'"),
    ({"crazy": ("q" * 10 ** 6,)}, "'crazy'"),
    ({"nil": {i: i for i in range(10 ** 5)}}, "'nil'"),
])
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
