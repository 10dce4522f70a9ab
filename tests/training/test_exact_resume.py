"""A resumed run is bit-identical to an uninterrupted one; a minibatch of one decision does not break training."""

from __future__ import annotations

import csv
import dataclasses
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
import torch

from training import train as train_module

REPO = Path(__file__).resolve().parents[2]
SMOKE = str(REPO / "configs" / "train" / "smoke.yaml")
SHORT = ["--config", SMOKE, "--total-decisions", "4000", "--no-final-eval"]  # 3 updates, an evaluation at update 2


def _weights(summary: dict) -> dict[str, torch.Tensor]:
    return torch.load(Path(summary["run_dir"]) / "policy.pt", weights_only=True)["state_dict"]


@pytest.mark.slow  # 21 s; the default suite keeps the run killed at a random update, resumed to the same weights
def test_resumed_run_is_bit_identical_to_an_uninterrupted_one(tmp_path):
    whole = train_module.train([*SHORT, "--runs-dir", str(tmp_path / "whole")])
    train_module.train([*SHORT, "--runs-dir", str(tmp_path / "split"), "--max-updates", "1"])
    resumed = train_module.train([*SHORT, "--runs-dir", str(tmp_path / "split"), "--resume", "--max-updates", "0"])
    assert resumed["counters"]["update"] == whole["counters"]["update"] >= 3
    assert resumed["counters"]["learner_decisions"] == whole["counters"]["learner_decisions"]
    a, b = _weights(whole), _weights(resumed)
    assert all(torch.equal(a[k], b[k]) for k in a)


def test_minibatches_of_one_decision_train_without_nan(tmp_path):
    summary = train_module.train(
        [
            "--config",
            SMOKE,
            "--runs-dir",
            str(tmp_path),
            "--num-envs",
            "2",
            "--minibatch-size",
            "1",
            "--update-epochs",
            "1",
            "--bc-decisions",
            "0",
            "--max-updates",
            "1",
            "--eval-every",
            "0",
            "--hidden",
            "16,16",
            "--no-final-eval",
        ]
    )
    assert summary["counters"]["update"] == 1
    assert all(torch.isfinite(w).all() for w in _weights(summary).values())


def _metric_rows(path: Path) -> int:
    if not path.exists():
        return 0
    with open(path) as fh:
        return len(list(csv.DictReader(fh)))


def test_run_killed_at_a_random_update_resumes_to_the_same_weights(tmp_path):
    """kill -9 at a randomly drawn update (wherever the process is: updating, checkpointing, logging), resume,
    and the final weights equal an uninterrupted run's."""
    args = ["--config", SMOKE, "--total-decisions", "6000", "--no-final-eval"]
    whole = train_module.train([*args, "--runs-dir", str(tmp_path / "whole")])
    kill_after = int(np.random.default_rng(os.getpid()).integers(1, whole["counters"]["update"]))
    runs = tmp_path / "killed"
    proc = subprocess.Popen(
        [sys.executable, "-m", "training.train", *args, "--runs-dir", str(runs)],
        cwd=REPO,
        env={**os.environ, "PYTHONPATH": str(REPO)},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    metrics = runs / Path(whole["run_dir"]).name / "metrics.csv"
    deadline = time.monotonic() + 300
    try:
        while _metric_rows(metrics) < kill_after:
            assert proc.poll() is None, "the run ended before it could be killed"
            assert time.monotonic() < deadline, "the run made no progress"
            time.sleep(0.01)
        proc.send_signal(signal.SIGKILL)
        proc.wait()
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    resumed = train_module.train([*args, "--runs-dir", str(runs), "--resume"])
    assert resumed["counters"]["update"] == whole["counters"]["update"]
    assert resumed["counters"]["learner_decisions"] == whole["counters"]["learner_decisions"]
    a, b = _weights(whole), _weights(resumed)
    assert all(torch.equal(a[k], b[k]) for k in a), f"killed after update {kill_after}"


# The fields of TrainConfig when ADDED_FIELDS was last complete, besides those it lists: a field added since needs an
# ADDED_FIELDS entry (or to be resumable), else every older checkpoint is refused for a value it never had.
KNOWN_FIELDS = frozenset(
    "advantage_norm anneal_lr backend bag_cost bc_decisions bc_epochs bc_learning_rate checkpoint_every clip_coef "
    "critic_hidden critic_input device ent_coef eval_deals eval_every eval_opponents eval_workers exp_name "
    "final_eval_deals final_eval_games gae_lambda gamma heuristic_fraction hidden init_from learning_rate "
    "max_grad_norm max_updates minibatch_size mixture num_envs pool_size prior_on_bids prior_weight progress "
    "random_fraction ray_address ray_spares reward_scale rollout_backend rollout_steps rollout_workers rules runs_dir "
    "seed selfplay_fraction snapshot_every sparse_input target_kl threads time_limit_minutes total_decisions "
    "update_epochs vf_coef".split()
)


def test_every_field_added_since_has_the_value_older_checkpoints_trained_with():
    from training.checkpoint import ADDED_FIELDS, RESUMABLE_FIELDS
    from training.config import TrainConfig

    fields = {f.name for f in dataclasses.fields(TrainConfig)}
    unhandled = fields - KNOWN_FIELDS - set(ADDED_FIELDS) - set(RESUMABLE_FIELDS)
    assert not unhandled, f"add these fields to training.checkpoint.ADDED_FIELDS: {sorted(unhandled)}"
    assert set(ADDED_FIELDS) <= fields


def test_a_checkpoint_from_before_a_field_existed_fits_the_value_it_trained_with():
    from training.checkpoint import ADDED_FIELDS, config_conflicts
    from training.config import TrainConfig

    older = {k: v for k, v in TrainConfig().to_dict().items() if k not in ADDED_FIELDS}  # written before them
    as_trained = {"weight_grad": "float32", "card_scorer": 0}
    assert config_conflicts(older, TrainConfig(**as_trained)) == []
    assert config_conflicts(older, TrainConfig()) == [
        "weight_grad: 'float32' -> 'auto'",
        "card_scorer: 0 -> 64",
    ]  # named, not guessed
    assert config_conflicts(older, TrainConfig(**as_trained, bc_bid_weight=2.0)) == ["bc_bid_weight: 1.0 -> 2.0"]
    assert config_conflicts(TrainConfig().to_dict(), TrainConfig()) == []  # a new checkpoint keeps its own values
