"""The blind nil exchange: who passes cards to whom, and in what order (RULES.md section 3).

After the bidding, each seat that bid blind nil, in bidding order, whose
partner did not also bid blind nil, passes ``blind_nil_exchange`` cards to its
partner one at a time, then the partner passes as many back. At most one such
*giver* per side, so at most two runs of ``2 x blind_nil_exchange`` passes.
Every pass is one decision: the seat passing picks any card it holds.

Each function takes an :class:`~spades_env.core.ops.Ops` first: the same lines
serve one hand (``INT``) and many tables (``ARRAY``).
"""

from __future__ import annotations

from typing import Any, NamedTuple

from .bidding import bidder
from .ops import Ops
from .scoring import BidKind

NO_SEAT = -1
_BLIND_NIL = int(BidKind.BLIND_NIL)


def partner_seat(seat: Any, num_players: int) -> Any:
    """The partner of ``seat`` at a table of partnerships (across the table)."""
    return (seat + num_players // 2) % num_players


class Givers(NamedTuple):
    """The seats that pass first, in bidding order (``NO_SEAT`` where none), and how many there are."""

    first: Any
    second: Any
    count: Any


def exchange_givers(ops: Ops, num_players: int, kinds: Any, dealer: Any) -> Givers:
    """The blind nil bidders who pass to their partners (bid kinds per seat; partnerships only)."""
    first = second = NO_SEAT
    count = 0
    for position in range(num_players):
        seat = bidder(dealer, position, num_players)
        gives = (ops.at(kinds, seat) == _BLIND_NIL) & (ops.at(kinds, partner_seat(seat, num_players)) != _BLIND_NIL)
        first = ops.select(gives & (count == 0), seat, first)
        second = ops.select(gives & (count == 1), seat, second)
        count = count + gives
    return Givers(first, second, count)


def exchange_length(givers: Givers, cards: Any) -> Any:
    """The number of passes: ``cards`` each way for each giver."""
    return 2 * cards * givers.count


def exchange_pass(ops: Ops, num_players: int, givers: Givers, cards: Any, step: Any) -> tuple[Any, Any]:
    """(seat passing, seat receiving) at pass ``step`` (0-based) of the exchange."""
    run = 2 * cards
    seat = ops.select(step < run, givers.first, givers.second)
    partner = partner_seat(seat, num_players)
    out = step % run < cards
    return ops.select(out, seat, partner), ops.select(out, partner, seat)
