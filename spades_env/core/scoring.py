"""Scoring one hand: a pure function of the rules, the bids, the tricks and the bags.

``score_hands`` scores many hands at once (arrays with a leading batch axis,
one rules object or a rotation's hand rules); ``score_hand`` checks one hand's
inputs and scores it on plain ints. Both run the same lines of arithmetic
(``_seat_terms``, ``_side_outcome``, ``_carried_bags``, ``_nil_made``: written
with arithmetic and a ``select`` only, ``numpy.where`` on arrays, :func:`pick`
on ints) over the same per-rules tables, so both engines share every rule of the
scoring below while one hand costs no numpy call. ``score_hand`` knows nothing
of the game around it: it takes the bags each side carries in and returns the
points each side gains this hand and the bags it carries out (bags are their
own counter, never read off the score).

Per side (a partnership, or one player in cutthroat), RULES.md section 5:

* **10 for 200** (``TEN_FOR_200``): +200 with 10+ tricks, each extra trick one
  bag worth ``bag_value``; otherwise -200.
* **Blind n** (``BLIND``): made: ``2 x 10 x n`` plus ``bag_value`` per
  overtrick (a bag each); set: ``-2 x 10 x n``.
* Otherwise the contract is the sum of the members' number bids. Each nil or
  blind nil scores ``+-nil_value`` / ``+-blind_nil_points`` on its own. A nil
  bidder's tricks count toward the contract when
  ``nil_tricks_count_for_partner``; otherwise each is a bag worth ``bag_value``.
  Contract made: ``10 x contract + bag_value x overtricks`` (overtricks are
  bags); set: ``-10 x contract``. A contract of 0 is always made.
* A side taking every trick makes a Boston: ``+boston_bonus``.
* Bags: each time the carried bags reach ``bag_limit`` the side loses
  ``bag_penalty`` and ``bag_limit`` bags are removed.
"""

from __future__ import annotations

import enum
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np

from .ops import ARRAY, Ops, cached_by_rules, pick
from .rules import (
    BLIND_BID_MULTIPLIER,
    POINTS_PER_BID_TRICK,
    TEN_FOR_200_POINTS,
    TEN_FOR_200_TRICKS,
    Rules,
)


class BidKind(enum.IntEnum):
    """What a seat bid this hand."""

    NONE = 0  # not bid (yet)
    NUMBER = 1  # a number of tricks, 1 or more
    NIL = 2
    BLIND_NIL = 3
    TEN_FOR_200 = 4
    BLIND = 5  # Barmore blind bid for the partnership
    SKIPPED = 6  # the partner's 10 for 200 or blind bid took this seat's turn
    CANCELLED = 7  # the partner's later 10 for 200 cancelled this bid


NIL_KINDS = (BidKind.NIL, BidKind.BLIND_NIL)
# Bids that make one contract for the whole side: every trick of the side counts toward it.
SIDE_CONTRACT_KINDS = (BidKind.TEN_FOR_200, BidKind.BLIND)


_NUMBER = int(BidKind.NUMBER)
_NIL_SET = frozenset(int(k) for k in NIL_KINDS)  # ints hash like the IntEnum members: both are found
_SIDE_CONTRACT_SET = frozenset(int(k) for k in SIDE_CONTRACT_KINDS)


def counts_toward_contract(rules: Rules, kind: BidKind) -> bool:
    """Whether the tricks of a seat that bid ``kind`` count toward its side's number contract."""
    return kind == _NUMBER or (kind in _NIL_SET and rules.nil_tricks_count_for_partner)


def counted_tricks(rules: Rules, kinds: Sequence[BidKind], tricks: Sequence[int], members: Sequence[int]) -> int:
    """Tricks of the seats ``members`` (one side) that count toward that side's contract."""
    # A plain loop: agents call this at every card they consider (search rollouts), so it stays cheap.
    side_total = counted = 0
    side_contract = False
    for m in members:
        kind, won = kinds[m], tricks[m]
        side_total += won
        if kind in _SIDE_CONTRACT_SET:
            side_contract = True
        elif counts_toward_contract(rules, kind):
            counted += won
    return side_total if side_contract else counted


@dataclass(frozen=True)
class Bid:
    """One seat's bid: its kind and, for numbers and blind bids, the tricks."""

    kind: BidKind
    value: int = 0

    def __str__(self) -> str:
        k = self.kind
        if k == BidKind.NUMBER:
            return str(self.value)
        if k == BidKind.BLIND:
            return f"blind {self.value}"
        if k == BidKind.CANCELLED:
            return f"cancelled ({self.value})"
        return _BID_WORDS[k]


_BID_WORDS = {
    BidKind.NONE: "-",
    BidKind.NIL: "nil",
    BidKind.BLIND_NIL: "blind nil",
    BidKind.TEN_FOR_200: "10 for 200",
    BidKind.SKIPPED: "skipped",
}  # the bids whose text has no number (built once, not per call)


@dataclass(frozen=True)
class SideScore:
    """How one side scored this hand."""

    points: int  # change of score this hand, bag penalties included
    bags: int  # bags carried out (after penalties)
    new_bags: int  # bags taken this hand
    bag_penalties: int  # times bag_penalty was paid
    contract: int  # tricks contracted (10 for 10 for 200, n for blind n)
    tricks: int  # tricks taken by the side
    made: bool  # contract made (a contract of 0 always is)
    boston: bool


@dataclass(frozen=True)
class HandScore:
    """The scoring of a hand: one SideScore per side and each seat's nil outcome."""

    sides: tuple[SideScore, ...]
    nil_made: tuple[bool | None, ...]  # per seat: None if it bid no nil

    @property
    def points(self) -> tuple[int, ...]:
        """Score change per side."""
        return tuple(s.points for s in self.sides)

    @property
    def bags(self) -> tuple[int, ...]:
        """Bags carried out per side."""
        return tuple(s.bags for s in self.sides)


def hand_points_bound(rules: Rules) -> int:
    """An upper bound of the points one side can win or lose in one hand under ``rules`` (each hand's own rules)."""
    members = 2 if rules.partnerships else 1
    bound = 0
    for hand in rules.distinct_hand_rules():
        tricks = hand.num_tricks
        nils = members * max(hand.nil_value, hand.blind_nil_points)  # every member's nil made or failed
        # a side's contract: 10 x tricks bid, doubled when blind, or 10 for 200
        contract = max(TEN_FOR_200_POINTS, BLIND_BID_MULTIPLIER * POINTS_PER_BID_TRICK * tricks)
        bags = abs(hand.bag_value) * tricks
        penalties = hand.bag_penalty * (tricks // hand.bag_limit + 1) if hand.bag_limit else 0
        bound = max(bound, nils + contract + bags + penalties + hand.boston_bonus)
    return bound


class ScoringError(ValueError):
    """Inputs to score_hand that cannot describe a finished hand."""


def side_members(rules: Rules) -> tuple[tuple[int, ...], ...]:
    """The seats of each side, ascending (one row per side, all rows the same length)."""
    return tuple(
        tuple(s for s in range(rules.num_players) if rules.side_of(s) == side) for side in range(rules.num_sides)
    )


_TEN_FOR_200, _BLIND = int(BidKind.TEN_FOR_200), int(BidKind.BLIND)
_NUM_KINDS = len(BidKind)
NO_NIL = -1  # nil_made of a seat that bid no nil
_TABLE_CACHE: dict[tuple[int, ...], tuple[tuple[Rules, ...], _ScoringTables]] = {}
_TABLE_CACHE_SIZE = 256
# Options that must agree between the rules of one call (a rotation shares them: RULES.md section 8).
_SHARED_OPTIONS = ("num_players", "partnerships", "bag_limit", "bag_penalty")


class _KindTables(NamedTuple):
    """Lookups by bid: by ``code`` = ``r * NUM_KINDS + BidKind`` (``r``: index of the rules) whether the
    seat's tricks count toward the contract (``counts_toward_contract``), whether they are bags of a nil,
    the nil's value, whether it is a nil; by ``BidKind`` whether it is a number bid and whether it makes a
    side contract. Arrays for many hands, tuples for one (the same values)."""

    counts: Any
    nil_bagging: Any
    nil_value: Any
    is_nil: Any
    is_number: Any
    side_kind: Any


@dataclass(frozen=True)
class _ScoringTables:
    """Per tuple of rules, built once: the bid lookups (``arrays`` and ``values``), by rules index the bag
    value and the Boston bonus; ``side_matrix[seat, side]`` = 1 for the seat's side; each seat's side;
    the seats of each side."""

    arrays: _KindTables
    values: _KindTables
    bag_value: np.ndarray
    boston_bonus: np.ndarray
    side_matrix: np.ndarray
    seat_side: np.ndarray
    members: tuple[tuple[int, ...], ...]
    any_boston_bonus: bool


def _build_tables(all_rules: tuple[Rules, ...]) -> _ScoringTables:
    first = all_rules[0]
    for key in _SHARED_OPTIONS:
        if any(getattr(r, key) != getattr(first, key) for r in all_rules):
            raise ScoringError(f"score_hands: the rules of one call must share {key!r}")

    def by_code(value_of) -> np.ndarray:
        return np.array([value_of(r, kind) for r in all_rules for kind in BidKind], dtype=np.int64)

    def nil_values(r: Rules, kind: BidKind) -> int:
        return {BidKind.NIL: r.nil_value, BidKind.BLIND_NIL: r.blind_nil_points}.get(kind, 0)

    arrays = _KindTables(
        counts=by_code(counts_toward_contract),
        nil_bagging=by_code(lambda r, kind: kind in NIL_KINDS and not counts_toward_contract(r, kind)),
        nil_value=by_code(nil_values),
        is_nil=by_code(lambda r, kind: kind in NIL_KINDS).astype(bool),
        is_number=np.array([kind == BidKind.NUMBER for kind in BidKind], dtype=np.int64),
        side_kind=np.array([kind in SIDE_CONTRACT_KINDS for kind in BidKind], dtype=bool),
    )
    seat_side = np.array([first.side_of(s) for s in range(first.num_players)], dtype=np.intp)
    side_matrix = np.zeros((first.num_players, first.num_sides), dtype=np.int64)
    side_matrix[np.arange(first.num_players), seat_side] = 1
    return _ScoringTables(
        arrays=arrays,
        values=_KindTables(*(tuple(table.tolist()) for table in arrays)),
        bag_value=np.array([r.bag_value for r in all_rules], dtype=np.int64),
        boston_bonus=np.array([r.boston_bonus for r in all_rules], dtype=np.int64),
        side_matrix=side_matrix,
        seat_side=seat_side,
        members=side_members(first),
        any_boston_bonus=any(r.boston_bonus for r in all_rules),
    )


def _scoring_tables(all_rules: tuple[Rules, ...]) -> _ScoringTables:
    key = tuple(id(r) for r in all_rules)
    hit = _TABLE_CACHE.get(key)
    if hit is not None and all(a is b for a, b in zip(hit[0], all_rules)):
        return hit[1]  # keyed by identity: hashing every field of a Rules costs more than a small scoring
    tables = _build_tables(all_rules)
    if len(_TABLE_CACHE) >= _TABLE_CACHE_SIZE:
        _TABLE_CACHE.clear()
    _TABLE_CACHE[key] = (all_rules, tables)  # the rules stay alive, so their ids are not reused
    return tables


@cached_by_rules
def _single_rules_tables(rules: Rules) -> _ScoringTables:
    """``_scoring_tables((rules,))`` without building a key tuple (the hot path of both engines)."""
    return _scoring_tables((rules,))


# ------------------------------------------------------------------ the arithmetic, stated once
# Each function below is written with + - * // comparisons and a ``select`` only, so that the same lines
# score one hand on plain ints (``select`` = ``pick``: fast, no numpy call) and many hands on arrays
# (``select`` = ``numpy.where``: the batch engine). Per-seat terms are summed by side in between: by a
# loop over a side's members for one hand, by a product with the side matrix for arrays.


def _seat_terms(select, tab: _KindTables, kind: Any, code: Any, value: Any, won: Any) -> tuple:
    """Per seat, the terms summed by side: tricks, nil bags (a nil's tricks that do not count), the
    number contract, the tricks counted toward it, nil points."""
    nil_value = tab.nil_value[code]
    return (
        won,
        won * tab.nil_bagging[code],
        value * tab.is_number[kind],
        won * tab.counts[code],
        select(won == 0, nil_value, -nil_value),
    )


def _side_contract_terms(select, kind: Any, value: Any) -> tuple:
    """Per seat, the terms of a side contract summed by side: a 10 for 200 bid, a blind bid's tricks."""
    return kind == _TEN_FOR_200, select(kind == _BLIND, value, 0)


def _side_outcome(
    select,
    bag_value: Any,
    side_tricks: Any,
    nil_bags: Any,
    contract: Any,
    counted: Any,
    nil_points: Any,
    side_contract: tuple | None,
) -> tuple:
    """(points before Boston and bag penalties, new bags, contract, made) of sides from their summed terms;
    ``side_contract`` = (side contract?, 10 for 200 bid?, blind tricks) when one may have been bid."""
    made = counted >= contract
    over = counted - contract
    points = (
        nil_points
        + bag_value * nil_bags
        + select(made, POINTS_PER_BID_TRICK * contract + bag_value * over, -POINTS_PER_BID_TRICK * contract)
    )
    new_bags = nil_bags + over * made
    if side_contract is not None:  # every trick of the side counts toward it (``counted_tricks``)
        is_side, has_ten, blind_value = side_contract
        sp_contract = select(has_ten, TEN_FOR_200_TRICKS, blind_value)
        value = select(has_ten, TEN_FOR_200_POINTS, BLIND_BID_MULTIPLIER * POINTS_PER_BID_TRICK * sp_contract)
        sp_made = side_tricks >= sp_contract
        sp_bags = select(sp_made, side_tricks - sp_contract, 0)
        points = select(is_side, select(sp_made, value + bag_value * sp_bags, -value), points)
        new_bags = select(is_side, sp_bags, new_bags)
        contract = select(is_side, sp_contract, contract)
        made = select(is_side, sp_made, made)
    return points, new_bags, contract, made


def _carried_bags(first: Rules, points: Any, new_bags: Any, bags_before: Any) -> tuple:
    """(points, bags carried out, bag penalties) after the bag limit: each ``bag_limit`` bags carried
    cost ``bag_penalty`` and are removed."""
    bags = bags_before + new_bags
    if first.bag_limit is None:
        return points, bags, bags * 0
    penalties = bags // first.bag_limit
    return points - penalties * first.bag_penalty, bags - penalties * first.bag_limit, penalties


def _nil_made(select, is_nil: Any, cancelled: Any, won: Any) -> Any:
    """Per seat: 1 / 0 for a nil made / failed, NO_NIL without one (or when the partner's side bid
    cancelled it)."""
    return select(is_nil & (cancelled == 0), won == 0, NO_NIL)


@dataclass(frozen=True)
class HandScores:
    """The scoring of many hands: arrays with a leading batch axis (``score_hands``)."""

    points: np.ndarray  # (k, sides) change of score, bag penalties included
    bags: np.ndarray  # (k, sides) bags carried out
    new_bags: np.ndarray  # (k, sides) bags taken this hand
    bag_penalties: np.ndarray  # (k, sides)
    contracts: np.ndarray  # (k, sides)
    tricks: np.ndarray  # (k, sides) tricks taken by each side
    made: np.ndarray  # (k, sides) bool
    boston: np.ndarray  # (k, sides) bool
    nil_made: np.ndarray  # (k, seats): -1 no nil, 0 failed, 1 made


def score_hands(
    rules: Rules | Sequence[Rules],
    kinds: Any,
    values: Any,
    tricks: Any,
    bags_before: Any,
    rules_index: Any = None,
    ops: Ops = ARRAY,
) -> HandScores:
    """Scoring of k finished hands: ``(k, seats)`` bid kinds, values and tricks, ``(k, sides)`` bags
    carried in; ``rules`` is one Rules, or the hand rules of a rotation with ``rules_index`` (k,)
    naming each hand's (pure, unchecked; ``score_hand`` checks its inputs). ``ops``: the array form of
    the inputs and outputs (numpy by default; ``spades_env.batch.torch_ops`` for torch tensors)."""
    if isinstance(rules, Rules):
        first, tab = rules, _single_rules_tables(rules)
    else:
        all_rules = tuple(rules)
        first, tab = all_rules[0], _scoring_tables(all_rules)
    if ops is not ARRAY:
        return _score_hands_in(ops, first, tab, kinds, values, tricks, bags_before, rules_index)
    kinds = np.asarray(kinds, dtype=np.intp)
    values = np.asarray(values, dtype=np.int64)
    tricks = np.asarray(tricks, dtype=np.int64)
    if rules_index is None:
        code, bag_value, boston_bonus = kinds, tab.bag_value[0], tab.boston_bonus[0]
    else:
        rules_index = np.asarray(rules_index, dtype=np.intp)
        code = kinds + (rules_index * _NUM_KINDS)[:, None]
        bag_value, boston_bonus = tab.bag_value.take(rules_index)[:, None], tab.boston_bonus.take(rules_index)[:, None]
    lookup = tab.arrays
    # Per seat, summed by side with one product: (k, terms, seats) @ (seats, sides).
    per_seat = np.stack(_seat_terms(np.where, lookup, kinds, code, values, tricks), axis=1)
    side_tricks, nil_bags, contract, counted, nil_points = (per_seat @ tab.side_matrix).transpose(1, 0, 2)
    side_contract = None
    cancelled = False
    seat_side_kind = lookup.side_kind.take(kinds)
    if seat_side_kind.any():
        per_seat = np.stack((seat_side_kind,) + _side_contract_terms(np.where, kinds, values), axis=1)
        is_side, has_ten, blind_value = (per_seat @ tab.side_matrix).transpose(1, 0, 2)
        side_contract = (is_side > 0, has_ten > 0, blind_value)
        cancelled = side_contract[0][:, tab.seat_side]  # a nil cancelled by the partner's side bid
    points, new_bags, contract, made = _side_outcome(
        np.where, bag_value, side_tricks, nil_bags, contract, counted, nil_points, side_contract
    )
    boston = side_tricks == first.num_tricks
    if tab.any_boston_bonus:
        points = points + boston * boston_bonus
    points, bags, penalties = _carried_bags(first, points, new_bags, np.asarray(bags_before, dtype=np.int64))
    nil_made = _nil_made(np.where, lookup.is_nil.take(code), cancelled, tricks)
    return HandScores(points, bags, new_bags, penalties, contract, side_tricks, made, boston, nil_made)


class _FormTables(NamedTuple):
    """``_ScoringTables``' lookups in another array form."""

    lookup: _KindTables
    bag_value: Any
    boston_bonus: Any
    side_matrix: Any
    seat_side: Any


_form_tables_cache: dict[tuple[int, int], tuple[Any, Any, _FormTables]] = {}


def _form_tables(tab: _ScoringTables, ops: Ops) -> _FormTables:
    """A scoring table set in another array form (made once per tables and form)."""
    key = (id(tab), id(ops))
    hit = _form_tables_cache.get(key)
    if hit is None or hit[0] is not tab or hit[1] is not ops:
        table = lambda array: ops.table(array.ravel().tolist()).reshape(array.shape)  # noqa: E731
        made = _FormTables(
            _KindTables(*(table(t) for t in tab.arrays)),
            table(tab.bag_value),
            table(tab.boston_bonus),
            table(tab.side_matrix),
            table(tab.seat_side),
        )
        hit = _form_tables_cache[key] = (tab, ops, made)  # tab and ops stay alive: their ids are not reused
    return hit[2]


def _by_side(per_seat: Any, side_matrix: Any) -> Any:
    """``(k, seats)`` terms summed by side, ``(k, sides)``: a broadcast product and a sum, which every array
    library runs on every device (integer matrix products are not everywhere)."""
    return (per_seat[:, :, None] * side_matrix[None]).sum(1)


def _score_hands_in(
    ops: Ops, first: Rules, tab: _ScoringTables, kinds: Any, values: Any, tricks: Any, bags: Any, rules_index: Any
) -> HandScores:
    """``score_hands`` on the arrays of another form (the same lines of arithmetic; see the module docstring)."""
    t = _form_tables(tab, ops)
    lookup, select = t.lookup, ops.select
    if rules_index is None:
        code, bag_value, boston_bonus = kinds, t.bag_value[0], t.boston_bonus[0]
    else:
        code = kinds + (rules_index * _NUM_KINDS)[:, None]
        bag_value, boston_bonus = t.bag_value[rules_index][:, None], t.boston_bonus[rules_index][:, None]
    terms = _seat_terms(select, lookup, kinds, code, values, tricks)
    side_tricks, nil_bags, contract, counted, nil_points = (_by_side(term, t.side_matrix) for term in terms)
    side_contract = None
    cancelled: Any = False
    seat_side_kind = lookup.side_kind[kinds]
    if ops.any(seat_side_kind):
        has_ten, blind_value = _side_contract_terms(select, kinds, values)
        is_side = _by_side(seat_side_kind * 1, t.side_matrix) > 0
        side_contract = (is_side, _by_side(has_ten * 1, t.side_matrix) > 0, _by_side(blind_value, t.side_matrix))
        cancelled = is_side[:, t.seat_side]  # a nil cancelled by the partner's side bid
    points, new_bags, contract, made = _side_outcome(
        select, bag_value, side_tricks, nil_bags, contract, counted, nil_points, side_contract
    )
    boston = side_tricks == first.num_tricks
    if tab.any_boston_bonus:
        points = points + boston * boston_bonus
    points, bags, penalties = _carried_bags(first, points, new_bags, bags)
    nil_made = _nil_made(select, lookup.is_nil[code], cancelled, tricks)
    return HandScores(points, bags, new_bags, penalties, contract, side_tricks, made, boston, nil_made)


def _check_inputs(rules: Rules, bids: Sequence[Bid], tricks: Sequence[int], bags_before: Sequence[int]) -> None:
    n = rules.num_players
    if len(bids) != n or len(tricks) != n:
        raise ScoringError(f"need {n} bids and {n} trick counts, got {len(bids)} and {len(tricks)}")
    if sum(tricks) != rules.num_tricks:
        raise ScoringError(f"tricks {list(tricks)} do not sum to {rules.num_tricks}")
    if len(bags_before) != rules.num_sides:
        raise ScoringError(f"need bags for {rules.num_sides} sides, got {len(bags_before)}")
    for members in _single_rules_tables(rules).members:
        if any(bids[m].kind in SIDE_CONTRACT_KINDS for m in members):
            continue
        for m in members:
            if bids[m].kind not in NIL_KINDS and bids[m].kind != BidKind.NUMBER:
                raise ScoringError(f"seat {m} has no scorable bid ({bids[m]})")


def score_hand(rules: Rules, bids: Sequence[Bid], tricks: Sequence[int], bags_before: Sequence[int]) -> HandScore:
    """Points and carried bags of every side for a finished hand (pure)."""
    _check_inputs(rules, bids, tricks, bags_before)
    tab = _single_rules_tables(rules)
    lookup = tab.values
    kinds = [int(b.kind) for b in bids]
    values = [int(b.value) for b in bids]
    tricks = [int(t) for t in tricks]
    per_seat = [_seat_terms(pick, lookup, k, k, v, t) for k, v, t in zip(kinds, values, tricks)]
    sides = []
    nil_made: list[bool | None] = [None] * rules.num_players
    for side, members in enumerate(tab.members):
        sums = [sum(column) for column in zip(*(per_seat[m] for m in members))]
        side_contract = None
        if any(lookup.side_kind[kinds[m]] for m in members):
            has_ten, blind_value = (
                sum(column) for column in zip(*(_side_contract_terms(pick, kinds[m], values[m]) for m in members))
            )
            side_contract = (True, has_ten > 0, blind_value)
        points, new_bags, contract, made = _side_outcome(pick, rules.bag_value, *sums, side_contract)
        boston = sums[0] == rules.num_tricks
        points, bags, penalties = _carried_bags(
            rules, points + boston * rules.boston_bonus, new_bags, int(bags_before[side])
        )
        sides.append(SideScore(points, bags, new_bags, penalties, contract, sums[0], made, boston))
        for m in members:
            made_nil = _nil_made(pick, lookup.is_nil[kinds[m]], side_contract is not None, tricks[m])
            nil_made[m] = None if made_nil == NO_NIL else made_nil
    return HandScore(tuple(sides), tuple(nil_made))
