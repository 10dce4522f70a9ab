"""Rollout workers as Ray actors (``rollout_backend: ray``): the decisions of the worker processes, a killed actor's
rollout redone without loss, runs equal to the process backend's, resume across backends and after a driver killed
with -9, and the refusals named. On a local Ray (two CPUs) started once for the module. The kills and the runs are
slow tests: .ci/run runs them beside the default suite."""

from __future__ import annotations

import copy
import dataclasses
import json
import os
import signal
import subprocess
import sys
import time
from contextlib import contextmanager
from pathlib import Path

import numpy as np
import pytest
import torch

from training import train as train_module
from training.config import from_mapping, load_config
from training.pipeline import RolloutWorkerError, RolloutWorkers, fresh_worker_states, weights
from training.run_dir import CHECKPOINT
from training.train import start_run

if os.environ.get("SPADES_REQUIRE_RAY"):  # CI: the Ray tests must run, not skip
    import ray
else:
    ray = pytest.importorskip("ray")

from training.ray_workers import RayCluster, RayClusterError, RayRolloutWorkers, init_ray  # noqa: E402 - after the skip

REPO = Path(__file__).resolve().parents[2]
SMOKE = str(REPO / "configs" / "train" / "smoke.yaml")
TWO = ["--config", SMOKE, "--rollout-workers", "2", "--no-final-eval", "--total-decisions", "4000"]
RAY = ["--rollout-backend", "ray"]


@pytest.fixture(scope="module", autouse=True)
def local_ray():
    """One local Ray of two CPUs for the module (a run finds it initialised and leaves it running)."""
    started = not ray.is_initialized()
    if started:
        init_ray(num_cpus=2)
    yield
    if started:
        ray.shutdown()


@pytest.fixture
def two_workers(tmp_path):
    """A smoke run's config with two workers of 17 and 16 tables (a standby built for the first must play the second's
    share as the second's), longer rollouts (so that a kill lands inside one), its run and the workers' fresh
    states."""
    config = dataclasses.replace(load_config(SMOKE), rollout_workers=2, rollout_steps=256, num_envs=33).validate()
    run = start_run(config, tmp_path / "run", resume=False)
    run.rollout.start(0, run.rng)
    return config, run, fresh_worker_states(config, run.rules, run.rollout, 0)


def _weights(summary: dict) -> dict[str, torch.Tensor]:
    return torch.load(Path(summary["run_dir"]) / "policy.pt", weights_only=True)["state_dict"]


def _same(a: dict, b: dict) -> bool:
    return a.keys() == b.keys() and all(torch.equal(a[k], b[k]) for k in a)


def _equal_answers(a: tuple, b: tuple) -> None:
    (x, x_rewards), (y, y_rewards) = a, b
    assert x_rewards == y_rewards
    assert x.keys() == y.keys()
    for key in x:
        if isinstance(x[key], np.ndarray):
            np.testing.assert_array_equal(x[key], y[key], err_msg=key)
            assert x[key].flags.writeable  # the learner may write into a batch, as it does into the pipe's
        else:  # SparseRows
            for part in ("indices", "values", "offsets"):
                assert torch.equal(getattr(x[key], part), getattr(y[key], part)), f"{key}.{part}"


@contextmanager
def _side_by_side(two_workers, spares: int):
    """The smoke run's weights, its tables in two worker processes and the same tables in two Ray actors (with
    ``spares`` standby actors); every worker stopped at the end."""
    config, run, states = two_workers
    config = dataclasses.replace(config, ray_spares=spares)
    steady = RolloutWorkers(config, copy.deepcopy(states), run.device)
    try:
        actors = RayRolloutWorkers(config, copy.deepcopy(states), run.device)
        try:
            yield weights(run.learner.policy), steady, actors
        finally:
            actors.close()
    finally:
        steady.close()


def _requests(workers, policy: dict, pools: list[list]) -> list[tuple]:
    answers = []
    for pool in pools:
        workers.submit(policy, pool)
        answers.append(workers.result())
    return answers


def test_actors_collect_what_the_worker_processes_collect(two_workers, monkeypatch):
    config, run, states = two_workers
    policy = weights(run.learner.policy)
    pools = [[], [], [policy, policy]]  # the third request sends a new pool
    actors = RayRolloutWorkers(config, copy.deepcopy(states), run.device)
    processes = RolloutWorkers(config, copy.deepcopy(states), run.device)
    put = ray.put
    puts = []
    monkeypatch.setattr(ray, "put", lambda value, **kw: puts.append(value) or put(value, **kw))
    try:
        by_ray, by_process = _requests(actors, policy, pools), _requests(processes, policy, pools)
        # into the object store: the weights once per request for both actors, the pool once when it changed
        assert [value is policy for value in puts] == [False, True, True, False, True]
        assert puts[0] == [] and puts[3] == pools[2]
        monkeypatch.undo()
        for a, b in zip(by_ray, by_process):
            _equal_answers(a, b)
        assert actors.restarts == 0
        # a checkpoint's in-flight request: the tables from before it, as the processes give them
        actors.submit(policy, pools[-1])
        processes.submit(policy, pools[-1])
        saved = actors.inflight()
        assert saved["policy"] is policy
        for ours, theirs in zip(saved["states"], processes.inflight()["states"]):
            assert ours.rng.bit_generator.state == theirs.rng.bit_generator.state
            assert torch.equal(ours.torch_rng, theirs.torch_rng)
        _equal_answers(actors.result(), processes.result())
    finally:
        actors.close()
        processes.close()


@pytest.mark.slow  # 20-30 s each (a restart awaited); .ci/run runs the slow Ray tests
@pytest.mark.parametrize("spares", [1, 0])
def test_an_actor_killed_inside_a_rollout_has_its_rollout_redone(two_workers, spares):
    with _side_by_side(two_workers, spares) as (policy, steady, actors):
        pool = [policy]  # snapshot tables: the actor taking over must be given the pool
        expected = _requests(steady, policy, [pool] * 6)
        _equal_answers(_requests(actors, policy, [pool])[0], expected[0])  # the actors are up
        worker = actors.workers[1]
        home, standby = worker.home, list(actors.spares)
        victim = ray.get(home.pid.remote())
        actors.submit(policy, pool)
        time.sleep(0.3)
        assert not ray.wait([worker.waiting], timeout=0)[0]  # inside the rollout: its answer is not there yet
        os.kill(victim, signal.SIGKILL)
        redone = actors.result()
        assert actors.restarts == 1
        _equal_answers(redone, expected[1])  # no decision lost, none twice
        assert worker.actor is (standby[0] if spares else home)  # a standby took over, or home once restarted
        assert ray.get(worker.actor.pid.remote()) != victim
        _wait_up(home)  # Ray started the dead actor again: the tables go back to it within a request or two
        for answer in expected[2:]:
            _equal_answers(_requests(actors, policy, [pool])[0], answer)  # and the tables go on as before
        assert worker.actor is home and actors.spares == standby


def _wait_up(actor, seconds: float = 120) -> None:
    deadline = time.monotonic() + seconds
    while True:
        try:
            ray.get(actor.pid.remote(), timeout=seconds)
            return
        except ray.exceptions.RayActorError:
            assert time.monotonic() < deadline, "the actor was not started again"
            time.sleep(0.2)


@pytest.mark.slow  # 15 s each; .ci/run runs the slow Ray tests
@pytest.mark.parametrize("spares", [1, 0])
def test_an_actor_killed_between_rollouts_is_given_its_tables_again(two_workers, spares):
    with _side_by_side(two_workers, spares) as (policy, steady, actors):
        pool = [policy]
        expected = _requests(steady, policy, [pool, pool])
        _equal_answers(_requests(actors, policy, [pool])[0], expected[0])
        os.kill(ray.get(actors.workers[0].actor.pid.remote()), signal.SIGKILL)
        _equal_answers(_requests(actors, policy, [pool])[0], expected[1])
        assert actors.restarts == 1


@pytest.mark.slow  # 30-60 s (four runs); .ci/run runs the slow Ray tests
def test_run_on_ray_is_the_run_on_worker_processes_and_resumes_across_backends(tmp_path):
    on_ray = train_module.train([*TWO, *RAY, "--runs-dir", str(tmp_path / "ray")])
    on_processes = train_module.train([*TWO, "--runs-dir", str(tmp_path / "processes")])
    assert on_ray["counters"]["update"] == on_processes["counters"]["update"] >= 3
    assert on_ray["counters"]["learner_decisions"] == on_processes["counters"]["learner_decisions"]
    assert _same(_weights(on_ray), _weights(on_processes))
    # a run checkpointed on processes goes on as Ray actors (the backend may change on --resume)
    train_module.train([*TWO, "--runs-dir", str(tmp_path / "moved"), "--max-updates", "2"])
    moved = train_module.train([*TWO, *RAY, "--runs-dir", str(tmp_path / "moved"), "--resume", "--max-updates", "0"])
    assert _same(_weights(moved), _weights(on_processes))


@pytest.mark.slow  # 60-120 s (three runs, two Rays started); .ci/run runs the slow Ray tests
def test_a_driver_killed_with_minus_9_resumes_from_its_checkpoint(tmp_path):
    args = [*TWO, *RAY, "--total-decisions", "6000"]
    whole = train_module.train([*args, "--runs-dir", str(tmp_path / "whole")])
    folder = tmp_path / "killed"
    # the driver in a session of its own, with the local Ray it starts: all of it killed with -9 at once
    driver = subprocess.Popen(
        [sys.executable, "-m", "training.train", *args, "--runs-dir", str(folder)],
        cwd=REPO,
        start_new_session=True,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 240
        while not any(path.stat().st_size for path in folder.glob(f"*/{CHECKPOINT}") if _after_ppo(path)):
            assert driver.poll() is None, "the driver ended before its first PPO checkpoint"
            assert time.monotonic() < deadline, "no PPO checkpoint within 240 s"
            time.sleep(0.5)
    finally:
        os.kill(driver.pid, signal.SIGKILL)  # the driver alone
        driver.wait()
        try:
            os.killpg(driver.pid, signal.SIGKILL)  # then the local Ray it started, left behind
        except ProcessLookupError:
            pass
    resumed = train_module.train([*args, "--runs-dir", str(folder), "--resume"])
    assert resumed["counters"]["update"] == whole["counters"]["update"]
    assert _same(_weights(whole), _weights(resumed))


def _after_ppo(path: Path) -> bool:
    """Whether the checkpoint at ``path`` was written after at least one PPO update (not the warm start's)."""
    try:
        return torch.load(path, weights_only=False)["counters"]["update"] >= 1
    except Exception:  # noqa: BLE001 - being written: the next look reads it whole (saves are atomic)
        return False


def test_refusals_name_the_problem(two_workers):
    config, run, states = two_workers
    for fields, named in [
        ({"rollout_backend": "spark"}, "'rollout_backend' must be one of"),
        ({"rollout_backend": "ray", "rollout_workers": 0}, "needs 'rollout_workers' of at least 1"),
        ({"ray_address": "auto"}, "'ray_address' ('auto') is read with 'rollout_backend: ray' only"),
        ({"rollout_backend": "ray", "ray_address": 7}, "'ray_address' must be str, got 7"),
    ]:
        with pytest.raises(ValueError, match=named.replace("(", r"\(").replace(")", r"\)")):
            from_mapping({"rollout_workers": 2, **fields})
    too_many = dataclasses.replace(config, rollout_workers=3, rollout_backend="ray").validate()
    with pytest.raises(
        RayClusterError, match=r"3 Ray actors of 1 CPU\(s\) each need 3 CPUs, and the Ray cluster has 2"
    ):
        RayRolloutWorkers(too_many, None, run.device)
    with pytest.raises(RolloutWorkerError, match="2 worker states for 3 rollout workers"):
        RayRolloutWorkers(too_many, states, run.device)


def test_a_run_asking_for_more_cpus_than_the_cluster_has_is_refused_before_anything_is_written(tmp_path, capsys):
    runs = tmp_path / "runs"
    assert train_module.main([*TWO, *RAY, "--rollout-workers", "3", "--runs-dir", str(runs)]) == 2
    assert "spades-train: error: train config 'rollout_workers': 3 Ray actors" in capsys.readouterr().err
    assert not runs.exists()


def test_a_failing_actor_is_named_with_its_traceback(two_workers):
    config, run, states = two_workers
    actors = RayRolloutWorkers(config, copy.deepcopy(states), run.device)
    try:
        actors.submit({"not": torch.zeros(1)}, [])  # weights that are not the policy's
        with pytest.raises(RolloutWorkerError, match="the rollout actor failed:(.|\n)*load_state_dict"):
            actors.result()
    finally:
        actors.close()


def test_without_ray_the_backend_names_the_extra(monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "ray", None)
    with pytest.raises(SystemExit):
        train_module.configure([*TWO, *RAY])
    assert "train config 'rollout_backend: ray' needs Ray: pip install 'spades_env[ray]'" in capsys.readouterr().err


def test_a_ray_already_running_in_the_process_is_used_and_left_running(two_workers):
    cluster = RayCluster("", actors=1, cpus_each=1)
    assert not cluster.started  # initialised already (this module's): used, not started
    cluster.close()
    assert ray.is_initialized()


@pytest.mark.slow  # a minute: both benchmarks start a Ray of their own; .ci/run runs the slow Ray tests
def test_the_ray_benchmarks_run_and_report_what_they_measure(tmp_path):
    rates, fault = tmp_path / "rates.json", tmp_path / "fault.json"
    throughput = [REPO / "benchmarks" / "training_throughput.py", "--config", SMOKE, "--updates", "1", "--rounds", "1"]
    subprocess.run(
        [sys.executable, *map(str, throughput), "--ray-workers", "1", "--json", str(rates)],
        check=True,
        capture_output=True,
        cwd=REPO,
        timeout=600,
    )
    figures = json.loads(rates.read_text())
    ray_rate, process_rate = figures["new_ray_1"]["decisions_per_second"], figures["new"]["decisions_per_second"]
    assert ray_rate > 0 and figures["ratio_new_ray_1_to_processes"] == ray_rate / process_rate
    assert figures["new_ray_1"]["weights_bytes_per_update"] > 0 and figures["new_ray_1"]["answer_bytes_per_update"] > 0
    subprocess.run(
        [
            sys.executable,
            str(REPO / "benchmarks" / "ray_fault.py"),
            "--config",
            SMOKE,
            "--updates",
            "3",
            "--warmup",
            "1",
        ]
        + ["--kill-at", "1", "--json", str(fault)],
        check=True,
        capture_output=True,
        cwd=REPO,
        timeout=600,
    )
    killed = json.loads(fault.read_text())
    assert killed["restarts"] == 1 and len(killed["update_s"]) == len(killed["reference_update_s"]) == 3
    over = [t - r for t, r in zip(killed["update_s"], killed["reference_update_s"])]  # the same run without the kill
    assert killed["extra_s"] == over[2] and killed["extra_in_rollouts"] == over[2] / killed["rollout_s"]
    assert killed["total_extra_s"] == pytest.approx(over[1] + over[2])  # from the kill (at 1) on
    assert killed["offset_before_the_kill_s"] == over[0]
    assert killed["total_extra_less_offset_s"] == pytest.approx(over[1] + over[2] - 2 * over[0])
    assert killed["killed_inside_the_rollout"] in (True, False)  # the timer killed it
