"""One hand of Spades as a state machine: drawing (two players), blind decisions, bids, exchange, play.

``HandState(rules, deal, dealer, scores)`` starts a hand; ``legal_mask()``
returns the legal actions as a bitmask over the action space of
:mod:`spades_env.core.actions` (bit ``a`` set = action ``a`` legal) and is the
only judge of legality; ``apply(action)`` advances the hand, returns a
:class:`Transition` (what the action did: seat, action, phase it was taken in,
the trick's winner when it completed one, whether it ended the hand; also kept
as ``last_transition``) and raises :class:`IllegalActionError` (listing the legal actions) without
changing anything when the action is illegal.

Phases (RULES.md sections 3, 4 and 9):

``DRAW``
    Two players only: the hand starts with 26 turns at the stock
    (:mod:`~spades_env.core.drawing`); the drawer's legal actions are KEEP and
    DISCARD. Bidding starts once the stock is empty.
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

The rules of each phase are stated once, in forms that serve one hand and
many tables: bidding in :mod:`~spades_env.core.bidding` (turn order, legal
bids, what a bid does), the exchange in :mod:`~spades_env.core.exchange`, card
play in :mod:`~spades_env.core.card_play` (legal cards, the first leader), the
trick's winner in :mod:`~spades_env.core.tricks`, the drawing turns in
:mod:`~spades_env.core.drawing`; this class keeps one hand's state and calls
them. A seat *looks* at its cards at its first decision, unless that decision
is a blind one (it looks after it); two players see their cards as they draw
them. ``Phase.DRAW`` is numbered last (5) so that the other phases keep their
numbers.
"""

from __future__ import annotations

import enum
from collections.abc import Sequence
from typing import Any, NamedTuple

import numpy as np

from . import actions as A
from .bidding import (
    bid_context,
    bid_effect_on_partner,
    bid_orders,
    bid_rules,
    blind_nil_by_score,
    constant_bids,
    decides_blind,
    legal_bids,
    next_bid_position,
    partner_bid,
    reads_partner,
)
from .card_play import (
    BREAKS_SPADES,
    first_leader,
    legal_cards,
    next_seats,
    passable,
    play_rules,
    situations,
)
from .cards import CARD_SUIT, cards_of
from .deal import Deal
from .drawing import DRAW_TURNS, drawer, drawn_cards
from .exchange import exchange_givers, exchange_length, exchange_pass
from .ops import INT, cached_by_rules
from .rules import Rules, quoted
from .scoring import Bid, BidKind
from .tricks import (  # noqa: F401 - re-exported
    TRUMP_BONUS,
    best_of_trick,
    led_keys,
    win_keys,
    winning_index,
    winning_place,
)

NO_SEAT = -1


# BidKind(k) as a tuple lookup (the enum's call costs more than recording the bid).
_KINDS = tuple(BidKind(k) for k in range(len(BidKind)))
_NONE_BID = (BidKind.NONE, 0)  # the partner's bid where the legal bids do not read it
# core.bidding.bid_effect_on_partner of every (kind bid, partner's kind), tabled: a lookup per bid.
_EFFECTS = tuple(
    tuple(_KINDS[bid_effect_on_partner(INT, kind, partner)] for partner in range(len(BidKind)))
    for kind in range(len(BidKind))
)


class _HandRules(NamedTuple):
    """What a hand reads of its rules, made once per rules object (one lookup when a hand starts)."""

    bid: Any  # core.bidding.BidRules
    play: Any  # core.card_play.PlayRules
    situations: tuple  # core.card_play.situations
    constant_bids: int | None  # core.bidding.constant_bids
    partners: tuple[int, ...]  # each seat's partner, NO_SEAT in cutthroat
    sides: tuple[int, ...]  # each seat's side
    num_sides: int
    trick_keys: tuple  # core.tricks.led_keys


@cached_by_rules
def _hand_rules(rules: Rules) -> _HandRules:
    partners = tuple(NO_SEAT if rules.partner_of(s) is None else rules.partner_of(s) for s in range(rules.num_players))
    return _HandRules(
        bid_rules(rules),
        play_rules(rules),
        situations(rules),
        constant_bids(rules),
        partners,
        tuple(rules.side_of(s) for s in range(rules.num_players)),
        rules.num_sides,
        led_keys(rules.deuce_of_spades_high),
    )


class Phase(enum.IntEnum):
    """Where the hand stands; see the module docstring."""

    BLIND = 0
    BID = 1
    EXCHANGE = 2
    PLAY = 3
    OVER = 4
    DRAW = 5  # two players: turns at the stock (first in the hand, numbered last: see the module docstring)


# Plain references for hot paths (looking up Phase.X on the class is slow).
_BLIND, _BID, _EXCHANGE, _PLAY, _OVER, _DRAW = (
    Phase.BLIND,
    Phase.BID,
    Phase.EXCHANGE,
    Phase.PLAY,
    Phase.OVER,
    Phase.DRAW,
)


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
    return seats[winning_place(INT, led_keys(rules.deuce_of_spades_high), cards, CARD_SUIT[cards[0]])]


def popcount(mask: int) -> int:
    """Number of cards in a bitboard."""
    return mask.bit_count()


class HandState:
    """A hand in progress; see the module docstring for phases and conventions."""

    __slots__ = (
        "rules",
        "num_players",
        "dealer",
        "scores",
        "deal",
        "hands",
        "looked",
        "bid_kinds",
        "bid_values",
        "bid_order",
        "bid_pos",
        "phase",
        "current",
        "exchange_steps",
        "exchange_pos",
        "passed",
        "received",
        "leader",
        "trick_seats",
        "trick_cards",
        "trick_index",
        "tricks_won",
        "spades_broken",
        "played",
        "last_trick",
        "history",
        "last_transition",
        "_legal",
        "_trick_keys",
        "_bid_p",
        "_play_p",
        "_situations",
        "_constant_bids",
        "_next_seat",
        "_partners",
        "_sides",
        "_bid_in",
        "stock",
        "draw_turn",
        "discards",
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
        hand_rules = _hand_rules(rules)
        num_sides = hand_rules.num_sides
        self.scores = tuple(scores) if scores is not None else (0,) * num_sides
        if len(self.scores) != num_sides:
            raise ValueError(f"need {num_sides} scores, got {len(self.scores)}")
        self.deal = deal
        self.hands = [sum(map(_card_bit, hand)) for hand in deal.hands]
        self.looked = [False] * n
        self.bid_kinds = [BidKind.NONE] * n
        self.bid_values = [0] * n
        self.bid_order = list(bid_orders(n)[dealer])
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
        (
            self._bid_p,
            self._play_p,
            self._situations,
            self._constant_bids,
            self._partners,
            self._sides,
            _,
            self._trick_keys,
        ) = hand_rules
        self._next_seat = next_seats(n)
        self._bid_in: tuple | None = None  # _bid_inputs of the seat to bid, made once per turn
        self.stock = deal.stock  # two players: the stock order, top first (empty for a dealt hand)
        self.draw_turn = 0  # turns taken at the stock
        self.discards = [0] * n  # cards each seat discarded from the stock
        if self.stock:
            self._begin_drawing()
        else:
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

    @property
    def offered(self) -> int | None:
        """The card on offer to the drawer (the top of the stock) in the drawing phase, else None."""
        return self.stock[2 * self.draw_turn] if self.phase == _DRAW else None

    def kept(self, seat: int) -> int:
        """Bitboard of the cards the seat took from the stock into its hand (two players; 0 otherwise)."""
        return (self.hands[seat] | self.played[seat]) if self.stock else 0

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
        self._bid_in = None

    def clone(self) -> HandState:
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
            if bit & BREAKS_SPADES:
                self.spades_broken = True
            self.trick_seats.append(seat)
            trick_cards = self.trick_cards
            trick_cards.append(action)
            if len(trick_cards) < self.num_players:
                nxt = self._next_seat[seat]
                self.current = nxt
                self.looked[nxt] = True
            else:
                winner = self._complete_trick()
        elif phase == _EXCHANGE:
            self._pass_card(seat, action)
        elif phase == _DRAW:
            self._draw(seat, action)
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
        return (
            f"illegal action {shown} ({name}) for seat {self.current} in phase {self.phase.name}; "
            f"legal: {A.action_names(legal)}"
        )

    # ---------------------------------------------------------------- drawing
    def _begin_drawing(self) -> None:
        if len(self.stock) != 2 * DRAW_TURNS:
            raise ValueError(f"a stock holds {2 * DRAW_TURNS} cards, got {len(self.stock)}")
        self.looked = [True] * self.num_players  # each sees its cards as it draws them
        self.phase = _DRAW
        self.current = drawer(self.dealer, 0)

    def _draw(self, seat: int, action: int) -> None:
        at = 2 * self.draw_turn
        kept, discarded = drawn_cards(INT, action == A.KEEP, self.stock[at], self.stock[at + 1])
        self.hands[seat] |= 1 << kept
        self.discards[seat] |= 1 << discarded
        self.draw_turn += 1
        if self.draw_turn < DRAW_TURNS:
            self.current = drawer(self.dealer, self.draw_turn)
        else:
            self.current = self.bid_order[0]
            self._begin_bid_turn()

    # ---------------------------------------------------------------- bidding
    def _bid_inputs(self, seat: int) -> tuple:
        """(partner's kind, partner's value, the no-hook context or None, blind nil open by the score) for the
        seat to bid (made once a turn: the bids do not change until it bids)."""
        inputs = self._bid_in
        if inputs is None:
            p = self._bid_p
            partner = self._partners[seat]
            kind, value = _NONE_BID
            if reads_partner(p):
                kind, value = partner_bid(INT, self.bid_kinds[partner], self.bid_values[partner], partner != NO_SEAT)
            context = None
            if p.no_hook:
                context = bid_context(
                    INT, self.num_players, self.bid_kinds, self.bid_values, self.dealer, self.bid_pos, partner
                )
            eligible = p.blind_nil and blind_nil_by_score(INT, p, self.scores, self._sides[seat], len(self.scores))
            inputs = self._bid_in = (kind, value, context, eligible)
        return inputs

    def _begin_bid_turn(self) -> None:
        seat = self.current
        p = self._bid_p
        if (p.blind_nil or p.blind_bids) and not self.looked[seat]:
            kind, _, context, eligible = self._bid_inputs(seat)
            if decides_blind(INT, p, p, False, eligible, kind, context):
                self.phase = _BLIND
                return
        self.looked[seat] = True
        self.phase = _BID

    def _bid_word(self, seat: int, blind: bool) -> int:
        """The bid word of the seat's legal bids (core.bidding)."""
        if not blind and self._constant_bids is not None:
            return self._constant_bids
        kind, value, context, eligible = self._bid_inputs(seat)
        p = self._bid_p
        return legal_bids(INT, p, p, blind, eligible, self.hands[seat], kind, value, context)

    def _bid(self, seat: int, action: int) -> None:
        if action == A.SEE_CARDS:
            self.looked[seat] = True
            self.phase = _BID
            return
        kinds = self.bid_kinds
        kind = A.BID_ACTION_KIND[action]
        kinds[seat], self.bid_values[seat] = _KINDS[kind], A.BID_ACTION_VALUE[action]
        partner = self._partners[seat]
        if partner != NO_SEAT:
            kinds[partner] = _EFFECTS[kind][kinds[partner]]
        self.looked[seat] = True
        n = self.num_players
        self.bid_pos = next_bid_position(INT, self._bid_p, n, kinds, self.dealer, self.bid_pos)
        self._bid_in = None
        if self.bid_pos < n:
            self.current = self.bid_order[self.bid_pos]
            self._begin_bid_turn()
        else:
            self._end_bidding()

    def _end_bidding(self) -> None:
        cards = self._bid_p.exchange
        if cards:
            n = self.num_players
            givers = exchange_givers(INT, n, self.bid_kinds, self.dealer)
            self.exchange_steps = [
                exchange_pass(INT, n, givers, cards, step) for step in range(exchange_length(givers, cards))
            ]
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
        p = self._play_p
        leader = first_leader(INT, p, p, self.num_players, self.dealer, self.hands)
        self.phase = _PLAY
        self.leader = leader
        self.current = leader
        self.looked[leader] = True

    def _compute_legal(self) -> int:
        phase = self.phase
        seat = self.current
        if phase == _PLAY:  # core.card_play, in the situation of this card (most decisions: no further call level)
            trick = self.trick_cards
            leads = not trick
            return legal_cards(
                INT,
                self._play_p,
                self.hands[seat],
                self._situations[self.trick_index == 0][leads][self.spades_broken],
                0 if leads else CARD_SUIT[trick[0]],
            )
        if phase == _BID or phase == _BLIND:
            return self._bid_word(seat, phase == _BLIND) << A.BID_OFFSET
        if phase == _DRAW:
            return A.DRAW_MASK
        if phase == _EXCHANGE:
            return passable(self.hands[seat])
        return 0

    def _complete_trick(self) -> int:
        """Score the trick just completed (the last card is on it) and clear the table; return its winner."""
        cards = self.trick_cards
        winner = self.trick_seats[winning_place(INT, self._trick_keys, cards, CARD_SUIT[cards[0]])]
        self.tricks_won[winner] += 1
        self.last_trick = (self.leader, tuple(self.trick_seats), tuple(cards), winner)
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
