"""Every rules option changes an outcome (RULES.md sections 1-8). Each test compares the
option on and off (or two values) on the same situation. ``OPTION_TESTS`` maps every
field of ``Rules`` to its tests; a guard test fails when an option has none."""

import dataclasses

import numpy as np
import pytest

from spades_env.core import (
    BLIND_NIL,
    SEE_CARDS,
    TEN_FOR_200,
    Game,
    HandState,
    Phase,
    Rules,
    deal_cards,
    game_winner,
    make_deal,
    parse_card,
    preset,
    score_hand,
    trick_winner,
)
from spades_env.core.drawing import discards_seen, draw_rules
from spades_env.core.ops import INT

from .helpers import (
    MIXED_HANDS,
    ONE_SUIT_HANDS,
    THREE_HANDS,
    act,
    bid_names,
    bid_round,
    bids,
    hand_state,
    names,
    play_random_game,
    start_play,
    suit,
)

STANDARD = preset("standard")


def test_num_players_three_deals_17_and_bids_up_to_17():
    four = hand_state(preset("cutthroat"), ONE_SUIT_HANDS, dealer=3)
    three = hand_state(preset("cutthroat3"), THREE_HANDS, dealer=2)
    assert names(four) == bid_names(0, 13)
    assert names(three) == bid_names(0, 17)
    assert bin(three.hands[0]).count("1") == 17
    bid_round(three, {0: "bid 5", 1: "bid 5", 2: "bid 5"})
    assert three.current == 0  # left of dealer 2 in a three-seat ring


def test_partnerships_false_scores_each_player_alone():
    b, t = bids("3 nil 2 4"), [3, 0, 4, 6]
    assert score_hand(STANDARD, b, t, [0, 0]).points == (50 + 2, 100 + 40 + 2)
    assert score_hand(preset("cutthroat"), b, t, [0, 0, 0, 0]).points == (30, 100, 22, 42)


def test_partnerships_false_judges_blind_nil_against_each_other_player():
    # scores per side: standard has two, cutthroat four; seat 0 is behind seat 3 by 100
    cut = hand_state(preset("cutthroat"), ONE_SUIT_HANDS, dealer=3, scores=(0, 0, 0, 100))
    assert cut.phase == Phase.BLIND
    std = hand_state(STANDARD, ONE_SUIT_HANDS, dealer=3, scores=(0, 0))
    assert std.phase == Phase.BID


def test_jokers_replace_two_deuces_and_beat_the_ace_of_spades():
    hands = [suit("C", "3456789TJQKA") + " LJ", suit("D"), suit("H", "3456789TJQKA") + " BJ", suit("S")]
    make_deal(preset("jokers"), hands)
    with pytest.raises(ValueError):
        make_deal(STANDARD, hands)
    cards = [parse_card(c) for c in ("AS", "LJ")]
    assert trick_winner(preset("jokers"), [0, 1], cards) == 1


@pytest.mark.parametrize("high, winner", [(False, 0), (True, 1)])
def test_deuce_of_spades_high_beats_the_ace(high, winner):
    rules = preset("jokers").replace(deuce_of_spades_high=high)
    assert trick_winner(rules, [0, 1, 2, 3], [parse_card(c) for c in ("AS", "2S", "KH", "3S")]) == winner


def test_nil_false_makes_every_bid_at_least_one():
    rules = STANDARD.replace(nil=False, blind_nil=False)
    assert names(hand_state(STANDARD, ONE_SUIT_HANDS, dealer=3)) == bid_names(0, 13)
    assert names(hand_state(rules, ONE_SUIT_HANDS, dealer=3)) == bid_names(1, 13)


@pytest.mark.parametrize("value, made, failed", [(100, 100 + 40, -100 + 40), (50, 50 + 40, -50 + 40)])
def test_nil_value(value, made, failed):
    rules = STANDARD.replace(nil_value=value, nil_tricks_count_for_partner=True)
    assert score_hand(rules, bids("nil 3 4 3"), [0, 4, 4, 5], [0, 0]).points[0] == made
    assert score_hand(rules, bids("nil 3 4 3"), [1, 4, 3, 5], [0, 0]).points[0] == failed


@pytest.mark.parametrize("blind_nil, phase", [(True, Phase.BLIND), (False, Phase.BID)])
def test_blind_nil_option_offers_the_blind_decision(blind_nil, phase):
    rules = STANDARD.replace(blind_nil=blind_nil)
    state = hand_state(rules, ONE_SUIT_HANDS, dealer=3, scores=(0, 200))
    assert state.phase == phase
    assert (BLIND_NIL in state.legal_actions()) == blind_nil


@pytest.mark.parametrize("value, points", [(None, 200), (150, 150), (0, 0)])
def test_blind_nil_value(value, points):
    rules = STANDARD.replace(blind_nil_value=value)
    assert score_hand(rules, bids("bnil 3 4 3"), [0, 4, 4, 5], [0, 0]).points[0] == points + 40
    assert score_hand(rules, bids("bnil 3 4 3"), [1, 4, 4, 4], [0, 0]).points[0] == -points + 40 + 1


@pytest.mark.parametrize(
    "deficit, scores, blind",
    [
        (100, (0, 50), False),
        (50, (0, 50), True),
        (None, (0, 50), True),
        (None, (100, 0), True),
        (0, (0, 0), True),
        (200, (0, 150), False),
    ],
)
def test_blind_nil_requires_deficit(deficit, scores, blind):
    rules = STANDARD.replace(blind_nil_requires_deficit=deficit)
    state = hand_state(rules, ONE_SUIT_HANDS, dealer=3, scores=scores)
    assert (state.phase == Phase.BLIND) == blind


@pytest.mark.parametrize("k, phase", [(0, Phase.PLAY), (2, Phase.EXCHANGE), (3, Phase.EXCHANGE)])
def test_blind_nil_exchange(k, phase):
    rules = STANDARD.replace(blind_nil_exchange=k)
    state = hand_state(rules, ONE_SUIT_HANDS, dealer=3, scores=(0, 100))
    bid_round(state, {0: "blind nil", 1: "bid 5", 2: "bid 3", 3: "bid 4"})
    assert state.phase == phase
    passes = 0
    while state.phase == Phase.EXCHANGE:
        state.apply(state.legal_actions()[0])
        passes += 1
    assert passes == 2 * k


@pytest.mark.parametrize("count, points, bags", [(False, -100 + 2 - 40, 2), (True, -100 + 40, 0)])
def test_nil_tricks_count_for_partner(count, points, bags):
    # nil fails with 2 tricks, partner bid 4 and took 2: bags, or enough to make the 4
    rules = STANDARD.replace(nil_tricks_count_for_partner=count)
    side = score_hand(rules, bids("nil 3 4 3"), [2, 4, 2, 5], [0, 0]).sides[0]
    assert (side.points, side.bags) == (points, bags)


@pytest.mark.parametrize("cap, top", [(None, 13), (13, 8), (10, 5)])
def test_max_team_bid_caps_the_partners_bids_together(cap, top):
    rules = STANDARD.replace(max_team_bid=cap)
    state = hand_state(rules, ONE_SUIT_HANDS, dealer=3)
    act(state, "bid 5", "bid 1")  # seat 0 bids 5; seat 1
    assert names(state) == bid_names(0, top)  # seat 2, partner of seat 0


def test_max_team_bid_caps_blind_bids():
    rules = preset("barmore").replace(max_team_bid=10)
    state = hand_state(
        rules, [suit("C", "3456789TJQKA") + " LJ", suit("D"), suit("H", "3456789TJQKA") + " BJ", suit("S")], dealer=3
    )
    assert names(state) == {"see cards"} | {f"blind {n}" for n in range(7, 11)}


@pytest.mark.parametrize("on", [False, True])
def test_ten_for_200_is_offered_only_when_on(on):
    state = hand_state(STANDARD.replace(ten_for_200=on), ONE_SUIT_HANDS, dealer=3)
    assert (TEN_FOR_200 in state.legal_actions()) == on


@pytest.mark.parametrize("on", [False, True])
def test_blind_bids_offered_before_looking(on):
    rules = preset("barmore").replace(blind_bids=on)
    state = hand_state(
        rules, [suit("C", "3456789TJQKA") + " LJ", suit("D"), suit("H", "3456789TJQKA") + " BJ", suit("S")], dealer=3
    )
    assert (state.phase == Phase.BLIND) == on
    assert ("blind 7" in names(state)) == on


@pytest.mark.parametrize("low", [7, 9, 13])
def test_blind_bid_min(low):
    rules = preset("barmore").replace(blind_bid_min=low)
    state = hand_state(
        rules, [suit("C", "3456789TJQKA") + " LJ", suit("D"), suit("H", "3456789TJQKA") + " BJ", suit("S")], dealer=3
    )
    assert names(state) == {"see cards"} | {f"blind {n}" for n in range(low, 14)}


def test_mirror_forces_the_bid_to_the_number_of_trumps():
    rules = preset("mirror")
    state = hand_state(rules, MIXED_HANDS, dealer=3)  # seats hold 0, 10, 1, 2 spades
    seen = []
    while state.phase == Phase.BID:
        assert len(state.legal_actions()) == 1
        seen.append(names(state).pop())
        state.apply(state.legal_actions()[0])
    assert seen == ["nil", "bid 10", "bid 1", "bid 2"]
    assert hand_state(STANDARD, MIXED_HANDS, dealer=3).legal_actions() != state.legal_actions()


def test_mirror_counts_jokers_as_trumps():
    rules = preset("mirror").replace(jokers=True)
    state = hand_state(
        rules, [suit("C", "3456789TJQKA") + " LJ", suit("D"), suit("H", "3456789TJQKA") + " BJ", suit("S")], dealer=3
    )
    seen = []
    while state.phase == Phase.BID:
        seen.append(names(state).pop())
        state.apply(state.legal_actions()[0])
    assert seen == ["bid 1", "nil", "bid 1", "bid 13"]  # 15 trumps in all


@pytest.mark.parametrize("first, second", [("bid 4", {"nil"}), ("nil", bid_names(1, 13))])
def test_suicide_exactly_one_partner_bids_nil(first, second):
    state = hand_state(preset("suicide"), ONE_SUIT_HANDS, dealer=3)
    assert names(state) == bid_names(0, 13)  # the first partner may bid anything
    act(state, first, "bid 3")  # seats 0 and 1
    assert names(state) == second  # seat 2
    off = hand_state(STANDARD, ONE_SUIT_HANDS, dealer=3)
    act(off, first, "bid 3")
    assert names(off) == bid_names(0, 13)


def test_suicide_second_partner_may_bid_blind_nil_when_eligible():
    state = hand_state(preset("suicide"), ONE_SUIT_HANDS, dealer=3, scores=(0, 100))
    act(state, "see cards", "bid 4", "bid 3")
    assert state.current == 2 and state.phase == Phase.BLIND
    assert set(state.legal_actions()) == {SEE_CARDS, BLIND_NIL}
    act(state, "see cards")
    assert names(state) == {"nil"}


def test_suicide_blind_nil_first_forces_the_partner_to_bid():
    state = hand_state(preset("suicide"), ONE_SUIT_HANDS, dealer=3, scores=(0, 100))
    act(state, "blind nil", "bid 3")
    assert state.phase == Phase.BID  # no blind nil for seat 2 now
    assert names(state) == bid_names(1, 13)


@pytest.mark.parametrize("allowed", [True, False])
def test_bids_may_total_tricks_no_hook(allowed):
    rules = preset("cutthroat3").replace(bids_may_total_tricks=allowed)
    state = hand_state(rules, THREE_HANDS, dealer=2)
    act(state, "bid 10", "bid 5")
    assert names(state) == (bid_names(0, 17) if allowed else bid_names(0, 17) - {"bid 2"})
    # earlier bidders are never restricted
    state = hand_state(rules, THREE_HANDS, dealer=2)
    act(state, "bid 10")
    assert names(state) == bid_names(0, 17)


def test_no_hook_counts_nil_as_zero():
    rules = preset("cutthroat3").replace(bids_may_total_tricks=False)
    state = hand_state(rules, THREE_HANDS, dealer=2)
    act(state, "bid 10", "bid 7")
    assert names(state) == bid_names(1, 17)  # nil would make 17


def test_no_hook_forbids_a_blind_nil_that_makes_the_total():
    rules = preset("cutthroat3").replace(bids_may_total_tricks=False, blind_nil_requires_deficit=None)
    state = hand_state(rules, THREE_HANDS, dealer=2)
    act(state, "see cards", "bid 10", "see cards", "bid 7")
    assert state.current == 2
    assert BLIND_NIL not in state.legal_actions()
    if state.phase == Phase.BLIND:
        act(state, "see cards")
    assert names(state) == bid_names(1, 17)


def test_no_hook_allows_a_blind_nil_that_does_not_make_the_total():
    rules = preset("cutthroat3").replace(bids_may_total_tricks=False, blind_nil_requires_deficit=None)
    state = hand_state(rules, THREE_HANDS, dealer=2)
    act(state, "see cards", "bid 10", "see cards", "bid 6")
    assert state.phase == Phase.BLIND
    assert set(state.legal_actions()) == {SEE_CARDS, BLIND_NIL}
    act(state, "see cards")
    assert names(state) == bid_names(0, 17) - {"bid 1"}


def test_no_hook_counts_ten_for_200_as_ten_and_cancelled_bids_as_zero():
    rules = preset("online").replace(bids_may_total_tricks=False, blind_nil=False)
    state = hand_state(rules, ONE_SUIT_HANDS, dealer=3)
    act(state, "bid 1", "bid 1", "10 for 200")  # seat 2 cancels seat 0's 1: total 11
    assert names(state) == (bid_names(0, 13) - {"bid 2"}) | {"10 for 200"}


def test_no_hook_counts_a_blind_bid_as_its_number():
    rules = preset("barmore").replace(bids_may_total_tricks=False)
    hands = [suit("C", "3456789TJQKA") + " LJ", suit("D"), suit("H", "3456789TJQKA") + " BJ", suit("S")]
    state = hand_state(rules, hands, dealer=0)
    act(state, "blind 7", "see cards", "bid 4")  # seat 1 blind 7 (seat 3 skipped); seat 2 bids 4
    assert state.current == 0
    assert names(state) == bid_names(1, 13) - {"bid 2"}


@pytest.mark.parametrize(
    "first_trick, leader, legal",
    [
        ("standard", 0, {"5C", "9C", "KC"} | {f"{r}D" for r in "23456789TJ"}),
        ("lowest_club", 2, {"2C"}),
    ],
)
def test_first_trick(first_trick, leader, legal):
    rules = STANDARD.replace(first_trick=first_trick)
    hands = ["5C 9C KC " + suit("D", "23456789TJ"), suit("S"), "2C 3C 4C 6C 7C 8C TC JC QC AC QD KD AD", suit("H")]
    state = start_play(rules, hands, dealer=3)
    assert state.current == leader
    assert names(state) == legal


@pytest.mark.parametrize("on, leader, spade_lead", [(False, 1, False), (True, 0, True)])
def test_dealer_leads_any(on, leader, spade_lead):
    rules = STANDARD.replace(dealer_leads_any=on)
    hands = MIXED_HANDS[1:] + MIXED_HANDS[:1]  # seat 0 holds hearts and spades
    state = start_play(rules, hands, dealer=0)
    assert state.current == leader
    if on:
        assert ("2S" in names(state)) is True
    else:
        assert not any(n.endswith("S") for n in names(state))


def test_dealer_leads_any_spade_at_any_time():
    rules = STANDARD.replace(dealer_leads_any=True)
    hands = MIXED_HANDS[1:] + MIXED_HANDS[:1]
    state = start_play(rules, hands, dealer=0)
    # seat 0 leads AH and wins; spades are still unbroken, yet it may lead a spade
    state.apply(parse_card("AH"))
    while state.trick_cards:
        state.apply(state.legal_actions()[0])
    assert state.current == 0 and not state.spades_broken
    assert "2S" in names(state)
    off = start_play(STANDARD, MIXED_HANDS, dealer=3)
    assert "2S" not in names(off)


@pytest.mark.parametrize("value, points", [(0, 50), (1, 53), (2, 56), (-1, 47)])
def test_bag_value(value, points):
    rules = STANDARD.replace(bag_value=value)
    side = score_hand(rules, bids("3 3 2 3"), [4, 3, 4, 2], [0, 0]).sides[0]
    assert (side.points, side.bags) == (points, 3)


@pytest.mark.parametrize("limit, points, bags", [(10, 53 - 100, 1), (None, 53, 11), (5, 53 - 200, 1), (12, 53, 11)])
def test_bag_limit(limit, points, bags):
    rules = STANDARD.replace(bag_limit=limit)
    side = score_hand(rules, bids("3 3 2 3"), [4, 3, 4, 2], [8, 0]).sides[0]
    assert (side.points, side.bags) == (points, bags)


@pytest.mark.parametrize("penalty, points", [(100, 53 - 100), (50, 53 - 50), (0, 53)])
def test_bag_penalty(penalty, points):
    rules = STANDARD.replace(bag_penalty=penalty)
    assert score_hand(rules, bids("3 3 2 3"), [4, 3, 4, 2], [8, 0]).points[0] == points


@pytest.mark.parametrize("bonus, points", [(0, 67), (200, 267)])
def test_boston_bonus(bonus, points):
    rules = STANDARD.replace(boston_bonus=bonus)
    result = score_hand(rules, bids("3 1 3 1"), [7, 0, 6, 0], [0, 0])
    assert result.points == (points, -20)


@pytest.mark.parametrize("target, winner", [(500, None), (300, 0), (310, None), (250, 0)])
def test_target_score(target, winner):
    rules = STANDARD.replace(target_score=target)
    assert game_winner(rules, [300, 100]) == winner


@pytest.mark.parametrize("lose, winner", [(None, None), (-350, 1), (-400, 1), (-500, None)])
def test_lose_score(lose, winner):
    rules = STANDARD.replace(lose_score=lose)
    assert game_winner(rules, [-400, 100]) == winner


@pytest.mark.parametrize("max_hands", [1, 2, 5])
def test_max_hands_truncates_the_game(max_hands):
    rules = STANDARD.replace(max_hands=max_hands, target_score=10000)
    game = Game(rules, np.random.default_rng(0), dealer=0)
    play_random_game(game, 0)
    assert game.truncated and game.winner is None and game.over
    assert len(game.results) == max_hands


def test_crazy_rotates_presets_by_hand_index():
    rotation = Rules(crazy=("jokers", "standard"))
    assert [rotation.hand_rules(k).jokers for k in range(4)] == [True, False, True, False]
    assert STANDARD.hand_rules(1).jokers is False


def test_name_is_a_label_recorded_in_hand_results():
    """``name`` is not a rule: it labels the rules, and a hand's result records it."""
    game = Game(preset("crazy").replace(max_hands=2), np.random.default_rng(3), dealer=0)
    play_random_game(game, 3)
    assert [r.rules_name for r in game.results] == ["standard", "jokers"]
    assert STANDARD.replace(name="mine").name == "mine"


def test_num_players_two_draws_the_hands_from_a_stock():
    state = HandState(preset("two_player"), deal_cards(preset("two_player"), np.random.default_rng(0), 0), 0)
    assert state.phase == Phase.DRAW and state.hands == [0, 0] and len(state.stock) == 52


@pytest.mark.parametrize("face_up", [False, True])
def test_discards_face_up(face_up):
    rules = preset("two_player").replace(discards_face_up=face_up)
    state = HandState(rules, deal_cards(rules, np.random.default_rng(1), 0), 0)
    while state.phase == Phase.DRAW:
        state.apply(state.legal_actions()[state.draw_turn % 2])
    seen = [
        [discards_seen(INT, draw_rules(rules), observer, seat, state.discards[seat]) for seat in (0, 1)]
        for observer in (0, 1)
    ]
    assert seen[0][0] == state.discards[0] and seen[1][1] == state.discards[1]  # one's own: always
    assert (seen[0][1], seen[1][0]) == ((state.discards[1], state.discards[0]) if face_up else (0, 0))


OPTION_TESTS = {
    "num_players": [
        "test_num_players_three_deals_17_and_bids_up_to_17",
        "test_num_players_two_draws_the_hands_from_a_stock",
    ],
    "discards_face_up": ["test_discards_face_up"],
    "partnerships": [
        "test_partnerships_false_scores_each_player_alone",
        "test_partnerships_false_judges_blind_nil_against_each_other_player",
    ],
    "jokers": ["test_jokers_replace_two_deuces_and_beat_the_ace_of_spades"],
    "deuce_of_spades_high": ["test_deuce_of_spades_high_beats_the_ace"],
    "nil": ["test_nil_false_makes_every_bid_at_least_one"],
    "nil_value": ["test_nil_value"],
    "blind_nil": ["test_blind_nil_option_offers_the_blind_decision"],
    "blind_nil_value": ["test_blind_nil_value"],
    "blind_nil_requires_deficit": ["test_blind_nil_requires_deficit"],
    "blind_nil_exchange": ["test_blind_nil_exchange"],
    "nil_tricks_count_for_partner": ["test_nil_tricks_count_for_partner"],
    "max_team_bid": ["test_max_team_bid_caps_the_partners_bids_together", "test_max_team_bid_caps_blind_bids"],
    "ten_for_200": ["test_ten_for_200_is_offered_only_when_on"],
    "blind_bids": ["test_blind_bids_offered_before_looking"],
    "blind_bid_min": ["test_blind_bid_min"],
    "mirror": ["test_mirror_forces_the_bid_to_the_number_of_trumps", "test_mirror_counts_jokers_as_trumps"],
    "suicide": [
        "test_suicide_exactly_one_partner_bids_nil",
        "test_suicide_second_partner_may_bid_blind_nil_when_eligible",
    ],
    "bids_may_total_tricks": [
        "test_bids_may_total_tricks_no_hook",
        "test_no_hook_counts_nil_as_zero",
        "test_no_hook_forbids_a_blind_nil_that_makes_the_total",
    ],
    "first_trick": ["test_first_trick"],
    "dealer_leads_any": ["test_dealer_leads_any", "test_dealer_leads_any_spade_at_any_time"],
    "bag_value": ["test_bag_value"],
    "bag_limit": ["test_bag_limit"],
    "bag_penalty": ["test_bag_penalty"],
    "boston_bonus": ["test_boston_bonus"],
    "target_score": ["test_target_score"],
    "lose_score": ["test_lose_score"],
    "max_hands": ["test_max_hands_truncates_the_game"],
    "crazy": ["test_crazy_rotates_presets_by_hand_index"],
    "name": ["test_name_is_a_label_recorded_in_hand_results"],
}


@pytest.mark.parametrize("option", [f.name for f in dataclasses.fields(Rules)])
def test_every_rules_option_has_an_outcome_test(option):
    assert option in OPTION_TESTS, f"rules option {option!r} has no test showing it changes an outcome"
    for name in OPTION_TESTS[option]:
        assert callable(globals().get(name)), f"{name} (listed for {option!r}) does not exist"


def test_option_table_lists_only_real_options():
    assert set(OPTION_TESTS) <= {f.name for f in dataclasses.fields(Rules)}
