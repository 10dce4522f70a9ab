"""Every rule of the core gives the same answer for one hand (``INT``) and for many tables (``ARRAY``).

The rules of bidding, card play, the exchange and dealing are written once, against
``core.ops``; these tests draw many random situations, evaluate each rule on plain ints one
situation at a time and on arrays all at once (with the rules of every preset stacked, as a
crazy rotation's tables are), and require equal answers. The lockstep tests of the batch
engine then check whole games.
"""

from __future__ import annotations

import numpy as np
import pytest

from spades_env.core import PRESETS, bidding, card_play, exchange, preset
from spades_env.core import actions as A
from spades_env.core.cards import NUM_CARDS, deck
from spades_env.core.deal import deal_cards, deal_positions
from spades_env.core.ops import ARRAY, INT
from spades_env.core.rules import Rules
from spades_env.core.scoring import BidKind

K = 400  # random situations per test
HAND_RULES = [preset(name) for name in sorted(PRESETS) if preset(name).crazy is None] + [
    Rules(
        bids_may_total_tricks=False,
        ten_for_200=True,
        blind_bids=True,
        blind_nil_requires_deficit=None,
        max_team_bid=11,
        blind_nil_exchange=3,
    ),
    Rules(bids_may_total_tricks=False, partnerships=False, num_players=3, nil=False, blind_nil=False),
    Rules(blind_bids=True, blind_bid_min=3, max_team_bid=9, blind_nil_requires_deficit=0),
]


def bid_records(rules_index: np.ndarray) -> tuple[list, bidding.BidRules, bidding.BidRules]:
    records = [bidding.bid_rules(r) for r in HAND_RULES]
    stacked = bidding.stack(records)
    gathered = bidding.BidRules(*(field.take(rules_index) for field in stacked))
    return records, gathered, bidding.switches(records)


def each(values: np.ndarray, i: int):
    """Row i of an array as plain ints (a per-seat row as a list)."""
    row = values[i]
    return row.tolist() if np.ndim(row) else row.item()


@pytest.fixture
def rng():
    return np.random.default_rng(7)


def random_bidding(rng: np.random.Generator):
    """K random bidding situations at four seats: kinds, values, dealer, position, seat, partner, hands."""
    kinds = rng.integers(len(BidKind), size=(K, 4))
    values = np.where(np.isin(kinds, [int(BidKind.NUMBER), int(BidKind.BLIND)]), rng.integers(1, 14, size=(K, 4)), 0)
    values = np.where(kinds == int(BidKind.TEN_FOR_200), 10, values)
    dealer = rng.integers(4, size=K)
    position = rng.integers(4, size=K)
    seat = (dealer + 1 + position) % 4
    partner = np.where(rng.random(K) < 0.2, -1, (seat + 2) % 4)
    hands = rng.integers(0, 1 << 54, size=K, dtype=np.uint64)
    return kinds, values, dealer, position, seat, partner, hands


def test_legal_bids_are_the_same_in_both_forms(rng):
    kinds, values, dealer, position, seat, partner, hands = random_bidding(rng)
    rid = rng.integers(len(HAND_RULES), size=K)
    records, gathered, on = bid_records(rid)
    blind = rng.random(K) < 0.5
    eligible = rng.random(K) < 0.5
    pk, pv = bidding.partner_bid(ARRAY, ARRAY.at(kinds, partner), ARRAY.at(values, partner), partner >= 0)
    context = bidding.bid_context(ARRAY, 4, kinds, values, dealer, position, partner)
    words = bidding.legal_bids(ARRAY, gathered, on, blind, eligible, hands, pk, pv, context)
    decides = bidding.decides_blind(ARRAY, gathered, on, blind, eligible, pk, context)
    nonzero = 0
    for i in range(K):
        p = records[rid[i]]
        k, v = each(kinds, i), each(values, i)
        ipk, ipv = bidding.partner_bid(INT, k[int(partner[i])], v[int(partner[i])], int(partner[i]) >= 0)
        ctx = bidding.bid_context(INT, 4, k, v, int(dealer[i]), int(position[i]), int(partner[i]))
        assert (ipk, ipv) == (pk[i], pv[i])
        assert tuple(ctx) == tuple(c[i] for c in context)
        word = bidding.legal_bids(INT, p, p, bool(blind[i]), bool(eligible[i]), int(hands[i]), ipk, ipv, ctx)
        assert word == int(words[i]), (i, HAND_RULES[rid[i]].name)
        assert bidding.decides_blind(INT, p, p, bool(blind[i]), bool(eligible[i]), ipk, ctx) == decides[i]
        nonzero += word != 0
    assert nonzero > K // 2  # the situations are not all empty ones


def test_turn_order_and_side_bids_are_the_same_in_both_forms(rng):
    kinds, values, dealer, position, seat, partner, _ = random_bidding(rng)
    on = bidding.switches([bidding.bid_rules(r) for r in HAND_RULES])
    assert bidding.takes_turns(on)
    nxt = bidding.next_bid_position(ARRAY, on, 4, kinds, dealer, position)
    action = rng.integers(A.BID_OFFSET, A.NUM_ACTIONS, size=K)
    kind = np.array(A.BID_ACTION_KIND)[action]
    effect = bidding.bid_effect_on_partner(ARRAY, kind, kinds[np.arange(K), (seat + 2) % 4])
    for i in range(K):
        assert bidding.next_bid_position(INT, on, 4, each(kinds, i), int(dealer[i]), int(position[i])) == nxt[i]
        assert bidding.bid_effect_on_partner(INT, int(kind[i]), int(kinds[i, (seat[i] + 2) % 4])) == effect[i]
        assert bidding.bidder(int(dealer[i]), int(position[i]), 4) == seat[i]


def test_blind_nil_by_score_is_the_same_in_both_forms(rng):
    rid = rng.integers(len(HAND_RULES), size=K)
    records, gathered, _ = bid_records(rid)
    for sides in (2, 3, 4):
        scores = rng.integers(-300, 500, size=(K, sides))
        for side in range(sides):
            many = bidding.blind_nil_by_score(ARRAY, gathered, scores, side, sides)
            one = [bidding.blind_nil_by_score(INT, records[rid[i]], each(scores, i), side, sides) for i in range(K)]
            assert list(many) == one


def test_card_play_is_the_same_in_both_forms(rng):
    records = [card_play.play_rules(r) for r in HAND_RULES]
    rid = rng.integers(len(HAND_RULES), size=K)
    stacked = card_play.stack(records)
    gathered = card_play.PlayRules(*(field.take(rid) for field in stacked))
    on = card_play.switches(records)
    first, leads, broken = (rng.random(K) < 0.5 for _ in range(3))
    hands = rng.integers(0, 1 << NUM_CARDS, size=K, dtype=np.uint64) & rng.integers(
        0, 1 << NUM_CARDS, size=K, dtype=np.uint64
    )
    led = rng.integers(4, size=K)
    situation = card_play.situation(ARRAY, gathered, on, first, leads, broken)
    legal = card_play.legal_cards(ARRAY, on, hands, situation, led)
    dealer = rng.integers(4, size=K)
    seat_hands = rng.integers(0, 1 << NUM_CARDS, size=(K, 4), dtype=np.uint64)
    leader = card_play.first_leader(ARRAY, gathered, on, 4, dealer, seat_hands)
    for i in range(K):
        p = records[rid[i]]
        s = card_play.situation(INT, p, p, bool(first[i]), bool(leads[i]), bool(broken[i]))
        assert s == situation[i] == card_play.play_situation(HAND_RULES[rid[i]], first[i], leads[i], broken[i])
        assert card_play.legal_cards(INT, p, int(hands[i]), s, int(led[i])) == int(legal[i])
        assert card_play.first_leader(INT, p, p, 4, int(dealer[i]), each(seat_hands, i)) == leader[i]
        assert card_play.next_seat(int(dealer[i]), 4) == (dealer[i] + 1) % 4


def test_exchange_passes_are_the_same_in_both_forms(rng):
    kinds = np.where(rng.random((K, 4)) < 0.4, int(BidKind.BLIND_NIL), int(BidKind.NUMBER))
    dealer = rng.integers(4, size=K)
    cards = rng.integers(1, 4, size=K)
    givers = exchange.exchange_givers(ARRAY, 4, kinds, dealer)
    length = exchange.exchange_length(givers, cards)
    for i in range(K):
        one = exchange.exchange_givers(INT, 4, each(kinds, i), int(dealer[i]))
        assert tuple(one) == (givers.first[i], givers.second[i], givers.count[i])
        steps = exchange.exchange_length(one, int(cards[i]))
        assert steps == length[i]
        many = exchange.Givers(np.full(steps, givers.first[i]), np.full(steps, givers.second[i]), None)
        passes = exchange.exchange_pass(ARRAY, 4, many, int(cards[i]), np.arange(steps))
        for step in range(steps):
            assert exchange.exchange_pass(INT, 4, one, int(cards[i]), step) == (passes[0][step], passes[1][step])


def test_deal_positions_deal_one_card_at_a_time_from_the_dealers_left():
    rules = preset("cutthroat3")
    shuffled = np.array(deck(rules.jokers))[::-1]
    by_position, aside = deal_positions(shuffled, 3, rules.hand_size)
    assert [list(row[:2]) for row in by_position] == [
        [shuffled[0], shuffled[3]],
        [shuffled[1], shuffled[4]],
        [shuffled[2], shuffled[5]],
    ]
    assert list(aside) == list(shuffled[3 * rules.hand_size :])
    many, many_aside = deal_positions(np.stack([shuffled, shuffled]), 3, rules.hand_size)
    assert (many[1] == by_position).all() and (many_aside[0] == aside).all()
    deal = deal_cards(rules, np.random.default_rng(0), dealer=2)  # position 0 is seat 0, left of dealer 2
    assert len(deal.set_aside) == 1 and all(len(hand) == 17 for hand in deal.hands)


def test_constant_bids_are_the_number_bids_of_every_state():
    """Where the number bids read nothing of the state, the word made once equals the rule at any state."""
    rng = np.random.default_rng(3)
    kinds, values, dealer, position, seat, partner, hands = random_bidding(rng)
    for rules in HAND_RULES:
        constant = bidding.constant_bids(rules)
        p = bidding.bid_rules(rules)
        assert (constant is None) == bidding.reads_state(p)
        if constant is None:
            continue
        for i in range(50):
            pk, pv = bidding.partner_bid(
                INT, each(kinds, i)[int(partner[i])], each(values, i)[int(partner[i])], int(partner[i]) >= 0
            )
            assert bidding.number_bids(INT, p, p, pk, pv, int(hands[i])) == constant, rules.name


def test_what_the_bids_read_of_the_partner_is_all_they_read():
    """Where ``reads_partner`` is false the legal bids are the same for any partner's bid, and where
    ``reads_partner_value`` is false the same for any value of it (the engines then skip gathering it)."""
    rng = np.random.default_rng(5)
    kinds, values, dealer, position, seat, partner, hands = random_bidding(rng)
    checked = {"partner": 0, "value": 0}
    for rules in HAND_RULES:
        p = bidding.bid_rules(rules)
        for i in range(60):
            kind, value, hand = int(kinds[i, 0]), int(values[i, 0]), int(hands[i])
            ctx = bidding.bid_context(
                INT, 4, each(kinds, i), each(values, i), int(dealer[i]), int(position[i]), int(partner[i])
            )
            for blind in (False, True):
                word = bidding.legal_bids(INT, p, p, blind, True, hand, kind, value, ctx)
                if not bidding.reads_partner(p):
                    checked["partner"] += 1
                    assert word == bidding.legal_bids(INT, p, p, blind, True, hand, int(BidKind.NONE), 0, ctx)
                if not bidding.reads_partner_value(p):
                    checked["value"] += 1
                    assert word == bidding.legal_bids(INT, p, p, blind, True, hand, kind, 0, ctx), rules.name
    assert checked["partner"] and checked["value"]
