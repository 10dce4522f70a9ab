"""``BatchEnv(..., backend="torch")``: tensors in and out, the core's games, the reward schemes' rewards, bad
actions refused before any table changes."""

from __future__ import annotations

import json
import pickle
import runpy
from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import spades_env  # noqa: E402
from spades_env.batch import BatchEnv  # noqa: E402
from spades_env.batch.masked import MaskedGames  # noqa: E402
from spades_env.core import PRESETS, Game, IllegalActionError, preset  # noqa: E402
from spades_env.core.cards import cards_of  # noqa: E402
from spades_env.obs.encode import OBS_SIZE  # noqa: E402
from spades_env.rewards import hand_rewards_one, make_reward  # noqa: E402

from .test_masked import DEFAULT_PRESETS, EngineDeals, bits  # noqa: E402

TABLES = 6


def test_tensors_in_and_out():
    env = BatchEnv(TABLES, rules="two_player", backend="torch", seed=2)
    obs, mask, to_act = env.reset()
    assert obs.shape == (TABLES, OBS_SIZE) and obs.dtype == torch.float32
    assert mask.shape == (TABLES, 90) and mask.dtype == torch.int8 and to_act.dtype == torch.int64
    obs, mask, to_act, rewards, dones, info = env.step(torch.multinomial(mask.float(), 1).squeeze(1), observe=False)
    assert obs is None and rewards.shape == (TABLES, 2) and rewards.dtype == torch.float32 and dones.dtype == torch.bool
    assert set(info) == {"hand_over", "points", "scores", "bags", "done", "winner", "truncated", "bag_penalties"}


@pytest.mark.parametrize(
    "rules, episode, reward",
    [("standard", "game", "hand_points"), ("cutthroat3", "game", "win_loss"), ("crazy", "game", "hand_points"),
     ("two_player", "hand", "win_loss"), ("suicide", "hand", "hand_points")],
)  # fmt: skip
def test_every_step_pays_the_rewards_of_the_core_game(rules, episode, reward):
    game_rules = preset(rules).replace(max_hands=8, target_score=100) if episode == "game" else preset(rules)
    env = BatchEnv(TABLES, rules=game_rules, episode=episode, reward=reward, backend="torch", seed=4)
    _, mask, _ = env.reset()
    engine, scheme = env.games, make_reward(reward)

    def new_game(t):
        dealer = int(engine.dealer[t])
        return Game(game_rules, np.random.default_rng(0), dealer=dealer, deals=EngineDeals(engine, t))

    games = [new_game(t) for t in range(TABLES)]
    pick = np.random.default_rng(3)
    episodes = paid = 0
    while episodes < 2 * TABLES:
        actions = []
        for t, game in enumerate(games):
            assert (mask[t].numpy().astype(bool) == bits(game.hand.legal_mask())).all()
            actions.append(int(pick.choice(game.hand.legal_actions())))
        _, mask, to_act, rewards, dones, _ = env.step(torch.tensor(actions), observe=False)
        for t, game in enumerate(games):
            result = game.apply(actions[t])
            over = result is not None and (game.over or episode == "hand")
            want = [0.0] * game_rules.num_players
            if result is not None:
                winner = None
                if over:
                    winner = (-1 if game.winner is None else game.winner) if episode == "game" else None
                    if episode == "hand":
                        from spades_env.rewards import hand_winner_one

                        winner = hand_winner_one(list(result.points))
                want = hand_rewards_one(
                    scheme, game_rules.hand_rules(result.hand_index), game_rules, result.points, winner
                )
                paid += any(want)
            assert np.allclose(rewards[t].numpy(), want, atol=1e-6), (t, rewards[t], want)
            assert bool(dones[t]) == over
            if over:
                episodes += 1
                games[t] = new_game(t)
    assert paid


def test_bad_actions_are_refused_before_any_table_changes():
    env = BatchEnv(TABLES, backend="torch", seed=1)
    _, mask, _ = env.reset()
    before = (mask.clone(), env.games.hands.hands.clone(), env.games.hands.cur.clone())
    legal = torch.multinomial(mask.float(), 1).squeeze(1)
    illegal = legal.clone()
    illegal[3] = int((mask[3] == 0).nonzero()[0, 0])
    for bad, error, words in [
        (legal[:3], ValueError, "shape"),
        (legal.float(), ValueError, "integers"),
        (torch.full((TABLES,), 95), IllegalActionError, "not an action id"),
        (illegal, IllegalActionError, "table 3: illegal action"),
    ]:
        with pytest.raises(error, match=words):
            env.step(bad)
        after = (env._legal.to(torch.int8), env.games.hands.hands, env.games.hands.cur)
        assert all(torch.equal(x, y) for x, y in zip(before, after))
    env.step(legal)  # and it plays on


def test_backends_are_checked():
    with pytest.raises(ValueError, match="backend must be one of"):
        BatchEnv(2, backend="jax")
    with pytest.raises(ValueError, match="needs backend='torch'"):
        BatchEnv(2, device="cuda")
    with pytest.raises(ValueError, match="packed"):
        BatchEnv(2, backend="torch", obs_format="packed")
    fast = BatchEnv(2, backend="torch", check_actions=False)
    assert type(fast).__name__ == "TorchBatchEnv" and not fast.check_actions
    for seats, words in (
        (torch.tensor([0]), "shape"),
        (torch.tensor([0.0, 1.0]), "integers"),
        (torch.tensor([0, 4]), "0..3"),
    ):
        with pytest.raises(ValueError, match=words):
            fast.observe(seats)
    assert torch.equal(fast.action_masks(), fast.reset()[1])


class Recording(MaskedGames):
    """The torch engine keeping what it deals: each table's episodes as (first dealer, the hands' deals), a deal
    as card ids per seat (two players: the stock, top first), as the AEC env's reset takes them."""

    def reset(self, num_tables):
        super().reset(num_tables)
        self.episodes = [[] for _ in range(num_tables)]
        self.current = [(int(self.first_dealer[t]), [self._dealt(t)]) for t in range(num_tables)]

    def _dealt(self, t):
        if self._stocks:
            return self.form.numpy(self.hands.stock)[t].tolist()
        return [cards_of(int(board)) for board in self.form.numpy(self.hands.hands)[t]]

    def step(self, actions):
        out = super().step(actions)
        over, done = self.form.numpy(out.hand_over), self.form.numpy(out.done)
        for t in np.flatnonzero(over):
            if done[t]:
                self.episodes[t].append(self.current[t])
                self.current[t] = (int(self.first_dealer[t]), [])
            self.current[t][1].append(self._dealt(t))
        return out


def torch_tables(rules, seed, episode="game"):
    """A torch ``BatchEnv`` on the recording engine (the same seed deals the same hands)."""
    env = BatchEnv(TABLES, rules=rules, episode=episode, backend="torch", seed=seed)
    env.games = Recording(rules, env.games.ops, episode=episode, seed=env._seed)
    return env


def random_legal(pick, mask):
    return torch.tensor([pick.choice(np.flatnonzero(row)) for row in mask.numpy()])


# The default suite's presets meet each special phase and rule family (test_masked.DEFAULT_PRESETS; every decision
# of every preset's hands is the core's there, on torch too); every preset runs with -m slow.
@pytest.mark.parametrize(
    "name", [pytest.param(n, marks=() if n in DEFAULT_PRESETS else pytest.mark.slow) for n in sorted(PRESETS)]
)
def test_the_torch_engine_plays_as_the_scalar_reference_decision_by_decision(name):
    """Lockstep with the core's HandState through one AEC env per table, dealt the hands the engine dealt (a first
    pass records them; the second replays the same seed and actions): every mask, seat to act, observation (any
    seat's too), full-information state, reward, hand result and episode end is the AEC env's."""
    rules, steps = preset(name).replace(max_hands=6, target_score=150), 400
    recorder = torch_tables(rules, len(name))
    _, mask, _ = recorder.reset()
    pick = np.random.default_rng(0)
    for _ in range(steps):
        _, mask, *_ = recorder.step(random_legal(pick, mask))
    episodes = [done + [open_] for done, open_ in zip(recorder.games.episodes, recorder.games.current)]
    key = "stocks" if rules.num_players == 2 else "deals"
    aecs = [spades_env.raw_env(rules=rules, episode="game", info_format="full") for _ in range(TABLES)]
    agents = [f"player_{s}" for s in range(rules.num_players)]

    def start(t):
        dealer, deals = episodes[t].pop(0)
        aecs[t].reset(options={key: deals, "dealer": dealer})

    for t in range(TABLES):
        start(t)
    env = torch_tables(rules, len(name))
    obs, mask, to_act = env.reset()
    pick, seats = np.random.default_rng(0), np.random.default_rng(1)
    dones = 0
    for step in range(steps):
        for t, aec in enumerate(aecs):
            agent = aec.agent_selection
            assert agents[int(to_act[t])] == agent, (t, step)
            view = aec.observe(agent)
            assert (mask[t].numpy() == view["action_mask"]).all(), (t, step)
            assert (obs[t].numpy() == view["observation"]).all(), (t, step)
        if step % 4 == 0:  # now and then, another seat's observation and the full-information state
            other = torch.tensor(seats.integers(rules.num_players, size=TABLES))
            theirs, state = env.observe(other).numpy(), env.state().numpy()
            for t, aec in enumerate(aecs):
                assert (theirs[t] == aec.observe(agents[int(other[t])])["observation"]).all(), (t, step)
                assert (state[t] == aec.state()).all(), (t, step)
        actions = random_legal(pick, mask)
        obs, mask, to_act, rewards, done, info = env.step(actions)
        for t, aec in enumerate(aecs):
            aec.step(int(actions[t]))
            agent = aec.agent_selection
            assert np.allclose(rewards[t].numpy(), [aec.rewards[a] for a in agents], atol=1e-6), (t, step)
            ended = "hand_result" in aec.infos[agent]
            assert bool(info["hand_over"][t]) == ended, (t, step)
            if ended:
                result = aec.game.results[-1]
                assert info["points"][t].tolist() == list(result.points), (t, step)
                assert info["scores"][t].tolist() == list(aec.game.scores), (t, step)
                assert info["bags"][t].tolist() == list(aec.game.bags), (t, step)
                assert info["bag_penalties"][t].tolist() == [s.bag_penalties for s in result.score.sides]
            over = aec.terminations[agent] or aec.truncations[agent]
            assert bool(done[t]) == over, (t, step)
            if over:
                dones += 1
                assert int(info["winner"][t]) == (-1 if aec.game.winner is None else aec.game.winner), (t, step)
                assert bool(info["truncated"][t]) == aec.truncations[agent], (t, step)
                start(t)
    assert dones >= TABLES  # episodes ended and started again in lockstep


def test_the_throughput_benchmark_measures_the_torch_backend(tmp_path, capsys, monkeypatch):
    benchmarks = Path(__file__).parents[2] / "benchmarks"
    monkeypatch.syspath_prepend(str(benchmarks))  # the script imports its neighbour aec_throughput
    script = runpy.run_path(str(benchmarks / "batch_throughput.py"))
    out = tmp_path / "figures.json"
    argv = ["--backend", "torch", "--sizes", "16", "--seconds", "0.05", "--warmup", "0", "--profile"]
    script["main"](argv + ["--json", str(out)])
    figures = json.loads(out.read_text())
    assert figures["backend"] == "torch" and figures["rows"][0]["raw"] > 0 and figures["rows"][0]["obs_mask"] > 0
    assert figures["rows"][0]["packed_mask"] is None and "device kernels" in capsys.readouterr().out


def test_seeds_repeat_and_no_seed_draws_one():
    first, second = (BatchEnv(4, backend="torch", seed=11) for _ in range(2))
    assert torch.equal(first.games.hands.hands, second.games.hands.hands)
    assert torch.equal(first.reset(seed=3)[0], second.reset(seed=3)[0])
    assert BatchEnv(4, backend="torch", seed=None)._seed != BatchEnv(4, backend="torch", seed=None)._seed


@pytest.mark.parametrize("rules", ["standard", "two_player", "crazy"])
def test_tables_in_progress_pickle_and_go_on_identically(rules):
    env = BatchEnv(TABLES, rules=rules, backend="torch", seed=6)
    _, mask, _ = env.reset()
    pick = torch.Generator().manual_seed(1)
    for _ in range(40):
        _, mask, *_ = env.step(torch.multinomial(mask.float(), 1, generator=pick).squeeze(1))
    copy = pickle.loads(pickle.dumps(env))
    for _ in range(150):  # hands end and tables deal again: the generator's state came along
        actions = torch.multinomial(mask.float(), 1, generator=pick).squeeze(1)
        mine, theirs = env.step(actions), copy.step(actions)
        for a, b in zip(mine[:5], theirs[:5]):
            assert torch.equal(a, b)
        mask = mine[1]
