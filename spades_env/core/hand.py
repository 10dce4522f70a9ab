"""One hand of Spades as a state machine: blind decisions, bids, exchange, play.

``HandState(rules, deal, dealer, scores)`` starts a hand; ``legal_mask()``
returns the legal actions as a bitmask over the action space of
:mod:`spades_env.core.actions` (bit ``a`` set = action ``a`` legal) and is the
only judge of legality; ``apply(action)`` advances the hand, returns a
:class:`Transition` (what the action did: seat, action, phase it was taken in,
the trick's winner when it completed one, whether it ended the hand; also kept
as ``last_transition``) and raises :class:`IllegalActionError` (listing the legal actions) without
changing anything when the action is illegal.

Phases (RULES.md sections 3 and 4):

``BLIND``
    The seat to bid has not looked at its cards and a blind option is legal
    for it: its legal actions are SEE CARDS, BLIND NIL and blind bids.
``BID``
    The seat to bid has looked; number bids (0 = nil), 10 for 200.
``EXCHANGE``
    After a blind nil, the bidder passes ``blind_nil_exchange`` cards to its
    partner one by one, then the partner passes as many back.
``PLAY``
    Thirteen (or seventeen) tricks; the trick winner leads the next one.
``OVER``
    Every trick is played; the hand is ready for :func:`score_hand`.

Bidding starts left of the dealer and goes clockwise; a 10 for 200 or a blind
bid takes the partner's turn (``SKIPPED``), and a 10 for 200 cancels a bid the
partner already made (``CANCELLED``). A seat *looks* at its cards at its first
decision, unless that decision is a blind one (it looks after it).
Where RULES.md is silent: with ``max_team_bid`` the first partner to bid may
bid at most ``max_team_bid`` minus the smallest bid left to its partner (0
with nil, else 1), so the partner always has a legal bid.
"""

from __future__ import annotations

import enum
from typing import NamedTuple, Sequence

import numpy as np

from . import actions as A
from .cards import (
    CARD_SUIT,
    NON_SPADE_MASK,
    SPADE_MASK,
    SUIT_MASKS,
    Suit,
    cards_of,
)
from .deal import Deal
from .rules import FIRST_TRICK_LOWEST_CLUB, TEN_FOR_200_TRICKS, Rules, quoted
from .scoring import NIL_KINDS, Bid, BidKind
from .tricks import TRUMP_BONUS, best_of_trick, led_keys, win_keys, winning_index  # noqa: F401 - re-exported

CLUB_MASK = SUIT_MASKS[Suit.CLUBS]
RED_MASK = SUIT_MASKS[Suit.DIAMONDS] | SUIT_MASKS[Suit.HEARTS]
NO_SEAT = -1


class Phase(enum.IntEnum):
    """Where the hand stands; see the module docstring."""

    BLIND = 0
    BID = 1
    EXCHANGE = 2
    PLAY = 3
    OVER = 4


# Plain references for hot paths (looking up Phase.X on the class is slow).
_BLIND, _BID, _EXCHANGE, _PLAY, _OVER = Phase.BLIND, Phase.BID, Phase.EXCHANGE, Phase.PLAY, Phase.OVER


class IllegalActionError(ValueError):
    """An action that the legal-action mask does not allow; the state is unchanged."""


class Transition(NamedTuple):
    """What one applied action did (a tuple: cheap to make on every action)."""

    seat: int  # the seat that acted
    action: int
    phase: Phase  # the phase the action was taken in
    trick_winner: int  # seat that won the trick this card completed, else NO_SEAT
    hand_over: bool  # the action played the hand's last card


_new_tuple = tuple.__new__  # builds a Transition without its Python-level __new__ (hot path)
_card_bit = (1).__lshift__  # card -> its bit as one C call (every hand builds its seats' bitboards)

def trick_winner(rules: Rules, seats: Sequence[int], cards: Sequence[int]) -> int:
    """Seat winning a trick: the highest trump, else the highest card of the suit led."""
    return seats[winning_index(led_keys(rules.deuce_of_spades_high), cards)]


def lowest_bid(rules: Rules) -> int:
    """The smallest number bid: 0 (nil) when nil is allowed, else 1."""
    return 0 if rules.nil else 1


def ten_for_200_allowed(rules: Rules) -> bool:
    """Whether the rules let a side bid 10 for 200 (it must fit under ``max_team_bid``)."""
    return rules.ten_for_200 and (rules.max_team_bid is None or rules.max_team_bid >= TEN_FOR_200_TRICKS)


def blind_bids_mask(rules: Rules) -> int:
    """Legal-action bitmask of the blind bids the rules allow before the partner has bid (0 without them)."""
    if not rules.blind_bids:
        return 0
    top = A.MAX_BLIND_BID if rules.max_team_bid is None else min(A.MAX_BLIND_BID, rules.max_team_bid)
    return A.blind_bid_range_mask(rules.blind_bid_min, top)


def popcount(mask: int) -> int:
    """Number of cards in a bitboard."""
    return mask.bit_count()


class HandState:
    """A hand in progress; see the module docstring for phases and conventions."""

    __slots__ = (
        "rules", "num_players", "dealer", "scores", "deal", "hands", "looked", "bid_kinds", "bid_values",
        "bid_order", "bid_pos", "phase", "current", "exchange_steps", "exchange_pos", "passed", "received",
        "leader", "trick_seats", "trick_cards", "trick_index", "tricks_won", "spades_broken", "played",
        "last_trick", "history", "last_transition", "_legal", "_trick_keys",
    )

    def __init__(self, rules: Rules, deal: Deal, dealer: int, scores: Sequence[int] | None = None):
        n = rules.num_players
        if not 0 <= dealer < n:
            raise ValueError(f"dealer must be a seat in 0..{n - 1}, got {dealer}")
        if len(deal.hands) != n:
            raise ValueError(f"the deal has {len(deal.hands)} hands for {n} players")
        self.rules = rules
        self.num_players = n
        self.dealer = dealer
        self.scores = tuple(scores) if scores is not None else (0,) * rules.num_sides
        if len(self.scores) != rules.num_sides:
            raise ValueError(f"need {rules.num_sides} scores, got {len(self.scores)}")
        self.deal = deal
        self.hands = [sum(map(_card_bit, hand)) for hand in deal.hands]
        self.looked = [False] * n
        self.bid_kinds = [BidKind.NONE] * n
        self.bid_values = [0] * n
        self.bid_order = [(dealer + 1 + i) % n for i in range(n)]
        self.bid_pos = 0
        self.exchange_steps: list[tuple[int, int]] = []
        self.exchange_pos = 0
        self.passed = [0] * n  # cards each seat passed in the exchange
        self.received = [0] * n  # cards each seat received in the exchange
        self.leader = NO_SEAT
        self.trick_seats: list[int] = []
        self.trick_cards: list[int] = []
        self.trick_index = 0
        self.tricks_won = [0] * n
        self.spades_broken = False
        self.played = [0] * n  # cards each seat has played this hand
        self.last_trick: tuple[int, tuple[int, ...], tuple[int, ...], int] | None = None  # leader, seats, cards, winner
        self.history: list[tuple[int, int]] = []  # (seat, action)
        self.last_transition: Transition | None = None
        self._legal: int | None = None
        self._trick_keys = led_keys(rules.deuce_of_spades_high)
        self.current = self.bid_order[0]
        self.phase = _BID
        self._begin_bid_turn()

    # ------------------------------------------------------------------ queries
    @property
    def is_over(self) -> bool:
        """Whether every trick has been played."""
        return self.phase == _OVER

    @property
    def bids(self) -> tuple[Bid, ...]:
        """Every seat's bid so far."""
        return tuple(Bid(k, v) for k, v in zip(self.bid_kinds, self.bid_values))

    @property
    def led_suit(self) -> int | None:
        """Suit led to the current trick, or None when a lead is due."""
        return CARD_SUIT[self.trick_cards[0]] if self.trick_cards else None

    def hand_visible(self, seat: int) -> bool:
        """Whether the seat has looked at its cards."""
        return self.looked[seat]

    def legal_mask(self) -> int:
        """Legal actions of the seat to act as a bitmask (0 when the hand is over)."""
        if self._legal is None:
            self._legal = self._compute_legal()
        return self._legal

    def legal_actions(self) -> list[int]:
        """Legal action ids, ascending."""
        return cards_of(self.legal_mask())

    def forget_legal(self) -> None:
        """Drop the cached legal actions; call after changing hands or bids from outside (search)."""
        self._legal = None

    def clone(self) -> "HandState":
        """An independent copy (for search)."""
        other = HandState.__new__(HandState)
        for name in HandState.__slots__:
            value = getattr(self, name)
            setattr(other, name, list(value) if type(value) is list else value)
        return other

    # ------------------------------------------------------------------ actions
    def apply(self, action: int) -> Transition:
        """Take a legal action for the seat to act and say what it did; raise IllegalActionError otherwise."""
        legal = self._legal
        if legal is None:
            legal = self._legal = self._compute_legal()
        if type(action) is not int:
            # numpy integers are accepted; bools, floats and anything else are not actions
            if isinstance(action, np.integer):
                action = int(action)
            else:
                raise IllegalActionError(self._illegal_message(action, legal))
        if action < 0 or not (legal >> action) & 1:
            raise IllegalActionError(self._illegal_message(action, legal))
        seat = self.current
        self.history.append((seat, action))
        self._legal = None
        phase = self.phase
        winner = NO_SEAT
        if phase == _PLAY:  # a card (most actions): played here, without a further call unless it ends the trick
            bit = 1 << action
            self.hands[seat] ^= bit
            self.played[seat] |= bit
            self.looked[seat] = True
            if bit & SPADE_MASK:
                self.spades_broken = True
            self.trick_seats.append(seat)
            trick_cards = self.trick_cards
            trick_cards.append(action)
            if len(trick_cards) < self.num_players:
                nxt = (seat + 1) % self.num_players
                self.current = nxt
                self.looked[nxt] = True
            else:
                winner = self._complete_trick()
        elif phase == _EXCHANGE:
            self._pass_card(seat, action)
        else:
            self._bid(seat, action)
        done = _new_tuple(Transition, (seat, action, phase, winner, self.phase == _OVER))  # Transition(...), faster
        self.last_transition = done
        return done

    def _illegal_message(self, action: object, legal: int) -> str:
        shown = quoted(action)  # bounded: the action may be any object, of any size
        if self.phase == _OVER:
            return f"the hand is over; no action is legal (got {shown})"
        try:
            name = A.action_name(action)  # type: ignore[arg-type]
        except ValueError:
            name = "not an action id"
        return (f"illegal action {shown} ({name}) for seat {self.current} in phase {self.phase.name}; "
                f"legal: {A.action_names(legal)}")

    # ---------------------------------------------------------------- bidding
    def _begin_bid_turn(self) -> None:
        seat = self.current
        if not self.looked[seat] and self._blind_mask(seat):
            self.phase = _BLIND
        else:
            self.looked[seat] = True
            self.phase = _BID

    def _partner_kind(self, seat: int) -> BidKind:
        partner = self.rules.partner_of(seat)
        return BidKind.NONE if partner is None else self.bid_kinds[partner]

    def _blind_nil_eligible(self, seat: int) -> bool:
        r = self.rules
        if not r.blind_nil:
            return False
        if r.suicide and self._partner_kind(seat) in NIL_KINDS:
            return False
        if r.blind_nil_requires_deficit is None:
            return True
        own = r.side_of(seat)
        best_other = max(s for side, s in enumerate(self.scores) if side != own)
        return best_other - self.scores[own] >= r.blind_nil_requires_deficit

    def _blind_mask(self, seat: int) -> int:
        r = self.rules
        mask = 0
        if self._blind_nil_eligible(seat):
            mask |= 1 << A.BLIND_NIL
        if r.blind_bids and self._partner_kind(seat) == BidKind.NONE:
            mask |= blind_bids_mask(r)
        if mask and not r.bids_may_total_tricks:
            # Never forced: SEE CARDS is always there, so a hooking blind option is simply dropped.
            mask = self._no_hook_filter(seat, mask, keep_if_forced=False)
        return mask

    def _bid_mask(self, seat: int) -> int:
        r = self.rules
        if r.mirror:
            return 1 << (A.BID_OFFSET + popcount(self.hands[seat] & SPADE_MASK))
        partner_kind = self._partner_kind(seat)
        low = lowest_bid(r)
        high = r.num_tricks
        if r.suicide:
            if partner_kind in NIL_KINDS:
                low = 1
            elif partner_kind != BidKind.NONE:
                high = 0
        if r.max_team_bid is not None:
            if partner_kind == BidKind.NUMBER:
                partner_bid = self.bid_values[self.rules.partner_of(seat)]  # type: ignore[index]
            elif partner_kind == BidKind.NONE:
                partner_bid = lowest_bid(r)
            else:
                partner_bid = 0
            high = min(high, r.max_team_bid - partner_bid)
        mask = A.bid_range_mask(low, high)
        if ten_for_200_allowed(r) and partner_kind != BidKind.TEN_FOR_200:
            mask |= 1 << A.TEN_FOR_200
        if not r.bids_may_total_tricks:
            mask = self._no_hook_filter(seat, mask)
        return mask

    def _no_hook_filter(self, seat: int, mask: int, keep_if_forced: bool = True) -> int:
        """Drop bids that end the bidding with a total equal to the number of tricks."""
        kept = 0
        for action in range(A.BID_OFFSET, A.NUM_ACTIONS):
            if (mask >> action) & 1:
                kinds, values = list(self.bid_kinds), list(self.bid_values)
                self._record_bid(seat, action, kinds, values)
                later = self.bid_order[self.bid_pos + 1:]
                if any(kinds[s] == BidKind.NONE for s in later) or _bid_total(kinds, values) != self.rules.num_tricks:
                    kept |= 1 << action
        # A forced total (every legal bid would hook) keeps the unfiltered bids.
        return kept or (mask if keep_if_forced else 0)

    def _record_bid(self, seat: int, action: int, kinds: list, values: list) -> None:
        """Write a bid into kinds/values, including its effect on the partner."""
        partner = self.rules.partner_of(seat)
        kind = BidKind(A.BID_ACTION_KIND[action])
        kinds[seat], values[seat] = kind, A.BID_ACTION_VALUE[action]
        if kind == BidKind.TEN_FOR_200:
            if partner is not None:
                kinds[partner] = BidKind.SKIPPED if kinds[partner] == BidKind.NONE else BidKind.CANCELLED
        elif kind == BidKind.BLIND and partner is not None:
            kinds[partner] = BidKind.SKIPPED

    def _bid(self, seat: int, action: int) -> None:
        if action == A.SEE_CARDS:
            self.looked[seat] = True
            self.phase = _BID
            return
        self._record_bid(seat, action, self.bid_kinds, self.bid_values)
        self.looked[seat] = True
        n = self.num_players
        self.bid_pos += 1
        while self.bid_pos < n and self.bid_kinds[self.bid_order[self.bid_pos]] != BidKind.NONE:
            self.bid_pos += 1
        if self.bid_pos < n:
            self.current = self.bid_order[self.bid_pos]
            self._begin_bid_turn()
        else:
            self._end_bidding()

    def _end_bidding(self) -> None:
        r = self.rules
        if r.blind_nil_exchange and r.partnerships:
            for seat in self.bid_order:
                partner = r.partner_of(seat)
                if self.bid_kinds[seat] == BidKind.BLIND_NIL and self.bid_kinds[partner] != BidKind.BLIND_NIL:
                    self.exchange_steps += [(seat, partner)] * r.blind_nil_exchange
                    self.exchange_steps += [(partner, seat)] * r.blind_nil_exchange
        if self.exchange_steps:
            self.phase = _EXCHANGE
            self.current = self.exchange_steps[0][0]
            self.looked[self.current] = True
        else:
            self._begin_play()

    # --------------------------------------------------------------- exchange
    def _pass_card(self, seat: int, card: int) -> None:
        receiver = self.exchange_steps[self.exchange_pos][1]
        bit = 1 << card
        self.hands[seat] ^= bit
        self.hands[receiver] |= bit
        self.passed[seat] |= bit
        self.received[receiver] |= bit
        self.exchange_pos += 1
        if self.exchange_pos < len(self.exchange_steps):
            self.current = self.exchange_steps[self.exchange_pos][0]
            self.looked[self.current] = True
        else:
            self._begin_play()

    # ------------------------------------------------------------------- play
    def _begin_play(self) -> None:
        r = self.rules
        if r.dealer_leads_any:
            leader = self.dealer
        elif r.first_trick == FIRST_TRICK_LOWEST_CLUB:
            lowest = min(c for hand in self.hands for c in cards_of(hand & CLUB_MASK))
            leader = next(s for s in range(self.num_players) if (self.hands[s] >> lowest) & 1)
        else:
            leader = (self.dealer + 1) % self.num_players
        self.phase = _PLAY
        self.leader = leader
        self.current = leader
        self.looked[leader] = True

    def _compute_legal(self) -> int:
        phase = self.phase
        seat = self.current
        if phase == _PLAY:
            return self._play_mask(seat)
        if phase == _BID:
            return self._bid_mask(seat)
        if phase == _BLIND:
            return (1 << A.SEE_CARDS) | self._blind_mask(seat)
        if phase == _EXCHANGE:
            return self.hands[seat]
        return 0

    def _play_mask(self, seat: int) -> int:
        hand = self.hands[seat]
        r = self.rules
        lowest_club_trick = self.trick_index == 0 and r.first_trick == FIRST_TRICK_LOWEST_CLUB
        if not self.trick_cards:
            if lowest_club_trick:
                clubs = hand & CLUB_MASK
                return clubs & -clubs
            if self.spades_broken or r.dealer_leads_any or not hand & NON_SPADE_MASK:
                return hand
            return hand & NON_SPADE_MASK
        if lowest_club_trick:
            clubs = hand & CLUB_MASK
            if clubs:
                return clubs & -clubs
            return (hand & RED_MASK) or hand
        follow = hand & SUIT_MASKS[CARD_SUIT[self.trick_cards[0]]]
        return follow or hand

    def _complete_trick(self) -> int:
        """Score the trick just completed (the last card is on it) and clear the table; return its winner."""
        winner = self.trick_seats[winning_index(self._trick_keys, self.trick_cards)]
        self.tricks_won[winner] += 1
        self.last_trick = (self.leader, tuple(self.trick_seats), tuple(self.trick_cards), winner)
        self.trick_seats = []
        self.trick_cards = []
        self.trick_index += 1
        if self.trick_index == self.rules.num_tricks:
            self.phase = _OVER
            self.current = NO_SEAT
            self.leader = NO_SEAT
        else:
            self.leader = winner
            self.current = winner
        return winner


def _bid_total(kinds: Sequence[int], values: Sequence[int]) -> int:
    """Tricks bid at the table: numbers, 10 for 200 as 10, blind n as n; nils and cancelled bids 0."""
    total = 0
    for kind, value in zip(kinds, values):
        if kind in (BidKind.NUMBER, BidKind.TEN_FOR_200, BidKind.BLIND):
            total += value
    return total
