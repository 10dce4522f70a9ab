"""The drawing phase of two-player Spades (RULES.md section 9): the stock, a turn, who sees what.

A two-player hand has no deal. The whole shuffled pack is the *stock*, top
card first (a plain value: ``core.deal.Deal.stock``). Starting with the
non-dealer, the players take turns at the stock until it is empty
(``DRAW_TURNS`` = 26 turns, 13 each). At a turn the drawer sees the top card
and makes one decision, KEEP or DISCARD (``core.actions``):

* KEEP: the top card goes into its hand and the next card, which it also sees,
  goes to the discard pile;
* DISCARD: the top card goes to the discard pile and the next card into its
  hand (no decision).

Either way the drawer has seen both cards, kept one and discarded one. The
discard pile is out of play for the hand. With the default a seat knows the
cards it kept and discarded and nothing of the other's discards; with
``discards_face_up`` it also sees the other's discards (:func:`discards_seen`).

Every function is written against :mod:`spades_env.core.ops` (one hand on
ints, many tables on arrays).
"""

from __future__ import annotations

from typing import Any, NamedTuple

from .bidding import bidder
from .cards import deck
from .ops import Ops
from .rules import Rules

TWO_PLAYERS = 2
STOCK_SIZE = len(deck(False))  # the whole 52-card pack, no jokers
CARDS_PER_TURN = 2  # the top card and the next: one kept, one discarded
DRAW_TURNS = STOCK_SIZE // CARDS_PER_TURN  # 26: 13 turns each


class DrawRules(NamedTuple):
    """What the drawing phase reads of the rules (one hand: bools; many tables: arrays)."""

    drawing: Any  # the hand starts with the drawing phase (two players)
    discards_face_up: Any  # each seat sees the other's discards


def draw_rules(rules: Rules) -> DrawRules:
    """The drawing record of one rules object."""
    return DrawRules(rules.num_players == TWO_PLAYERS, rules.discards_face_up)


def has_drawing(rules: Rules) -> bool:
    """Whether hands of these rules start with a drawing phase instead of a deal."""
    return rules.num_players == TWO_PLAYERS


def drawer(dealer: Any, turn: Any) -> Any:
    """The seat drawing at turn ``turn`` (0-based): the non-dealer first, then alternately."""
    return bidder(dealer, turn % TWO_PLAYERS, TWO_PLAYERS)


def drawn_cards(ops: Ops, keep: Any, top: Any, second: Any) -> tuple[Any, Any]:
    """(card kept, card discarded) of a turn: the top card and the next, by the drawer's decision."""
    return ops.select(keep, top, second), ops.select(keep, second, top)


def stock_left(turn: Any) -> Any:
    """Cards in the stock before turn ``turn`` (0 once every turn is taken)."""
    return STOCK_SIZE - CARDS_PER_TURN * turn


def discards_seen(ops: Ops, d: DrawRules, observer: Any, seat: Any, discards: Any) -> Any:
    """The cards of ``seat``'s discards (a bitboard) that ``observer`` has seen: all of its own, and the
    other's only with ``discards_face_up``."""
    return ops.keep((observer == seat) | d.discards_face_up, discards)
