"""Bidding: the order of bids, which bids are legal (every special bid), and what a bid does.

Every function takes an :class:`~spades_env.core.ops.Ops` first and states its
rule once for one hand (``INT``: ints) and for many tables (``ARRAY``: arrays),
so the scalar ``HandState`` and the batch engine bid by the same lines
(RULES.md sections 3 and 8).

The legal bids are a *bid word*: bit ``i`` is action ``BID_OFFSET + i``
(``nil``, ``bid 1..17``, ``blind nil``, ``see cards``, ``10 for 200``,
``blind 1..13``: 34 bits, so a word fits a ``uint64``); ``word << BID_OFFSET``
is the legal-action mask.

The options come as a :class:`BidRules` (``bid_rules(rules)``): plain values
for one hand, one array per field for many tables (``stack``). A second
``BidRules``, ``on``, says which code paths can matter at all (for one hand,
the same record; for a batch, whether any of its rules has the option), so
tables without an option pay nothing for it.

The rules stated here:

* bidding starts left of the dealer and goes clockwise (:func:`bidder`); a
  seat whose turn a partner's side bid took is passed over (:func:`next_bid_position`);
* the number bids: ``nil`` (0) when allowed, up to the number of tricks; with
  ``suicide`` one partner must bid nil and the other a number; with
  ``max_team_bid`` the first partner may bid at most ``max_team_bid`` minus
  the least bid left to the partner (0 with nil, else 1; where RULES.md is
  silent: so the partner always has a legal bid); ``10 for 200`` unless the
  partner bid it; with ``mirror`` the one bid is the seat's spades;
* the blind options before a seat looks: ``blind nil`` (when its side is
  behind by ``blind_nil_requires_deficit``; with ``suicide`` not after a
  partner's nil) and the blind bids (before the partner has bid);
* with ``bids_may_total_tricks: false`` (no hook) the last bid may not make
  the table's total equal the number of tricks, unless every legal bid would
  (then it stands); a blind option that would is dropped (SEE CARDS stays);
* a ``10 for 200`` or a blind bid takes the partner's turn (``SKIPPED``), and
  a ``10 for 200`` cancels a bid the partner already made (``CANCELLED``).
"""

from __future__ import annotations

import functools
from typing import Any, NamedTuple

from . import actions as A
from .cards import SPADE_MASK
from .ops import ARRAY, INT, Ops, cached_by_rules, per_form
from .rules import TEN_FOR_200_TRICKS, Rules
from .scoring import BidKind

NO_CAP = 1 << 20  # team_cap without max_team_bid: no bid reaches it
ALWAYS = -(1 << 40)  # deficit without blind_nil_requires_deficit: every side is behind by at least this
_NONE, _NUMBER, _NIL, _BLIND_NIL = int(BidKind.NONE), int(BidKind.NUMBER), int(BidKind.NIL), int(BidKind.BLIND_NIL)
_TEN, _BLIND, _SKIPPED, _CANCELLED = (
    int(BidKind.TEN_FOR_200),
    int(BidKind.BLIND),
    int(BidKind.SKIPPED),
    int(BidKind.CANCELLED),
)
_RANGE_W = A.MAX_BID + 2  # number-bid ranges by low * _RANGE_W + high + 1 (high -1: none)


def bid_bit(action: int) -> int:
    """The bid-word bit of a bidding action."""
    return 1 << (action - A.BID_OFFSET)


def bid_word_mask(word: int) -> int:
    """The legal-action mask of a bid word."""
    return word << A.BID_OFFSET


class BidRules(NamedTuple):
    """Every option bidding reads, as numbers (one hand) or arrays (many tables)."""

    tricks: Any  # tricks in the hand
    low: Any  # lowest number bid: 0 (nil) when nil is allowed, else 1
    ten: Any  # 10 for 200 is allowed (and fits under max_team_bid)
    blind_nil: Any
    deficit: Any  # blind nil only when behind by this much (ALWAYS without the option)
    blind_bids: Any  # bid word of the blind bids allowed before the partner bids (0 without)
    mirror: Any
    suicide: Any
    team_cap: Any  # max_team_bid (NO_CAP without)
    no_hook: Any  # not bids_may_total_tricks
    exchange: Any  # cards each way in the blind nil exchange (0 without, or without partners)


@cached_by_rules
def bid_rules(rules: Rules) -> BidRules:
    """The bidding options of one hand's rules (made once per rules object)."""
    cap = NO_CAP if rules.max_team_bid is None else rules.max_team_bid
    blind_bids = 0
    if rules.blind_bids:
        top = min(A.MAX_BLIND_BID, cap)
        blind_bids = sum(bid_bit(A.blind_bid_action(n)) for n in range(rules.blind_bid_min, top + 1))
    deficit = ALWAYS if rules.blind_nil_requires_deficit is None else rules.blind_nil_requires_deficit
    return BidRules(
        tricks=rules.num_tricks,
        low=0 if rules.nil else 1,
        ten=bool(rules.ten_for_200 and cap >= TEN_FOR_200_TRICKS),
        blind_nil=bool(rules.blind_nil),
        deficit=deficit,
        blind_bids=blind_bids,
        mirror=bool(rules.mirror),
        suicide=bool(rules.suicide),
        team_cap=cap,
        no_hook=not rules.bids_may_total_tricks,
        exchange=rules.blind_nil_exchange if rules.partnerships else 0,
    )


def stack(records: list[BidRules], ops: Ops = ARRAY) -> BidRules:
    """One array per field, one entry per record (the rules of a rotation), for an array form (``ARRAY``)."""
    fields = {name: ops.table(getattr(r, name) for r in records) for name in BidRules._fields}
    fields["blind_bids"] = ops.words(r.blind_bids for r in records)
    return BidRules(**fields)


def switches(records: list[BidRules]) -> BidRules:
    """Which options any of the records has (plain bools, or the low bid and tricks of the first)."""
    first = records[0]
    on = {name: any(bool(getattr(r, name)) for r in records) for name in BidRules._fields}
    on["team_cap"] = any(r.team_cap != NO_CAP for r in records)
    on["deficit"] = any(r.deficit != ALWAYS for r in records)
    on["tricks"], on["low"] = first.tricks, first.low
    return BidRules(**on)


class _Tables(NamedTuple):
    range: Any  # number bids low..high, by low * _RANGE_W + high + 1
    number: Any  # the bit of bid n
    blind: Any  # the bit of blind n (0 for n = 0)
    counted: Any  # by kind: the bid's tricks count in the table's total (no hook)
    is_nil: Any  # by kind
    zero: Any
    ten: Any
    blind_nil: Any
    see: Any


def _tables(ops: Ops) -> _Tables:
    ranges = [0] * ((A.MAX_BID + 1) * _RANGE_W)
    for low in range(A.MAX_BID + 1):
        for high in range(low, A.MAX_BID + 1):
            ranges[low * _RANGE_W + high + 1] = sum(bid_bit(A.bid_action(b)) for b in range(low, high + 1))
    counted = [k in (_NUMBER, _TEN, _BLIND) for k in range(len(BidKind))]
    is_nil = [k in (_NIL, _BLIND_NIL) for k in range(len(BidKind))]
    return _Tables(
        ops.words(ranges),
        ops.words(bid_bit(A.bid_action(n)) for n in range(A.MAX_BID + 1)),
        ops.words([0] + [bid_bit(A.blind_bid_action(n)) for n in range(1, A.MAX_BLIND_BID + 1)]),
        ops.table(counted),
        ops.table(is_nil),
        ops.word(0),
        ops.word(bid_bit(A.TEN_FOR_200)),
        ops.word(bid_bit(A.BLIND_NIL)),
        ops.word(bid_bit(A.SEE_CARDS)),
    )


_INT_TABLES, _ARRAY_TABLES = _tables(INT), _tables(ARRAY)
_other_tables = per_form(_tables)


def tables(ops: Ops) -> _Tables:
    """The lookup tables of bidding in one form."""
    if ops is INT:
        return _INT_TABLES
    return _ARRAY_TABLES if ops is ARRAY else _other_tables(ops)


# ------------------------------------------------------------------ turn order
def bidder(dealer: Any, position: Any, num_players: int) -> Any:
    """The seat at a position of the bidding (0: the dealer's left); also the order of dealing."""
    return (dealer + 1 + position) % num_players


@functools.cache
def bid_orders(num_players: int) -> tuple[tuple[int, ...], ...]:
    """``bidder`` as a table, ``[dealer][position]`` (a lookup per hand on the engines' hot paths)."""
    return tuple(
        tuple(bidder(dealer, position, num_players) for position in range(num_players)) for dealer in range(num_players)
    )


def next_bid_position(ops: Ops, on: BidRules, num_players: int, kinds: Any, dealer: Any, position: Any) -> Any:
    """The position of the next seat to bid after ``position``: seats whose turn a side bid took are
    passed over (``num_players`` when the bidding is over)."""
    position = position + 1
    if not takes_turns(on):
        return position
    for _ in range(num_players - 1):
        taken = (position < num_players) & (ops.at(kinds, bidder(dealer, position, num_players)) != _NONE)
        if not ops.any(taken):  # no position moved: the next steps would read the same seats
            break
        position = position + taken
    return position


def takes_turns(on: BidRules) -> bool:
    """Whether a bid can take a partner's turn (the side bids: 10 for 200, blind bids)."""
    return bool(on.ten or on.blind_bids)


def capped(on: BidRules) -> bool:
    """Whether ``max_team_bid`` can matter: a switch that is on, or one hand's cap (NO_CAP: none)."""
    return on.team_cap is True or (on.team_cap is not False and on.team_cap != NO_CAP)


def reads_partner(on: BidRules) -> bool:
    """Whether the legal bids can depend on the partner's bid (without, pass NONE and 0 for it)."""
    return bool(on.suicide or capped(on) or on.ten or on.blind_bids)


def reads_partner_value(on: BidRules) -> bool:
    """Whether the legal bids can depend on the value of the partner's bid (without, pass 0 for it; the no-hook
    context reads it on its own)."""
    return capped(on)


def partner_bid(ops: Ops, kind: Any, value: Any, has_partner: Any) -> tuple[Any, Any]:
    """The partner's bid kind and value from the bid at the partner's seat (``kind``, ``value``; anything
    without a partner): NONE, 0 without one."""
    return ops.select(has_partner, kind, _NONE), ops.select(has_partner, value, 0)


# ------------------------------------------------------------------ legal bids
def number_bids(ops: Ops, p: BidRules, on: BidRules, partner_kind: Any, partner_value: Any, hand: Any) -> Any:
    """The bid word of the number bids and 10 for 200 open to a seat that has looked at ``hand``."""
    tab = tables(ops)
    select = ops.select
    low, high = p.low, p.tricks
    if on.suicide:
        partner_nil = tab.is_nil[partner_kind]
        low = select(p.suicide & partner_nil, 1, low)  # the partner bid nil: this seat may not
        high = select(p.suicide & (partner_nil == False) & (partner_kind != _NONE), 0, high)  # noqa: E712 - nil only
    if capped(on):
        least = select(partner_kind == _NUMBER, partner_value, select(partner_kind == _NONE, p.low, 0))
        high = ops.minimum(high, p.team_cap - least)
    word = tab.range[low * _RANGE_W + ops.clip(high, -1, A.MAX_BID) + 1]
    if on.ten:
        word = word | ops.keep(p.ten & (partner_kind != _TEN), tab.ten)
    if on.mirror:
        word = select(p.mirror, tab.number[ops.popcount(hand & SPADE_MASK)], word)
    return word


def reads_state(p: BidRules) -> bool:
    """Whether the number bids of one hand's record can depend on the bidding or the hand (without:
    ``constant_bids``)."""
    return bool(p.ten or p.mirror or p.suicide or p.no_hook or p.team_cap != NO_CAP)


@cached_by_rules
def constant_bids(rules: Rules) -> int | None:
    """The bid word of the number bids of one hand's rules when it reads nothing of the state (made once), else
    None."""
    p = bid_rules(rules)
    return None if reads_state(p) else number_bids(INT, p, p, _NONE, 0, 0)


def blind_nil_by_score(ops: Ops, p: BidRules, scores: Any, side: int, num_sides: int) -> Any:
    """Whether blind nil is open to ``side`` on the scores before the hand (behind the best other side by
    ``blind_nil_requires_deficit``; ``scores`` per side)."""
    best = None
    for other in range(num_sides):
        if other != side:
            value = ops.seat(scores, other)
            best = value if best is None else ops.maximum(best, value)
    return ops.select(p.blind_nil, best - ops.seat(scores, side) >= p.deficit, False)  # no op on a plain option


def blind_options(ops: Ops, p: BidRules, on: BidRules, eligible: Any, partner_kind: Any) -> Any:
    """The bid word of the blind options open to a seat that has not looked (SEE CARDS not included);
    ``eligible``: blind nil by the score (``blind_nil_by_score``)."""
    tab = tables(ops)
    word = tab.zero
    if on.blind_nil:
        ok = ops.select(p.blind_nil, eligible, False)
        if on.suicide:
            ok = ok & ((p.suicide & tab.is_nil[partner_kind]) == False)  # noqa: E712 - not after a partner's nil
        word = ops.keep(ok, tab.blind_nil)
    if on.blind_bids:
        word = word | ops.keep(partner_kind == _NONE, p.blind_bids)
    return word


class BidContext(NamedTuple):
    """What the no-hook rule reads of the bidding so far, for the seat to bid."""

    total: Any  # tricks bid at the table: numbers, 10 for 200 as 10, blind n as n
    cancelled: Any  # the partner's number bid, which a 10 for 200 would cancel
    last: Any  # no later seat is still to bid
    last_but_partner: Any  # no later seat but the partner is still to bid (a side bid takes its turn)


def bid_context(
    ops: Ops, num_players: int, kinds: Any, values: Any, dealer: Any, position: Any, partner: Any
) -> BidContext:
    """The bidding so far, as the no-hook rule reads it (``position``: the seat to bid's)."""
    tab = tables(ops)
    select = ops.select
    total = 0
    for seat in range(num_players):
        total = total + select(tab.counted[ops.seat(kinds, seat)], ops.seat(values, seat), 0)
    later = 0
    partner_later = False
    for step in range(1, num_players):
        at = position + step
        seat = bidder(dealer, at, num_players)
        due = (at < num_players) & (ops.at(kinds, seat) == _NONE)
        later = later + due
        partner_later = partner_later | (due & (seat == partner))
    has = partner >= 0
    partner_kind, partner_value = partner_bid(ops, ops.at(kinds, partner), ops.at(values, partner), has)
    # later == partner_later as counts (0 or 1): no bool subtracted, which torch refuses
    return BidContext(total, select(partner_kind == _NUMBER, partner_value, 0), later == 0, later == partner_later * 1)


def hooking_bids(ops: Ops, p: BidRules, c: BidContext) -> Any:
    """The bid word of the bids that would end the bidding with the total equal to the tricks."""
    tab = tables(ops)
    keep = ops.keep
    need = p.tricks - c.total  # the number that would hook
    number = keep(c.last & (need >= 0) & (need <= A.MAX_BID), tab.number[ops.clip(need, 0, A.MAX_BID)])
    blind_nil = keep(c.last & (need == 0), tab.blind_nil)
    ten = keep(c.last_but_partner & (c.total + TEN_FOR_200_TRICKS - c.cancelled == p.tricks), tab.ten)
    blind = keep(
        c.last_but_partner & (need >= 1) & (need <= A.MAX_BLIND_BID), tab.blind[ops.clip(need, 0, A.MAX_BLIND_BID)]
    )
    return number | blind_nil | ten | blind


def without_hooks(ops: Ops, p: BidRules, word: Any, hooks: Any, keep_if_forced: bool) -> Any:
    """``word`` under the no-hook rule: the hooking bids dropped; when none is left, a forced total keeps
    them (``keep_if_forced``: the number bids) or nothing is left (the blind options: SEE CARDS stays)."""
    kept = word & ~hooks
    if keep_if_forced:
        kept = ops.select(kept != 0, kept, word)
    return ops.select(p.no_hook, kept, word)


def legal_bids(
    ops: Ops,
    p: BidRules,
    on: BidRules,
    blind: Any,
    eligible: Any,
    hand: Any,
    partner_kind: Any,
    partner_value: Any,
    context: Any,
) -> Any:
    """The bid word of a seat's legal bids: the blind options and SEE CARDS where ``blind`` (it has not
    looked and has a blind option), else the number bids; ``context``: a ``BidContext`` (read only
    where no hook is on: ``on.no_hook``)."""
    some_blind, some_looked = ops.any(blind), ops.any(blind == False)  # noqa: E712
    if some_blind:
        blinds = blind_options(ops, p, on, eligible, partner_kind)
        if on.no_hook:
            blinds = without_hooks(ops, p, blinds, hooking_bids(ops, p, context), keep_if_forced=False)
        blinds = blinds | tables(ops).see
        if not some_looked:
            return blinds
    numbers = number_bids(ops, p, on, partner_kind, partner_value, hand)
    if on.no_hook:
        numbers = without_hooks(ops, p, numbers, hooking_bids(ops, p, context), keep_if_forced=True)
    return ops.select(blind, blinds, numbers) if some_blind else numbers


def decides_blind(
    ops: Ops, p: BidRules, on: BidRules, looked: Any, eligible: Any, partner_kind: Any, context: Any
) -> Any:
    """Whether a seat whose turn it is decides blind first (it has not looked and a blind option is open)."""
    if not (on.blind_nil or on.blind_bids):
        return looked & False
    blinds = blind_options(ops, p, on, eligible, partner_kind)
    if on.no_hook:
        blinds = without_hooks(ops, p, blinds, hooking_bids(ops, p, context), keep_if_forced=False)
    return (looked == False) & (blinds != 0)  # noqa: E712


# ------------------------------------------------------------------ what a bid does
def bid_effect_on_partner(ops: Ops, kind: Any, partner_kind: Any) -> Any:
    """The partner's bid kind after a seat bids ``kind``: a 10 for 200 or a blind bid takes the partner's
    turn (SKIPPED), and a 10 for 200 cancels a bid the partner made (CANCELLED)."""
    select = ops.select
    taken = select(partner_kind == _NONE, _SKIPPED, select(kind == _TEN, _CANCELLED, partner_kind))
    return select((kind == _TEN) | (kind == _BLIND), taken, partner_kind)
