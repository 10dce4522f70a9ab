"""Issue 30, item 15: every field of the training config has its range, checked when the config is built."""

from __future__ import annotations

import dataclasses
import math

import pytest

from training.config import RANGES, TrainConfig, from_mapping
from training.train import configure


def test_item15_every_numeric_field_has_a_range():
    numeric = {f.name for f in dataclasses.fields(TrainConfig) if f.type in ("int", "float", int, float)}
    assert numeric == set(RANGES), f"missing {sorted(numeric - set(RANGES))}, unknown {sorted(set(RANGES) - numeric)}"


# The 27 values the issue found accepted, and a few more: each refused, the field named.
BAD = [
    ("learning_rate", math.nan),
    ("learning_rate", math.inf),
    ("bc_learning_rate", math.nan),
    ("ent_coef", -0.01),
    ("vf_coef", -0.5),
    ("max_grad_norm", -1.0),
    ("max_grad_norm", 0.0),
    ("time_limit_minutes", -1.0),
    ("time_limit_minutes", math.inf),
    ("bc_decisions", -1),
    ("eval_every", -1),
    ("final_eval_deals", -1),
    ("final_eval_games", -1),
    ("gamma", 2.0),
    ("gamma", 0.0),
    ("gae_lambda", 1.5),
    ("clip_coef", math.nan),
    ("target_kl", -0.1),
    ("reward_scale", math.nan),
    ("win_reward", -1.0),
    ("win_reward", math.inf),
    ("expert_fraction", 0.0),
    ("expert_fraction", 1.5),
    ("expert_samples", 0),
    ("expert_samples", 5000),
    ("expert_coef", 0.0),
    ("reward_others", "max"),
    ("seed", -1),
    ("prior_weight", -1.0),
    ("bc_bid_weight", 0.0),
    ("bc_epochs", 0),
    ("selfplay_fraction", math.nan),
    ("learning_rate", 5.0),
    ("exp_name", ""),
    ("exp_name", "a/b"),
    ("runs_dir", ""),
    ("eval_opponents", ["bogus"]),
    ("eval_opponents", ["heuristic", ""]),
]


@pytest.mark.parametrize("name, value", BAD, ids=[f"{n}={v!r}" for n, v in BAD])
def test_item15_out_of_range_values_are_refused_naming_the_field(name, value):
    with pytest.raises(ValueError, match=f"'{name}'"):
        from_mapping({name: value})


def test_item15_the_command_line_names_a_bad_value_without_a_traceback(capsys):
    with pytest.raises(SystemExit) as exited:
        configure(["--learning-rate", "nan"])
    assert exited.value.code == 2
    err = capsys.readouterr().err
    assert "'learning_rate'" in err and "Traceback" not in err


def test_the_default_config_and_its_edges_are_accepted():
    TrainConfig().validate()
    from_mapping(
        {
            "gamma": 1.0,
            "ent_coef": 0.0,
            "time_limit_minutes": 0.0,
            "eval_every": 0,
            "target_kl": 0.0,
            "eval_opponents": ["random", "heuristic", "pimc"],
        }
    )


def test_item6_every_evaluation_opponent_keeps_its_metrics_columns(tmp_path):
    """Issue 30, item 6: eval_opponents: [pimc] (or a policy file) writes its eval_* columns to metrics.csv."""
    import csv

    from training.metrics import MetricsLog
    from training.train import eval_columns

    opponents = ["pimc", "runs/old/policy.pt"]
    report = {"deals": {"bag_adjusted_diff": {"mean": 3.5, "low": 1.0, "high": 6.0}}}
    log = MetricsLog(tmp_path, eval_opponents=opponents)
    log.write({"update": 1, "learner_decisions": 10, **eval_columns({o: report for o in opponents})})
    log.close()
    with open(tmp_path / "metrics.csv") as fh:
        row = next(csv.DictReader(fh))
    assert float(row["eval_pimc_ppd"]) == 3.5 and float(row["eval_policy_high"]) == 6.0
    log = MetricsLog(tmp_path / "other" if (tmp_path / "other").mkdir() is None else tmp_path)
    with pytest.raises(ValueError, match="eval_pimc_ppd"):  # a column the header lacks is never dropped silently
        log.write({"update": 2, "eval_pimc_ppd": 1.0})
    log.close()


def test_item17_a_checkpoint_write_on_a_full_disk_says_so_and_keeps_the_last_one(tmp_path, monkeypatch):
    """Issue 30, item 17: torch's "unexpected pos" becomes a message naming the path and the free space; the
    previous file stays whole and no temporary file is left."""
    import torch

    from spades_env.nn import SaveError, atomic_torch_save

    path = tmp_path / "last.pt"
    atomic_torch_save({"step": 1}, path)

    def full_disk(obj, f, *args, **kwargs):
        with open(f, "wb") as fh:
            fh.write(b"partial")
        raise RuntimeError("[enforce fail at inline_container.cc:672] . unexpected pos 64 vs 0")

    monkeypatch.setattr(torch, "save", full_disk)
    with pytest.raises(
        SaveError,
        match=r"could not write .*last\.pt .*MiB free.*is the disk full.*previous last\.pt "
        r"is intact",
    ):
        atomic_torch_save({"step": 2}, path)
    monkeypatch.undo()
    assert torch.load(path, weights_only=True) == {"step": 1}
    assert sorted(p.name for p in tmp_path.iterdir()) == ["last.pt"]


def test_item29_training_evaluations_draw_seeds_the_evaluation_tool_never_uses(tmp_path, monkeypatch):
    """Issue 30, item 29: training evaluated on seed + 1000 (1001), the seed of the docs' "independent" evaluations.
    Its evaluations now use their own stream, whose env seeds are above every seed the tool draws."""
    from types import SimpleNamespace

    import spades_env.evaluation as evaluation
    from spades_env.evaluation.duplicate import DEAL, GAME, STREAM_SPAN, task_seed
    from spades_env.nn import PolicyNet
    from training.config import TrainConfig
    from training.train import evaluate

    seen = []
    report = {
        "deals": {"bag_adjusted_diff": {"mean": 0.0, "low": 0.0, "high": 0.0}, "points_diff": {"mean": 0.0}, "n": 2}
    }
    monkeypatch.setattr(evaluation, "evaluate", lambda cfg: seen.append(cfg) or report)
    run = SimpleNamespace(
        config=TrainConfig(eval_opponents=["random"]),
        folder=tmp_path,
        learner=SimpleNamespace(policy=PolicyNet([8])),
        counters={"update": 0},
    )
    evaluate(run, 2, 0, "final")
    cfg = seen[0]
    assert cfg.seed_stream == "training"
    for seed in (cfg.seed, 1001, 0):  # whatever seed the tool is given, its env seeds stay below STREAM_SPAN
        for kind in (DEAL, GAME):
            assert all(task_seed(seed, kind, i) < STREAM_SPAN for i in range(200))
    assert all(task_seed(cfg.seed, k, i, cfg.seed_stream) >= STREAM_SPAN for k in (DEAL, GAME) for i in range(200))
    assert task_seed(5, DEAL, 3) == task_seed(5, DEAL, 3, "tool")  # the tool's seeds are those of before


@pytest.mark.parametrize("field", ["opponent", "eval_opponents"])
def test_an_opponent_that_cannot_play_a_preset_of_the_run_is_refused_naming_both(field):
    value = "ppo_standard" if field == "opponent" else ["heuristic", "ppo_standard"]
    from_mapping({"rules": "standard", field: value})  # it plays every four-player preset
    for where in ({"rules": "two_player"}, {"mixture": ["standard", "two_player"], "num_envs": 4}):
        with pytest.raises(ValueError, match=f"'{field}': 'ppo_standard' cannot play 'two_player': trained on 88"):
            from_mapping({**where, field: value})
