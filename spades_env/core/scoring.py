"""Scoring one hand: a pure function of the rules, the bids, the tricks and the bags.

``score_hand`` knows nothing of the game around it: it takes the bags each
side carries in and returns the points each side gains this hand and the bags
it carries out (bags are their own counter, never read off the score).

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
from dataclasses import dataclass
from typing import Any, Sequence

import numpy as np

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


def counts_toward_contract(rules: Rules, kind: BidKind) -> bool:
    """Whether the tricks of a seat that bid ``kind`` count toward its side's number contract."""
    return kind == BidKind.NUMBER or (kind in NIL_KINDS and rules.nil_tricks_count_for_partner)


def counted_tricks(rules: Rules, kinds: Sequence[BidKind], tricks: Sequence[int], members: Sequence[int]) -> int:
    """Tricks of the seats ``members`` (one side) that count toward that side's contract."""
    if any(kinds[m] in SIDE_CONTRACT_KINDS for m in members):
        return sum(tricks[m] for m in members)
    return sum(tricks[m] for m in members if counts_toward_contract(rules, kinds[m]))


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
        return {BidKind.NONE: "-", BidKind.NIL: "nil", BidKind.BLIND_NIL: "blind nil",
                BidKind.TEN_FOR_200: "10 for 200", BidKind.SKIPPED: "skipped",
                BidKind.CANCELLED: f"cancelled ({self.value})"}[k]


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


class ScoringError(ValueError):
    """Inputs to score_hand that cannot describe a finished hand."""


def side_members(rules: Rules) -> tuple[tuple[int, ...], ...]:
    """The seats of each side, ascending (one row per side, all rows the same length)."""
    return tuple(tuple(s for s in range(rules.num_players) if rules.side_of(s) == side)
                 for side in range(rules.num_sides))


def _kind_table(rules: Rules, value_of) -> np.ndarray:
    """One entry per ``BidKind`` code: ``value_of(kind)``, read by the array scoring."""
    return np.array([value_of(kind) for kind in BidKind], dtype=np.int64)


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


def score_hands(rules: Rules, kinds: Any, values: Any, tricks: Any, bags_before: Any) -> HandScores:
    """Scoring of k finished hands under one rules object: ``(k, seats)`` bid kinds, values and tricks,
    ``(k, sides)`` bags carried in (pure, unchecked; ``score_hand`` checks its inputs)."""
    kinds = np.asarray(kinds, dtype=np.intp)
    values = np.asarray(values, dtype=np.int64)
    tricks = np.asarray(tricks, dtype=np.int64)
    members = np.array(side_members(rules), dtype=np.intp)  # (sides, seats per side)

    def by_side(per_seat: np.ndarray) -> np.ndarray:
        return per_seat[:, members].sum(axis=2)

    counts = _kind_table(rules, lambda kind: counts_toward_contract(rules, kind)).take(kinds) != 0
    is_nil = _kind_table(rules, lambda kind: kind in NIL_KINDS).take(kinds) != 0
    nil_value = _kind_table(rules, lambda kind: {BidKind.NIL: rules.nil_value,
                                                 BidKind.BLIND_NIL: rules.blind_nil_points}.get(kind, 0)).take(kinds)
    nil_ok = tricks == 0
    side_tricks = by_side(tricks)
    # Number contracts: nil points, the bags of nils whose tricks do not count, then the contract.
    nil_bags = by_side(np.where(is_nil & ~counts, tricks, 0))
    contract = by_side(np.where(kinds == BidKind.NUMBER, values, 0))
    counted = by_side(np.where(counts, tricks, 0))
    made = counted >= contract
    over = counted - contract
    points = by_side(np.where(nil_ok, nil_value, -nil_value)) + rules.bag_value * nil_bags
    points = points + np.where(made, POINTS_PER_BID_TRICK * contract + rules.bag_value * over,
                               -POINTS_PER_BID_TRICK * contract)
    new_bags = nil_bags + np.where(made, over, 0)
    # Side contracts (10 for 200, blind n): every trick of the side counts (``counted_tricks``).
    has_ten = by_side(kinds == BidKind.TEN_FOR_200) > 0
    side_contract = has_ten | (by_side(kinds == BidKind.BLIND) > 0)
    sp_contract = np.where(has_ten, TEN_FOR_200_TRICKS, by_side(np.where(kinds == BidKind.BLIND, values, 0)))
    sp_points = np.where(has_ten, TEN_FOR_200_POINTS, BLIND_BID_MULTIPLIER * POINTS_PER_BID_TRICK * sp_contract)
    sp_made = side_tricks >= sp_contract
    sp_bags = np.where(sp_made, side_tricks - sp_contract, 0)
    points = np.where(side_contract, np.where(sp_made, sp_points + rules.bag_value * sp_bags, -sp_points), points)
    new_bags = np.where(side_contract, sp_bags, new_bags)
    contract = np.where(side_contract, sp_contract, contract)
    made = np.where(side_contract, sp_made, made)
    boston = side_tricks == rules.num_tricks
    points = points + np.where(boston, rules.boston_bonus, 0)
    bags = np.asarray(bags_before, dtype=np.int64) + new_bags
    penalties = bags // rules.bag_limit if rules.bag_limit is not None else np.zeros_like(bags)
    if rules.bag_limit is not None:
        bags = bags - penalties * rules.bag_limit
        points = points - penalties * rules.bag_penalty
    seat_side = np.array([rules.side_of(s) for s in range(rules.num_players)], dtype=np.intp)
    nil_made = np.where(is_nil & ~side_contract[:, seat_side], nil_ok.astype(np.intp), -1)
    return HandScores(points, bags, new_bags, penalties, contract, side_tricks, made, boston, nil_made)


def _check_inputs(rules: Rules, bids: Sequence[Bid], tricks: Sequence[int], bags_before: Sequence[int]) -> None:
    n = rules.num_players
    if len(bids) != n or len(tricks) != n:
        raise ScoringError(f"need {n} bids and {n} trick counts, got {len(bids)} and {len(tricks)}")
    if sum(tricks) != rules.num_tricks:
        raise ScoringError(f"tricks {list(tricks)} do not sum to {rules.num_tricks}")
    if len(bags_before) != rules.num_sides:
        raise ScoringError(f"need bags for {rules.num_sides} sides, got {len(bags_before)}")
    for members in side_members(rules):
        if any(bids[m].kind in SIDE_CONTRACT_KINDS for m in members):
            continue
        for m in members:
            if bids[m].kind not in NIL_KINDS and bids[m].kind != BidKind.NUMBER:
                raise ScoringError(f"seat {m} has no scorable bid ({bids[m]})")


def score_hand(rules: Rules, bids: Sequence[Bid], tricks: Sequence[int], bags_before: Sequence[int]) -> HandScore:
    """Points and carried bags of every side for a finished hand (pure)."""
    _check_inputs(rules, bids, tricks, bags_before)
    one = score_hands(rules, [[b.kind for b in bids]], [[b.value for b in bids]], [list(tricks)], [list(bags_before)])
    sides = tuple(
        SideScore(int(one.points[0, s]), int(one.bags[0, s]), int(one.new_bags[0, s]), int(one.bag_penalties[0, s]),
                  int(one.contracts[0, s]), int(one.tricks[0, s]), bool(one.made[0, s]), bool(one.boston[0, s]))
        for s in range(rules.num_sides))
    nil_made = tuple(None if x < 0 else bool(x) for x in one.nil_made[0])
    return HandScore(sides, nil_made)
