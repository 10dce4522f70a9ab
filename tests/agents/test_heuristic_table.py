"""The heuristic's table view: tricks a side still needs (the core's counted tricks), partners, options.

Expectations are worked out by hand from RULES.md section 5: a side needs its contract minus the tricks
that count toward it; a nil bidder's tricks count only with ``nil_tricks_count_for_partner``; a blind bid
or 10 for 200 is the side's one contract, which every trick of the side counts toward.
"""

from __future__ import annotations

import pytest

from spades_env.agents import HeuristicAgent
from spades_env.agents.heuristic import BidParams, Table, side_need
from spades_env.agents.heuristic.table import NO_PARTNER
from spades_env.core import BidKind, preset

NIL_FOR_SIDE = preset("standard").replace(nil_tricks_count_for_partner=True)
NIL_ALONE = preset("standard").replace(nil_tricks_count_for_partner=False)
SIDE_BIDS = preset("standard").replace(ten_for_200=True, blind_bids=True)
CUTTHROAT = preset("cutthroat")

N, NIL, BLIND, TEN, SKIP, CANCEL = (
    BidKind.NUMBER,
    BidKind.NIL,
    BidKind.BLIND,
    BidKind.TEN_FOR_200,
    BidKind.SKIPPED,
    BidKind.CANCELLED,
)


def table(rules, bids, won, me=0) -> Table:
    """A card-play table with these bids and tricks won (cards do not matter to the contract)."""
    kinds = [kind for kind, _ in bids]
    values = [value for _, value in bids]
    n = rules.num_players
    return Table(rules, me, 0, 0, [], [], kinds, values, won, 0, [0] * n, [0] * n)


# (id, rules, bids per seat, tricks won so far, seat asked, tricks its side still needs)
NEED_CASES = [
    ("number bids add up", NIL_ALONE, [(N, 3), (N, 2), (N, 4), (N, 1)], [1, 0, 2, 0], 0, 7 - 3),
    ("the partner is asked the same", NIL_ALONE, [(N, 3), (N, 2), (N, 4), (N, 1)], [1, 0, 2, 0], 2, 7 - 3),
    (
        "a nil's tricks are its own with the option off",
        NIL_ALONE,
        [(NIL, 0), (N, 2), (N, 4), (N, 1)],
        [2, 0, 1, 0],
        0,
        4 - 1,
    ),
    (
        "a nil's tricks count for the partner with the option on",
        NIL_FOR_SIDE,
        [(NIL, 0), (N, 2), (N, 4), (N, 1)],
        [2, 0, 1, 0],
        0,
        4 - 3,
    ),
    ("a made contract needs nothing more", NIL_ALONE, [(N, 3), (N, 2), (N, 4), (N, 1)], [1, 2, 6, 0], 0, 7 - 7),
    ("overtricks give a negative need", NIL_ALONE, [(N, 3), (N, 2), (N, 4), (N, 1)], [4, 0, 5, 0], 0, 7 - 9),
    ("a blind bid counts both partners", SIDE_BIDS, [(BLIND, 7), (N, 2), (SKIP, 0), (N, 1)], [2, 0, 3, 0], 2, 7 - 5),
    ("10 for 200 counts both partners", SIDE_BIDS, [(CANCEL, 3), (N, 2), (TEN, 10), (N, 1)], [4, 0, 2, 0], 0, 10 - 6),
    ("cutthroat: a seat is its own side", CUTTHROAT, [(N, 3), (N, 2), (N, 4), (N, 1)], [1, 0, 2, 0], 2, 4 - 2),
]


@pytest.mark.parametrize("rules,bids,won,seat,need", [c[1:] for c in NEED_CASES], ids=[c[0] for c in NEED_CASES])
def test_side_need_is_the_contract_minus_the_counted_tricks(rules, bids, won, seat, need):
    assert side_need(table(rules, bids, won), seat) == need


@pytest.mark.parametrize(
    "rules,me,partner,opponents",
    [
        (NIL_ALONE, 0, 2, [1, 3]),
        (NIL_ALONE, 3, 1, [0, 2]),
        (CUTTHROAT, 1, NO_PARTNER, [0, 2, 3]),
    ],
    ids=["seat 0", "seat 3", "cutthroat"],
)
def test_table_partner_is_the_rules_partner(rules, me, partner, opponents):
    t = table(rules, [(N, 1)] * rules.num_players, [0] * rules.num_players, me=me)
    assert (t.partner, t.opps) == (partner, opponents)


@pytest.mark.parametrize(
    "options,error",
    [
        ({"nosuch": 1}, "unknown option(s) ['nosuch']"),
        ({"bias": "high"}, "bias must be a number"),
        ({"nil_risk_max": True}, "nil_risk_max must be a number"),
    ],
    ids=["unknown option", "text for a number", "bool for a number"],
)
def test_heuristic_options_are_checked_when_built(options, error):
    with pytest.raises(TypeError) as info:
        HeuristicAgent(**options)
    assert error in str(info.value)


def test_heuristic_bid_options_are_kept():
    agent = HeuristicAgent(bias=0.5, nil_risk_max=1)
    assert agent.params == BidParams(bias=0.5, nil_risk_max=1)
    assert agent.describe() == {"name": "heuristic", "track_voids": True, "bias": 0.5, "nil_risk_max": 1}
