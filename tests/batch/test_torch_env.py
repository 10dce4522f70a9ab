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

from spades_env.batch import BatchEnv  # noqa: E402
from spades_env.batch.masked import MaskedGames  # noqa: E402
from spades_env.core import PRESETS, Game, IllegalActionError, preset  # noqa: E402
from spades_env.core.cards import mask_of  # noqa: E402
from spades_env.obs.encode import OBS_SIZE  # noqa: E402
from spades_env.rewards import hand_rewards_one, make_reward  # noqa: E402

from .test_masked import EngineDeals, bits  # noqa: E402

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


class Mirrored(MaskedGames):
    """The masked engine dealt the numpy engine's deals and first dealers (read after the numpy engine steps)."""

    def __init__(self, numpy_env, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.numpy_env = numpy_env

    def _first_dealers(self):
        return self.form.ints(self.numpy_env.first_dealer)

    def _deal(self, rid, dealer):
        env, n = self.numpy_env, self.n
        current = [env.episode_deals(t)[-1] for t in range(self.T)]
        if self._stocks:
            return self.form.zeros((self.T, n), "word"), self.form.ints(np.array(current))
        boards = np.array([[mask_of(hand) for hand in deal] for deal in current], dtype=np.uint64)
        return self.form.words(boards), None


@pytest.mark.parametrize("name", sorted(PRESETS))  # every preset in the default suite (CI): about 3 s each
def test_the_torch_engine_equals_the_numpy_engine_decision_by_decision(name):
    rules = preset(name).replace(max_hands=6, target_score=150)
    numpy_env = BatchEnv(TABLES, rules=rules, seed=len(name))
    torch_env = BatchEnv(TABLES, rules=rules, backend="torch")
    torch_env.games = Mirrored(numpy_env, rules, torch_env.games.ops)
    obs_n, mask_n, to_act_n = numpy_env.reset()
    obs_t, mask_t, to_act_t = torch_env.reset()
    pick = np.random.default_rng(0)
    dones = 0
    for _ in range(400):
        assert (mask_t.numpy() == mask_n).all() and (to_act_t.numpy() == to_act_n).all()
        assert (obs_t.numpy() == obs_n).all()
        other = (to_act_n + 1) % rules.num_players  # any seat's observation, not only the one to act
        assert (torch_env.observe(torch.tensor(other)).numpy() == numpy_env.observe(other)).all()
        assert (torch_env.state().numpy() == numpy_env.state()).all()  # the full-information state too
        actions = np.array([pick.choice(np.flatnonzero(row)) for row in mask_n])
        obs_n, mask_n, to_act_n, rewards_n, dones_n, info_n = numpy_env.step(actions)
        obs_t, mask_t, to_act_t, rewards_t, dones_t, info_t = torch_env.step(torch.tensor(actions))
        assert np.allclose(rewards_t.numpy(), rewards_n, atol=1e-6) and (dones_t.numpy() == dones_n).all()
        over = info_n["hand_over"]
        assert (info_t["hand_over"].numpy() == over).all()
        for key in ("points", "bags", "bag_penalties"):  # what training's rewards read
            assert (info_t[key].numpy()[over] == info_n[key][over]).all(), key
        dones += int(dones_n.sum())
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
