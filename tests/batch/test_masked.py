"""The masked hand engine (``spades_env.batch.masked``) decides every step as the core's ``HandState`` does, on
every preset, on numpy and on torch: the same legal actions, seat to act and phase at every decision, the same
bids and tricks at the end."""

from __future__ import annotations

import numpy as np
import pytest

from spades_env.batch.masked import MaskedGames, MaskedHands
from spades_env.batch.masked import observe as writers
from spades_env.core import PRESETS, Deal, Game, HandState, make_deal, make_stock, preset
from spades_env.core.cards import cards_of, mask_of
from spades_env.core.deal import deal_cards
from spades_env.core.hand import Phase
from spades_env.core.ops import ARRAY
from spades_env.obs.encode import encode_observation, encode_state
from spades_env.obs.layout import OBSERVATION, STATE
from spades_env.rewards import hand_winner_one

TABLES = 24
# The presets whose whole games run in the default suite (every preset with -m slow): each special phase and
# rule family among them (the exchange, the drawing, three players, the rotation, blind bids, jokers).
DEFAULT_PRESETS = {"standard", "pagat", "two_player", "cutthroat3", "crazy", "barmore"}
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


def block_of(index: int) -> str:
    """The name of the observation block holding ``index`` (for failure messages)."""
    return next(name for name in OBSERVATION if OBSERVATION[name].start <= index < OBSERVATION[name].stop)


def state_block_of(index: int) -> str:
    """The name of the state block holding ``index`` (for failure messages)."""
    return next(name for name in STATE if STATE[name].start <= index < STATE[name].stop)


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
    bags = rng.integers(0, 9, size=(TABLES, rules.num_sides))
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
        for observer in (np.maximum(cur, 0), (np.maximum(cur, 0) + 1) % rules.num_players):
            seen_obs = form.numpy(writers.observe(engine, form.ints(observer), scores, bags, rules))
            for t, state in enumerate(states):
                want = encode_observation(state, scores[t], bags[t], rules, int(observer[t]))
                bad = np.flatnonzero(seen_obs[t] != want)
                assert not len(bad), (t, state.phase, [block_of(int(i)) for i in bad[:5]], bad[:5])
        # the full-information state (a critic's input) of the seat to act: the core's encode_state
        full = form.numpy(writers.state(engine, form.ints(np.maximum(cur, 0)), scores, bags, rules))
        for t, state in enumerate(states):
            want = encode_state(state, scores[t], bags[t], rules, int(max(cur[t], 0)))
            bad = np.flatnonzero(full[t] != want)
            assert not len(bad), (t, state.phase, [state_block_of(int(i)) for i in bad[:5]], bad[:5])
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


def engine_deal(engine, t: int, rules) -> Deal:
    """The hand the engine has dealt at table t, as a core Deal."""
    hands = engine.hands
    if hands.stock is not None:
        return make_stock(rules, [int(c) for c in engine.form.numpy(hands.stock)[t]])
    boards = engine.form.numpy(hands.hands)[t]
    return make_deal(rules, [cards_of(int(b)) for b in boards])


class EngineDeals:
    """The deals a core Game asks for, read off the engine's table when it asks (after the engine's step)."""

    def __init__(self, engine, t: int):
        self.engine, self.t = engine, t

    def __iter__(self):
        return self

    def __next__(self) -> Deal:
        rid = int(self.engine.form.numpy(self.engine.hands.rid)[self.t])
        return engine_deal(self.engine, self.t, self.engine.hand_rules[rid])


@pytest.mark.parametrize("ops", [f for f in forms() if f.id != "torch"])  # torch's two flavours differ in `any` only
@pytest.mark.parametrize(
    "name, episode",
    [pytest.param(n, "game", marks=() if n in DEFAULT_PRESETS else pytest.mark.slow) for n in sorted(PRESETS)]
    + [("suicide", "hand")],
)
def test_games_match_the_core_game(name, episode, ops):
    rules = preset(name).replace(max_hands=6, target_score=200) if episode == "game" else preset(name)
    engine = MaskedGames(rules, ops, episode=episode, seed=3)
    tables = 12
    engine.reset(tables)
    form = engine.form

    def new_game(t: int) -> Game:
        dealer = int(form.numpy(engine.dealer)[t])
        return Game(rules, np.random.default_rng(0), dealer=dealer, deals=EngineDeals(engine, t))

    games = [new_game(t) for t in range(tables)]
    pick = np.random.default_rng(1)
    episodes = hands_over = 0
    while episodes < tables:
        legal = form.numpy(engine.legal())
        actions = np.zeros(tables, dtype=np.int64)
        for t, game in enumerate(games):
            assert (legal[t] == bits(game.hand.legal_mask())).all(), (t, game.hand.phase)
            actions[t] = pick.choice(game.hand.legal_actions())
        out = engine.step(form.ints(actions))
        over, done = form.numpy(out.hand_over), form.numpy(out.done)
        for t, game in enumerate(games):
            result = game.apply(int(actions[t]))
            assert over[t] == (result is not None), t
            if result is None:
                continue
            hands_over += 1
            assert list(form.numpy(out.points)[t]) == list(result.points)
            assert list(form.numpy(out.scores)[t]) == list(result.scores)
            assert list(form.numpy(out.bags)[t]) == list(result.bags)
            assert list(form.numpy(out.bag_penalties)[t]) == [s.bag_penalties for s in result.score.sides]
            ended = game.over or episode == "hand"
            assert done[t] == ended, t
            if ended:
                episodes += 1
                if episode == "game":
                    assert form.numpy(out.winner)[t] == (-1 if game.winner is None else game.winner)
                    assert form.numpy(out.truncated)[t] == game.truncated
                else:
                    assert form.numpy(out.winner)[t] == hand_winner_one(list(result.points))
                games[t] = new_game(t)
    assert hands_over > episodes if episode == "game" else hands_over == episodes  # games of several hands
