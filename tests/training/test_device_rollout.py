"""Training on the torch batch engine (``backend: torch``, :mod:`training.device_rollout`), on the CPU: the hands'
rewards are the numpy path's, every learner decision is trained on once with GAE as the numpy path computes it,
runs are reproducible and resume bit for bit, and options that need the host's engine are refused by name."""

from __future__ import annotations

import dataclasses
import json
import pickle
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import torch

from spades_env.core.rules import preset
from spades_env.rewards import BagLedger
from training import train as train_module
from training.config import CRITIC_INPUTS, from_mapping, load_config
from training.device_rollout import DeviceRollout, collect_on_device
from training.learner import build_learner
from training.mixture import table_presets
from training.ppo import gae_advantages

REPO = Path(__file__).resolve().parents[2]
SMOKE = str(REPO / "configs" / "train" / "smoke.yaml")
ON_TORCH = ["--backend", "torch", "--rollout-workers", "0"]


def _config(**changes):
    base = dataclasses.replace(load_config(SMOKE), backend="torch", rollout_workers=0, num_envs=24)
    return dataclasses.replace(base, **changes).validate()


def _tables(config, rules="standard", pool=0):
    learner = build_learner(config, torch.device("cpu"))
    rules = preset(rules) if isinstance(rules, str) else rules
    tables = DeviceRollout(config, rules, np.random.default_rng(5), torch.device("cpu"))
    tables.start(pool)
    return learner, tables


@pytest.mark.parametrize(
    "rules, rewards",
    [
        ("standard", {}),
        ("cutthroat", {}),
        ("two_player", {}),
        ("mirror", {}),
        # short games (a low target, few hands): some are won, and paid, within the steps
        (preset("cutthroat").replace(target_score=20, max_hands=4), {"reward_others": "best", "win_reward": 1.0}),
        (preset("standard").replace(target_score=100, max_hands=3), {"win_reward": 0.5}),
    ],
    ids=["standard", "cutthroat", "two_player", "mirror", "cutthroat-best-win", "standard-win"],
)
def test_hand_rewards_are_the_numpy_ledger_s_hand_by_hand(rules, rewards):
    config = _config(selfplay_fraction=1.0, heuristic_fraction=0.0, random_fraction=0.0, **rewards)
    _, tables = _tables(config, rules)
    (engine,) = tables.engines
    seen = {}
    play = engine.env.step

    def spy(actions):  # the engine's outcome of the step, for the numpy ledger
        out = play(actions)
        seen["info"] = out[5]
        return out

    engine.env.step = spy
    ledger = BagLedger(engine.rules, config.num_envs)
    pick = torch.Generator().manual_seed(0)
    paid = games = 0
    for _ in range(400):
        actions = torch.multinomial(tables.mask.float(), 1, generator=pick).squeeze(1)
        rewards, over, dones = tables.step(actions)
        host = {key: value.numpy() for key, value in seen["info"].items()}
        ended, expected = ledger.hand_rewards(
            host, config.reward_scale, config.bag_cost, config.reward_others, config.win_reward
        )
        ledger.new_games(host["done"])
        seats = engine.rules.num_players
        np.testing.assert_allclose(rewards[torch.as_tensor(ended), :seats].numpy(), expected, rtol=1e-5, atol=1e-6)
        assert not rewards[~over].any() and not rewards[:, seats:].any()
        assert (over.numpy() == host["hand_over"]).all() and (dones.numpy() == host["done"]).all()
        paid += len(ended)
        games += int((host["winner"] >= 0).sum())  # games won (a truncated game pays no win_reward)
    assert paid > config.num_envs  # several hands at every table
    assert games or not config.win_reward  # a won game's end was paid


def _links(batch):
    """Each decision's successor in the batch (the same table and seat's next decision) and the hand ends."""
    order = list(zip(batch["table"].tolist(), batch["seat"].tolist()))
    following, nxt = {}, np.full(len(order), -1)
    for i in range(len(order) - 1, -1, -1):
        nxt[i] = following.get(order[i], -1)
        following[order[i]] = i
    return nxt


@pytest.mark.parametrize(
    "rules, critic_input", [("standard", "position"), ("two_player", "state"), ("cutthroat3", "observation")]
)
def test_every_learner_decision_is_trained_on_once_with_the_numpy_path_s_gae(rules, critic_input):
    config = _config(rollout_steps=40, critic_input=critic_input)  # hands cross the rollouts' ends: the carry too
    learner, tables = _tables(config, rules, pool=1)
    pool = [{k: v.clone() for k, v in learner.policy.state_dict().items()}]
    hands = checked = 0
    for _ in range(5):
        batch, rewards = collect_on_device(tables, learner.policy, learner.critic, learner.snapshots, pool)
        hands += len(rewards[rules])
        if batch is None:  # no hand ended yet (a standard hand is 56 decisions)
            continue
        checked += 1
        assert batch["critic"].shape == (len(batch["action"]), CRITIC_INPUTS[critic_input].size)
        with torch.no_grad():  # the values are the critic's of the inputs kept with the decisions
            torch.testing.assert_close(learner.critic(batch["critic"]), batch["value"])
        nxt = _links(batch)
        done = nxt < 0  # a decision without a successor in the batch ends its seat's hand: its hand is over
        value = batch["value"].numpy()
        reward = np.where(done, (batch["advantage"] + batch["value"]).numpy(), 0.0)  # paid at a hand's end only
        expected = gae_advantages(reward, value, done, nxt, np.arange(len(nxt)), config.gamma, config.gae_lambda)
        np.testing.assert_allclose(batch["advantage"].numpy(), expected, rtol=1e-4, atol=1e-5)
        np.testing.assert_allclose(batch["return"].numpy(), expected + value, rtol=1e-4, atol=1e-5)
    assert hands > config.num_envs and checked >= 3


@pytest.mark.parametrize("rules", ["standard", "cutthroat"])
def test_each_hand_pays_seat_0_s_last_decision_of_it_its_reward(rules):
    config = _config(selfplay_fraction=1.0, heuristic_fraction=0.0, random_fraction=0.0, rollout_steps=30)
    learner, tables = _tables(config, rules)
    for _ in range(5):
        batch, rewards = collect_on_device(tables, learner.policy, learner.critic, learner.snapshots, [])
        if batch is None:
            assert not rewards[rules]
            continue
        ends = (_links(batch) < 0) & (batch["seat"] == 0).numpy()
        paid = (batch["advantage"] + batch["value"]).numpy()[ends]  # at a hand's end, advantage = reward - value
        # the hands that ended in this rollout are the batch's: seat 0's rewards of them, as the tables paid them
        assert ends.sum() == len(rewards[rules]) > 0
        assert paid.sum() == pytest.approx(sum(rewards[rules]), abs=1e-3)


def test_several_rollouts_leave_no_decision_behind():
    config = _config(selfplay_fraction=1.0, heuristic_fraction=0.0, random_fraction=0.0, rollout_steps=25)
    learner, tables = _tables(config)
    learner_steps = trained = 0
    for _ in range(6):
        batch, _ = collect_on_device(tables, learner.policy, learner.critic, learner.snapshots, [])
        trained += 0 if batch is None else len(batch["action"])
        learner_steps += config.num_envs * config.rollout_steps  # self-play: every decision is the learner's
        # what is kept for the next rollout is the unfinished hands' decisions only
        assert tables.store.size < config.num_envs * 80
    assert trained + tables.store.size == learner_steps


def test_run_on_torch_is_reproducible_and_resumes_bit_identically(tmp_path):
    args = ["--config", SMOKE, *ON_TORCH, "--no-final-eval", "--total-decisions", "4000"]
    whole = train_module.train([*args, "--runs-dir", str(tmp_path / "whole")])
    train_module.train([*args, "--runs-dir", str(tmp_path / "split"), "--max-updates", "2"])
    resumed = train_module.train([*args, "--runs-dir", str(tmp_path / "split"), "--resume", "--max-updates", "0"])
    assert whole["counters"]["update"] == resumed["counters"]["update"] >= 3
    assert whole["counters"]["learner_decisions"] == resumed["counters"]["learner_decisions"]
    weights = [torch.load(Path(s["run_dir"]) / "policy.pt", weights_only=True)["state_dict"] for s in (whole, resumed)]
    for other in weights[1:]:
        assert all(torch.equal(weights[0][k], other[k]) for k in weights[0])


def test_a_mixture_on_the_device_gives_each_preset_its_tables_and_rewards():
    config = _config(mixture=["standard:2", "cutthroat", "two_player"], num_envs=16, rollout_steps=60)
    learner, tables = _tables(config)
    assert [engine.rules.name for engine in tables.engines] == ["standard", "cutthroat", "two_player"]
    assert tables.bounds == [0, 8, 12, 16]
    np.testing.assert_array_equal(tables.preset_of.numpy(), table_presets(config))
    hands = {name: 0 for name in tables.names}
    for _ in range(4):
        batch, rewards = collect_on_device(tables, learner.policy, learner.critic, learner.snapshots, [])
        for name, values in rewards.items():
            hands[name] += len(values)
        if batch is not None:  # two players' seats 2 and 3 never act
            two = (batch["table"] >= 12).numpy()
            assert (batch["seat"].numpy()[two] < 2).all()
    assert all(count > 0 for count in hands.values()), hands


def test_device_tables_pickle_and_go_on_as_before():
    config = _config()
    learner, tables = _tables(config)
    collect_on_device(tables, learner.policy, learner.critic, learner.snapshots, [])
    copy = pickle.loads(pickle.dumps(tables))
    torch.manual_seed(0)
    a, _ = collect_on_device(tables, learner.policy, learner.critic, learner.snapshots, [])
    b, _ = collect_on_device(copy, learner.policy, learner.critic, learner.snapshots, [])
    for key in a:
        assert torch.equal(a[key], b[key]), key


@pytest.mark.parametrize(
    "changes, words",
    [
        ({"prior_weight": 1.0}, "'backend: torch' needs 'prior_weight'"),
        ({"rollout_workers": 1}, "needs 'rollout_workers': 0"),
        ({"backend": "jax"}, "'backend' must be one of"),
    ],
)
def test_options_that_need_the_host_engine_are_refused_by_name(changes, words):
    data = {"backend": "torch", "rollout_workers": 0, **changes}
    with pytest.raises(ValueError, match=words):
        from_mapping(data)


def test_training_throughput_benchmark_runs_every_backend_and_worker_count(tmp_path):
    out = tmp_path / "rates.json"
    command = [
        sys.executable,
        str(REPO / "benchmarks" / "training_throughput.py"),
        "--config",
        SMOKE,
        "--updates",
        "1",
        "--rounds",
        "1",
        "--backend",
        "torch",
        "--rollout-workers",
        "2",
        "--json",
        str(out),
    ]
    subprocess.run(command, check=True, capture_output=True, cwd=REPO, timeout=600)
    rates = json.loads(out.read_text())
    for name in ("old", "new", "new_in_process", "new_torch", "new_workers_2"):
        assert rates[name]["decisions"] > 0 and rates[name]["decisions_per_second"] > 0, name
    assert rates["ratio_new_torch"] == rates["new_torch"]["decisions_per_second"] / rates["old"]["decisions_per_second"]


def test_a_mixture_trains_on_torch_with_each_preset_s_advantages_normalized(tmp_path):
    mixture = ["--mixture", "standard:2,cutthroat,two_player", "--advantage-norm", "preset"]
    summary = train_module.train(
        ["--config", SMOKE, *ON_TORCH, *mixture, "--no-final-eval", "--eval-every", "0", "--runs-dir", str(tmp_path)]
    )
    assert summary["counters"]["update"] >= 3
    header = (Path(summary["run_dir"]) / "metrics.csv").read_text().splitlines()[0].split(",")
    for name in ("standard", "cutthroat", "two_player"):
        assert f"mean_hand_reward_{name}" in header
