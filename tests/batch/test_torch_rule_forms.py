"""The core's rules on torch tensors (``spades_env.batch.torch_ops``) give the numpy form's answers.

The situations are those of ``tests/core/test_rule_forms.py`` (where the numpy form already equals the
one-hand form); each rule is evaluated on numpy arrays and on torch tensors on the CPU, with ``Ops.any``
checked and unchecked (the form an accelerator uses: every code path computed, no host synchronisation).
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from spades_env.core import PRESETS, bidding, card_play, exchange, preset, scoring
from spades_env.core import actions as A
from spades_env.core.cards import CARD_SUIT, NUM_CARDS, deck
from spades_env.core.ops import ARRAY
from spades_env.core.scoring import BidKind
from spades_env.core.tricks import TRICK_KEYS, key_start, winning_place
from tests.core.test_rule_forms import HAND_RULES, K, random_bidding

torch = pytest.importorskip("torch")
from spades_env.batch.torch_ops import torch_ops  # noqa: E402


@pytest.fixture(params=[False, True], ids=["any-checked", "sync-free"])
def T(request):
    return torch_ops("cpu", sync_free=request.param)


def tt(x):
    """A numpy array (or a tuple of them) as torch tensors (uint64 bitboards as int64: they hold 54 bits)."""
    if isinstance(x, tuple):
        return tuple(tt(v) for v in x)
    if x is None:
        return None
    if isinstance(x, np.ndarray):
        return torch.from_numpy(x.astype(np.int64) if x.dtype == np.uint64 else x.copy())
    return x


def same(many_np, many_t):
    """Equal answers, field by field for the rules' named tuples."""
    if isinstance(many_np, tuple):
        assert len(many_np) == len(many_t)
        for a, b in zip(many_np, many_t):
            same(a, b)
        return
    a = np.asarray(many_np)
    b = many_t.cpu().numpy() if isinstance(many_t, torch.Tensor) else np.asarray(many_t)
    a = a.astype(np.int64) if a.dtype == np.uint64 else a
    assert np.array_equal(np.broadcast_to(a, np.broadcast_shapes(a.shape, b.shape)), np.broadcast_to(b, a.shape))


def gathered(stack, records, rid, ops):
    stacked = stack(records, ops)
    index = tt(rid) if ops is not ARRAY else rid
    return type(stacked)(*(field[index] for field in stacked))


@pytest.fixture
def rng():
    return np.random.default_rng(11)


def test_bidding_on_torch_equals_numpy(rng, T):
    kinds, values, dealer, position, seat, partner, hands = random_bidding(rng)
    rid = rng.integers(len(HAND_RULES), size=K)
    records = [bidding.bid_rules(r) for r in HAND_RULES]
    on = bidding.switches(records)
    blind, eligible = rng.random(K) < 0.5, rng.random(K) < 0.5
    scores = rng.integers(-300, 500, size=(K, 3))
    answers = {}
    for ops, conv in ((ARRAY, lambda x: x), (T, tt)):
        p = gathered(bidding.stack, records, rid, ops)
        k, v, d, pos, par = conv(kinds), conv(values), conv(dealer), conv(position), conv(partner)
        pk, pv = bidding.partner_bid(ops, ops.at(k, par % 4), ops.at(v, par % 4), par >= 0)
        context = bidding.bid_context(ops, 4, k, v, d, pos, par)
        answers[ops] = (
            pk,
            pv,
            context,
            bidding.legal_bids(ops, p, on, conv(blind), conv(eligible), conv(hands), pk, pv, context),
            bidding.decides_blind(ops, p, on, conv(blind), conv(eligible), pk, context),
            bidding.next_bid_position(ops, on, 4, k, d, pos),
            bidding.blind_nil_by_score(ops, p, conv(scores), 1, 3),
        )
    for numpy_answer, torch_answer in zip(answers[ARRAY], answers[T]):
        same(numpy_answer, torch_answer)
    assert int((answers[T][3] != 0).sum()) > K // 2


def test_side_bids_on_torch_equal_numpy(rng, T):
    kinds = rng.integers(len(BidKind), size=K)
    kind = np.array(A.BID_ACTION_KIND)[rng.integers(A.BID_OFFSET, A.NUM_ACTIONS - 2, size=K)]
    same(bidding.bid_effect_on_partner(ARRAY, kind, kinds), bidding.bid_effect_on_partner(T, tt(kind), tt(kinds)))


def test_card_play_on_torch_equals_numpy(rng, T):
    records = [card_play.play_rules(r) for r in HAND_RULES]
    rid = rng.integers(len(HAND_RULES), size=K)
    on = card_play.switches(records)
    first, leads, broken = (rng.random(K) < 0.5 for _ in range(3))
    hands = rng.integers(0, 1 << NUM_CARDS, size=K, dtype=np.uint64) & rng.integers(
        0, 1 << NUM_CARDS, size=K, dtype=np.uint64
    )
    led, dealer = rng.integers(4, size=K), rng.integers(4, size=K)
    seat_hands = rng.integers(0, 1 << NUM_CARDS, size=(K, 4), dtype=np.uint64)
    out = {}
    for ops, conv in ((ARRAY, lambda x: x), (T, tt)):
        p = gathered(card_play.stack, records, rid, ops)
        situation = card_play.situation(ops, p, on, conv(first), conv(leads), conv(broken))
        out[ops] = (
            situation,
            card_play.legal_cards(ops, on, conv(hands), situation, conv(led)),
            card_play.first_leader(ops, p, on, 4, conv(dealer), conv(seat_hands)),
            ops.popcount(conv(hands)),
            ops.lowbit(conv(hands)),
        )
    same(out[ARRAY], out[T])


def test_the_exchange_on_torch_equals_numpy(rng, T):
    kinds = np.where(rng.random((K, 4)) < 0.4, int(BidKind.BLIND_NIL), int(BidKind.NUMBER))
    dealer, cards = rng.integers(4, size=K), rng.integers(1, 4, size=K)
    givers = exchange.exchange_givers(ARRAY, 4, kinds, dealer)
    givers_t = exchange.exchange_givers(T, 4, tt(kinds), tt(dealer))
    same(tuple(givers), tuple(givers_t))
    same(exchange.exchange_length(givers, cards), exchange.exchange_length(givers_t, tt(cards)))
    step = rng.integers(0, 6, size=K)
    same(
        exchange.exchange_pass(ARRAY, 4, givers, cards, step),
        exchange.exchange_pass(T, 4, givers_t, tt(cards), tt(step)),
    )


@pytest.mark.parametrize("jokers", [False, True])
def test_trick_winners_on_torch_equal_numpy(rng, T, jokers):
    """``core.tricks.winning_place`` on torch tensors: the numpy form's places (there equal to the one-hand
    form's and the reference's, ``tests/core/test_trick_winner_forms.py``), every key row mixed."""
    pack = np.array(deck(jokers))
    tricks = np.stack([rng.choice(pack, size=4, replace=False) for _ in range(K)])
    led = np.array(CARD_SUIT)[tricks[:, 0]]
    start = np.array([key_start(d) for d in (rng.random(K) < 0.5).tolist()])
    keys = TRICK_KEYS.ravel()
    places = winning_place(ARRAY, keys, tricks, led, start)
    same(places, winning_place(T, tt(keys), tt(tricks), tt(led), tt(start)))
    same(winning_place(ARRAY, TRICK_KEYS[1], tricks, led), winning_place(T, tt(TRICK_KEYS[1]), tt(tricks), tt(led)))
    assert len(set(places.tolist())) == 4  # every place wins somewhere


def test_one_form_per_device_and_flavour():
    assert torch_ops("cpu") is torch_ops("cpu") and torch_ops("cpu") is not torch_ops("cpu", sync_free=True)
    assert torch_ops("cpu").any(torch.tensor([False])) is False and torch_ops("cpu", True).any(torch.tensor([False]))


@pytest.mark.parametrize("name", sorted(PRESETS))
def test_scoring_on_torch_equals_numpy(name, rng, T):
    rules = preset(name)
    hand_rules = [rules.hand_rules(i) for i in range(len(rules.crazy))] if rules.crazy else None
    first = hand_rules[0] if hand_rules else rules
    n, sides = first.num_players, first.num_sides
    kinds = rng.integers(1, len(BidKind), size=(K, n))  # any kinds: the arithmetic is compared, valid or not
    values = rng.integers(0, first.num_tricks + 1, size=(K, n))
    tricks = rng.integers(0, first.num_tricks + 1, size=(K, n))
    tricks[:7] = 0
    tricks[:7, 0] = first.num_tricks  # a few Bostons
    bags = rng.integers(0, 10, size=(K, sides))
    index = rng.integers(len(hand_rules), size=K) if hand_rules else None
    scored = scoring.score_hands(hand_rules or rules, kinds, values, tricks, bags, index)
    on_torch = scoring.score_hands(hand_rules or rules, *tt((kinds, values, tricks, bags, index)), ops=T)
    for field in dataclasses.fields(scoring.HandScores):
        same(getattr(scored, field.name), getattr(on_torch, field.name))
    assert scored.made.any() and not scored.made.all() and (scored.nil_made >= 0).any()
