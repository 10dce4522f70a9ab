"""Training smoke test (imitation, rollouts, update, checkpoint, resume, evaluation) and config checks."""

from __future__ import annotations

import argparse
import csv
from pathlib import Path

import pytest
import torch

from spades_env import make_agent
from spades_env.nn import CheckpointError, load_policy
from training import train as train_module
from training.config import TrainConfig, add_arguments, from_mapping, load_config, overrides

REPO = Path(__file__).resolve().parents[2]
SMOKE = str(REPO / "configs" / "train" / "smoke.yaml")


def _rows(path: Path) -> list[dict[str, str]]:
    with open(path) as fh:
        return list(csv.DictReader(fh))


def test_smoke_run_trains_checkpoints_resumes_and_evaluates(tmp_path, capsys):
    runs = str(tmp_path / "runs")
    summary = train_module.train(["--config", SMOKE, "--runs-dir", runs])
    run_dir = Path(summary["run_dir"])
    assert run_dir.name == "smoke-standard-seed1"  # reproducible run name
    first = summary["counters"]
    assert first["learner_decisions"] >= 6000 and first["bc_done"]
    assert load_config(str(run_dir / "config.yaml")) == from_mapping({"runs_dir": runs}, base=load_config(SMOKE))
    rows = _rows(run_dir / "metrics.csv")
    assert len(rows) == first["update"]
    assert any(r["eval_random_ppd"] for r in rows) and any(r["eval_heuristic_ppd"] for r in rows)
    assert (run_dir / "learning_curve.png").stat().st_size > 0
    evaluation = summary["evaluation"]
    assert set(evaluation) == {"random", "heuristic"}
    assert evaluation["random"]["deals"]["n"] == 2

    # The policy file loads safely and plays through make_agent.
    policy, meta = load_policy(run_dir / "policy.pt")
    assert meta["update"] == first["update"]
    agent = make_agent(str(run_dir / "policy.pt"))
    assert agent.policy.hidden == (32, 32)

    # Resume: continues from the checkpoint with the same weights and counters, and trains further.
    ckpt = torch.load(run_dir / "checkpoints" / "last.pt", weights_only=True)
    assert ckpt["counters"]["update"] == first["update"]
    second = train_module.train(
        ["--config", SMOKE, "--runs-dir", runs, "--resume", "--total-decisions", "9000", "--no-final-eval"]
    )["counters"]
    out = capsys.readouterr().out
    assert f"resumed at update {first['update']}" in out
    assert "imitating" not in out.split("resumed at update")[1]  # imitation is not repeated
    assert second["update"] > first["update"] and second["learner_decisions"] >= 9000
    assert len(_rows(run_dir / "metrics.csv")) == second["update"]


def test_existing_run_folder_needs_resume_or_overwrite(tmp_path):
    runs = tmp_path / "runs"
    (runs / "smoke-standard-seed1").mkdir(parents=True)
    with pytest.raises(SystemExit, match="--resume"):
        train_module.train(["--config", SMOKE, "--runs-dir", str(runs)])


def test_resume_without_checkpoint_is_a_clear_error(tmp_path):
    with pytest.raises(SystemExit, match="no checkpoint"):
        train_module.train(["--config", SMOKE, "--runs-dir", str(tmp_path), "--resume"])


@pytest.mark.parametrize("content", [b"", b"not a checkpoint at all", b"PK\x03\x04garbage"])
def test_corrupt_checkpoint_gives_checkpoint_error(tmp_path, content):
    run_dir = tmp_path / "smoke-standard-seed1"
    (run_dir / "checkpoints").mkdir(parents=True)
    (run_dir / "checkpoints" / "last.pt").write_bytes(content)
    with pytest.raises(CheckpointError, match="last.pt"):
        train_module.train(["--config", SMOKE, "--runs-dir", str(tmp_path), "--resume"])


def test_checkpoint_of_another_network_size_gives_checkpoint_error(tmp_path):
    runs = str(tmp_path)
    train_module.train(["--config", SMOKE, "--runs-dir", runs, "--total-decisions", "1000", "--no-final-eval"])
    with pytest.raises(CheckpointError, match="does not fit"):
        train_module.train(["--config", SMOKE, "--runs-dir", runs, "--resume", "--hidden", "16,16"])


@pytest.mark.parametrize(
    "bad, message",
    [
        ({"learning_rat": 0.1}, "unknown train config key"),
        ({"num_envs": 0}, "num_envs"),
        ({"num_envs": "many"}, "num_envs"),
        ({"critic_input": "oracle"}, "critic_input"),
        ({"selfplay_fraction": 0.8, "heuristic_fraction": 0.5}, "sum to at most 1"),
        ({"selfplay_fraction": 0.7, "heuristic_fraction": 0.2, "random_fraction": 0.2}, "sum to at most 1"),
        ({"random_fraction": -0.1}, "random_fraction"),
        ({"hidden": []}, "hidden"),
        ({"anneal_lr": 1}, "anneal_lr"),
        ({"prior_weight": -1.0}, "prior_weight"),
        ({"max_updates": -1}, "max_updates"),
    ],
)
def test_bad_train_config_names_the_key(bad, message):
    with pytest.raises(ValueError, match=message):
        from_mapping(bad)


@pytest.mark.parametrize(
    ("word", "value"),
    [
        ("true", True),
        ("Yes", True),
        ("on", True),
        ("1", True),
        ("false", False),
        ("NO", False),
        ("off", False),
        ("0", False),
    ],
)
def test_switch_on_the_command_line_reads_true_and_false_words(word, value):
    parser = argparse.ArgumentParser()
    add_arguments(parser)
    assert overrides(parser.parse_args(["--sparse-input", word])) == {"sparse_input": value}


@pytest.mark.parametrize("word", ["ture", "flase", "", "2", "maybe"])
def test_switch_with_another_word_is_an_error_naming_it(word, capsys):
    parser = argparse.ArgumentParser()
    add_arguments(parser)
    with pytest.raises(SystemExit):
        parser.parse_args(["--anneal-lr", word])
    assert f"got {word!r}" in capsys.readouterr().err  # a typo must not silently mean false


def test_yaml_configs_load_and_default_yaml_is_the_embedded_default():
    for path in sorted((REPO / "configs" / "train").glob("*.yaml")):
        load_config(str(path))  # every shipped config is valid
    assert load_config(str(REPO / "configs" / "train" / "default.yaml")) == TrainConfig()


def test_export_policy_writes_a_small_float16_file_that_plays_like_the_source(tmp_path):
    from spades_env.nn import PolicyNet, save_policy
    from training.export_policy import main as export

    torch.manual_seed(0)
    source, target = tmp_path / "policy.pt", tmp_path / "ppo.pt"
    save_policy(source, PolicyNet((64, 64)), meta={"update": 3})
    assert (
        export([str(source), str(target), "--meta", "command=python -m training.train", "--meta", "minutes=12.5"]) == 0
    )
    assert target.stat().st_size < 0.6 * source.stat().st_size  # float16 weights
    raw = torch.load(target, weights_only=True)
    assert all(v.dtype == torch.float16 for v in raw["state_dict"].values() if v.is_floating_point())
    full, _ = load_policy(source)
    half, meta = load_policy(target)
    assert meta == {"update": 3, "command": "python -m training.train", "minutes": 12.5}
    x = torch.rand(256, full.obs_size)
    assert (full(x).argmax(-1) == half(x).argmax(-1)).float().mean() > 0.95


def test_residual_run_starts_from_a_checkpoint_and_stops_at_max_updates(tmp_path, capsys):
    runs = str(tmp_path)
    base = train_module.train(["--config", SMOKE, "--runs-dir", runs, "--total-decisions", "1000", "--no-final-eval"])
    ckpt = Path(base["run_dir"]) / "checkpoints" / "last.pt"
    summary = train_module.train(
        [
            "--config",
            SMOKE,
            "--runs-dir",
            runs,
            "--exp-name",
            "residual",
            "--init-from",
            str(ckpt),
            "--prior-weight",
            "3",
            "--max-updates",
            "2",
            "--no-final-eval",
        ]
    )
    out = capsys.readouterr().out
    assert f"initial weights from {ckpt}" in out
    assert "imitating" not in out.split("initial weights from")[1]  # the loaded weights replace the imitation
    assert "update limit of 2 reached" in out and summary["counters"]["update"] == 2
    policy, _ = load_policy(Path(summary["run_dir"]) / "policy.pt")
    assert policy.prior_weight == 3.0 and not policy.prior_on_bids
    # A policy file is a valid start too (policy weights only; the critic starts fresh).
    train_module.train(
        [
            "--config",
            SMOKE,
            "--runs-dir",
            runs,
            "--exp-name",
            "from-policy",
            "--init-from",
            str(Path(summary["run_dir"]) / "policy.pt"),
            "--max-updates",
            "1",
            "--no-final-eval",
        ]
    )


def test_init_from_a_file_of_another_kind_is_a_clear_error(tmp_path):
    bogus = tmp_path / "bogus.pt"
    torch.save({"format": "something else"}, bogus)
    with pytest.raises(CheckpointError, match="neither a policy file nor a training checkpoint"):
        train_module.train(["--config", SMOKE, "--runs-dir", str(tmp_path), "--init-from", str(bogus)])
    with pytest.raises(CheckpointError, match="no such checkpoint"):
        train_module.train(
            ["--config", SMOKE, "--runs-dir", str(tmp_path), "--init-from", str(tmp_path / "none.pt"), "--overwrite"]
        )
