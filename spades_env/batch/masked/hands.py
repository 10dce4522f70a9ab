"""The masked engine's hand layer: many hands stepped together, every table through every phase's update.

``MaskedHands(hand_rules, ops)`` keeps one hand per table and steps it as the core's ``HandState`` does, with
the core's functions on the form's arrays (see :mod:`spades_env.batch.masked`); what a seat sees of it is written by
:mod:`spades_env.batch.masked.observe`, which reads it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ...core import actions as A
from ...core import bidding, card_play
from ...core.bidding import (
    bid_context,
    bid_effect_on_partner,
    bidder,
    blind_nil_by_score,
    decides_blind,
    legal_bids,
    next_bid_position,
    partner_bid,
)
from ...core.card_play import breaks_spades, first_leader, legal_cards, situation
from ...core.cards import CARD_SUIT, NUM_CARDS, SPADE_MASK, deck
from ...core.drawing import (
    DRAW_TURNS,
    drawer,
    drawn_cards,
    has_drawing,
)
from ...core.exchange import Givers, exchange_givers, exchange_length, exchange_pass
from ...core.ops import ARRAY, Ops
from ...core.rules import Rules
from ...core.scoring import BidKind
from ...core.tricks import TRICK_KEYS, VOIDS_SHOWN, key_start, winning_place
from ...obs.encode import (
    PHASE_CELLS,
)
from ...obs.features import cached_rule_features, draw_rule_features
from .form import BID, BID_BITS, BLIND, DRAW, EXCHANGE, NO_CARD, NO_SEAT, OVER, PLAY, _Form, _form_spec, _ops_of


class MaskedHands:
    """One hand per table, every table stepped at every step (see the module docstring). Pickles (its operations
    are rebuilt on unpickling, on the same device)."""

    def __getstate__(self) -> dict:
        state = {k: v for k, v in vars(self).items() if k not in ("ops", "form")}
        return {**state, "_form_spec": _form_spec(self.form)}

    def __setstate__(self, state: dict) -> None:
        state = dict(state)
        ops = _ops_of(state.pop("_form_spec"))
        vars(self).update(state, ops=ops, form=_Form(ops))

    def __init__(self, hand_rules: Sequence[Rules], ops: Ops = ARRAY):
        hand_rules = list(hand_rules)
        n = hand_rules[0].num_players
        if any(r.num_players != n or r.partnerships != hand_rules[0].partnerships for r in hand_rules):
            raise ValueError("the hand rules of one MaskedHands share the number of players and partnerships")
        self.rules, self.n, self.ops = hand_rules, n, ops
        self.form = form = _Form(ops)
        self.num_sides = hand_rules[0].num_sides
        bid_records = [bidding.bid_rules(r) for r in hand_rules]
        play_records = [card_play.play_rules(r) for r in hand_rules]
        self._bid_stack, self.bid_on = bidding.stack(bid_records, ops), bidding.switches(bid_records)
        self._play_stack, self.play_on = card_play.stack(play_records, ops), card_play.switches(play_records)
        self._tricks = form.ints([r.num_tricks for r in hand_rules])
        self._key_base = form.ints([key_start(r.deuce_of_spades_high) for r in hand_rules])
        self._keys = form.ints(TRICK_KEYS.ravel())
        self._drawing = any(has_drawing(r) for r in hand_rules)
        partners = [NO_SEAT if hand_rules[0].partner_of(s) is None else hand_rules[0].partner_of(s) for s in range(n)]
        self._partner = form.ints(partners)
        self._side = form.ints([hand_rules[0].side_of(s) for s in range(n)])
        self._next = form.ints(card_play.next_seats(n))
        self._cols = form.ints(range(n))[None]
        self._kind = form.ints(A.BID_ACTION_KIND)
        self._value = form.ints(A.BID_ACTION_VALUE)
        self._bit = form.words([1 << c for c in range(NUM_CARDS)] + [0] * (A.NUM_ACTIONS + 1 - NUM_CARDS))
        self._suit = form.ints(list(CARD_SUIT[:NUM_CARDS]) + [0] * (A.NUM_ACTIONS + 1 - NUM_CARDS))
        self._card_shift = form.words(range(NUM_CARDS))
        self._bid_shift = form.words(range(BID_BITS))
        self._one, self._zero = ops.word(1), ops.word(0)
        self._voids_shown = form.ints(VOIDS_SHOWN.ravel())
        self._card_cols = form.ints(range(NUM_CARDS + 1))[None]
        self._suit_cols = form.ints(range(4))[None]
        self._suit_shift = form.ints(range(4))
        self._phase_cells = form.ints(PHASE_CELLS)
        has_value = [k in (BidKind.NUMBER, BidKind.BLIND, BidKind.TEN_FOR_200, BidKind.CANCELLED) for k in BidKind]
        self._has_value = form.bools(has_value)
        self._rule_rows = form.floats(np.stack([cached_rule_features(r) for r in hand_rules]))
        self._draw_rule_rows = form.floats(np.stack([draw_rule_features(r) for r in hand_rules]))
        self._spades = ops.word(SPADE_MASK)
        self._pack_bits = form.words([sum(1 << c for c in deck(r.jokers)) for r in hand_rules])  # each rules' pack

    # ------------------------------------------------------------------ helpers
    def _seat_mask(self, seat: Any, where: Any) -> Any:
        """(tables, seats) True at ``seat`` of the tables ``where``."""
        return (self._cols == seat[:, None]) & where[:, None]

    def _set(self, values: Any, seat: Any, new: Any, where: Any) -> Any:
        """``values`` with ``values[t, seat[t]] = new[t]`` at the tables ``where``."""
        new = new[:, None] if hasattr(new, "shape") and len(new.shape) == 1 else new
        return self.ops.select(self._seat_mask(seat, where), new, values)

    def _or_bits(self, boards: Any, seat: Any, bits: Any, where: Any) -> Any:
        return boards | self.ops.keep(self._seat_mask(seat, where), bits[:, None])

    def _xor_bits(self, boards: Any, seat: Any, bits: Any, where: Any) -> Any:
        return boards ^ self.ops.keep(self._seat_mask(seat, where), bits[:, None])

    @staticmethod
    def _or_columns(boards: Any) -> Any:
        """The OR of a ``(tables, k)`` array's columns, per row."""
        board = boards[:, 0]
        for j in range(1, boards.shape[1]):
            board = board | boards[:, j]
        return board

    def _cards_bits(self, cards: Any) -> Any:
        """The bitboard of each row's cards (``(tables, k)`` card indices, NO_CARD for none)."""
        return self._or_columns(self._bit[cards])

    def _card_floats(self, board: Any) -> Any:
        """Each row's bitboard as ``(tables, 52)`` float32, 1.0 for each card it holds."""
        return self.form.to_floats(((board[:, None] >> self._card_shift[None]) & self._one) != 0)

    # ------------------------------------------------------------------- start
    def start(self, rid: Any, hands: Any, dealer: Any, scores: Any, stocks: Any = None) -> None:
        """Deal a hand at every table: rules ids, ``(tables, seats)`` bitboards (empty with a stock),
        dealers, ``(tables, sides)`` scores before the hand, ``(tables, 52)`` stocks for two players."""
        f, n = self.form, self.n
        self.rid = f.ints(rid)
        self.T = T = self.rid.shape[0]
        self.p = bidding.BidRules(*(field[self.rid] for field in self._bid_stack))
        self.pp = card_play.PlayRules(*(field[self.rid] for field in self._play_stack))
        self.hands = f.words(hands)
        dealt = self._or_columns(self.hands)
        self.aside = self._pack_bits[self.rid] & ~dealt if stocks is None else dealt & 0  # the cards not dealt
        self.dealer = f.ints(dealer)
        self.scores = f.ints(scores)
        self.looked = f.zeros((T, n), "bool")
        self.kinds = f.zeros((T, n))
        self.values = f.zeros((T, n))
        self.won = f.zeros((T, n))
        self.trick_cards = f.full((T, n), NO_CARD)
        self.trick_seats = f.zeros((T, n))
        self.trick_n = f.zeros((T,))
        self.trick_index = f.zeros((T,))
        self.broken = f.zeros((T,), "bool")
        self.pos = f.zeros((T,))
        self.ex_first = f.full((T,), NO_SEAT)
        self.ex_second = f.full((T,), NO_SEAT)
        self.ex_len = f.zeros((T,))
        self.ex_pos = f.zeros((T,))
        self.discards = f.zeros((T, n), "word")
        self.draw_turn = f.zeros((T,))
        self.played = f.zeros((T, n), "word")  # the history an observation reads, kept as play goes
        self.passed = f.zeros((T, n), "word")
        self.received = f.zeros((T, n), "word")
        self.led = f.zeros((T,), "word")
        self.played_trick = f.zeros((T, NUM_CARDS + 1))  # each card's trick + 1 (0: not played; last: no card)
        self.voids = f.zeros((T, n))  # suit bitmask per seat: the public voids (core.tricks.VOIDS_SHOWN)
        self.gone = f.zeros((T,), "word")  # the cards of the tricks before the current one
        everyone = self.trick_n == 0
        if stocks is not None:
            self.stock = f.ints(stocks)
            draws = everyone
            self.looked = self.looked | True  # each sees its cards as it draws them
            self.phase = f.full((T,), DRAW)
            self.cur = drawer(self.dealer, 0)
        else:
            self.stock = None
            draws = everyone & False
            self.phase = f.full((T,), BID)
            self.cur = bidder(self.dealer, 0, n)
        self.leader = f.full((T,), NO_SEAT)
        self._begin_bid_turn(draws == False)  # noqa: E712

    _STATE = (
        "rid", "hands", "dealer", "scores", "looked", "kinds", "values", "won", "trick_cards", "trick_seats",
        "trick_n", "trick_index", "broken", "pos", "ex_first", "ex_second", "ex_len", "ex_pos", "discards",
        "draw_turn", "stock", "phase", "cur", "leader", "played", "passed", "received", "led", "played_trick",
        "voids", "gone", "aside",
    )  # fmt: skip

    def restart(self, where: Any, rid: Any, hands: Any, dealer: Any, scores: Any, stocks: Any = None) -> None:
        """``start`` at the tables ``where`` only (the others keep their hands as they are)."""
        old = {name: getattr(self, name) for name in self._STATE}
        self.start(rid, hands, dealer, scores, stocks)
        select = self.ops.select
        for name in self._STATE:
            new, before = getattr(self, name), old[name]
            if new is None:
                continue
            mask = where if len(new.shape) == 1 else where[:, None]
            setattr(self, name, select(mask, new, before))
        self.p = bidding.BidRules(*(field[self.rid] for field in self._bid_stack))
        self.pp = card_play.PlayRules(*(field[self.rid] for field in self._play_stack))

    # ---------------------------------------------------------------- bidding
    def _bid_inputs(self) -> tuple[Any, Any, Any, Any]:
        """(partner's kind, partner's value, the no-hook context or None, blind nil open by the score) of the
        seat to act at every table (core.bidding)."""
        ops, p, cur = self.ops, self.p, self.cur
        partner = self._partner[ops.maximum(cur, 0)]
        has = partner >= 0
        pk, pv = partner_bid(ops, ops.at(self.kinds, partner % self.n), ops.at(self.values, partner % self.n), has)
        context = None
        if self.bid_on.no_hook:
            context = bid_context(ops, self.n, self.kinds, self.values, self.dealer, self.pos, partner)
        side = self._side[ops.maximum(cur, 0)]
        eligible = side < 0  # no table yet
        for s in range(self.num_sides):
            eligible = eligible | ((side == s) & blind_nil_by_score(ops, p, self.scores, s, self.num_sides))
        return pk, pv, context, eligible

    def _begin_bid_turn(self, where: Any) -> None:
        """At the tables ``where`` the seat ``cur`` is to bid: it decides blind first (BLIND) or looks (BID)."""
        ops = self.ops
        pk, _, context, eligible = self._bid_inputs()
        looked = ops.at(self.looked, self.cur)
        blind = decides_blind(ops, self.p, self.bid_on, looked, eligible, pk, context)
        self.phase = ops.select(where, ops.select(blind, BLIND, BID), self.phase)
        self.looked = self.looked | self._seat_mask(self.cur, where & (blind == False))  # noqa: E712

    def _bid(self, a: Any, where: Any) -> None:
        ops, n = self.ops, self.n
        see = where & (a == A.SEE_CARDS)
        self.looked = self.looked | self._seat_mask(self.cur, see)
        self.phase = ops.select(see, BID, self.phase)
        real = where & (see == False)  # noqa: E712
        kind, value = self._kind[a], self._value[a]
        cur = self.cur
        self.kinds = self._set(self.kinds, cur, kind, real)
        self.values = self._set(self.values, cur, value, real)
        self.looked = self.looked | self._seat_mask(cur, real)
        partner = self._partner[ops.maximum(cur, 0)]
        has = real & (partner >= 0)
        seat_p = partner % n
        self.kinds = self._set(self.kinds, seat_p, bid_effect_on_partner(ops, kind, ops.at(self.kinds, seat_p)), has)
        pos = next_bid_position(ops, self.bid_on, n, self.kinds, self.dealer, self.pos)
        self.pos = ops.select(real, pos, self.pos)
        more = real & (self.pos < n)
        self.cur = ops.select(more, bidder(self.dealer, ops.minimum(self.pos, n - 1), n), self.cur)
        self._begin_bid_turn(more)
        self._end_bidding(real & (self.pos >= n))

    def _end_bidding(self, where: Any) -> None:
        ops = self.ops
        cards = self.p.exchange
        givers = exchange_givers(ops, self.n, self.kinds, self.dealer)
        length = exchange_length(givers, cards)
        x = where & (length > 0)
        self.ex_first = ops.select(x, givers.first, self.ex_first)
        self.ex_second = ops.select(x, givers.second, self.ex_second)
        self.ex_len = ops.select(x, length, self.ex_len)
        self.ex_pos = ops.select(x, 0, self.ex_pos)
        self.phase = ops.select(x, EXCHANGE, self.phase)
        self.cur = ops.select(x, givers.first, self.cur)
        self.looked = self.looked | self._seat_mask(self.cur, x)
        self._begin_play(where & (x == False))  # noqa: E712

    # --------------------------------------------------------------- exchange
    def _passes(self, step: Any) -> tuple[Any, Any]:
        cards = self.ops.maximum(self.p.exchange, 1)  # tables without an exchange are masked out: no step % 0
        return exchange_pass(self.ops, self.n, Givers(self.ex_first, self.ex_second, None), cards, step)

    def _pass(self, a: Any, where: Any) -> None:
        ops = self.ops
        seat, receiver = self._passes(self.ex_pos)
        bit = self._bit[a]
        self.hands = self._or_bits(self._xor_bits(self.hands, seat, bit, where), receiver, bit, where)
        self.passed = self._or_bits(self.passed, seat, bit, where)
        self.received = self._or_bits(self.received, receiver, bit, where)
        self.ex_pos = self.ex_pos + where
        more = where & (self.ex_pos < self.ex_len)
        nxt, _ = self._passes(self.ex_pos)
        self.cur = ops.select(more, nxt, self.cur)
        self.looked = self.looked | self._seat_mask(self.cur, more)
        self._begin_play(where & (more == False))  # noqa: E712

    # ---------------------------------------------------------------- drawing
    def _draw(self, a: Any, where: Any) -> None:
        ops = self.ops
        at = 2 * ops.minimum(self.draw_turn, DRAW_TURNS - 1)
        kept, discarded = drawn_cards(ops, a == A.KEEP, ops.at(self.stock, at), ops.at(self.stock, at + 1))
        self.hands = self._or_bits(self.hands, self.cur, self._bit[kept], where)
        self.discards = self._or_bits(self.discards, self.cur, self._bit[discarded], where)
        self.draw_turn = self.draw_turn + where
        more = where & (self.draw_turn < DRAW_TURNS)
        done = where & (more == False)  # noqa: E712
        self.cur = ops.select(more, drawer(self.dealer, self.draw_turn), self.cur)
        self.cur = ops.select(done, bidder(self.dealer, 0, self.n), self.cur)
        self._begin_bid_turn(done)

    # ------------------------------------------------------------------- play
    def _begin_play(self, where: Any) -> None:
        ops = self.ops
        leader = first_leader(ops, self.pp, self.play_on, self.n, self.dealer, self.hands)
        self.phase = ops.select(where, PLAY, self.phase)
        self.cur = ops.select(where, leader, self.cur)
        self.leader = ops.select(where, leader, self.leader)
        self.looked = self.looked | self._seat_mask(self.cur, where)
        self.trick_n = ops.select(where, 0, self.trick_n)

    def _play(self, a: Any, where: Any) -> None:
        ops, n = self.ops, self.n
        card = ops.select(where, a, NO_CARD)
        bit = self._bit[card]
        cur = self.cur
        self.hands = self._xor_bits(self.hands, cur, bit, where)
        self.played = self._or_bits(self.played, cur, bit, where)
        leads = where & (self.trick_n == 0)
        self.led = self.led | ops.keep(leads, bit)
        at_card = (self._card_cols == card[:, None]) & where[:, None]
        self.played_trick = ops.select(at_card, (self.trick_index + 1)[:, None], self.played_trick)
        # what the card shows the table (core.tricks): by the situation with spades broken before the trick
        led_suit = ops.select(leads, self._suit[card], self._suit[ops.minimum(self.trick_cards[:, 0], NUM_CARDS - 1)])
        broken_before = (self.gone & self._spades) != 0
        shown_in = situation(ops, self.pp, self.play_on, self.trick_index == 0, leads, broken_before)
        shown = self._voids_shown[(shown_in * 4 + led_suit) * 4 + self._suit[card]]
        self.voids = self._set(self.voids, cur, ops.at(self.voids, cur) | shown, where)
        self.broken = self.broken | (where & breaks_spades(bit))
        place = ops.minimum(self.trick_n, n - 1)
        self.trick_cards = self._set(self.trick_cards, place, card, where)
        self.trick_seats = self._set(self.trick_seats, place, cur, where)
        self.trick_n = self.trick_n + where
        full = where & (self.trick_n == n)
        on = where & (full == False)  # noqa: E712
        nxt = self._next[ops.maximum(cur, 0)]
        self.cur = ops.select(on, nxt, self.cur)
        self.looked = self.looked | self._seat_mask(self.cur, on)
        # the trick's winner where it is full (core.tricks); the cards in play order
        cards = ops.minimum(self.trick_cards, NUM_CARDS - 1)  # an unfinished trick's empty places: any key, unread
        best = winning_place(ops, self._keys, cards, self._suit[cards[:, 0]], self._key_base[self.rid])
        winner = ops.at(self.trick_seats, best)
        self.won = self.won + self._seat_mask(winner, full)
        self.trick_index = self.trick_index + full
        self.trick_n = ops.select(full, 0, self.trick_n)
        self.gone = self.gone | ops.keep(full, self._cards_bits(cards))
        self.trick_cards = ops.select(full[:, None], NO_CARD, self.trick_cards)
        over = full & (self.trick_index == self._tricks[self.rid])
        going = full & (over == False)  # noqa: E712
        self.cur = ops.select(going, winner, ops.select(over, NO_SEAT, self.cur))
        self.leader = ops.select(going, winner, ops.select(over, NO_SEAT, self.leader))
        self.phase = ops.select(over, OVER, self.phase)

    # ---------------------------------------------------------------- queries
    def legal(self) -> Any:
        """The legal actions of every table's seat to act, ``(tables, NUM_ACTIONS)`` bool (none once over)."""
        ops, phase = self.ops, self.phase
        cur = ops.maximum(self.cur, 0)
        held = ops.at(self.hands, cur)
        leads = self.trick_n == 0
        led = ops.select(leads, 0, self._suit[self.trick_cards[:, 0]])
        where = situation(ops, self.pp, self.play_on, self.trick_index == 0, leads, self.broken)
        cards = legal_cards(ops, self.play_on, held, where, led)
        cards = ops.select(phase == PLAY, cards, ops.select(phase == EXCHANGE, held, self._zero))
        bidding_now = (phase == BID) | (phase == BLIND)
        pk, pv, context, eligible = self._bid_inputs()
        words = legal_bids(ops, self.p, self.bid_on, phase == BLIND, eligible, held, pk, pv, context)
        words = ops.select(bidding_now, words, self._zero)
        card_bits = ((cards[:, None] >> self._card_shift[None]) & self._one) != 0
        bid_bits = ((words[:, None] >> self._bid_shift[None]) & self._one) != 0
        draw = (phase == DRAW)[:, None] & (self._cols[:, :2] >= 0)
        return self.form.concat1([card_bits, bid_bits, draw])

    # ------------------------------------------------------------------- step
    def step(self, actions: Any) -> None:
        """One action at every table (ignored where the hand is over; the caller keeps them legal)."""
        a = self.form.ints(actions)
        phase = self.phase
        drawing = phase == DRAW
        bidding_now = (phase == BID) | (phase == BLIND)
        passing = phase == EXCHANGE
        playing = phase == PLAY
        safe = self.ops.select(playing | passing, a, NO_CARD)  # a card's index only where a card is played
        safe = self.ops.minimum(self.ops.maximum(safe, 0), NO_CARD)
        if self._drawing:
            self._draw(a, drawing)
        self._bid(self.ops.select(bidding_now, a, A.SEE_CARDS), bidding_now)
        self._pass(safe, passing)
        self._play(safe, playing)
