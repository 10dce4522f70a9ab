"""The evaluation command line checks what it can before playing, and never hangs on a failed worker.

Bad agents, agent options, rules and output paths exit with status 2 (argparse's) before any deal is
played; a worker that cannot start or dies during the run ends it with status 1 and the worker's error.
The multi-process cases run the command in a subprocess with a timeout, so that a hang fails the test.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import spades_env.evaluation.__main__ as cli
from spades_env.evaluation import duplicate
from spades_env.evaluation.duplicate import ConfigError, EvalConfig, evaluate

ROOT = Path(__file__).resolve().parents[2]
TIMEOUT_S = 120  # far above a healthy run of these few deals; reached only by a hang

# Runs the command line with two extra agents that behave only in the main process.
SCRIPT = textwrap.dedent("""
    import os, sys
    from spades_env.agents import RandomAgent, register_agent
    from spades_env.evaluation.__main__ import main

    MAIN = os.getpid()

    def starts_only_in_main(**options):
        if os.getpid() != MAIN:
            raise RuntimeError("this agent cannot start in a worker")
        return RandomAgent(**options)

    class DiesInWorker(RandomAgent):
        def act(self, observation):
            if os.getpid() != MAIN:
                os._exit(3)
            return super().act(observation)

    register_agent("starts_only_in_main", starts_only_in_main)
    register_agent("dies_in_worker", DiesInWorker)
    sys.exit(main(sys.argv[1:]))
""")


def run_cli(args: list[str]) -> subprocess.CompletedProcess:
    """The command line in a fresh process group; a run past the timeout is killed with its workers."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen(
        [sys.executable, "-c", SCRIPT, *args],
        cwd=ROOT,
        env=env,
        text=True,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,
    )
    try:
        out, err = proc.communicate(timeout=TIMEOUT_S)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate()
        pytest.fail(f"spades-evaluate {' '.join(args)} still running after {TIMEOUT_S} s")
    return subprocess.CompletedProcess(proc.args, proc.returncode, out, err)


QUICK = ["--deals", "4", "--no-progress"]


@pytest.mark.parametrize("workers", [[], ["--workers", "2"]], ids=["default workers", "two workers"])
def test_unknown_agent_exits_2_before_any_worker_starts(workers):
    done = run_cli(["nosuchagent", "random", *QUICK, *workers])
    assert done.returncode == 2
    assert "unknown agent 'nosuchagent'" in done.stderr and "Traceback" not in done.stderr


@pytest.mark.parametrize(
    "args,message",
    [
        (["starts_only_in_main", "random"], "this agent cannot start in a worker"),
        (["dies_in_worker", "random"], "worker process died"),
    ],
    ids=["worker cannot start", "worker dies mid-run"],
)
def test_a_failing_worker_ends_the_run_with_its_error(args, message):
    done = run_cli([*args, *QUICK, "--workers", "2"])
    assert done.returncode == 1
    assert message in done.stderr


def never_play(*args, **kwargs):
    raise AssertionError("the evaluation started playing")


@pytest.mark.parametrize(
    "args,message",
    [
        (["heuristic", "random", "--json", "{tmp}/missing/r.json"], "does not exist"),
        (["heuristic", "random", "--json", "{tmp}"], "is a directory"),
        (["heuristic", "random", "--png", "{tmp}/missing/r.png"], "does not exist"),
        (["heuristic", "random", "--png", "{tmp}/r.notachart"], "cannot write 'notachart' files"),
        (["heuristic", "random", "--a-opt", "nosuch=1"], "nosuch"),
        (["heuristic", "random", "--a-opt", "novalue"], "must look like key=value"),
        (["random", "nosuchagent"], "agent B 'nosuchagent'"),
        (["heuristic", "random", "--rules", "nosuchpreset"], "unknown rules preset 'nosuchpreset'"),
        (["heuristic", "random", "--cross-play", "--partner", "nosuchagent"], "agent P 'nosuchagent'"),
        (["heuristic", "random", "--cross-play", "--rules", "cutthroat"], "needs partnership rules"),
    ],
    ids=[
        "json folder missing",
        "json is a folder",
        "png folder missing",
        "png unknown type",
        "bad agent option",
        "malformed agent option",
        "unknown agent B",
        "unknown rules",
        "unknown partner",
        "cross-play cutthroat",
    ],
)
def test_bad_input_exits_2_before_playing(monkeypatch, tmp_path, capsys, args, message):
    monkeypatch.setattr(duplicate, "_run_all", never_play)
    with pytest.raises(SystemExit) as exit_info:
        cli.main([a.format(tmp=tmp_path) for a in args] + ["--workers", "1", "--deals", "2", "--no-progress"])
    assert exit_info.value.code == 2
    assert message in capsys.readouterr().err
    assert list(tmp_path.iterdir()) == []  # nothing written


@pytest.mark.parametrize(
    "options,message",
    [
        ({"nosuch": 1}, "unknown option(s) ['nosuch']"),
        ({"bias": "high"}, "bid parameter bias must be a number, got 'high'"),
    ],
    ids=["unknown option", "option of the wrong type"],
)
def test_evaluate_names_a_bad_agent_option_before_playing(monkeypatch, options, message):
    monkeypatch.setattr(duplicate, "_run_all", never_play)
    with pytest.raises(ConfigError, match=re.escape(f"agent A 'heuristic' with options {options}")) as info:
        evaluate(EvalConfig("heuristic", "random", a_options=options, deals=1, progress=False))
    assert message in str(info.value)
