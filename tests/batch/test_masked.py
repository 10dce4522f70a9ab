"""The masked hand engine (``spades_env.batch.masked``) decides every step as the core's ``HandState`` does, on
every preset, on numpy and on torch: the same legal actions, seat to act and phase at every decision, the same
bids and tricks at the end."""

from __future__ import annotations

import numpy as np
import pytest

from spades_env.batch.masked import MaskedHands
from spades_env.core import PRESETS, HandState, preset
from spades_env.core.cards import mask_of
from spades_env.core.deal import deal_cards
from spades_env.core.hand import Phase
from spades_env.core.ops import ARRAY

TABLES = 24
EXPECTED = {  # phases a random hand of these presets meets at some of the tables
    "standard": {Phase.BLIND},
    "pagat": {Phase.BLIND, Phase.EXCHANGE},
    "online": {Phase.BLIND},
    "barmore": {Phase.BLIND},
    "two_player": {Phase.DRAW},
}


def forms():
    out = [pytest.param(ARRAY, id="numpy")]
    try:
        from spades_env.batch.torch_ops import torch_ops
    except ImportError:  # pragma: no cover - torch is in the dev extra
        return out
    return out + [
        pytest.param(torch_ops("cpu"), id="torch"),
        pytest.param(torch_ops("cpu", True), id="torch-sync-free"),
    ]


def bits(mask: int) -> np.ndarray:
    return np.array([(mask >> a) & 1 for a in range(90)], dtype=bool)


@pytest.mark.parametrize("ops", forms())
@pytest.mark.parametrize("name", sorted(PRESETS))
def test_every_decision_matches_the_core(name, ops):
    rules = preset(name)
    hand_rules = [rules.hand_rules(i) for i in range(len(rules.crazy))] if rules.crazy else [rules]
    rng = np.random.default_rng(len(name))
    rid = rng.integers(len(hand_rules), size=TABLES)
    dealer = rng.integers(rules.num_players, size=TABLES)
    scores = rng.integers(-150, 400, size=(TABLES, rules.num_sides))  # blind nil open at some tables
    states, boards, stocks = [], [], []
    for t in range(TABLES):
        r = hand_rules[rid[t]]
        deal = deal_cards(r, rng, dealer=int(dealer[t]))
        states.append(HandState(r, deal, int(dealer[t]), scores=[int(x) for x in scores[t]]))
        boards.append([mask_of(h) for h in deal.hands])
        stocks.append(list(deal.stock))
    engine = MaskedHands(hand_rules, ops)
    engine.start(rid, np.array(boards, dtype=np.uint64), dealer, scores, np.array(stocks) if stocks[0] else None)
    form = engine.form
    pick = np.random.default_rng(0)
    seen = set()
    for _ in range(200):
        legal = form.numpy(engine.legal())
        phase, cur = form.numpy(engine.phase), form.numpy(engine.cur)
        actions = np.zeros(TABLES, dtype=np.int64)
        for t, state in enumerate(states):
            assert phase[t] == int(state.phase), (t, phase[t], state.phase)
            seen.add(state.phase)
            if state.phase == Phase.OVER:
                assert not legal[t].any()
                continue
            assert cur[t] == state.current, t
            assert (legal[t] == bits(state.legal_mask())).all(), (t, state.phase)
            actions[t] = pick.choice(state.legal_actions())
            state.apply(int(actions[t]))
        engine.step(form.ints(actions))
        if all(s.phase == Phase.OVER for s in states):
            break
    assert all(s.phase == Phase.OVER for s in states)
    assert EXPECTED.get(name, set()) <= seen, seen  # the special phases were met, not only plain play
    assert (form.numpy(engine.phase) == int(Phase.OVER)).all()
    assert (form.numpy(engine.won) == np.array([s.tricks_won for s in states])).all()
    assert (form.numpy(engine.kinds) == np.array([[int(b.kind) for b in s.bids] for s in states])).all()
    assert (form.numpy(engine.values) == np.array([[b.value for b in s.bids] for s in states])).all()
