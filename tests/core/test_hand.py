"""The hand state machine (RULES.md sections 3 and 4): blind decisions, special bids,
the exchange, first-trick and spade-leading rules, jokers, and bad input."""

import numpy as np
import pytest

from spades_env.core import (
    BLIND_NIL,
    SEE_CARDS,
    TEN_FOR_200,
    BidKind,
    HandState,
    IllegalActionError,
    Phase,
    action_name,
    bid_action,
    card_action,
    format_card,
    make_deal,
    parse_card,
    preset,
    trick_winner,
)

from .helpers import (
    MIXED_HANDS,
    ONE_SUIT_HANDS,
    act,
    bid_names,
    bid_round,
    hand_state,
    names,
    play_cards,
    snapshot,
    start_play,
    suit,
)

STANDARD = preset("standard")


def cards_in_hand(state, seat):
    return {format_card(c) for c in range(54) if (state.hands[seat] >> c) & 1}


# --- blind nil decision ----------------------------------------------------------------


@pytest.mark.parametrize(
    "scores, blind",
    [
        ((0, 100), True),  # behind by exactly 100
        ((-50, 300), True),
        ((0, 99), False),
        ((100, 100), False),  # tied
        ((0, 0), False),  # first hand
        ((200, 0), False),  # ahead
    ],
)
def test_blind_nil_offered_only_when_behind_by_100(scores, blind):
    state = hand_state(STANDARD, ONE_SUIT_HANDS, dealer=3, scores=scores)
    assert state.current == 0
    if blind:
        assert state.phase == Phase.BLIND
        assert set(state.legal_actions()) == {SEE_CARDS, BLIND_NIL}
        assert not state.hand_visible(0)
    else:
        assert state.phase == Phase.BID
        assert names(state) == bid_names(0, 13)
        assert state.hand_visible(0)


@pytest.mark.parametrize("scores", [(0, 0), (300, 0), (0, 300)])
def test_blind_nil_always_offered_with_deficit_none(scores):
    rules = STANDARD.replace(blind_nil_requires_deficit=None)
    state = hand_state(rules, ONE_SUIT_HANDS, dealer=3, scores=scores)
    assert state.phase == Phase.BLIND
    assert set(state.legal_actions()) == {SEE_CARDS, BLIND_NIL}


def test_blind_nil_decision_hides_the_hand_until_see_cards():
    state = hand_state(STANDARD, ONE_SUIT_HANDS, dealer=3, scores=(0, 150))
    assert state.phase == Phase.BLIND and not state.hand_visible(0)
    state.apply(SEE_CARDS)
    assert state.current == 0 and state.phase == Phase.BID and state.hand_visible(0)
    assert names(state) == bid_names(0, 13)  # blind nil is no longer offered
    state.apply(bid_action(3))
    # seat 1 is ahead: it looks and bids directly
    assert state.current == 1 and state.phase == Phase.BID and state.hand_visible(1)
    state.apply(bid_action(2))
    # seat 2 (partner of seat 0) is behind too: a blind decision of its own
    assert state.current == 2 and state.phase == Phase.BLIND and not state.hand_visible(2)


def test_blind_nil_bidder_sees_its_hand_after_the_bid():
    state = hand_state(STANDARD, ONE_SUIT_HANDS, dealer=3, scores=(0, 150))
    state.apply(BLIND_NIL)
    assert state.bid_kinds[0] == BidKind.BLIND_NIL
    assert state.hand_visible(0)
    assert state.current == 1


def test_seats_that_have_not_acted_have_not_looked():
    state = hand_state(STANDARD, ONE_SUIT_HANDS, dealer=3)
    assert [state.hand_visible(s) for s in range(4)] == [True, False, False, False]


# --- 10 for 200 ------------------------------------------------------------------------

ONLINE = preset("online")


def test_ten_for_200_is_a_bid_after_seeing_not_a_blind_option():
    state = hand_state(ONLINE, ONE_SUIT_HANDS, dealer=3)
    assert state.phase == Phase.BLIND
    assert TEN_FOR_200 not in state.legal_actions()
    state.apply(SEE_CARDS)
    assert TEN_FOR_200 in state.legal_actions()


def test_ten_for_200_skips_the_partner_who_has_not_bid():
    state = hand_state(ONLINE, ONE_SUIT_HANDS, dealer=3)
    act(state, "see cards", "10 for 200")  # seat 0
    assert state.bid_kinds[2] == BidKind.SKIPPED
    act(state, "see cards", "bid 3")  # seat 1
    assert state.current == 3  # seat 2 skipped
    act(state, "see cards", "bid 2")
    assert state.phase == Phase.PLAY
    assert [b.kind for b in state.bids] == [BidKind.TEN_FOR_200, BidKind.NUMBER, BidKind.SKIPPED, BidKind.NUMBER]


def test_ten_for_200_cancels_the_partners_earlier_bid():
    state = hand_state(ONLINE, ONE_SUIT_HANDS, dealer=3)
    act(state, "see cards", "nil", "see cards", "bid 3")  # seats 0 and 1
    assert state.current == 2
    act(state, "see cards")
    assert TEN_FOR_200 in state.legal_actions()  # the partner's nil does not prevent it
    act(state, "10 for 200")
    assert state.bid_kinds[0] == BidKind.CANCELLED
    assert state.current == 3
    # seat 3's partner bid a number: seat 3 may still bid 10 for 200, cancelling it
    act(state, "see cards", "10 for 200")
    assert state.bid_kinds[1] == BidKind.CANCELLED
    assert state.phase == Phase.PLAY


def test_ten_for_200_cancelling_a_blind_nil_cancels_the_exchange():
    rules = ONLINE.replace(blind_nil_exchange=2)
    state = hand_state(rules, ONE_SUIT_HANDS, dealer=3)
    act(state, "blind nil", "see cards", "bid 3", "see cards", "10 for 200", "see cards", "bid 3")
    assert state.bid_kinds[0] == BidKind.CANCELLED
    assert state.phase == Phase.PLAY  # no exchange


# --- blind bids (Barmore) ---------------------------------------------------------------

BARMORE = preset("barmore")
JOKER_HANDS = [suit("C", "3456789TJQKA") + " LJ", suit("D"), suit("H", "3456789TJQKA") + " BJ", suit("S")]


def test_blind_bid_offered_before_looking_to_the_first_partner_only():
    state = hand_state(BARMORE, JOKER_HANDS, dealer=0)
    assert state.current == 1 and state.phase == Phase.BLIND and not state.hand_visible(1)
    assert names(state) == {"see cards"} | {f"blind {n}" for n in range(7, 14)}
    act(state, "blind 8")
    assert state.hand_visible(1)
    assert state.bid_kinds[3] == BidKind.SKIPPED
    # seat 2's partner (seat 0) has not bid: seat 2 may bid blind too
    assert state.current == 2 and state.phase == Phase.BLIND
    act(state, "see cards")
    assert names(state) == bid_names(1, 13)  # no nil in Barmore
    act(state, "bid 4")
    # seat 3 is skipped; seat 0's partner has bid: no blind option, it bids directly
    assert state.current == 0 and state.phase == Phase.BID
    assert names(state) == bid_names(1, 13)
    act(state, "bid 2")
    assert state.phase == Phase.PLAY
    assert [str(b) for b in state.bids] == ["2", "blind 8", "4", "skipped"]


# --- the blind nil exchange --------------------------------------------------------------


@pytest.mark.parametrize("rules, k", [(preset("pagat"), 2), (STANDARD.replace(blind_nil_exchange=3), 3)])
def test_exchange_after_blind_nil(rules, k):
    state = hand_state(rules, ONE_SUIT_HANDS, dealer=3, scores=(0, 100))
    bid_round(state, {0: "blind nil", 1: "bid 5", 2: "bid 3", 3: "bid 4"})
    assert state.phase == Phase.EXCHANGE
    # the blind nil bidder (seat 0) passes k cards, one action each, from its whole hand
    for i in range(k):
        assert state.current == 0 and state.phase == Phase.EXCHANGE
        assert set(state.legal_actions()) == set(range(13)) - {12 - j for j in range(i)}
        state.apply(card_action(f"{'AKQ'[i]}C"))
    assert len(cards_in_hand(state, 0)) == 13 - k
    assert len(cards_in_hand(state, 2)) == 13 + k
    # the partner passes k back, chosen from its whole hand (received cards included)
    assert state.current == 2
    assert {"AC", "KC"} <= {action_name(a) for a in state.legal_actions()}
    assert len(state.legal_actions()) == 13 + k
    back = ["AC"] + [f"{r}H" for r in "23"][: k - 1]
    for card in back:
        assert state.current == 2 and state.phase == Phase.EXCHANGE
        state.apply(card_action(card))
    assert state.phase == Phase.PLAY
    assert [len(cards_in_hand(state, s)) for s in range(4)] == [13, 13, 13, 13]
    assert {"AC"} | set(back[1:]) <= cards_in_hand(state, 0)
    assert {"KC", "QC"}.intersection(cards_in_hand(state, 2)) == ({"KC", "QC"} if k == 3 else {"KC"})


def test_no_exchange_when_both_partners_bid_blind_nil():
    state = hand_state(preset("pagat"), ONE_SUIT_HANDS, dealer=3, scores=(0, 100))
    bid_round(state, {0: "blind nil", 1: "bid 5", 2: "blind nil", 3: "bid 4"})
    assert state.phase == Phase.PLAY


def test_no_exchange_after_an_ordinary_nil():
    state = hand_state(preset("pagat"), ONE_SUIT_HANDS, dealer=3, scores=(0, 100))
    bid_round(state, {0: "nil", 1: "bid 5", 2: "bid 3", 3: "bid 4"})
    assert state.phase == Phase.PLAY


def test_exchange_for_each_blind_nil_bidder_in_bidding_order():
    rules = STANDARD.replace(blind_nil_exchange=2, blind_nil_requires_deficit=None)
    state = hand_state(rules, ONE_SUIT_HANDS, dealer=0)  # bidding order 1, 2, 3, 0
    bid_round(state, {1: "bid 3", 2: "blind nil", 3: "blind nil", 0: "bid 4"})
    seen = []
    while state.phase == Phase.EXCHANGE:
        seen.append(state.current)
        state.apply(state.legal_actions()[0])
    assert seen == [2, 2, 0, 0, 3, 3, 1, 1]


# --- the first lead and leading spades ---------------------------------------------------


def test_first_lead_is_left_of_dealer_and_not_a_spade():
    state = start_play(STANDARD, MIXED_HANDS, dealer=0)
    assert state.current == 1
    assert names(state) == {"AH", "KH", "QH"}


def test_spade_discard_breaks_spades_and_spades_may_then_be_led():
    state = start_play(STANDARD, MIXED_HANDS, dealer=0)
    play_cards(state, "AH")
    assert "AS" in names(state)  # seat 2 is void in hearts: any card
    play_cards(state, "3D")
    assert names(state) == {f"{r}H" for r in "23456789TJ"}  # seat 3 must follow, never trump
    play_cards(state, "2H 2C")
    assert state.last_trick[3] == 1 and not state.spades_broken
    assert names(state) == {"KH", "QH"}  # still no spade lead
    play_cards(state, "KH AS")
    assert state.spades_broken
    play_cards(state, "3H 3C")
    assert state.last_trick[3] == 2  # the discarded spade won
    play_cards(state, "4D 2D 4C 2S")  # seat 1 trumps a diamond
    assert state.last_trick[3] == 1
    assert names(state) == {"QH"} | {f"{r}S" for r in "3456789TJ"}  # spades may be led now


def test_leader_holding_only_spades_may_lead_one_before_they_are_broken():
    state = start_play(STANDARD, ONE_SUIT_HANDS, dealer=2)
    assert state.current == 3 and not state.spades_broken
    assert names(state) == set(suit("S").split())


def test_leader_left_with_only_spades_may_lead_them():
    state = start_play(STANDARD, MIXED_HANDS, dealer=0)
    play_cards(state, "AH 3D 2H 2C KH 4D 3H 3C QH 5D 4H 4C")  # seat 1 wins three hearts
    assert not state.spades_broken and state.current == 1
    assert names(state) == {f"{r}S" for r in "23456789TJ"}


def test_must_follow_suit_but_any_card_when_void():
    state = start_play(STANDARD, ONE_SUIT_HANDS, dealer=3)
    play_cards(state, "2C")
    assert names(state) == set(suit("D").split())  # void: any card
    play_cards(state, "2D 2H")
    assert names(state) == set(suit("S").split())


def test_a_trick_without_spades_goes_to_the_highest_card_of_the_suit_led():
    state = start_play(STANDARD, MIXED_HANDS, dealer=0)
    play_cards(state, "QH 3D JH 2C")  # only hearts count: QH beats JH; 3D and 2C are off-suit
    assert state.last_trick[3] == 1


# --- lowest club first (pagat) ------------------------------------------------------------

PAGAT = preset("pagat")
CLUB_HANDS_1 = [
    "5C 9C KC " + suit("D", "23456789TJ"),
    suit("S"),
    "2C 3C 4C 6C 7C 8C TC JC QC AC QD KD AD",
    suit("H"),
]
CLUB_HANDS_2 = [
    "5C 9C KC " + suit("D", "23456789TJ"),
    "QH KH AH " + suit("S", "23456789TJ"),
    "2C 3C 4C 6C 7C 8C TC JC QC AC QD KD AD",
    suit("H", "23456789TJ") + " QS KS AS",
]


def test_lowest_club_holder_leads_it_and_others_play_their_lowest_club():
    state = start_play(PAGAT, CLUB_HANDS_1, dealer=3)
    assert state.current == 2  # holds 2C, although seat 0 is left of the dealer
    assert names(state) == {"2C"}
    play_cards(state, "2C")
    assert names(state) == set(suit("H").split())  # seat 3: no club, only hearts
    play_cards(state, "9H")
    assert names(state) == {"5C"}  # seat 0: its lowest club only
    play_cards(state, "5C")
    assert names(state) == set(suit("S").split())  # seat 1: only spades, so a spade
    play_cards(state, "2S")
    assert state.last_trick[3] == 1 and state.spades_broken


def test_lowest_club_trick_clubless_player_discards_red_not_spade():
    state = start_play(PAGAT, CLUB_HANDS_2, dealer=3)
    play_cards(state, "2C")
    assert names(state) == {f"{r}H" for r in "23456789TJ"}  # seat 3: hearts, never its spades
    play_cards(state, "2H 5C")
    assert names(state) == {"QH", "KH", "AH"}  # seat 1
    play_cards(state, "AH")
    assert state.last_trick[3] == 0  # the highest club (5C) wins
    assert not state.spades_broken
    # from the second trick on the ordinary rules apply: seat 0 leads anything but spades
    assert names(state) == {"9C", "KC"} | {f"{r}D" for r in "23456789TJ"}


def test_lowest_club_is_the_3_with_jokers():
    rules = PAGAT.replace(jokers=True)  # 2C is out of the pack
    deal = [
        "4C 5C BJ " + suit("D", "3456789TJQ"),
        "3C KD AD " + suit("H", "3456789TJQ"),
        suit("C", "6789TJQKA") + " KH AH LJ 2S",
        suit("S", "3456789TJQKA") + " 2D",
    ]
    state = start_play(rules, deal, dealer=0)
    assert state.current == 1 and names(state) == {"3C"}
    play_cards(state, "3C")
    assert names(state) == {"6C"}


def test_lowest_club_is_the_3_when_the_2_is_set_aside():
    rules = preset("cutthroat3").replace(first_trick="lowest_club")
    hands = [
        "3C 4C 5C 6C " + suit("D"),
        suit("C", "789TJQKA") + " " + suit("H", "23456789T"),
        suit("H", "JQKA") + " " + suit("S"),
    ]
    state = start_play(rules, hands, dealer=1)  # seat 2 is left of the dealer
    assert state.current == 0 and names(state) == {"3C"}


def test_lowest_club_after_the_exchange():
    """After a blind nil exchange the lowest club is found in the hands as they are then."""
    state = hand_state(PAGAT, ONE_SUIT_HANDS, dealer=3, scores=(0, 100))
    bid_round(state, {0: "blind nil", 1: "bid 5", 2: "bid 3", 3: "bid 4"})
    act(state, "2C", "3C", "2H", "3H")  # seat 0 passes its two lowest clubs to seat 2
    assert state.phase == Phase.PLAY
    assert state.current == 2 and names(state) == {"2C"}


# --- jokers -----------------------------------------------------------------------------

JOKERS = preset("jokers")


def test_jokers_cannot_be_led_before_spades_are_broken():
    state = start_play(JOKERS, JOKER_HANDS, dealer=3)
    assert state.current == 0
    assert names(state) == set(suit("C", "3456789TJQKA").split())


def test_jokers_must_follow_a_spade_lead():
    state = start_play(JOKERS, JOKER_HANDS, dealer=2)
    play_cards(state, "AS")  # seat 3 holds only spades
    assert names(state) == {"LJ"}  # seat 0's only "spade"
    play_cards(state, "LJ")
    assert names(state) == set(suit("D").split())
    play_cards(state, "2D")
    assert names(state) == {"BJ"}
    play_cards(state, "BJ")
    assert state.last_trick[3] == 2  # BJ beats LJ beats AS


def test_joker_discard_breaks_spades_and_wins():
    state = start_play(JOKERS, JOKER_HANDS, dealer=3)
    play_cards(state, "3C 2D")
    assert not state.spades_broken
    play_cards(state, "BJ")  # seat 2, void in clubs, discards the Big Joker
    assert state.spades_broken
    play_cards(state, "AS")
    assert state.last_trick[3] == 2
    play_cards(state, "3H 2S")  # seat 2 leads; seat 3 trumps
    assert state.current == 0
    assert "LJ" in names(state)  # void in hearts: the joker may be played
    play_cards(state, "LJ 4D")
    assert state.last_trick[3] == 0  # the Little Joker beats the 2 of spades


@pytest.mark.parametrize(
    "deuce_high, cards, winner",
    [
        (False, ["AS", "2S", "KS", "3S"], 0),
        (True, ["AS", "2S", "KS", "3S"], 1),
        (True, ["AS", "2S", "LJ", "3S"], 2),
        (False, ["LJ", "BJ", "AS", "2S"], 1),
        (True, ["2S", "LJ", "AS", "KS"], 1),
        (True, ["3S", "AS", "KS", "QS"], 1),
        (False, ["AH", "2S", "KH", "3H"], 1),
        (False, ["2H", "AD", "KC", "3H"], 3),
        (False, ["KD", "AD", "2D", "AS"], 3),
        (False, ["QC", "BJ", "AC", "KC"], 1),
        (False, ["LJ", "2C", "3C", "4C"], 0),
    ],
)
def test_trick_winner_trump_order(deuce_high, cards, winner):
    rules = JOKERS.replace(deuce_of_spades_high=deuce_high)
    seats = [2, 3, 0, 1]
    assert trick_winner(rules, seats, [parse_card(c) for c in cards]) == seats[winner]


def test_dealer_leads_any_card_at_any_time():
    state = start_play(BARMORE, JOKER_HANDS, dealer=2, bid=3)
    assert state.current == 2
    assert names(state) == set(suit("H", "3456789TJQKA").split()) | {"BJ"}


# --- bad input leaves the state unchanged --------------------------------------------------


def _bidding_state():
    return hand_state(STANDARD, ONE_SUIT_HANDS, dealer=3, scores=(0, 100))


def _bid_phase_state():
    state = _bidding_state()
    state.apply(SEE_CARDS)
    return state


def _play_state():
    state = start_play(STANDARD, MIXED_HANDS, dealer=0)
    play_cards(state, "AH")
    return state


def _exchange_state():
    state = hand_state(PAGAT, ONE_SUIT_HANDS, dealer=3, scores=(0, 100))
    bid_round(state, {0: "blind nil", 1: "bid 5", 2: "bid 3", 3: "bid 4"})
    state.apply(card_action("AC"))
    return state


def _over_state():
    state = start_play(STANDARD, ONE_SUIT_HANDS, dealer=3)
    while not state.is_over:
        state.apply(state.legal_actions()[0])
    return state


@pytest.mark.parametrize(
    "make_state, bad",
    [
        (_bidding_state, bid_action(3)),  # a bid during the blind decision
        (_bidding_state, card_action("2C")),  # a card while bidding
        (_bidding_state, TEN_FOR_200),
        (_bid_phase_state, BLIND_NIL),  # blind nil after looking
        (_bid_phase_state, SEE_CARDS),
        (_bid_phase_state, bid_action(14)),  # more than the tricks in the hand
        (_bid_phase_state, 88),
        (_bid_phase_state, -1),
        (_bid_phase_state, 1000),
        (_bid_phase_state, np.int64(bid_action(15))),
        (_bid_phase_state, "bid 3"),
        (_bid_phase_state, None),
        (_play_state, card_action("QS")),  # seat 3's card; seat 2 is to play
        (_play_state, card_action("KH")),  # seat 1's card, not the current seat's
        (_play_state, bid_action(3)),
        (_play_state, np.int64(card_action("2C"))),
        (_play_state, np.int32(-5)),
        (_exchange_state, card_action("AC")),  # already passed
        (_exchange_state, card_action("2D")),  # another seat's card
        (_exchange_state, bid_action(2)),
        (_over_state, card_action("2C")),
        (_over_state, 0),
    ],
)
def test_illegal_action_raises_and_leaves_state_unchanged(make_state, bad):
    state = make_state()
    legal = state.legal_actions()
    assert not (isinstance(bad, (int, np.integer)) and int(bad) in legal)  # the case is illegal by construction
    before = snapshot(state)
    with pytest.raises(IllegalActionError) as info:
        state.apply(bad)
    assert snapshot(state) == before
    message = str(info.value)
    for action in legal:
        assert repr(action_name(action)) in message
    if state.is_over:
        assert "over" in message


def test_illegal_revoke_raises():
    state = start_play(STANDARD, MIXED_HANDS, dealer=0)
    play_cards(state, "AH 3D")
    before = snapshot(state)
    for card in ("QS", "KS", "2D"):  # seat 3 holds hearts: no trumping, no discarding
        with pytest.raises(IllegalActionError, match="legal"):
            state.apply(card_action(card))
    assert snapshot(state) == before


def test_numpy_integer_legal_actions_are_accepted():
    state = _bid_phase_state()
    state.apply(np.int64(bid_action(3)))
    assert state.bids[0].value == 3
    state.apply(np.int32(bid_action(2)))
    state.apply(np.uint8(SEE_CARDS))
    state.apply(np.int16(bid_action(4)))
    assert [b.value for b in state.bids[:3]] == [3, 2, 4]
    assert all(type(a) is int for _, a in state.history)


def test_legal_mask_matches_legal_actions():
    state = _play_state()
    mask = state.legal_mask()
    assert [a for a in range(88) if (mask >> a) & 1] == state.legal_actions()


def test_hand_state_rejects_bad_setup():
    deal = make_deal(STANDARD, ONE_SUIT_HANDS)
    with pytest.raises(ValueError):
        HandState(STANDARD, deal, 4)
    with pytest.raises(ValueError):
        HandState(STANDARD, deal, 0, scores=(0, 0, 0))
    with pytest.raises(ValueError):
        HandState(preset("cutthroat3"), deal, 0)


def clubs_lead():
    """Seat 0 (all clubs) to lead with dealer 3: 2C..AC are all legal, so 1 (3C) and 5 (7C) are."""
    state = start_play(preset("standard"), ONE_SUIT_HANDS, dealer=3)
    assert state.phase == Phase.PLAY and state.current == 0
    assert {1, 5} <= set(state.legal_actions())
    return state


@pytest.mark.parametrize(
    "action", [True, 5.0, np.float64(5), np.float32(1), np.bool_(True), "5", None, 1 + 0j], ids=repr
)
def test_apply_rejects_non_integer_actions_even_when_their_value_is_legal(action):
    state = clubs_lead()
    before = snapshot(state)
    with pytest.raises(IllegalActionError):
        state.apply(action)
    assert snapshot(state) == before


@pytest.mark.parametrize("action", [np.int64(5), np.int32(5), np.int8(1), np.uint8(5)], ids=repr)
def test_apply_accepts_numpy_integer_legal_actions(action):
    state = clubs_lead()
    state.apply(action)
    assert state.trick_cards == [int(action)]
    assert state.history[-1] == (0, int(action))
    assert type(state.history[-1][1]) is int
