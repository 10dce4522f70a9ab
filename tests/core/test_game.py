"""The game layer (RULES.md sections 2, 6, 7, 8): game end, dealer rotation, carried
scores and bags, crazy rotation, cutthroat, supplied deals."""

import numpy as np
import pytest

from spades_env.core import Game, GameError, Phase, Rules, make_deal, parse_card, preset

from .helpers import ONE_SUIT_HANDS, THREE_HANDS, game_hand, hand_state, one_suit_hands, play_random_game

STANDARD = preset("standard")


def game_with(rules, deals, dealer=3, scores=None, bags=None, seed=0):
    return Game(
        rules,
        np.random.default_rng(seed),
        dealer=dealer,
        scores=scores,
        bags=bags,
        deals=[make_deal(rules, d) for d in deals],
    )


# Seat 0 holds every spade (one_suit_hands(0)) and wins all 13 tricks: with bids 4 and 1
# side 0 makes 5 with 8 overtricks, +58 and 8 bags.
SIDE0_SWEEPS = one_suit_hands(0)


def test_one_suit_helper_gives_the_spades_to_the_requested_seat():
    assert one_suit_hands(0)[0] == ONE_SUIT_HANDS[3]
    assert one_suit_hands(3) == ONE_SUIT_HANDS
    assert sorted(one_suit_hands(1)) == sorted(ONE_SUIT_HANDS)


def test_target_reached_by_one_side_wins():
    game = game_with(STANDARD, [SIDE0_SWEEPS], scores=[450, 0])
    result = game_hand(game, {0: "bid 4", 1: "bid 1", 2: "bid 1", 3: "bid 1"})
    assert result.tricks == (13, 0, 0, 0)
    assert result.points == (58, -20)
    assert game.scores == [508, -20]
    assert game.winner == 0 and game.over and not game.truncated


def test_both_sides_reach_the_target_and_the_strictly_higher_wins():
    game = game_with(STANDARD, [SIDE0_SWEEPS], scores=[490, 495])
    result = game_hand(game, {0: "bid 4", 1: "nil", 2: "bid 1", 3: "nil"})
    assert result.points == (58, 200)
    assert game.scores == [548, 695]
    assert game.winner == 1


def test_tie_at_the_top_plays_another_hand():
    game = game_with(STANDARD, [SIDE0_SWEEPS], scores=[490, 348])
    game_hand(game, {0: "bid 4", 1: "nil", 2: "bid 1", 3: "nil"})
    assert game.scores == [548, 548]
    assert game.winner is None and not game.over
    assert game.hand_index == 1 and game.hand.dealer == 0  # the next hand is under way
    assert game.hand.phase in (Phase.BLIND, Phase.BID)


@pytest.mark.parametrize("lose_score, over", [(None, False), (-350, True), (-400, True), (-450, False)])
def test_lose_score_ends_the_game_with_the_other_side_winning(lose_score, over):
    rules = STANDARD.replace(lose_score=lose_score)
    game = game_with(rules, [SIDE0_SWEEPS], scores=[0, -300])
    game_hand(game, {0: "bid 4", 1: "bid 5", 2: "bid 1", 3: "bid 5"})
    assert game.scores == [58, -400]
    assert game.over == over
    assert game.winner == (0 if over else None)


def test_max_hands_truncates_without_a_winner_and_the_game_refuses_more_actions():
    rules = STANDARD.replace(max_hands=2)
    game = game_with(rules, [SIDE0_SWEEPS, SIDE0_SWEEPS])
    game_hand(game, {0: "bid 4", 1: "bid 1", 2: "bid 1", 3: "bid 1"})
    assert not game.over
    game_hand(game, {0: "bid 1", 1: "bid 4", 2: "bid 1", 3: "bid 1"})  # dealer 0: seat 1 bids first
    assert game.truncated and game.winner is None and game.over
    with pytest.raises(GameError):
        game.apply(0)


def test_a_win_in_the_last_allowed_hand_is_a_win_not_a_truncation():
    game = game_with(STANDARD.replace(max_hands=1), [SIDE0_SWEEPS], scores=[450, 0])
    game_hand(game, {0: "bid 4", 1: "bid 1", 2: "bid 1", 3: "bid 1"})
    assert game.winner == 0 and not game.truncated


def test_dealer_rotates_clockwise_each_hand():
    rules = STANDARD.replace(max_hands=6, target_score=10000)
    game = Game(rules, np.random.default_rng(1), dealer=2)
    play_random_game(game, 1)
    assert [r.dealer for r in game.results] == [2, 3, 0, 1, 2, 3]
    assert [r.hand_index for r in game.results] == list(range(6))


def test_first_dealer_comes_from_the_rng():
    dealers = {Game(STANDARD, np.random.default_rng(s)).dealer for s in range(30)}
    assert dealers == {0, 1, 2, 3}
    assert Game(STANDARD, np.random.default_rng(9)).dealer == Game(STANDARD, np.random.default_rng(9)).dealer


def test_first_hand_is_dealt_left_of_the_dealer_from_the_rng():
    game = Game(STANDARD, np.random.default_rng(4), dealer=1)
    order = np.random.default_rng(4).permutation(52)
    assert int(order[0]) in game.hand.deal.hands[2]


def test_bags_and_scores_carry_across_hands():
    game = game_with(STANDARD, [SIDE0_SWEEPS, one_suit_hands(2)], scores=[0, 0], bags=[8, 0])
    first = game_hand(game, {0: "bid 4", 1: "bid 1", 2: "bid 1", 3: "bid 1"})
    # 8 + 8 bags: one penalty, 6 carried; 58 - 100 = -42
    assert first.points == (-42, -20) and first.bags == (6, 0)
    assert game.scores == [-42, -20] and game.bags == [6, 0]
    second = game_hand(game, {1: "bid 1", 2: "bid 6", 3: "bid 1", 0: "bid 3"})
    # contract 9, 13 taken: +94 and 4 bags -> 10: -100, 0 carried
    assert second.dealer == 0
    assert second.points == (94 - 100, -20) and second.bags == (0, 0)
    assert game.scores == [-48, -40]
    assert second.scores == (-48, -40)


def test_bag_penalty_applies_to_a_negative_score():
    game = game_with(STANDARD, [SIDE0_SWEEPS], scores=[-200, 0], bags=[9, 0])
    result = game_hand(game, {0: "bid 4", 1: "bid 1", 2: "bid 1", 3: "bid 1"})
    assert result.points[0] == 58 - 100
    assert game.scores[0] == -242 and game.bags[0] == 7


def test_crazy_rotation_uses_standard_jokers_mirror_suicide_in_order():
    rules = preset("crazy").replace(max_hands=6, target_score=10000)
    game = Game(rules, np.random.default_rng(5), dealer=1)
    seen = []
    while not game.over:
        hand = game.hand
        seen.append(hand.rules.name)
        pack = {c for h in hand.deal.hands for c in h}
        assert (parse_card("BJ") in pack) == (hand.rules.name == "jokers")
        assert hand.rules.mirror == (hand.rules.name == "mirror")
        assert hand.rules.suicide == (hand.rules.name == "suicide")
        while game.hand is hand and not game.over:
            game.apply(hand.legal_actions()[0])
    assert seen == ["standard", "jokers", "mirror", "suicide", "standard", "jokers"]
    assert [r.rules_name for r in game.results] == seen
    assert [r.dealer for r in game.results] == [1, 2, 3, 0, 1, 2]


def test_crazy_hands_take_game_level_settings_from_the_rotation():
    rules = preset("crazy").replace(target_score=200, bag_limit=5, bag_penalty=50)
    hand_rules = rules.hand_rules(2)
    assert hand_rules.name == "mirror" and hand_rules.mirror
    assert (hand_rules.target_score, hand_rules.bag_limit, hand_rules.bag_penalty) == (200, 5, 50)


def test_crazy_scores_and_bags_carry_across_variants():
    rules = preset("crazy").replace(max_hands=4, target_score=10000)
    game = Game(rules, np.random.default_rng(8), dealer=0)
    play_random_game(game, 8)
    scores, bags = [0, 0], [0, 0]
    for r in game.results:
        scores = [s + p for s, p in zip(scores, r.points)]
        assert list(r.scores) == scores
        assert r.score.sides[0].bags - r.score.sides[0].new_bags + 10 * r.score.sides[0].bag_penalties == bags[0]
        bags = list(r.bags)
    assert game.bags == bags


def test_cutthroat_four_players_score_alone():
    game = game_with(preset("cutthroat"), [ONE_SUIT_HANDS], scores=[0, 0, 0, 0])
    result = game_hand(game, {0: "nil", 1: "bid 3", 2: "nil", 3: "bid 10"})
    assert result.tricks == (0, 0, 0, 13)
    assert result.points == (100, -30, 100, 103)
    assert game.scores == [100, -30, 100, 103] and game.bags == [0, 0, 0, 3]


def test_cutthroat_three_players_seventeen_tricks():
    # seat 2 holds all 13 spades and the four top hearts: it wins every trick when it
    # always plays its highest card (it trumps the first diamond lead, then leads out)
    game = game_with(preset("cutthroat3"), [THREE_HANDS], dealer=2, scores=[0, 0, 0])
    result = game_hand(game, {0: "nil", 1: "bid 2", 2: "bid 15"}, choose="highest")
    assert result.tricks == (0, 0, 17)
    assert result.points == (100, -20, 152)
    assert game.scores == [100, -20, 152] and game.bags == [0, 0, 2]
    assert game.hand.dealer == 0 and len(game.hand.deal.set_aside) == 1


@pytest.mark.parametrize(
    "scores, blind_seats",
    [
        ((0, 50, 100, 20), {0}),  # seat 0 trails the best other (100) by 100; seat 3 by 80
        ((0, 100, 100, 100), {0}),
        ((0, 0, 0, 0), set()),
        ((-100, 0, -50, 0), {0}),
        ((0, 200, 200, 100), {0, 3}),
        ((300, 200, 200, 100), {1, 2, 3}),
    ],
)
def test_cutthroat_blind_nil_is_judged_against_the_best_other_player(scores, blind_seats):
    for seat in range(4):
        state = hand_state(preset("cutthroat"), ONE_SUIT_HANDS, dealer=(seat - 1) % 4, scores=scores)
        assert state.current == seat
        assert (state.phase == Phase.BLIND) == (seat in blind_seats), seat


def test_cutthroat_blind_nil_through_the_game_scores():
    game = game_with(preset("cutthroat"), [ONE_SUIT_HANDS], dealer=3, scores=[0, 50, 100, 20])
    assert game.hand.phase == Phase.BLIND and game.hand.current == 0


def test_supplied_deals_are_used_then_the_rng():
    game = game_with(STANDARD.replace(max_hands=3), [SIDE0_SWEEPS])
    assert game.hand.deal == make_deal(STANDARD, SIDE0_SWEEPS)
    game_hand(game, {0: "bid 4", 1: "bid 1", 2: "bid 1", 3: "bid 1"})
    assert game.hand.deal != make_deal(STANDARD, SIDE0_SWEEPS)
    assert len(game.deals) == 2


@pytest.mark.parametrize(
    "kwargs",
    [
        {"scores": [0, 0, 0]},
        {"bags": [0]},
        {"bags": [-1, 0]},
        {"scores": [0.5, 0]},
        {"dealer": 4},
        {"dealer": -1},
        {"dealer": True},
        {"scores": [True, 0]},
    ],
)
def test_game_rejects_bad_setup(kwargs):
    with pytest.raises(GameError):
        Game(STANDARD, np.random.default_rng(0), **kwargs)


def test_game_accepts_numpy_setup_values():
    game = Game(
        STANDARD, np.random.default_rng(0), dealer=np.int64(2), scores=np.array([10, 20]), bags=[np.int32(3), 0]
    )
    assert game.dealer == 2 and game.scores == [10, 20] and game.bags == [3, 0]


def test_default_rules_game_has_real_targets():
    assert Rules().target_score == 500 and Rules().max_hands == 100
