"""``python -m training.rllib_train --smoke`` writes a policy file that make_agent plays and that beats random."""

import json
import subprocess
import sys

import pytest

pytest.importorskip("ray.rllib")

from spades_env import make_agent  # noqa: E402
from spades_env.agents.policy import PolicyAgent  # noqa: E402
from spades_env.nn import load_policy  # noqa: E402

pytestmark = pytest.mark.rllib
EVAL_DEALS = 40


@pytest.fixture(scope="module")
def smoke_policy(tmp_path_factory):
    out = tmp_path_factory.mktemp("rllib") / "policy.pt"
    run = subprocess.run(
        [sys.executable, "-m", "training.rllib_train", "--smoke", "--num-env-runners", "0", "--out", str(out)],
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    return out, run.stdout.strip().splitlines()


def test_smoke_run_reports_training_and_ends_with_the_policy_path(smoke_policy):
    path, lines = smoke_policy
    assert lines[-1] == f"policy: {path}"
    assert "illegal actions: 0" in lines
    iterations = [json.loads(line) for line in lines if line.startswith("{")]
    assert iterations and all(it["env_steps"] > 0 for it in iterations)
    assert all(loss == loss for it in iterations for stats in it["losses"].values() for loss in stats.values())


def test_smoke_policy_file_loads_with_its_layout_and_plays_as_an_agent(smoke_policy):
    path, _ = smoke_policy
    _, meta = load_policy(path)  # checks the layout and the content hash
    assert meta["trainer"] == "rllib" and meta["env_steps"] > 0
    assert isinstance(make_agent(str(path)), PolicyAgent)


def test_smoke_policy_beats_random_in_a_duplicate_evaluation(smoke_policy, tmp_path):
    path, _ = smoke_policy
    report = tmp_path / "eval.json"
    # deals only: the games to 500 (100 seeds by default) are not checked here, and a weak policy's games are long
    subprocess.run(
        [
            sys.executable,
            "-m",
            "spades_env.evaluation",
            str(path),
            "random",
            "--deals",
            str(EVAL_DEALS),
            "--games",
            "0",
            "--workers",
            "1",
            "--no-progress",
            "--json",
            str(report),
        ],
        check=True,
        capture_output=True,
        timeout=600,
    )
    diff = json.loads(report.read_text())["deals"]["points_diff"]
    assert diff["low"] > 0, diff  # the 95% interval of A - B points per deal lies above zero
