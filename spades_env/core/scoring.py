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
from typing import Sequence

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
    nil_counts = rules.nil_tricks_count_for_partner
    side_total = counted = 0
    side_contract = False
    for m in members:
        kind, won = kinds[m], tricks[m]
        side_total += won
        if kind in _SIDE_CONTRACT_SET:
            side_contract = True
        elif kind == _NUMBER or (nil_counts and kind in _NIL_SET):
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


def score_hand(rules: Rules, bids: Sequence[Bid], tricks: Sequence[int], bags_before: Sequence[int]) -> HandScore:
    """Points and carried bags of every side for a finished hand (pure)."""
    n = rules.num_players
    if len(bids) != n or len(tricks) != n:
        raise ScoringError(f"need {n} bids and {n} trick counts, got {len(bids)} and {len(tricks)}")
    if sum(tricks) != rules.num_tricks:
        raise ScoringError(f"tricks {list(tricks)} do not sum to {rules.num_tricks}")
    if len(bags_before) != rules.num_sides:
        raise ScoringError(f"need bags for {rules.num_sides} sides, got {len(bags_before)}")
    nil_made: list[bool | None] = [None] * n
    sides = []
    for side in range(rules.num_sides):
        members = [s for s in range(n) if rules.side_of(s) == side]
        side_tricks = sum(tricks[m] for m in members)
        kinds = [bids[m].kind for m in members]
        points = 0
        new_bags = 0
        if BidKind.TEN_FOR_200 in kinds or BidKind.BLIND in kinds:
            if BidKind.TEN_FOR_200 in kinds:
                contract, made_points = TEN_FOR_200_TRICKS, TEN_FOR_200_POINTS
            else:
                contract = next(bids[m].value for m in members if bids[m].kind == BidKind.BLIND)
                made_points = BLIND_BID_MULTIPLIER * POINTS_PER_BID_TRICK * contract
            made = side_tricks >= contract
            if made:
                new_bags = side_tricks - contract
                points = made_points + rules.bag_value * new_bags
            else:
                points = -made_points
        else:
            contract = 0
            for m in members:
                bid = bids[m]
                if bid.kind in NIL_KINDS:
                    value = rules.nil_value if bid.kind == BidKind.NIL else rules.blind_nil_points
                    nil_made[m] = tricks[m] == 0
                    points += value if nil_made[m] else -value
                    if not counts_toward_contract(rules, bid.kind):
                        new_bags += tricks[m]
                        points += rules.bag_value * tricks[m]
                elif bid.kind == BidKind.NUMBER:
                    contract += bid.value
                else:
                    raise ScoringError(f"seat {m} has no scorable bid ({bid})")
            counted = counted_tricks(rules, [b.kind for b in bids], tricks, members)
            made = counted >= contract
            if made:
                over = counted - contract
                new_bags += over
                points += POINTS_PER_BID_TRICK * contract + rules.bag_value * over
            else:
                points -= POINTS_PER_BID_TRICK * contract
        boston = side_tricks == rules.num_tricks
        if boston:
            points += rules.boston_bonus
        bags = bags_before[side] + new_bags
        penalties = 0
        if rules.bag_limit is not None:
            while bags >= rules.bag_limit:
                bags -= rules.bag_limit
                points -= rules.bag_penalty
                penalties += 1
        sides.append(SideScore(points, bags, new_bags, penalties, contract, side_tricks, made, boston))
    return HandScore(tuple(sides), tuple(nil_made))
