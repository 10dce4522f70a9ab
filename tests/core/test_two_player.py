"""Two-player Spades (RULES.md section 9), point by point, with its worked examples."""

from __future__ import annotations

import numpy as np
import pytest

from spades_env.core import Bid, BidKind, Game, HandState, Phase, Rules, RulesError, game_winner, preset, score_hand
from spades_env.core.actions import DISCARD, KEEP, action_names, parse_action
from spades_env.core.cards import SPADE_MASK, cards_of, format_cards, parse_cards
from spades_env.core.deal import DealError, deal_cards, make_deal, make_stock
from spades_env.core.drawing import DRAW_TURNS, STOCK_SIZE, discards_seen, draw_rules, drawer, stock_left
from spades_env.core.ops import ARRAY, INT
from spades_env.core.rules import TWO_PLAYER_REFUSED

TWO = preset("two_player")
RANKS_DOWN = "AKQJT98765432"
# A stock read in pairs, top first: the non-dealer's turns (0, 2, 4, ...) offer a spade and then show a club, the
# dealer's turns a heart and then a diamond. Keeping every card, the non-dealer ends with the 13 spades and the
# dealer with the 13 hearts; their discards are the clubs and the diamonds.
ORDER = parse_cards(" ".join(f"{r}S {r}C {r}H {r}D" for r in RANKS_DOWN))


def drawn(stock=ORDER, dealer=0, choices=None, rules=TWO) -> HandState:
    """A two-player hand after the drawing phase (``choices``: one action per turn; every card kept by default)."""
    state = HandState(rules, make_stock(rules, [int(c) for c in stock]), dealer)
    for turn in range(DRAW_TURNS):
        state.apply(KEEP if choices is None else choices[turn])
    return state


# ------------------------------------------------------------------ the rules config
def test_the_preset_is_two_individual_players_with_nil_100_no_blind_nil_to_500():
    assert (TWO.num_players, TWO.partnerships, TWO.nil, TWO.nil_value, TWO.blind_nil, TWO.target_score) == (
        2,
        False,
        True,
        100,
        False,
        500,
    )
    assert (TWO.num_sides, TWO.hand_size, TWO.num_tricks, TWO.discards_face_up) == (2, 13, 13, False)


@pytest.mark.parametrize(
    "option, value",
    [
        ("blind_nil", True),
        ("ten_for_200", True),
        ("blind_bids", True),
        ("suicide", True),
        ("mirror", True),
        ("max_team_bid", 13),
        ("bids_may_total_tricks", False),
        ("first_trick", "lowest_club"),
        ("jokers", True),
    ],
)
def test_options_that_need_partners_more_players_or_a_deal_are_refused_by_name(option, value):
    with pytest.raises(RulesError, match=option):
        TWO.replace(**{option: value})


def test_every_refused_option_is_named_at_once():
    with pytest.raises(RulesError) as info:
        Rules(num_players=2, partnerships=False, jokers=True, mirror=True, blind_nil=False)
    assert "jokers" in str(info.value) and "mirror" in str(info.value)
    assert set(TWO_PLAYER_REFUSED) >= {
        "blind_nil",
        "ten_for_200",
        "blind_bids",
        "suicide",
        "mirror",
        "max_team_bid",
        "blind_nil_exchange",
        "bids_may_total_tricks",
        "first_trick",
        "jokers",
    }


def test_partnerships_and_face_up_discards_with_more_players_are_refused():
    with pytest.raises(RulesError, match="partnerships"):
        TWO.replace(partnerships=True)
    with pytest.raises(RulesError, match="discards_face_up"):
        preset("cutthroat").replace(discards_face_up=True)
    with pytest.raises(RulesError, match="num_players"):
        TWO.replace(num_players=1)
    assert TWO.replace(discards_face_up=True, dealer_leads_any=True, target_score=300).num_players == 2


# ------------------------------------------------------------------ the stock (a deal of two players)
def test_a_deal_of_two_players_is_a_stock_of_the_whole_pack():
    deal = deal_cards(TWO, np.random.default_rng(5), dealer=1)
    assert deal.hands == ((), ()) and deal.set_aside == ()
    assert sorted(deal.stock) == list(range(STOCK_SIZE))
    assert deal_cards(TWO, np.random.default_rng(5), dealer=1) == deal  # a plain value of its seed
    again = make_stock(TWO, deal.stock_strings())
    assert again == deal and again.rotate(1) == deal  # stored as strings, read back; rotation keeps the stock


@pytest.mark.parametrize(
    "stock, message",
    [
        ([], "has 0 cards"),
        (ORDER[:51], "has 51 cards"),
        (list(ORDER[:51]) + [ORDER[0]], "twice"),
        (list(ORDER[:51]) + ["BJ"], "not in the 52-card pack"),
        (list(ORDER[:51]) + ["ZZ"], "stock"),
        ("AS KS", "must be a list"),
        (None, "must be a list"),
    ],
)
def test_a_bad_stock_is_refused_naming_the_problem(stock, message):
    with pytest.raises(DealError, match=message):
        make_stock(TWO, stock)


def test_stocks_and_deals_are_not_mixed_up():
    with pytest.raises(DealError, match="stock"):
        make_deal(TWO, [[], []])
    with pytest.raises(DealError, match="two players"):
        make_stock(preset("standard"), ORDER)


# ------------------------------------------------------------------ the drawing phase
def test_the_non_dealer_draws_first_and_the_players_alternate_for_26_turns():
    assert [drawer(0, t) for t in range(4)] == [1, 0, 1, 0]
    state = HandState(TWO, make_stock(TWO, ORDER), dealer=1)
    seen = []
    while state.phase == Phase.DRAW:
        assert set(action_names(state.legal_mask())) == {"keep", "discard"}
        assert state.offered == state.stock[2 * state.draw_turn]
        seen.append(state.current)
        state.apply(KEEP if len(seen) % 3 else DISCARD)
    assert seen == [0, 1] * 13 and state.draw_turn == DRAW_TURNS == 26
    assert state.offered is None and state.phase == Phase.BID


def test_worked_example_a_kept_top_card_goes_to_the_hand_and_the_next_to_the_discards():
    # RULES.md section 9: hand +1 card, discard pile +1, stock -2.
    state = HandState(TWO, make_stock(TWO, ORDER), dealer=0)
    assert stock_left(state.draw_turn) == 52 and state.current == 1
    state.apply(KEEP)
    assert format_cards(cards_of(state.hands[1])) == "AS" and format_cards(cards_of(state.discards[1])) == "AC"
    assert stock_left(state.draw_turn) == 50 and state.hands[0] == state.discards[0] == 0
    state.apply(DISCARD)  # seat 0 discards AH and takes AD with no decision
    assert format_cards(cards_of(state.hands[0])) == "AD" and format_cards(cards_of(state.discards[0])) == "AH"
    assert stock_left(state.draw_turn) == 48 and state.current == 1


def test_after_drawing_each_player_holds_13_and_discarded_13_and_every_card_is_somewhere_once():
    rng = np.random.default_rng(2)
    state = drawn(choices=[int(a) for a in rng.choice([KEEP, DISCARD], DRAW_TURNS)])
    hands, discards = state.hands, state.discards
    assert [h.bit_count() for h in hands] == [13, 13] and [d.bit_count() for d in discards] == [13, 13]
    assert hands[0] | hands[1] | discards[0] | discards[1] == (1 << STOCK_SIZE) - 1
    assert state.kept(0) == hands[0]


def test_the_drawing_phase_refuses_anything_but_keep_and_discard_unchanged():
    state = HandState(TWO, make_stock(TWO, ORDER), dealer=0)
    for action in (parse_action("AS"), parse_action("bid 3"), parse_action("see cards"), 90, -1):
        with pytest.raises(ValueError, match="keep"):
            state.apply(action)
    assert state.draw_turn == 0 and state.hands == [0, 0] and state.history == []


def test_discards_are_seen_by_their_owner_and_face_up_by_both():
    state = drawn()
    face_down, face_up = draw_rules(TWO), draw_rules(TWO.replace(discards_face_up=True))
    assert discards_seen(INT, face_down, 0, 0, state.discards[0]) == state.discards[0]
    assert discards_seen(INT, face_down, 1, 0, state.discards[0]) == 0
    assert discards_seen(INT, face_up, 1, 0, state.discards[0]) == state.discards[0]
    arrays = discards_seen(
        ARRAY, face_down, np.array([0, 1]), np.array([0, 0]), np.array([state.discards[0]] * 2, np.uint64)
    )
    assert arrays.tolist() == [state.discards[0], 0]


# ------------------------------------------------------------------ bidding, play, scoring, the game
def test_the_non_dealer_bids_first_then_the_dealer_from_nil_to_13_with_no_blind_step():
    state = drawn(dealer=0)
    assert state.phase == Phase.BID and state.current == 1
    assert action_names(state.legal_mask()) == ["nil"] + [f"bid {n}" for n in range(1, 14)]
    state.apply(parse_action("bid 13"))
    assert state.current == 0 and action_names(state.legal_mask())[-1] == "bid 13"  # bids need not add up
    state.apply(parse_action("nil"))
    assert state.phase == Phase.PLAY and state.bids == (Bid(BidKind.NIL, 0), Bid(BidKind.NUMBER, 13))


def test_the_non_dealer_leads_a_non_spade_unless_it_holds_only_spades():
    mixed = drawn(dealer=1, choices=[KEEP if t % 4 == 0 else DISCARD for t in range(DRAW_TURNS)])
    assert format_cards(cards_of(mixed.hands[0])) == "3C 5C 7C 9C JC KC 2S 4S 6S 8S TS QS AS"  # 7 spades, 6 clubs
    mixed.apply(parse_action("bid 4"))
    mixed.apply(parse_action("bid 4"))
    assert mixed.current == 0 and mixed.legal_mask() == mixed.hands[0] & ~SPADE_MASK
    spades = drawn(dealer=1)  # every card kept: the non-dealer holds the 13 spades
    assert spades.hands[0] == SPADE_MASK & ((1 << STOCK_SIZE) - 1)
    spades.apply(parse_action("bid 13"))
    spades.apply(parse_action("bid 1"))
    assert spades.legal_mask() == spades.hands[0]


def test_dealer_leads_any_makes_the_dealer_lead_a_spade_at_once():
    dealer_gets_spades = ORDER[2:] + ORDER[:2]  # one pair later: the dealer's turns offer the spades
    state = drawn(
        dealer_gets_spades,
        dealer=0,
        choices=[KEEP if t % 4 == 1 else DISCARD for t in range(DRAW_TURNS)],
        rules=TWO.replace(dealer_leads_any=True),
    )
    assert state.hands[0] & SPADE_MASK and state.hands[0] & ~SPADE_MASK  # the dealer holds spades and others
    state.apply(parse_action("bid 3"))
    state.apply(parse_action("bid 3"))
    assert state.current == 0 and state.legal_mask() == state.hands[0]


def test_tricks_have_two_cards_the_higher_spade_or_card_of_the_led_suit_wins():
    state = drawn(dealer=0)  # seat 1 (the non-dealer): every spade; seat 0: every heart
    state.apply(parse_action("bid 13"))
    state.apply(parse_action("nil"))
    state.apply(parse_action("2S"))
    state.apply(parse_action("AH"))  # seat 0 cannot follow spades
    assert state.last_trick[3] == 1 and state.tricks_won == [0, 1] and state.current == 1
    assert state.spades_broken is True
    state.apply(parse_action("3S"))
    state.apply(parse_action("2H"))
    assert state.tricks_won == [0, 2] and state.trick_index == 2


def test_worked_example_bid_4_take_6_from_100_with_8_bags():
    score = score_hand(TWO, [Bid(BidKind.NUMBER, 4), Bid(BidKind.NUMBER, 7)], [6, 7], [8, 0])
    assert score.points[0] == 42 - 100 and 100 + score.points[0] == 42 and score.bags[0] == 0


def test_worked_example_nil_made_from_450_wins_the_game_against_480():
    score = score_hand(TWO, [Bid(BidKind.NIL, 0), Bid(BidKind.NUMBER, 13)], [0, 13], [0, 0])
    assert score.points == (100, 130)
    assert game_winner(TWO, [550, 480 + 0]) == 0
    failed = score_hand(TWO, [Bid(BidKind.NIL, 0), Bid(BidKind.NUMBER, 11)], [2, 11], [0, 0])
    assert failed.points[0] == -100 + 2 and failed.bags[0] == 2  # a nil bidder's tricks are its bags


def test_a_game_alternates_the_deal_and_plays_to_the_target():
    game = Game(TWO.replace(target_score=150), np.random.default_rng(9), dealer=0)
    pick = np.random.default_rng(10)
    while not game.over:
        game.apply(int(pick.choice(game.hand.legal_actions())))
    assert [r.dealer for r in game.results] == [i % 2 for i in range(len(game.results))]
    assert all(len(d.stock) == STOCK_SIZE for d in game.deals)
    assert game.truncated or max(game.scores) >= 150
