"""The rollout workers (``rollout_workers: N``): the same rollout and imitation data as in-process, reproducible
runs, exact resume, failures named."""

from __future__ import annotations

import copy
import dataclasses
import pickle
from pathlib import Path

import numpy as np
import pytest
import torch

from training import train as train_module
from training.config import from_mapping, load_config, worker_configs
from training.imitation import IMITATION_TABLES, imitation_data
from training.mixture import table_presets
from training.pipeline import (
    WORKER_STREAM,
    RolloutWorker,
    RolloutWorkerError,
    RolloutWorkers,
    fresh_worker_state,
    fresh_worker_states,
    weights,
)
from training.rollout import IMITATION_FIELDS as FIELDS
from training.rollout import Rollout, add_rewards, collect, finish_batch, heuristic_decisions
from training.run_dir import CHECKPOINT
from training.train import start_run
from training.trajectories import join_decisions, join_rows

REPO = Path(__file__).resolve().parents[2]
SMOKE = str(REPO / "configs" / "train" / "smoke.yaml")
PIPELINED = ["--config", SMOKE, "--rollout-workers", "1", "--no-final-eval"]


def _weights(summary: dict) -> dict[str, torch.Tensor]:
    return torch.load(Path(summary["run_dir"]) / "policy.pt", weights_only=True)["state_dict"]


def _same(a: dict, b: dict) -> bool:
    return a.keys() == b.keys() and all(torch.equal(a[k], b[k]) for k in a)


def _batches_equal(a: dict, b: dict) -> None:
    assert a.keys() == b.keys()
    for key in a:
        x, y = a[key], b[key]
        if isinstance(x, np.ndarray):
            np.testing.assert_array_equal(x, y, err_msg=key)
        else:  # SparseRows
            for part in ("indices", "values", "offsets"):
                assert torch.equal(getattr(x, part), getattr(y, part)), f"{key}.{part}"


@pytest.fixture
def smoke_run(tmp_path):
    config = load_config(SMOKE)
    run = start_run(config, tmp_path / "run", resume=False)
    run.rollout.start(0, run.rng)
    return run


def test_worker_collects_what_the_same_rollout_collects_in_process(smoke_run):
    run = smoke_run
    state = fresh_worker_state(run.rollout, run.config.seed)
    here = copy.deepcopy(state)
    worker = RolloutWorker(run.config, state, run.device)
    try:
        worker.submit(weights(run.learner.policy), run.pool)
        decisions, rewards = worker.result()
    finally:
        worker.close()
    assert "advantage" not in decisions  # the worker runs no critic: the main process values the decisions
    torch.set_rng_state(here.torch_rng)
    expected, expected_rewards = collect(
        here.rollout, run.learner.policy, run.learner.critic, run.learner.snapshots, run.pool, here.rng, run.device
    )
    _batches_equal(finish_batch(decisions, run.learner.critic, run.config, run.device), expected)
    assert rewards == expected_rewards


def test_worker_checkpoint_state_is_the_state_before_the_batch_in_flight(smoke_run):
    run = smoke_run
    state = fresh_worker_state(run.rollout, run.config.seed)
    worker = RolloutWorker(run.config, state, run.device)
    try:
        worker.submit(weights(run.learner.policy), run.pool)
        saved = worker.inflight()
        first, _ = worker.result()
    finally:
        worker.close()
    again = RolloutWorker(run.config, saved["state"], run.device)  # a resume asks the same request again
    try:
        again.submit(saved["policy"], run.pool)
        second, _ = again.result()
    finally:
        again.close()
    _batches_equal(first, second)


def test_worker_state_crosses_the_pipe_only_when_a_checkpoint_asks(smoke_run):
    run = smoke_run
    worker = RolloutWorker(run.config, fresh_worker_state(run.rollout, run.config.seed), run.device)
    try:
        worker.submit(weights(run.learner.policy), run.pool)
        asked = worker.inflight()
        again = worker.inflight()  # asked once, kept until the batch is taken
        decisions, _ = worker.result()
        worker.submit(weights(run.learner.policy), run.pool)
        worker.result()  # a batch nobody checkpointed: its answer is the batch alone
    finally:
        worker.close()
    assert set(asked) == {"state", "policy"} and decisions is not None
    first, second = asked["state"], again["state"]
    assert first.rng.bit_generator.state == second.rng.bit_generator.state
    assert torch.equal(first.torch_rng, second.torch_rng)
    np.testing.assert_array_equal(first.rollout.obs, second.rollout.obs)


def test_worker_failure_is_raised_in_the_main_process_with_its_cause(smoke_run):
    run = smoke_run
    worker = RolloutWorker(run.config, fresh_worker_state(run.rollout, run.config.seed), run.device)
    try:
        bad = {k: torch.zeros(1) for k in weights(run.learner.policy)}  # weights of the wrong shape
        worker.submit(bad, run.pool)
        with pytest.raises(RolloutWorkerError, match="size mismatch"):
            worker.result()
    finally:
        worker.close()


def test_worker_refuses_a_second_request_in_flight(smoke_run):
    run = smoke_run
    worker = RolloutWorker(run.config, fresh_worker_state(run.rollout, run.config.seed), run.device)
    try:
        policy = weights(run.learner.policy)
        worker.submit(policy, run.pool)
        with pytest.raises(RolloutWorkerError, match="already in flight"):
            worker.submit(policy, run.pool)
        worker.result()
        with pytest.raises(RolloutWorkerError, match="no rollout in flight"):
            worker.result()
    finally:
        worker.close()


@pytest.mark.slow  # 17 s; the default suite keeps the two-worker run's reproducibility and resume
def test_run_with_worker_is_reproducible_and_differs_from_one_without(tmp_path):
    a = train_module.train([*PIPELINED, "--runs-dir", str(tmp_path / "a")])
    b = train_module.train([*PIPELINED, "--runs-dir", str(tmp_path / "b")])
    plain = train_module.train(
        ["--config", SMOKE, "--rollout-workers", "0", "--no-final-eval", "--runs-dir", str(tmp_path / "plain")]
    )
    assert a["counters"]["update"] == b["counters"]["update"] >= 3
    assert _same(_weights(a), _weights(b))
    assert not _same(_weights(a), _weights(plain))  # the lag and the worker's own random streams


@pytest.mark.slow  # 14 s; the default suite resumes the two-worker run bit-identically, which runs this one whole
def test_run_with_worker_resumes_bit_identically(tmp_path):
    args = [*PIPELINED, "--total-decisions", "4000"]
    whole = train_module.train([*args, "--runs-dir", str(tmp_path / "whole")])
    train_module.train([*args, "--runs-dir", str(tmp_path / "split"), "--max-updates", "2"])
    resumed = train_module.train([*args, "--runs-dir", str(tmp_path / "split"), "--resume", "--max-updates", "0"])
    assert resumed["counters"]["update"] == whole["counters"]["update"] >= 3
    assert resumed["counters"]["learner_decisions"] == whole["counters"]["learner_decisions"]
    assert _same(_weights(whole), _weights(resumed))


def test_imitation_with_worker_is_this_process_half_then_the_worker_half(smoke_run):
    run = smoke_run
    config = run.config
    here = copy.deepcopy(run.rollout)
    worker = RolloutWorker(config, None, run.device)
    try:
        data = imitation_data(run.rollout, config, worker)
    finally:
        worker.close()
    half = config.bc_decisions // 2
    mine = heuristic_decisions(here, config, config.bc_decisions - half)
    side = Rollout(config, here.rules, np.random.default_rng([config.seed, WORKER_STREAM, IMITATION_TABLES]))
    theirs = heuristic_decisions(side, config, half)
    expected = {key: join_rows([mine[key], theirs[key]]) for key in FIELDS}
    _batches_equal(data, expected)
    assert len(data["action"]) >= config.bc_decisions


# in-process and pooled evaluations; the pooled one (38 s on 2 cores) runs with -m slow: the default suite's budget
@pytest.mark.parametrize(("worker", "workers"), [("0", "1"), pytest.param("1", "2", marks=pytest.mark.slow)])
def test_evaluations_during_training_do_not_change_what_is_learned(tmp_path, worker, workers):
    args = ["--config", SMOKE, "--rollout-workers", worker, "--no-final-eval", "--eval-workers", workers]
    often = train_module.train([*args, "--eval-every", "1", "--runs-dir", str(tmp_path / "often")])
    never = train_module.train([*args, "--eval-every", "0", "--runs-dir", str(tmp_path / "never")])
    assert often["counters"]["update"] == never["counters"]["update"] >= 3
    assert _same(_weights(often), _weights(never))


# ------------------------------------------------------------------ several workers (rollout_workers: N)
TWO = ["--config", SMOKE, "--rollout-workers", "2", "--no-final-eval"]


def test_workers_split_the_tables_evenly_and_refuse_too_few():
    config = load_config(SMOKE)
    shares = worker_configs(dataclasses.replace(config, num_envs=33, rollout_workers=4))
    assert [share.num_envs for share in shares] == [9, 8, 8, 8]
    assert all(share.rollout_workers == 1 for share in shares)
    assert worker_configs(dataclasses.replace(config, rollout_workers=1)) == [
        dataclasses.replace(config, rollout_workers=1)
    ]
    with pytest.raises(ValueError, match="'rollout_workers': 4 workers need at least 4 tables"):
        from_mapping({"num_envs": 3, "rollout_workers": 4})
    with pytest.raises(ValueError, match="4 workers need at least 12 tables"):
        from_mapping({"num_envs": 11, "rollout_workers": 4, "mixture": ["standard", "cutthroat", "two_player"]})
    with pytest.raises(ValueError, match="'rollout_workers' must be a finite number in"):
        from_mapping({"rollout_workers": -1})


def test_older_configs_rollout_worker_reads_as_today_s_count():
    assert from_mapping({"rollout_worker": True}).rollout_workers == 1
    assert from_mapping({"rollout_worker": False}).rollout_workers == 0
    with pytest.raises(ValueError, match="give 'rollout_workers' only"):
        from_mapping({"rollout_worker": True, "rollout_workers": 2})
    with pytest.raises(ValueError, match="'rollout_worker' \\(now 'rollout_workers'\\) must be bool, got 2"):
        from_mapping({"rollout_worker": 2})


def test_two_workers_collect_what_their_tables_collect_in_process_joined(smoke_run):
    run = smoke_run
    config = dataclasses.replace(run.config, rollout_workers=2)
    states = fresh_worker_states(config, run.rules, run.rollout, len(run.pool))
    here = copy.deepcopy(states)
    assert [len(state.rollout.obs) for state in states] == [16, 16]
    workers = RolloutWorkers(config, states, run.device)
    try:
        workers.submit(weights(run.learner.policy), run.pool)
        decisions, rewards = workers.result()
    finally:
        workers.close()
    parts, expected_rewards = [], {}
    for state in here:
        torch.set_rng_state(state.torch_rng)
        part, hand_rewards = collect(
            state.rollout, run.learner.policy, None, run.learner.snapshots, run.pool, state.rng, run.device
        )
        parts.append(part)
        add_rewards(expected_rewards, hand_rewards)
    assert rewards == expected_rewards
    _batches_equal(decisions, join_decisions(parts, [16, 16]))
    # the second worker's tables are numbered after the first's, and its decisions' links stay within its own rows
    first = len(parts[0]["action"])
    assert decisions["table"][:first].max() < 16 <= decisions["table"][first:].min()
    assert (decisions["next"][first:][decisions["next"][first:] >= 0] >= first).all()
    # the joined batch values as each part would: GAE never crosses from one worker's decisions to the other's
    whole = finish_batch(decisions, run.learner.critic, config, run.device)
    alone = [finish_batch(part, run.learner.critic, config, run.device) for part in parts]
    np.testing.assert_allclose(
        whole["advantage"], np.concatenate([a["advantage"] for a in alone]), rtol=1e-5, atol=1e-6
    )


def test_run_with_two_workers_is_reproducible_and_resumes_bit_identically(tmp_path):
    args = [*TWO, "--total-decisions", "4000"]
    whole = train_module.train([*args, "--runs-dir", str(tmp_path / "whole")])
    one = train_module.train([*PIPELINED, "--total-decisions", "4000", "--runs-dir", str(tmp_path / "one")])
    train_module.train([*args, "--runs-dir", str(tmp_path / "split"), "--max-updates", "2"])
    resumed = train_module.train([*args, "--runs-dir", str(tmp_path / "split"), "--resume", "--max-updates", "0"])
    # two runs of the same config (one of them stopped and resumed) learn the same weights
    assert whole["counters"]["update"] == resumed["counters"]["update"] >= 3
    assert resumed["counters"]["learner_decisions"] == whole["counters"]["learner_decisions"]
    assert _same(_weights(whole), _weights(resumed))
    assert not _same(_weights(whole), _weights(one))  # other tables, dealt from the workers' own streams


def test_mixture_split_among_workers_numbers_each_table_s_preset_as_its_worker_plays_it(smoke_run):
    config = dataclasses.replace(
        smoke_run.config, mixture=["standard:2", "cutthroat", "two_player"], num_envs=13, rollout_workers=2
    ).validate()
    states = fresh_worker_states(config, smoke_run.rules, None, 0)
    played = np.concatenate([state.rollout.preset_of for state in states])
    np.testing.assert_array_equal(table_presets(config), played)
    assert [len(state.rollout.obs) for state in states] == [7, 6]


@pytest.mark.slow  # 15 s (two training runs): the one-worker layout of 0.3.0 checkpoints; runs with -m slow
def test_checkpoint_of_one_worker_saved_before_several_existed_resumes(tmp_path):
    args = [*PIPELINED, "--total-decisions", "4000"]
    whole = train_module.train([*args, "--runs-dir", str(tmp_path / "whole")])
    train_module.train([*args, "--runs-dir", str(tmp_path / "split"), "--max-updates", "2"])
    (path,) = (tmp_path / "split").glob(f"*/{CHECKPOINT}")
    payload = torch.load(path, weights_only=False)
    session = pickle.loads(payload["session"].numpy().tobytes())
    session["worker"] = {"state": session["worker"]["states"][0], "policy": session["worker"]["policy"]}
    config = payload["config"]
    config["rollout_worker"] = bool(config.pop("rollout_workers"))  # as written up to 0.3.0
    payload["session"] = torch.frombuffer(bytearray(pickle.dumps(session)), dtype=torch.uint8)
    torch.save(payload, path)
    resumed = train_module.train([*args, "--runs-dir", str(tmp_path / "split"), "--resume", "--max-updates", "0"])
    assert _same(_weights(whole), _weights(resumed))
