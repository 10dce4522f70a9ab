"""Card play: which cards are legal, who leads the first trick, whose turn is next.

Every function takes an :class:`~spades_env.core.ops.Ops` first and states its
rule once for one hand (``INT``) and for many tables (``ARRAY``), so the scalar
``HandState`` and the batch engine play by the same lines (RULES.md section 4).

The legal cards follow from the *situation* of the play
(:func:`situation`, the same one that says what a card shows the table:
:mod:`spades_env.core.tricks`):

* ``FOLLOWS``: a card of the suit led, if the seat holds one;
* ``LEADS_BEFORE_BROKEN``: no spade (or joker) until spades are broken,
  unless the seat holds only spades;
* ``LEADS_FREELY``: any card (spades broken, or ``dealer_leads_any``);
* ``LOWEST_CLUB_TRICK`` (``first_trick: lowest_club``, first trick): the
  seat's lowest club; without clubs a diamond or a heart; else any card.

The first trick is led by the seat left of the dealer, by the dealer with
``dealer_leads_any``, or by the holder of the lowest club dealt with
``first_trick: lowest_club``; each trick's winner leads the next, and play goes
clockwise (:func:`next_seat`). Playing a trump breaks spades (:func:`breaks_spades`). In the blind
nil exchange (:mod:`~spades_env.core.exchange`) a seat may pass any card it holds (:func:`passable`).
"""

from __future__ import annotations

import functools
from typing import Any, NamedTuple

from .cards import NON_SPADE_MASK, NUM_SUITS, SPADE_MASK, SUIT_MASKS, Suit
from .ops import ARRAY, INT, Ops, cached_by_rules, per_form
from .rules import FIRST_TRICK_LOWEST_CLUB, Rules

# The situations of a card played (what it may be, and what it shows: core.tricks).
FOLLOWS, LEADS_FREELY, LEADS_BEFORE_BROKEN, LOWEST_CLUB_TRICK = range(4)
NUM_SITUATIONS = 4

CLUB_MASK = SUIT_MASKS[Suit.CLUBS]
RED_MASK = SUIT_MASKS[Suit.DIAMONDS] | SUIT_MASKS[Suit.HEARTS]
ALL_CARDS = (1 << 64) - 1  # every card: a filter that keeps the whole hand
BREAKS_SPADES = SPADE_MASK  # the cards whose play breaks spades: every trump (jokers are spades)


class PlayRules(NamedTuple):
    """The options card play reads, as bools (one hand) or arrays (many tables)."""

    lowest_club: Any  # first_trick: lowest_club
    dealer_leads_any: Any


@cached_by_rules
def play_rules(rules: Rules) -> PlayRules:
    """The card-play options of one hand's rules (made once per rules object)."""
    return PlayRules(rules.first_trick == FIRST_TRICK_LOWEST_CLUB, bool(rules.dealer_leads_any))


def stack(records: list[PlayRules], ops: Ops = ARRAY) -> PlayRules:
    """One array per field, one entry per record (the rules of a rotation), for an array form (``ARRAY``)."""
    return PlayRules(*(ops.table(getattr(r, name) for r in records) for name in PlayRules._fields))


def switches(records: list[PlayRules]) -> PlayRules:
    """Which options any of the records has."""
    return PlayRules(*(any(bool(getattr(r, name)) for r in records) for name in PlayRules._fields))


def situation(ops: Ops, p: PlayRules, on: PlayRules, first_trick: Any, leads: Any, broken: Any) -> Any:
    """The situation of a card played: on the first trick or not, leading it or not, spades broken
    before it or not."""
    select = ops.select
    free = select(p.dealer_leads_any, True, broken) if on.dealer_leads_any else broken
    s = select(leads, select(free, LEADS_FREELY, LEADS_BEFORE_BROKEN), FOLLOWS)
    if on.lowest_club:
        s = select(p.lowest_club & first_trick, LOWEST_CLUB_TRICK, s)
    return s


def play_situation(rules: Rules, first_trick: bool, leads: bool, broken_before: bool) -> int:
    """The situation of a card played under ``rules`` (one hand)."""
    return situations(rules)[bool(first_trick)][bool(leads)][bool(broken_before)]


@cached_by_rules
def situations(rules: Rules) -> tuple:
    """``situation`` of one hand's rules in each case, indexed ``[first_trick][leads][broken_before]``
    (bools; made once per rules: a tuple lookup per card on the scalar hot path)."""
    p = play_rules(rules)
    return tuple(
        tuple(tuple(situation(INT, p, p, first, leads, broken) for broken in (False, True)) for leads in (False, True))
        for first in (False, True)
    )


def _first_filter(situation: int, led: int) -> int:
    """The cards a seat must play first if it holds any (the lowest of them on the lowest-club trick)."""
    if situation == FOLLOWS:
        return SUIT_MASKS[led]
    if situation == LEADS_BEFORE_BROKEN:
        return NON_SPADE_MASK
    if situation == LOWEST_CLUB_TRICK:
        return CLUB_MASK
    return ALL_CARDS


def _second_filter(situation: int) -> int:
    """Without the first filter's cards: the cards it must play next if it holds any."""
    return RED_MASK if situation == LOWEST_CLUB_TRICK else ALL_CARDS


class _Tables(NamedTuple):
    first: Any  # by situation * NUM_SUITS + led
    second: Any  # by situation
    clubs: Any


def _tables(ops: Ops) -> _Tables:
    return _Tables(
        ops.words(_first_filter(s, led) for s in range(NUM_SITUATIONS) for led in range(NUM_SUITS)),
        ops.words(_second_filter(s) for s in range(NUM_SITUATIONS)),
        ops.word(CLUB_MASK),
    )


_INT_TABLES, _ARRAY_TABLES = _tables(INT), _tables(ARRAY)
_other_tables = per_form(_tables)  # the tables of further array forms (torch), made once each


def legal_cards(ops: Ops, on: PlayRules, hand: Any, situation: Any, led: Any) -> Any:
    """The cards of ``hand`` (a bitboard) that may be played in ``situation`` to a trick led in ``led``
    (any suit when leading)."""
    tab = _INT_TABLES if ops is INT else _ARRAY_TABLES if ops is ARRAY else _other_tables(ops)
    first = hand & tab.first[situation * NUM_SUITS + led]
    if not on.lowest_club:  # then the second filter keeps the whole hand in every situation
        return ops.select(first != 0, first, hand)
    first = ops.select(situation == LOWEST_CLUB_TRICK, ops.lowbit(first), first)
    return ops.first_nonempty(first, hand & tab.second[situation], hand)


def breaks_spades(cards: Any) -> Any:
    """Whether playing ``cards`` (a bitboard) breaks spades."""
    return (cards & BREAKS_SPADES) != 0


def passable(hand: Any) -> Any:
    """The cards a seat may pass in the blind nil exchange: any card it holds."""
    return hand


def next_seat(seat: Any, num_players: int) -> Any:
    """The seat to play after ``seat`` (clockwise)."""
    return (seat + 1) % num_players


@functools.cache
def next_seats(num_players: int) -> tuple[int, ...]:
    """``next_seat`` of every seat, as a table (a lookup per card on the engines' hot paths)."""
    return tuple(next_seat(seat, num_players) for seat in range(num_players))


def first_leader(ops: Ops, p: PlayRules, on: PlayRules, num_players: int, dealer: Any, hands: Any) -> Any:
    """The seat that leads the first trick (``hands``: every seat's bitboard when play begins)."""
    leader = next_seat(dealer, num_players)
    if on.dealer_leads_any:
        leader = ops.select(p.dealer_leads_any, dealer, leader)
    if on.lowest_club:
        tab = _INT_TABLES if ops is INT else _ARRAY_TABLES if ops is ARRAY else _other_tables(ops)
        clubs = ops.word(0)
        for seat in range(num_players):
            clubs = clubs | (ops.seat(hands, seat) & tab.clubs)
        lowest = ops.lowbit(clubs)
        holder = leader
        for seat in range(num_players):
            holder = ops.select((ops.seat(hands, seat) & lowest) != 0, seat, holder)
        leader = ops.select(p.lowest_club, holder, leader)
    return leader
