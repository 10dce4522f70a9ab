"""The run folder: one writer at a time, stale locks taken over, refused resumes write nothing, metrics trimmed."""

from __future__ import annotations

import csv
import json
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
import torch

from spades_env.nn import CheckpointError
from training import train as train_module
from training.run_dir import RunFolderError, RunLock

REPO = Path(__file__).resolve().parents[2]
SMOKE = str(REPO / "configs" / "train" / "smoke.yaml")
RUN = "smoke-standard-seed1"
WAIT_S = 120  # generous: the machine may be busy


def _rows(path: Path) -> list[dict[str, str]]:
    if not path.exists():
        return []
    with open(path) as fh:
        return list(csv.DictReader(fh))


def _dead_pid() -> int:
    """The pid of a process that has exited (and been reaped)."""
    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    proc.wait()
    return proc.pid


def _wait_for(condition, proc: subprocess.Popen) -> None:
    deadline = time.monotonic() + WAIT_S
    while not condition():
        assert proc.poll() is None, "the training subprocess ended early"
        assert time.monotonic() < deadline, "the training subprocess made no progress"
        time.sleep(0.02)


@pytest.mark.parametrize(
    "holder, refused",
    [
        (lambda: {"pid": os.getpid(), "hostname": socket.gethostname()}, "in use"),  # alive: this very process
        (lambda: {"pid": os.getppid(), "hostname": socket.gethostname()}, "in use"),  # alive: another process
        (lambda: {"pid": 1, "hostname": "another-host.example"}, "remove the lock file"),  # cannot be checked
        (lambda: {"pid": _dead_pid(), "hostname": socket.gethostname()}, None),  # stale: taken over
        (lambda: {"pid": os.getppid(), "hostname": socket.gethostname(), "started": -1}, None),  # pid reused: stale
        (lambda: "not json", None),  # unreadable: stale
    ],
)
def test_lock_refuses_live_or_foreign_holders_and_takes_over_stale_ones(tmp_path, holder, refused):
    content = holder()
    (tmp_path / "lock").write_text(content if isinstance(content, str) else json.dumps(content))
    lock = RunLock(tmp_path)
    if refused:
        with pytest.raises(RunFolderError, match=refused):
            lock.acquire()
        assert (tmp_path / "lock").read_text() == (content if isinstance(content, str) else json.dumps(content))
    else:
        with lock:
            assert json.loads((tmp_path / "lock").read_text())["pid"] == os.getpid()
        assert not (tmp_path / "lock").exists()


def test_second_writer_is_refused_while_a_run_is_alive_and_a_killed_runs_lock_is_taken_over(tmp_path, capsys):
    runs = tmp_path / "runs"
    run_dir = runs / RUN
    # A long run that checkpoints only after its warm start (update 0), so the rows after it must be trimmed.
    cmd = [
        sys.executable,
        "-m",
        "training.train",
        "--config",
        SMOKE,
        "--runs-dir",
        str(runs),
        "--total-decisions",
        "400000",
        "--checkpoint-every",
        "1000",
        "--eval-every",
        "0",
        "--no-final-eval",
    ]
    proc = subprocess.Popen(
        cmd, cwd=REPO, env={**os.environ, "PYTHONPATH": str(REPO)}, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    try:
        _wait_for(lambda: len(_rows(run_dir / "metrics.csv")) >= 2, proc)
        config_text = (run_dir / "config.yaml").read_text()
        for flag in ("--resume", "--overwrite"):
            with pytest.raises(RunFolderError, match=f"in use by a running training process \\(pid {proc.pid}"):
                train_module.train(
                    [
                        "--config",
                        SMOKE,
                        "--runs-dir",
                        str(runs),
                        flag,
                        "--total-decisions",
                        "400000",
                        "--checkpoint-every",
                        "1000",
                        "--eval-every",
                        "0",
                        "--no-final-eval",
                    ]
                )
        assert proc.poll() is None and (run_dir / "config.yaml").read_text() == config_text
        proc.send_signal(signal.SIGKILL)
        proc.wait()
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert json.loads((run_dir / "lock").read_text())["pid"] == proc.pid  # left behind by the killed run
    assert len(_rows(run_dir / "metrics.csv")) >= 2  # rows after the checkpoint of update 0
    summary = train_module.train(
        [
            "--config",
            SMOKE,
            "--runs-dir",
            str(runs),
            "--resume",
            "--total-decisions",
            "400000",
            "--checkpoint-every",
            "1000",
            "--eval-every",
            "0",
            "--no-final-eval",
            "--max-updates",
            "3",
        ]
    )
    out = capsys.readouterr().out
    assert "taking over a stale lock" in out and "resumed at update 0" in out
    rows = _rows(run_dir / "metrics.csv")
    assert [int(r["update"]) for r in rows] == [1, 2, 3]
    decisions = [int(r["learner_decisions"]) for r in rows]
    assert decisions == sorted(set(decisions)) and decisions[-1] == summary["counters"]["learner_decisions"]
    assert not (run_dir / "lock").exists()


REFUSED_RESUMES = [  # (flags, the field named in the error)
    (["--hidden", "64,64"], "hidden"),
    (["--gamma", "0.9"], "gamma"),
    (["--seed", "1", "--num-envs", "16"], "num_envs"),
]


def test_refused_resume_writes_nothing(tmp_path):
    runs = str(tmp_path)
    train_module.train(["--config", SMOKE, "--runs-dir", runs, "--total-decisions", "1000", "--no-final-eval"])
    run_dir = tmp_path / RUN
    before = {p: p.read_bytes() for p in run_dir.rglob("*") if p.is_file()}
    for flags, field in REFUSED_RESUMES:
        with pytest.raises(CheckpointError, match=f"does not fit this config.*{field}"):
            train_module.train(["--config", SMOKE, "--runs-dir", runs, "--resume", "--no-final-eval", *flags])
        assert {p: p.read_bytes() for p in run_dir.rglob("*") if p.is_file()} == before, flags
    # A checkpoint whose tables cannot be unpickled is refused the same way.
    ckpt = run_dir / "checkpoints" / "last.pt"
    payload = torch.load(ckpt, weights_only=True)
    payload["session"] = torch.frombuffer(bytearray(b"not a pickle"), dtype=torch.uint8)
    torch.save(payload, ckpt)
    before = {p: p.read_bytes() for p in run_dir.rglob("*") if p.is_file()}
    with pytest.raises(CheckpointError, match="tables cannot be restored"):
        train_module.train(["--config", SMOKE, "--runs-dir", runs, "--resume", "--no-final-eval"])
    assert {p: p.read_bytes() for p in run_dir.rglob("*") if p.is_file()} == before
