"""Many hands stepped together with masks, on any array form: the hand layer of the engine for accelerators.

``MaskedHands(hand_rules, ops)`` keeps one hand per table (a rotation's or a
mixture's hand rules, one rules id per table; every table has the same number
of players) in arrays of the form ``ops`` (``core.ops.ARRAY``: numpy;
``spades_env.batch.torch_ops.torch_ops(device)``: torch tensors on any
device). ``start(rid, hands, dealer, scores, stocks=None)`` deals (the cards
as bitboards per seat, or two players' stocks), ``legal()`` gives every
table's legal actions as a boolean ``(tables, NUM_ACTIONS)`` array,
``observe(observer, scores, bags, game_rules)`` every table's observation of a
seat (exactly the reference encoder's, ``spades_env.obs.encode``: the history
blocks, the public voids and the two-player blocks are kept as play goes), and
``step(actions)`` takes one action at every table (tables whose hand is over
ignore theirs).

Unlike the numpy engine (:mod:`spades_env.batch.transitions`), which steps
each phase's tables as an index group, every table goes through every phase's
update at every step and a mask keeps what applies: the arrays keep their
shapes, nothing is read back to the host (with a ``sync_free`` form), and the
same lines run on numpy and on torch. No rule is stated here: legality, turn
order, what a bid does, the exchange, the drawing, the first leader, spades
broken and the trick keys are the core's functions, called on the form's
arrays; the lockstep tests compare every decision with the core's
``HandState`` on every preset, on numpy and on torch.

Phases and per-table state follow ``HandState``: ``phase`` (``core.hand.Phase``
codes), ``cur`` (the seat to act, -1 once over), ``hands``, ``looked``,
``kinds``/``values`` (bids), ``won`` (tricks per seat), the trick in play order
(``trick_cards``, ``trick_seats``, ``trick_n``), ``trick_index``, ``broken``,
the exchange's givers and position, the stock and the drawing turn.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, NamedTuple

import numpy as np

from ..core import actions as A
from ..core import bidding, card_play
from ..core.bidding import (
    bid_context,
    bid_effect_on_partner,
    bidder,
    blind_nil_by_score,
    decides_blind,
    legal_bids,
    next_bid_position,
    partner_bid,
)
from ..core.card_play import breaks_spades, first_leader, legal_cards, situation
from ..core.cards import CARD_SUIT, NUM_CARDS, SPADE_MASK, deck
from ..core.deal import deal_positions
from ..core.drawing import (
    DRAW_TURNS,
    STOCK_SIZE,
    discards_seen,
    draw_rules,
    drawer,
    drawn_cards,
    has_drawing,
    stock_left,
)
from ..core.exchange import Givers, exchange_givers, exchange_length, exchange_pass
from ..core.game import game_end, next_dealer, side_leaders
from ..core.hand import Phase
from ..core.ops import ARRAY, Ops
from ..core.rules import Rules
from ..core.scoring import BidKind, score_hands
from ..core.tricks import TRICK_KEYS, VOIDS_SHOWN, key_start, winning_place
from ..core.visibility import cards_seen
from ..obs.encode import (
    BAGS_AT,
    BIDS_AT,
    BROKEN_AT,
    DEALER_AT,
    DISCARDED_AT,
    DRAW_RULES_AT,
    HAND_AT,
    KEPT_AT,
    LEADER_AT,
    LED_AT,
    OBS_SIZE,
    OFFERED_AT,
    PASSED_AT,
    PHASE_CELLS,
    PLAYED_AT,
    PLAYED_TRICK_AT,
    RECEIVED_AT,
    RULES_AT,
    SCORES_AT,
    STATE_SIZE,
    STOCK_SIZE_AT,
    TARGET_AT,
    TO_ACT_AT,
    TRICK_AT,
    TRICKS_AT,
    VOIDS_AT,
)
from ..obs.features import SCORE_SCALE_TARGET, bag_scale, cached_rule_features, draw_rule_features
from ..obs.layout import BID_FEATURES, NUM_BID_KINDS
from .arguments import check_seed, generator_seed

BLIND, BID, EXCHANGE, PLAY, OVER, DRAW = (int(p) for p in Phase)
NO_SEAT = -1
NO_CARD = NUM_CARDS  # an empty place of the trick (its bit is 0)
BID_BITS = A.KEEP - A.BID_OFFSET  # the bid word's actions: BID_OFFSET .. KEEP - 1


class _Form:
    """What the engine needs of an array library beyond ``Ops``: creation, sorting, concatenation."""

    def __init__(self, ops: Ops):
        self.ops = ops
        self.torch = ops is not ARRAY
        if self.torch:
            import torch

            self._torch = torch
            self.int64 = torch.int64
            self.device = ops.word(0).device

    def _tensor(self, values: Any, dtype: Any) -> Any:
        """A tensor of the form: one already on the device keeps its data (no trip through the host)."""
        torch = self._torch
        if isinstance(values, torch.Tensor):
            return values.to(device=self.device, dtype=dtype)
        return torch.from_numpy(np.array(values)).to(device=self.device, dtype=dtype)

    def ints(self, values: Any) -> Any:
        """An integer array of the form (intp on numpy, int64 on torch)."""
        if self.torch:
            return self._tensor(np.asarray(values, dtype=np.int64) if isinstance(values, list) else values, self.int64)
        return np.array(values, dtype=np.intp)

    def words(self, values: Any) -> Any:
        """A bitboard array of the form (uint64 on numpy, int64 on torch: 54 bits, the sign bit never set)."""
        if self.torch:
            if isinstance(values, self._torch.Tensor):
                return values.to(device=self.device, dtype=self.int64)
            return self._tensor(np.asarray(values, dtype=np.uint64).astype(np.int64), self.int64)
        return np.array(values, dtype=np.uint64)

    def bools(self, values: Any) -> Any:
        if self.torch:
            return self._tensor(values, self._torch.bool)
        return np.array(values, dtype=bool)

    def zeros(self, shape: tuple[int, ...], kind: str = "int") -> Any:
        """Zeros made where the form keeps its arrays (``kind``: int, word or bool)."""
        if self.torch:
            dtype = self._torch.bool if kind == "bool" else self.int64
            return self._torch.zeros(shape, dtype=dtype, device=self.device)
        return np.zeros(shape, dtype={"int": np.intp, "word": np.uint64, "bool": bool}[kind])

    def full(self, shape: tuple[int, ...], value: int) -> Any:
        return (
            self._torch.full(shape, value, dtype=self.int64, device=self.device)
            if self.torch
            else np.full(shape, value, np.intp)
        )

    def floats(self, values: Any) -> Any:
        values = np.asarray(values, dtype=np.float32)
        return self._torch.from_numpy(values.copy()).to(self.device) if self.torch else values.copy()

    def floats_zeros(self, shape: tuple[int, ...]) -> Any:
        if self.torch:
            return self._torch.zeros(shape, dtype=self._torch.float32, device=self.device)
        return np.zeros(shape, np.float32)

    def to_floats(self, x: Any) -> Any:
        return x.to(self._torch.float32) if self.torch else np.asarray(x, dtype=np.float32)

    def arange(self, n: int) -> Any:
        return self._torch.arange(n, device=self.device) if self.torch else np.arange(n)

    def put(self, out: Any, rows: Any, cols: Any, values: Any) -> None:
        """``out[rows[i], cols[i]] = values[i]`` (a scalar for all)."""
        out[rows, cols] = values

    def put_rows(self, out: Any, cols: Any, values: Any) -> None:
        """``out[t, cols[t, j]] = values[t, j]`` for every table t (the columns differ by table)."""
        if self.torch:
            out.scatter_(1, cols.expand_as(values) if cols.shape != values.shape else cols, values)
        else:
            np.put_along_axis(out, np.broadcast_to(cols, values.shape), values, axis=1)

    def argsort1(self, x: Any) -> Any:
        return x.argsort(dim=1) if self.torch else x.argsort(axis=1)

    def take1(self, values: Any, index: Any) -> Any:
        """``values[t, index[t, j]]`` (numpy's take_along_axis, torch's gather on axis 1)."""
        return values.gather(1, index) if self.torch else np.take_along_axis(values, index, axis=1)

    def floor_int(self, x: Any) -> Any:
        return x.floor().long() if self.torch else np.floor(x).astype(np.intp)

    def concat1(self, parts: Sequence[Any]) -> Any:
        return self._torch.cat(list(parts), dim=1) if self.torch else np.concatenate(parts, axis=1)

    def numpy(self, x: Any) -> np.ndarray:
        """An array of the form on the host, as numpy (for tests and the host side)."""
        if self.torch:
            x = x.cpu().numpy()
        return np.asarray(x)


def _form_spec(form: _Form) -> tuple | None:
    """What rebuilds a form's operations after unpickling: None for numpy, (device, sync_free) for torch."""
    if not form.torch:
        return None
    from .torch_ops import _any_unchecked

    return str(form.device), form.ops.any is _any_unchecked


def _ops_of(spec: tuple | None) -> Ops:
    """The operations of a form's spec (:func:`_form_spec`)."""
    if spec is None:
        return ARRAY
    from .torch_ops import torch_ops

    return torch_ops(*spec)


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

    # ------------------------------------------------------------ observations
    def observe(self, observer: Any, scores: Any, bags: Any, game_rules: Rules) -> Any:
        """Each table's observation of the seat ``observer`` (``(tables,)``), ``(tables, OBS_SIZE)`` float32:
        exactly :func:`spades_env.obs.encode.encode_observation` of that seat (the same layout object, the same
        features); ``scores``/``bags``: ``(tables, sides)`` before the hand, ``game_rules``: the game's rules
        (the target and bag scale; a rotation's hand rules give the rules block)."""
        ops, f, n, T = self.ops, self.form, self.n, self.T
        obs = f.floats_zeros((T, OBS_SIZE + 1))  # the last column takes the writes of tables that have none
        rows = f.arange(T)
        sink = OBS_SIZE
        observer = f.ints(observer)

        def slot(seat: Any) -> Any:
            return (seat - observer) % n

        slots = (self._cols - observer[:, None]) % n  # each seat's slot, per table
        scores, bags = f.ints(scores), f.ints(bags)

        def one(col: Any, where: Any = None) -> None:
            col = col if where is None else ops.select(where, col, sink)
            f.put(obs, rows, col, 1.0)

        def block(at: int, width: int, values: Any) -> None:
            obs[:, at : at + width] = values

        def cards(at: int, board: Any) -> None:
            block(at, NUM_CARDS, self._card_floats(board))

        phase = self.phase
        one(self._phase_cells[phase])
        one(TO_ACT_AT + slot(ops.maximum(self.cur, 0)), self.cur >= 0)
        one(DEALER_AT + slot(self.dealer))
        one(LEADER_AT + slot(ops.maximum(self.leader, 0)), self.trick_n > 0)
        size = float(self.rules[0].hand_size)
        target = float(game_rules.target_score)
        scale = bag_scale(game_rules)
        for s in range(n):
            k = slots[:, s]
            kind, value = self.kinds[:, s], self.values[:, s]
            base = BIDS_AT + k * BID_FEATURES
            one(base + kind)
            one(base + NUM_BID_KINDS + value, self._has_value[kind])
            f.put(obs, rows, TRICKS_AT + k, f.to_floats(self.won[:, s]) / size)
            side = self._side[s]
            f.put(obs, rows, SCORES_AT + k, f.to_floats(scores[:, side]) / target)
            f.put(obs, rows, BAGS_AT + k, f.to_floats(bags[:, side]) / scale)
            f.put_rows(
                obs,
                PLAYED_AT + k[:, None] * NUM_CARDS + self._card_cols[:, :NUM_CARDS],
                self._card_floats(self.played[:, s]),
            )
            voids = ((self.voids[:, s][:, None] >> self._suit_shift[None]) & 1) != 0
            f.put_rows(obs, VOIDS_AT + k[:, None] * 4 + self._suit_cols, f.to_floats(voids))
            trick_here = self.trick_n > s
            seat_t, card_t = self.trick_seats[:, s], ops.minimum(self.trick_cards[:, s], NUM_CARDS - 1)
            one(TRICK_AT + slot(seat_t) * NUM_CARDS + card_t, trick_here)
        obs[:, BROKEN_AT] = f.to_floats(self.broken)
        obs[:, TARGET_AT] = target / SCORE_SCALE_TARGET
        block(RULES_AT.start, RULES_AT.stop - RULES_AT.start, self._rule_rows[self.rid])
        block(DRAW_RULES_AT.start, DRAW_RULES_AT.stop - DRAW_RULES_AT.start, self._draw_rule_rows[self.rid])

        def mine(boards: Any) -> Any:
            return ops.at(boards, observer)

        cards(HAND_AT, cards_seen(ops, mine(self.hands), ops.at(self.looked, observer), True))
        cards(PASSED_AT, mine(self.passed))
        cards(RECEIVED_AT, mine(self.received))
        cards(LED_AT, self.led)
        block(PLAYED_TRICK_AT, NUM_CARDS, f.to_floats(self.played_trick[:, :NUM_CARDS]) / size)
        if self.stock is not None:
            obs[:, STOCK_SIZE_AT] = f.to_floats(stock_left(self.draw_turn)) / STOCK_SIZE
            cards(KEPT_AT, mine(self.hands) | mine(self.played))
            at = 2 * ops.minimum(self.draw_turn, DRAW_TURNS - 1)
            offered = (phase == DRAW) & (self.cur == observer)
            one(OFFERED_AT + ops.at(self.stock, at), offered)
            seeing = draw_rules(self.rules[0])
            for s in range(n):
                k = slots[:, s]
                seen = discards_seen(ops, seeing, observer, s, self.discards[:, s])
                f.put_rows(
                    obs, DISCARDED_AT + k[:, None] * NUM_CARDS + self._card_cols[:, :NUM_CARDS], self._card_floats(seen)
                )
        return obs[:, :OBS_SIZE]

    def state(self, observer: Any, scores: Any, bags: Any, game_rules: Rules) -> Any:
        """Each table's full-information state relative to ``observer``, ``(tables, STATE_SIZE)`` float32: exactly
        :func:`spades_env.obs.encode.encode_state` (the observation with the observer's hand shown, every hand,
        every discard, the cards set aside and the stock, each card of it its place from the top + 1 over the
        stock's size)."""
        ops, f, n, T = self.ops, self.form, self.n, self.T
        observer = f.ints(observer)
        obs = self.observe(observer, scores, bags, game_rules)
        slots = (self._cols - observer[:, None]) % n
        bits = self._card_floats
        obs[:, HAND_AT : HAND_AT + NUM_CARDS] = bits(ops.at(self.hands, observer))  # shown, looked at or not
        hands = f.floats_zeros((T, n * NUM_CARDS))
        for s in range(n):
            cols = slots[:, s][:, None] * NUM_CARDS + self._card_cols[:, :NUM_CARDS]
            f.put_rows(hands, cols, bits(self.hands[:, s]))
            if self.stock is not None:  # every discard, seen or not
                f.put_rows(obs, DISCARDED_AT + cols, bits(self.discards[:, s]))
        stock = f.floats_zeros((T, NUM_CARDS + 1))  # the last column takes the cards gone from the stock
        if self.stock is not None:
            place = f.arange(STOCK_SIZE)[None] - 2 * self.draw_turn[:, None]  # from the top of what is left
            cards = ops.select(place >= 0, self.stock, NUM_CARDS)
            f.put_rows(stock, cards, f.to_floats(place + 1) / STOCK_SIZE)
        tail = STATE_SIZE - OBS_SIZE - n * NUM_CARDS - 2 * NUM_CARDS  # the hands block's slots nobody sits in
        return f.concat1([obs, hands, f.floats_zeros((T, tail)), bits(self.aside), stock[:, :NUM_CARDS]])

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


class GameSteps(NamedTuple):
    """What a step of ``MaskedGames`` did at each table (arrays of its form; rows of other tables hold 0 or -1)."""

    hand_over: Any  # the table's hand ended at this step
    points: Any  # (tables, sides) the hand's points, bag penalties included
    scores: Any  # (tables, sides) the scores after the hand (before a new game resets them)
    bags: Any  # (tables, sides) the bags after the hand
    done: Any  # the episode ended (the table has started the next one)
    winner: Any  # the episode's winning side, -1 if none
    truncated: Any  # the episode ended at max_hands without a winner
    bag_penalties: Any  # (tables, sides) the bag penalties this hand paid (for the bag cost of training's rewards)


class MaskedGames:
    """Games (or one-hand episodes) at many tables on any array form: ``MaskedHands`` plus the core's scoring
    (``score_hands``), game end (``game_end``), the dealer's rotation, the crazy rotation's hand rules and dealing
    from the engine's own generator (numpy's, or torch's on the device); a table whose episode ends starts the
    next in the same step. Rewards belong to the RL layer: ``step`` returns what happened (``GameSteps``). Pickles
    with its generator's state (a checkpoint of the tables)."""

    def __getstate__(self) -> dict:
        state = {k: v for k, v in vars(self).items() if k not in ("ops", "form")}
        if self.form.torch:  # a torch generator does not pickle: its state does
            state["_gen"] = self._gen.get_state()
        return state

    def __setstate__(self, state: dict) -> None:
        vars(self).update(state)
        self.ops, self.form = self.hands.ops, self.hands.form
        if self.form.torch:
            import torch

            generator = torch.Generator(device=self.form.device)
            generator.set_state(state["_gen"])
            self._gen = generator

    def __init__(self, rules: Rules, ops: Ops = ARRAY, episode: str = "game", seed: int | None = 0):
        if episode not in ("game", "hand"):
            raise ValueError(f"episode must be 'game' or 'hand', got {episode!r}")
        seed = check_seed(seed)  # the batch engines' seed check: None or a non-negative integer
        self.rules, self.ops, self.episode = rules, ops, episode
        self.hand_rules = [rules.hand_rules(i) for i in range(len(rules.crazy))] if rules.crazy else [rules]
        self.hands = MaskedHands(self.hand_rules, ops)
        self.form = form = self.hands.form
        self.n, self.num_sides = rules.num_players, rules.num_sides
        self._packs = form.ints([deck(r.jokers) for r in self.hand_rules])
        self._hand_size = self.hand_rules[0].hand_size
        self._stocks = has_drawing(self.hand_rules[0])
        if form.torch:
            import torch

            self._gen = torch.Generator(device=form.device)
            if seed is None:
                self._gen.seed()  # from the system's entropy, as numpy's default_rng(None)
            else:
                self._gen.manual_seed(generator_seed(seed))
        else:
            self._gen = np.random.default_rng(seed)

    def _random(self, shape: tuple[int, ...]) -> Any:
        if self.form.torch:
            import torch

            return torch.rand(shape, generator=self._gen, device=self.form.device)
        return self._gen.random(shape)

    def _deal(self, rid: Any, dealer: Any) -> tuple[Any, Any]:
        """New (boards, stocks) for every table: each table's pack shuffled by the engine's generator, dealt one
        card at a time from the dealer's left (core.deal.deal_positions), or kept as the stock."""
        n, T = self.n, self.T
        order = self.form.argsort1(self._random((T, self._packs.shape[1])))
        cards = self.form.take1(self._packs[rid], order)
        boards = self.form.zeros((T, n), "word")
        if self._stocks:
            return boards, cards
        by_position, _ = deal_positions(cards, n, self._hand_size)  # the core's order of dealing
        everyone = dealer >= 0
        for position in range(n):
            board = self.hands._cards_bits(by_position[:, position])
            boards = self.hands._set(boards, bidder(dealer, position, n), board, everyone)
        return boards, None

    def reset(self, num_tables: int) -> None:
        """New episodes at every table: scores and bags 0, a random first dealer, the first hand dealt."""
        f = self.form
        self.T = num_tables
        self.scores = f.zeros((num_tables, self.num_sides))
        self.bags = f.zeros((num_tables, self.num_sides))
        self.hand_index = f.zeros((num_tables,))
        self.first_dealer = self.dealer = self._first_dealers()
        rid = self.hand_index % len(self.hand_rules)
        boards, stocks = self._deal(rid, self.dealer)
        self.hands.start(rid, boards, self.dealer, self.scores, stocks)

    def _first_dealers(self) -> Any:
        return self.form.floor_int(self._random((self.T,)) * self.n)

    def legal(self) -> Any:
        """``MaskedHands.legal`` of every table."""
        return self.hands.legal()

    def observe(self, observer: Any = None) -> Any:
        """Every table's observation of ``observer`` (a seat per table; default: the seat to act)."""
        hands = self.hands
        seat = self.ops.maximum(hands.cur, 0) if observer is None else observer
        return hands.observe(seat, self.scores, self.bags, self.rules)

    def state(self) -> Any:
        """Every table's full-information state relative to the seat to act (``MaskedHands.state``)."""
        hands = self.hands
        return hands.state(self.ops.maximum(hands.cur, 0), self.scores, self.bags, self.rules)

    def step(self, actions: Any) -> GameSteps:
        """One action at every table; scores the hands that end, ends the episodes that are over and deals on."""
        ops, hands = self.ops, self.hands
        hands.step(actions)
        ended = hands.phase == OVER
        if not ops.any(ended):  # most steps end no hand: nothing to score or deal (a sync-free form goes on)
            none = ended & False
            zeros = self.scores * 0
            return GameSteps(ended, zeros, self.scores, self.bags, none, self.hand_index * 0 - 1, none, zeros)
        scored = score_hands(
            self.hand_rules, hands.kinds, hands.values, hands.won, self.bags, hands.rid, ops=ops
        )  # every table's (the others' are masked out below)
        points = ops.select(ended[:, None], scored.points, 0)
        scores = self.scores + points
        bags = ops.select(ended[:, None], scored.bags, self.bags)
        played = self.hand_index + ended
        if self.episode == "hand":
            _, _, leaders, first = side_leaders(ops, points)
            winner, truncated = ops.select(leaders == 1, first, -1), ended & False
        else:
            winner, truncated = game_end(self.rules, scores, played, ops=ops)
        over = (winner >= 0) | truncated if self.episode == "game" else ended
        done = ended & over
        winner = ops.select(done, winner, -1)
        truncated = done & truncated
        penalties = ops.select(ended[:, None], scored.bag_penalties, 0)
        result = GameSteps(ended, points, scores, bags, done, winner, truncated, penalties)
        # the games that go on: the deal passes left; the episodes that ended start again
        going = ended & (over == False)  # noqa: E712
        fresh = self._first_dealers()
        self.dealer = ops.select(going, next_dealer(self.dealer, self.n), ops.select(done, fresh, self.dealer))
        self.first_dealer = ops.select(done, fresh, self.first_dealer)
        self.scores = ops.select(done[:, None], 0, scores)
        self.bags = ops.select(done[:, None], 0, bags)
        self.hand_index = ops.select(done, 0, played)
        rid = self.hand_index % len(self.hand_rules)
        boards, stocks = self._deal(rid, self.dealer)
        hands.restart(ended, rid, boards, self.dealer, self.scores, stocks)
        return result
