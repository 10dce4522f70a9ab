"""Training on a mixture of presets (training.mixture): the config, the split of the tables, each preset's rewards,
one collect over every preset, per-preset metrics and evaluations, and an exact resume."""

from __future__ import annotations

import csv
from pathlib import Path

import numpy as np
import pytest
import torch

from spades_env.core.rules import preset
from spades_env.obs.encode import OBS_SIZE
from training import train as train_module
from training.config import TrainConfig, from_mapping, mixture_weights
from training.learner import build_learner
from training.mixture import table_counts, table_presets
from training.ppo import normalize_by_group
from training.rollout import Rollout, collect

REPO = Path(__file__).resolve().parents[2]
SMOKE = str(REPO / "configs" / "train" / "smoke.yaml")
MIX = "standard:2,cutthroat3,two_player"


def small_config(**changes) -> TrainConfig:
    base = dict(
        mixture=["standard:2", "cutthroat3", "two_player"],
        num_envs=8,
        rollout_steps=130,  # a hand of every preset ends (about 56 table steps)
        hidden=[16],
        critic_hidden=[16],
        card_scorer=0,
        bc_decisions=0,
    )
    base.update(changes)
    return from_mapping(base)


def test_mixture_entries_and_their_errors():
    assert mixture_weights(["standard:2", "cutthroat", "two_player:0.5"]) == {
        "standard": 2.0,
        "cutthroat": 1.0,
        "two_player": 0.5,
    }
    for bad, words in [
        (["nosuch"], "unknown preset 'nosuch'"),
        (["standard", "standard:2"], "listed twice"),
        (["standard:x"], "not a number"),
        (["standard:0"], "finite number > 0"),
        (["standard:nan"], "finite number > 0"),
        ([3], "strings"),
    ]:
        with pytest.raises(ValueError, match=words):
            mixture_weights(bad)


def test_a_config_gives_rules_or_a_mixture_not_both():
    with pytest.raises(ValueError, match="either 'rules'"):
        from_mapping({"rules": "jokers", "mixture": ["standard"]})
    config = from_mapping({"mixture": ["standard", "cutthroat"]})
    assert config.run_name == "ppo-mixture-seed1"
    assert config.presets == {"standard": 1.0, "cutthroat": 1.0}
    assert TrainConfig().presets == {"standard": 1.0}


def test_the_mixture_comes_from_the_command_line():
    config, _ = train_module.configure(["--mixture", MIX])
    assert config.presets == {"standard": 2.0, "cutthroat3": 1.0, "two_player": 1.0}


@pytest.mark.parametrize(
    ("weights", "tables", "expected"),
    [
        ({"a": 1, "b": 1}, 256, {"a": 128, "b": 128}),
        ({"a": 2, "b": 1, "c": 1}, 8, {"a": 4, "b": 2, "c": 2}),
        ({"a": 100, "b": 1}, 3, {"a": 2, "b": 1}),  # every preset keeps a table
        ({"a": 1, "b": 1, "c": 1}, 10, {"a": 4, "b": 3, "c": 3}),  # a tie goes to the earlier preset
    ],
)
def test_tables_are_split_by_weight(weights, tables, expected):
    counts = table_counts(weights, tables)
    assert counts == expected and sum(counts.values()) == tables


def test_fewer_tables_than_presets_is_an_error():
    with pytest.raises(ValueError, match="at least as many tables"):
        table_counts({"a": 1, "b": 1, "c": 1}, 2)


def test_a_rollout_holds_one_part_per_preset_of_a_mixture_and_one_otherwise():
    rng = np.random.default_rng(0)
    single = Rollout(TrainConfig(num_envs=4), preset("jokers"), rng)
    assert [part.rules.name for part in single.parts] == ["jokers"] and single.preset_names == ["jokers"]
    mixed = Rollout(small_config(), preset("standard"), rng)
    assert [part.rules.name for part in mixed.parts] == ["standard", "cutthroat3", "two_player"]
    assert [part.env.num_envs for part in mixed.parts] == [4, 2, 2]


def test_one_collect_plays_every_preset_with_its_own_rewards():
    config = small_config()
    rollout = Rollout(config, preset("standard"), np.random.default_rng(3))
    assert rollout.preset_names == ["standard", "cutthroat3", "two_player"]
    torch.manual_seed(0)
    learner = build_learner(config, torch.device("cpu"))
    rollout.start(0, np.random.default_rng(4))
    # each table's observation carries its own preset: the player count in the rules block differs
    assert rollout.obs.shape == (8, OBS_SIZE)
    seen: dict[str, list[np.ndarray]] = {name: [] for name in rollout.preset_names}
    original = rollout.step

    def step(store, actions):
        legal = rollout.mask[np.arange(len(actions)), actions]
        assert legal.all(), "an illegal action reached a table"
        dones, rewards = original(store, actions)
        for i, name in enumerate(rollout.names):
            seen[name].extend(rewards[rollout._reward_presets == i])
        return dones, rewards

    rollout.step = step
    batch, hand_rewards = collect(
        rollout, learner.policy, learner.critic, learner.snapshots, [], np.random.default_rng(5), torch.device("cpu")
    )
    assert set(hand_rewards) == {"standard", "cutthroat3", "two_player"}
    assert batch is not None and len(batch["action"]) > 0
    assert {int(t) for t in batch["table"]} >= {0, 4, 6}  # decisions from every preset's tables
    standard = np.array(seen["standard"])
    assert len(standard) and np.allclose(standard[:, 0], standard[:, 2]) and np.allclose(standard[:, 1], standard[:, 3])
    three = np.array(seen["cutthroat3"])
    assert len(three) and np.allclose(three[:, 3], 0)  # no fourth seat
    assert not np.allclose(three[:, 0], three[:, 1])  # individual rewards
    two = np.array(seen["two_player"])
    assert len(two) and np.allclose(two[:, 2:], 0) and np.allclose(two[:, 0], -two[:, 1])
    assert hand_rewards["two_player"] == two[:, 0].tolist()


def _short_mixture(runs: Path, *extra: str) -> list[str]:
    return [
        "--config",
        SMOKE,
        "--mixture",
        MIX,
        "--num-envs",
        "8",
        "--total-decisions",
        "3000",
        "--eval-every",
        "2",
        "--runs-dir",
        str(runs),
        "--no-final-eval",
        *extra,
    ]


def test_a_mixture_run_logs_and_evaluates_every_preset(tmp_path, capsys):
    summary = train_module.train(_short_mixture(tmp_path))
    folder = Path(summary["run_dir"])
    assert folder.name == "smoke-mixture-seed1"
    with open(folder / "metrics.csv") as fh:
        rows = list(csv.DictReader(fh))
    header = list(rows[0])
    for name in ("standard", "cutthroat3", "two_player"):
        assert f"mean_hand_reward_{name}" in header
        for opponent in ("random", "heuristic"):
            assert f"eval_{name}_{opponent}_ppd" in header
    evaluated = [r for r in rows if r["eval_two_player_random_ppd"]]
    assert evaluated and all(r["eval_standard_heuristic_ppd"] for r in evaluated)
    out = capsys.readouterr().out
    assert "ppo vs random (two_player)" in out and "ppo vs heuristic (cutthroat3)" in out
    assert (folder / "learning_curve.png").stat().st_size > 0


def test_a_resumed_mixture_run_is_bit_identical(tmp_path):
    whole = train_module.train(_short_mixture(tmp_path / "whole", "--eval-every", "0"))
    train_module.train(_short_mixture(tmp_path / "split", "--eval-every", "0", "--max-updates", "1"))
    resumed = train_module.train(
        _short_mixture(tmp_path / "split", "--eval-every", "0", "--resume", "--max-updates", "0")
    )
    assert resumed["counters"]["update"] == whole["counters"]["update"] >= 2
    a = torch.load(Path(whole["run_dir"]) / "policy.pt", weights_only=True)["state_dict"]
    b = torch.load(Path(resumed["run_dir"]) / "policy.pt", weights_only=True)["state_dict"]
    assert all(torch.equal(a[k], b[k]) for k in a)


def test_init_from_the_release_widens_it_to_todays_observation_and_actions():
    """The release (spades_obs_v1, 88 actions) warm-starts a network of today's layout: every earlier action's logit
    is the release's on any observation, the drawing actions start at logit 0."""
    from spades_env.agents.registry import POLICY_DIR
    from spades_env.nn import load_policy
    from spades_env.obs.layout import OBSERVATION
    from training.checkpoint import init_weights

    release = str(POLICY_DIR / "ppo_standard.pt")  # the standard-only release of 2026-12-03
    source, _ = load_policy(release)
    assert source.input_columns is not None and source.num_actions == 88
    config = from_mapping({"hidden": [256, 256], "card_scorer": 64, "mixture": ["standard", "two_player"]})
    learner = build_learner(config, torch.device("cpu"))
    init_weights(release, learner.policy, learner.critic)
    obs = torch.rand(5, OBSERVATION.size)
    with torch.no_grad():
        old = source(obs)
        new = learner.policy(obs)
    assert new.shape == (5, 90)
    assert torch.allclose(new[:, :88], old[:, :88], atol=1e-5)  # (the source pads its logits for actions 88, 89)
    assert torch.equal(new[:, 88:], torch.zeros(5, 2))


def test_normalize_by_group_gives_each_group_zero_mean_and_unit_spread():
    rng = np.random.default_rng(0)
    groups = np.array([0] * 50 + [1] * 30 + [2] + [3] * 4)
    adv = np.concatenate([rng.normal(5, 40, 50), rng.normal(-1, 0.5, 30), [7.0], [2.0] * 4])
    out = normalize_by_group(adv, groups)
    for group in (0, 1):
        part = out[groups == group]
        assert abs(part.mean()) < 1e-5 and part.std(ddof=1) == pytest.approx(1.0, abs=1e-5)
    assert (out[groups == 2] == 0).all() and (out[groups == 3] == 0).all()  # one decision; no spread
    # the order within a group is kept: a per-group affine map with a positive slope
    assert (np.argsort(out[groups == 0]) == np.argsort(adv[groups == 0])).all()


def test_advantage_norm_preset_scales_each_presets_advantages_before_the_update(tmp_path, monkeypatch):
    with pytest.raises(ValueError, match="'advantage_norm' must be one of"):
        from_mapping({"advantage_norm": "minibatch"})
    seen = []
    real = train_module.ppo_update

    def spy(policy, critic, optimizer, params, batch, config, rng, device):
        seen.append((config.advantage_norm, batch["advantage"].copy(), batch["table"].copy()))
        return real(policy, critic, optimizer, params, batch, config, rng, device)

    monkeypatch.setattr(train_module, "ppo_update", spy)
    runs = {}
    for norm in ("batch", "preset"):
        summary = train_module.train(
            _short_mixture(tmp_path / norm, "--eval-every", "0", "--max-updates", "2", "--advantage-norm", norm)
        )
        runs[norm] = torch.load(Path(summary["run_dir"]) / "policy.pt", weights_only=True)["state_dict"]
    presets = table_presets(small_config())
    by_norm = {}
    for norm, adv, tables in seen:
        groups = presets[tables]
        spreads = [adv[groups == g].std(ddof=1) for g in np.unique(groups)]
        by_norm.setdefault(norm, []).append(spreads)
    assert all(s == pytest.approx(1.0, abs=1e-4) for spreads in by_norm["preset"] for s in spreads)
    assert any(abs(s - 1.0) > 0.05 for spreads in by_norm["batch"] for s in spreads)  # the raw ones differ
    assert any(not torch.equal(runs["batch"][k], runs["preset"][k]) for k in runs["batch"])  # the outcome changes
