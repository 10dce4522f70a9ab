"""Drawing of the heuristic (two-player Spades, RULES.md section 9): keep the card on offer, or take the next.

At a drawing turn the drawer sees the card on offer; keeping it discards the
next card of the stock, discarding it takes the next card, unseen, into the
hand. So the choice is between the offered card and a card drawn at random
from those the drawer has not seen (not in its hand or its discards). With
what it has kept so far, the heuristic follows one of two plans:

* **tricks** (the usual plan): keep the offered card when it adds at least as
  many expected tricks (:func:`.bidding.estimate_tricks` of the hand with it)
  as the average unseen card would;
* **nil**: once the hand holds :data:`NIL_PLAN_FROM` cards or more and is a
  good nil so far (:func:`.bidding.nil_risk` at most :data:`NIL_PLAN_RISK` and
  at most :data:`NIL_PLAN_TRICKS` expected tricks), keep the offered card when
  it raises the nil risk no more than the average unseen card would.

With ``promote`` (the strong style's ``seen_discards``) the hands are valued
as :func:`promoted` by the discards the drawer has seen: a card ranks as high
as the cards still in play above it allow (a king whose ace was discarded is
a top card). Its card play counts those discards as gone, as the cards played
(``agent.table_from_view``). Its bids do not promote: that measured worse
(docs/evaluation.md, two-player Spades).
"""

from __future__ import annotations

from ...core import actions as A
from ...core.drawing import STOCK_SIZE
from ...core.rules import Rules
from .bidding import estimate_tricks, nil_risk
from .table import promoted

PACK = (1 << STOCK_SIZE) - 1  # the 52 cards of a two-player pack
NIL_PLAN_FROM = 6  # cards kept before a nil plan is considered
NIL_PLAN_RISK = 0.25  # the nil risk of the hand so far, at most, for a nil plan
NIL_PLAN_TRICKS = 1.0  # and its expected tricks, at most


def nil_plan(rules: Rules, hand: int) -> bool:
    """Whether the hand kept so far is drawn toward a nil."""
    return (
        hand.bit_count() >= NIL_PLAN_FROM
        and nil_risk(hand, rules) <= NIL_PLAN_RISK
        and estimate_tricks(hand, rules) <= NIL_PLAN_TRICKS
    )


def choose_draw(rules: Rules, hand: int, offered: int, discarded: int, legal: int, promote: bool = False) -> int:
    """KEEP or DISCARD for the card ``offered``, given the hand and the discards seen so far (bitboards); with
    ``promote``, hands valued as :func:`promoted` by those discards."""
    if legal != A.DRAW_MASK:  # pragma: no cover - a drawing turn always offers both
        raise ValueError(f"a drawing turn offers keep and discard, got {A.action_names(legal)}")
    unseen = PACK & ~hand & ~discarded & ~(1 << offered)
    others = [c for c in range(STOCK_SIZE) if unseen >> c & 1]
    if not others:  # pragma: no cover - the last turn still has the next card unseen
        return A.KEEP
    gone = discarded if promote and not rules.deuce_of_spades_high else 0

    def seen(cards: int) -> int:
        return promoted(cards, gone) if gone else cards

    if nil_plan(rules, seen(hand)):

        def value(card: int) -> float:
            return -nil_risk(seen(hand | 1 << card), rules)
    else:

        def value(card: int) -> float:
            return estimate_tricks(seen(hand | 1 << card), rules)

    average = sum(value(c) for c in others) / len(others)
    return A.KEEP if value(offered) >= average else A.DISCARD
