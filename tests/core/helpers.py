"""Shared helpers for the rules-core tests: deal builders, scripted bidding and play,
random play, state snapshots and an independent reference for trick winners."""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence

import numpy as np

from spades_env.core import (
    SEE_CARDS,
    Bid,
    BidKind,
    HandState,
    Phase,
    Rules,
    action_name,
    bid_action,
    deal_cards,
    format_card,
    make_deal,
    parse_action,
)
from spades_env.core.actions import DISCARD, KEEP
from spades_env.core.cards import cards_of

RANKS = "23456789TJQKA"


def suit(s: str, ranks: str = RANKS) -> str:
    """Space-separated cards of one suit, e.g. suit("C") -> "2C 3C ... AC"."""
    return " ".join(r + s for r in ranks)


# Seat 0 all clubs, seat 1 all diamonds, seat 2 all hearts, seat 3 all spades.
# Whoever holds the spades must play a spade to every trick and nobody else
# holds one, so that seat wins all 13 tricks whatever anybody plays.
ONE_SUIT_HANDS = [suit("C"), suit("D"), suit("H"), suit("S")]

# Dealer 0: seat 1 leads holding three top hearts and ten spades; seat 2 (diamonds and
# the AS) can discard its spade on hearts; seat 3 must follow hearts.
MIXED_HANDS = [
    suit("C"),
    "AH KH QH " + suit("S", "23456789TJ"),
    suit("D", "3456789TJQKA") + " AS",
    suit("H", "23456789TJ") + " 2D QS KS",
]


# Three players (17 cards each, 2C set aside): seat 2 holds all the spades and the four
# top hearts.
THREE_HANDS = [
    "3C 4C 5C 6C " + suit("D"),
    suit("C", "789TJQKA") + " " + suit("H", "23456789T"),
    suit("H", "JQKA") + " " + suit("S"),
]


def start_play(rules, hands, dealer, bid=1, scores=None):
    """A HandState past the bidding (everyone looks and bids ``bid`` where legal, else
    its lowest legal bid), ready for the first lead."""
    state = hand_state(rules, hands, dealer=dealer, scores=scores)
    while state.phase in (Phase.BLIND, Phase.BID):
        if state.phase == Phase.BLIND:
            state.apply(SEE_CARDS)
        legal = state.legal_actions()
        state.apply(bid_action(bid) if bid_action(bid) in legal else legal[0])
    assert state.phase == Phase.PLAY
    return state


def one_suit_hands(spade_seat: int) -> list[str]:
    """ONE_SUIT_HANDS with the spades held by ``spade_seat`` (suits rotate clockwise)."""
    k = (spade_seat - 3) % 4
    return [ONE_SUIT_HANDS[(s - k) % 4] for s in range(4)]


def bids(text: str) -> list[Bid]:
    """'3 nil bnil 10f200 b7 skip cx4' -> Bids (number, nil, blind nil, 10 for 200,
    blind 7, skipped, cancelled 4)."""
    out = []
    for tok in text.split():
        if tok == "nil":
            out.append(Bid(BidKind.NIL))
        elif tok == "bnil":
            out.append(Bid(BidKind.BLIND_NIL))
        elif tok == "10f200":
            out.append(Bid(BidKind.TEN_FOR_200, 10))
        elif tok == "skip":
            out.append(Bid(BidKind.SKIPPED))
        elif tok.startswith("cx"):
            out.append(Bid(BidKind.CANCELLED, int(tok[2:])))
        elif tok.startswith("b"):
            out.append(Bid(BidKind.BLIND, int(tok[1:])))
        else:
            assert int(tok) > 0
            out.append(Bid(BidKind.NUMBER, int(tok)))
    return out


def hand_state(
    rules: Rules, hands: Sequence[str | Iterable[str]], dealer: int = 0, scores: Sequence[int] | None = None
) -> HandState:
    """A HandState from a literal deal (one list or space-separated string per seat)."""
    return HandState(rules, make_deal(rules, list(hands)), dealer, scores)


def act(state, *names: str) -> None:
    """Apply actions given by name ("bid 3", "nil", "see cards", "AS", ...)."""
    for name in names:
        state.apply(parse_action(name))


def names(state) -> set[str]:
    """Names of the legal actions of a HandState."""
    return {action_name(a) for a in state.legal_actions()}


def bid_round(state, bids: dict[int, str]) -> None:
    """Bid from a seat -> action-name table; seats in a BLIND decision whose action is
    not blind look at their cards first. Stops when bidding is over."""
    while state.phase in (Phase.BLIND, Phase.BID):
        seat = state.current
        action = parse_action(bids[seat])
        if state.phase == Phase.BLIND and action not in state.legal_actions():
            state.apply(SEE_CARDS)
        state.apply(action)


def play_cards(state, cards: str) -> None:
    """Play space-separated cards in order (each by the seat to act)."""
    for card in cards.split():
        state.apply(parse_action(card))


def play_tricks(state, tricks: Sequence[tuple[int, str, int]]) -> list[int]:
    """Play (leader, cards in play order, expected winner) triples, checking the leader
    before each trick and the winner after it; returns the winners seen."""
    winners = []
    for i, (leader, cards, winner) in enumerate(tricks):
        assert state.phase == Phase.PLAY, f"trick {i + 1}: phase {state.phase!r}"
        assert state.current == leader, f"trick {i + 1}: seat {state.current} leads, expected {leader}"
        play_cards(state, cards)
        seen = state.last_trick[3]
        winners.append(seen)
        assert seen == winner, f"trick {i + 1} ({cards}) won by seat {seen}, expected {winner}"
    return winners


def play_out(state, choose: str = "lowest") -> None:
    """Finish the hand's play phase with the lowest (or highest) legal card id each time."""
    while state.phase == Phase.PLAY:
        legal = state.legal_actions()
        state.apply(legal[0] if choose == "lowest" else legal[-1])


def play_random_hand(
    rules: Rules, seed: int, dealer: int | None = None, scores: Sequence[int] | None = None
) -> HandState:
    """A whole hand from a seeded deal, every action uniform over the legal actions."""
    rng = np.random.default_rng(seed)
    if dealer is None:
        dealer = int(rng.integers(rules.num_players))
    state = HandState(rules, deal_cards(rules, rng, dealer), dealer, scores)
    pick = random.Random(seed)
    while not state.is_over:
        state.apply(pick.choice(state.legal_actions()))
    return state


def play_random_game(game, seed: int) -> None:
    """Play a Game to its end with uniformly random legal actions."""
    pick = random.Random(seed)
    while not game.over:
        game.apply(pick.choice(game.hand.legal_actions()))


def snapshot(state: HandState) -> tuple:
    """Everything observable about a HandState, as immutable values."""
    return (
        state.legal_mask(),
        tuple(state.legal_actions()),
        tuple(state.hands),
        tuple(state.history),
        state.current,
        state.phase,
        tuple(state.looked),
        tuple(state.bid_kinds),
        tuple(state.bid_values),
        tuple(state.tricks_won),
        tuple(state.trick_cards),
        tuple(state.trick_seats),
        state.trick_index,
        state.spades_broken,
        state.leader,
        tuple(state.played),
        state.exchange_pos,
    )


# --- an independent reference for trick winners (explicit rank lists) ----------------

PLAIN_ORDER = "AKQJT98765432"  # high to low
TRUMP_ORDER = {
    False: ["BJ", "LJ"] + [r + "S" for r in PLAIN_ORDER],
    True: ["BJ", "LJ", "2S"] + [r + "S" for r in PLAIN_ORDER[:-1]],
}


def suit_of(card: str) -> str:
    """Suit letter of a card string for play purposes (jokers are spades)."""
    return "S" if card in ("BJ", "LJ") else card[1]


def reference_winner(cards: Sequence[str], deuce_high: bool) -> int:
    """Index (in play order) of the card winning a trick."""
    order = TRUMP_ORDER[deuce_high]
    trumps = [c for c in cards if c in order]
    if trumps:
        return cards.index(min(trumps, key=order.index))
    led = suit_of(cards[0])
    followers = [c for c in cards if suit_of(c) == led]
    return cards.index(min(followers, key=lambda c: PLAIN_ORDER.index(c[0])))


def exchange_schedule(rules: Rules, state: HandState) -> list[tuple[int, int]]:
    """(giver, receiver) of every exchange pass, derived from the bids (RULES.md 3)."""
    steps: list[tuple[int, int]] = []
    if not (rules.partnerships and rules.blind_nil_exchange):
        return steps
    order = [(state.dealer + 1 + i) % 4 for i in range(4)]
    for seat in order:
        partner = (seat + 2) % 4
        if state.bid_kinds[seat] == BidKind.BLIND_NIL and state.bid_kinds[partner] != BidKind.BLIND_NIL:
            steps += [(seat, partner)] * rules.blind_nil_exchange + [(partner, seat)] * rules.blind_nil_exchange
    return steps


def check_finished_hand(state: HandState) -> list[int]:
    """Replay a finished hand's history against its deal and check, independently of the
    engine: every card of the pack played exactly once (set-aside cards never), each
    card held when played, suit followed when possible, lead restrictions, trick winners
    (reference_winner), next leaders, and tricks per seat. Returns the tricks per seat."""
    rules = state.rules
    n = rules.num_players
    hands = [set(format_card(c) for c in hand) for hand in state.deal.hands]
    set_aside = {format_card(c) for c in state.deal.set_aside}
    assert state.is_over
    history = list(state.history)
    if state.deal.stock:  # two players: the drawing turns come first; set_aside holds the discards
        stock = [format_card(c) for c in state.deal.stock]
        draws, history = history[: len(stock) // 2], history[len(stock) // 2 :]
        for turn, (seat, action) in enumerate(draws):
            assert seat == (state.dealer + 1 + turn) % 2 and action in (KEEP, DISCARD), f"draw {turn}: {seat, action}"
            top, second = stock[2 * turn], stock[2 * turn + 1]
            kept, discarded = (top, second) if action == KEEP else (second, top)
            hands[seat].add(kept)
            set_aside.add(discarded)
        assert {format_card(c) for c in cards_of(state.discards[0] | state.discards[1])} == set_aside
    # Bidding: every entry before the first card action is a bid / blind decision.
    first_card = next(i for i, (_, a) in enumerate(history) if a < 54)
    assert all(a >= 54 for _, a in history[:first_card])
    steps = exchange_schedule(rules, state)
    for (seat, action), (giver, receiver) in zip(history[first_card : first_card + len(steps)], steps):
        card = format_card(action)
        assert seat == giver and card in hands[giver]
        hands[giver].remove(card)
        hands[receiver].add(card)
    assert all(len(h) == rules.hand_size for h in hands)
    plays = history[first_card + len(steps) :]
    assert all(a < 54 for _, a in plays)
    assert len(plays) == n * rules.num_tricks
    played: list[str] = []
    tricks = [0] * n
    broken = False
    if rules.dealer_leads_any:
        leader = state.dealer
    elif rules.first_trick == "lowest_club":
        lowest = min((c for h in hands for c in h if c[1] == "C"), key=lambda c: RANKS.index(c[0]))
        leader = next(s for s in range(n) if lowest in hands[s])
    else:
        leader = (state.dealer + 1) % n
    for t in range(rules.num_tricks):
        trick = plays[t * n : (t + 1) * n]
        seats = [s for s, _ in trick]
        cards = [format_card(a) for _, a in trick]
        assert seats == [(leader + i) % n for i in range(n)], f"trick {t}: seats {seats}, leader {leader}"
        for i, (seat, card) in enumerate(zip(seats, cards)):
            hand = hands[seat]
            assert card in hand, f"trick {t}: seat {seat} played {card} it does not hold"
            if i == 0:
                only_spades = all(suit_of(c) == "S" for c in hand)
                if t == 0 and rules.first_trick == "lowest_club":
                    assert card == lowest
                elif not (broken or rules.dealer_leads_any or only_spades):
                    assert suit_of(card) != "S", f"trick {t}: spade {card} led before spades were broken"
            else:
                led = suit_of(cards[0])
                if suit_of(card) != led:
                    assert not any(suit_of(c) == led for c in hand), f"trick {t}: seat {seat} revoked"
                if t == 0 and rules.first_trick == "lowest_club":
                    clubs = [c for c in hand if c[1] == "C"]
                    if clubs:
                        assert card == min(clubs, key=lambda c: RANKS.index(c[0]))
                    elif any(suit_of(c) != "S" for c in hand):
                        assert suit_of(card) != "S"
            hand.remove(card)
            played.append(card)
            if suit_of(card) == "S":
                broken = True
        winner = seats[reference_winner(cards, rules.deuce_of_spades_high)]
        tricks[winner] += 1
        leader = winner
    assert sorted(played) == sorted(set(played)), "a card was played twice"
    pack = {format_card(c) for hand in state.deal.hands for c in hand} | (set(played) - set_aside)
    assert set(played) == pack and not (set(played) & set_aside)
    assert len(played) + len(set_aside) == 52
    assert sum(tricks) == rules.num_tricks
    assert list(state.tricks_won) == tricks
    return tricks


def game_hand(game, bids: dict[int, str], choose: str = "lowest"):
    """Play the game's current hand through ``Game.apply``: the given bids (looking first
    where a blind decision is offered), then the lowest (or highest) legal card each time
    (exchange passes included). Returns the HandResult."""
    hand = game.hand
    while hand.phase in (Phase.BLIND, Phase.BID):
        action = parse_action(bids[hand.current])
        if hand.phase == Phase.BLIND and action not in hand.legal_actions():
            assert game.apply(SEE_CARDS) is None
        assert game.apply(action) is None
    while True:
        legal = hand.legal_actions()
        result = game.apply(legal[0] if choose == "lowest" else legal[-1])
        if result is not None:
            assert hand.is_over
            return result


def bid_names(lo, hi):
    """Names of the number bids lo..hi (0 is nil), as action_name writes them."""
    return {"nil" if n == 0 else f"bid {n}" for n in range(lo, hi + 1)}
