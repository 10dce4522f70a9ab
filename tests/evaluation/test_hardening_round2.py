"""Issue 30 (hardening, second round): the evaluation's and the league's command lines lose no file and no work.

Each test is named after the item of the issue it pins: output paths never overwrite an input (3), league entries
are checked before any match (4), labels never collide (5), league arguments get clean messages (7), and a
negative --seed names the argument in every tool (16).
"""

from __future__ import annotations

import pytest

import spades_env.evaluation.__main__ as cli
import spades_env.evaluation.league as league_module
from spades_env import play
from spades_env.evaluation.league import resolve_entries

from .helpers import exits_2, no_match


@pytest.fixture
def policy_file(tmp_path):
    from spades_env.nn import PolicyNet, save_policy

    path = tmp_path / "a.pt"
    save_policy(path, PolicyNet([8]), meta={})
    return path


@pytest.mark.parametrize("flag", ["--json", "--png"])
def test_item3_a_report_never_overwrites_a_policy_file(policy_file, flag, capsys, monkeypatch):
    before = policy_file.read_bytes()
    monkeypatch.setattr(cli, "evaluate", no_match)
    monkeypatch.setattr(league_module, "play_league", no_match)
    for argv in ([str(policy_file), "random"], ["--league", "random", f"mine={policy_file}"]):
        err = exits_2(cli.main, [*argv, flag, str(policy_file)], capsys)
        # --json: refused as the input file; --png: a .pt is not a picture type either
        assert ("is the input file" in err and flag in err) if flag == "--json" else "'pt'" in err
    assert policy_file.read_bytes() == before


def test_item3_a_chart_never_overwrites_a_policy_file(tmp_path, capsys, monkeypatch):
    from spades_env.nn import PolicyNet, save_policy

    path = tmp_path / "a.png"  # a policy file with a picture's suffix
    save_policy(path, PolicyNet([8]), meta={})
    monkeypatch.setattr(cli, "evaluate", no_match)
    assert "--png" in exits_2(cli.main, [str(path), "random", "--png", str(path)], capsys)


def test_item3_json_and_png_must_be_two_files(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(cli, "evaluate", no_match)
    out = str(tmp_path / "r.png")
    assert "same file" in exits_2(cli.main, ["random", "random", "--json", out, "--png", out], capsys)


def test_item3_a_report_is_not_written_into_a_run_folder_entry(tmp_path, capsys, monkeypatch):
    run = tmp_path / "run"
    run.mkdir()
    monkeypatch.setattr(league_module, "play_league", no_match)
    err = exits_2(cli.main, ["--league", "random", str(run), "--json", str(run / "league.json")], capsys)
    assert "inside the input folder" in err


@pytest.mark.parametrize("bad", ["bogus", "text.pt", "run"])
def test_item4_every_league_entry_is_checked_before_the_first_match(tmp_path, capsys, monkeypatch, bad):
    (tmp_path / "text.pt").write_text("not a policy")
    (tmp_path / "run").mkdir()
    (tmp_path / "run" / "policy.pt").write_text("not a policy either")
    monkeypatch.setattr(league_module, "evaluate", no_match)
    monkeypatch.chdir(tmp_path)
    code = league_module.main(["--league", "random", "heuristic", bad, "--no-progress"])
    err = capsys.readouterr().err
    assert code == 2 and "Traceback" not in err and bad in err


def test_item5_labels_never_collide(tmp_path):
    labels = [e.label for e in resolve_entries(["x#2=random", "x=random", "random", "random"], tmp_path)]
    assert labels == ["x#2", "x", "random", "random#2"]
    # since issue 49 (item 21) a collision is refused, naming both entries, instead of renamed to 'x#3'
    with pytest.raises(league_module.LeagueError, match="would both be labelled 'x'"):
        resolve_entries(["x#2=random", "x=random", "x=heuristic", "x=random"], tmp_path)


@pytest.mark.parametrize(
    "argv, message",
    [
        (["--workers", "0"], "--workers"),
        (["--deals", "-2"], "--deals"),
        (["--deals", "0", "--games", "0"], "nothing to evaluate"),
        (["--rules", "nosuch"], "--rules 'nosuch'"),
        (["--seed", "-1"], "--seed"),
    ],
)
def test_item7_league_arguments_get_clean_messages(argv, message, capsys, monkeypatch):
    monkeypatch.setattr(league_module, "play_league", no_match)
    err = exits_2(league_module.main, ["--league", "random", "heuristic", *argv], capsys)
    last = err.strip().splitlines()[-1]  # argparse's usage, then one line naming the problem
    assert last.startswith("spades-evaluate --league: error: ") and message in last


@pytest.mark.parametrize("main", [cli.main, play.main], ids=["evaluate", "play"])
def test_item16_a_negative_seed_names_the_argument(main, capsys, monkeypatch):
    monkeypatch.setattr(cli, "evaluate", no_match)
    argv = ["random", "random", "--seed", "-1"] if main is cli.main else ["--seed", "-1"]
    err = exits_2(main, argv, capsys)
    assert "argument --seed: must be an integer >= 0, got '-1'" in err


# ---------------------------------------------------------------- resources and feedback (items 20-23)
class InlinePool:
    """A stand-in for ProcessPoolExecutor that runs each task when submitted, counting the submissions."""

    submitted = 0

    def __init__(self, *args, **kwargs):
        pass

    def submit(self, fn, *args):
        from concurrent.futures import Future

        InlinePool.submitted += 1
        future = Future()
        future.set_result(fn(*args))
        return future

    def shutdown(self, wait=True, cancel_futures=False):
        pass


def test_item20_workers_are_capped_at_the_cores_and_the_tasks(monkeypatch):
    from spades_env.evaluation import duplicate
    from spades_env.evaluation.duplicate import EvalConfig

    seen = []
    monkeypatch.setattr(duplicate.os, "cpu_count", lambda: 2)
    monkeypatch.setattr(duplicate, "_run_in_pool", lambda config, tasks, workers: seen.append(workers) or iter(()))
    for workers, deals, expected in ((1000, 40, 2), (1000, 1, None), (2, 40, 2)):
        cfg = EvalConfig(agent_a="random", agent_b="random", deals=deals, workers=workers, progress=False)
        list(duplicate._run_all(cfg, duplicate.check_config(cfg)))
        assert (seen.pop() if seen else None) == expected  # one task: played in this process, no pool


def test_item21_item22_tasks_go_out_in_bounded_waves_and_results_stream(monkeypatch):
    from spades_env.evaluation import duplicate

    InlinePool.submitted = 0
    monkeypatch.setattr(duplicate, "ProcessPoolExecutor", InlinePool)
    monkeypatch.setattr(duplicate, "_run_task", lambda task: {"task": task})
    tasks = [(duplicate.DEAL, i) for i in range(1_000_000)]
    results = duplicate._run_in_pool({}, tasks, workers=2)
    first = next(results)  # a result comes back before the million tasks are submitted
    assert first["task"][1] in range(2 * duplicate.TASKS_IN_FLIGHT_PER_WORKER)
    assert InlinePool.submitted <= 2 * duplicate.TASKS_IN_FLIGHT_PER_WORKER + 1
    for _ in range(100):
        next(results)
    assert InlinePool.submitted <= 101 + 2 * duplicate.TASKS_IN_FLIGHT_PER_WORKER
    results.close()


def _children(pid: int) -> set[int]:
    import os

    found = set()
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as fh:
                    if int(fh.read().rsplit(")", 1)[1].split()[1]) == pid:
                        found.add(int(entry))
            except (OSError, IndexError, ValueError):
                continue
    return found


@pytest.mark.skipif(not __import__("os").path.isdir("/proc"), reason="reads /proc for the worker processes")
def test_item23_sigterm_stops_the_worker_processes():
    import os
    import signal
    import subprocess
    import sys
    import time

    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "spades_env.evaluation",
            "heuristic",
            "heuristic",
            "--deals",
            "5000",
            "--games",
            "0",
            "--workers",
            "2",
            "--no-progress",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        deadline = time.monotonic() + 60
        while len(_children(proc.pid)) < 2 and time.monotonic() < deadline:  # the pool's workers are up
            time.sleep(0.2)
        workers = _children(proc.pid)
        assert workers, "no worker process started"
        time.sleep(1.0)  # the workers are inside their tasks
        proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=30)
        assert proc.returncode == 130 and "interrupted" in err and "Traceback" not in err
        time.sleep(0.5)
        alive = [
            p
            for p in workers
            if os.path.exists(f"/proc/{p}") and "Z" not in open(f"/proc/{p}/stat").read().rsplit(")", 1)[1].split()[0]
        ]
        assert not alive, f"worker processes still running: {alive}"
    finally:
        if proc.poll() is None:
            proc.kill()


# ---------------------------------------------------------------- evaluation correctness (items 27, 30, 31)
def test_item27_cross_play_games_are_credited_to_the_role_not_the_partner():
    from spades_env.core import preset
    from spades_env.evaluation.duplicate import EvalConfig, evaluate, orientations, winner_role

    rules = preset("standard")
    orients = orientations(rules, cross_play=True)
    assert [winner_role(rules, o, 0) for o in orients] == ["A", "B", "A", "B"]  # side 0: seats 0 and 2
    assert [winner_role(rules, o, 1) for o in orients] == ["B", "A", "B", "A"]
    assert winner_role(rules, orients[0], None) is None
    rules = rules.replace(target_score=100, max_hands=3)
    report = evaluate(
        EvalConfig(
            agent_a="heuristic",
            agent_b="random",
            rules=rules,
            deals=0,
            games=2,
            workers=1,
            cross_play=True,
            progress=False,
        )
    )
    g = report["games"]
    assert g["n_games"] == 8 and g["a_wins"] + g["b_wins"] + g["undecided"] == 8  # no game lost as a "P" win
    assert all(w in ("A", "B", None) for seed in g["per_game_winners"] for w in seed)


def synthetic_games(winners_by_seed):
    return [
        {"seed": k, "orientations": [{"winner": w, "hands": 10, "roles": "ABAB", "scores": [0, 0]} for w in ws]}
        for k, ws in enumerate(winners_by_seed)
    ]


def test_item30_an_undecided_game_is_a_fair_share_of_a_win_in_the_evaluation_as_in_the_league():
    from spades_env.core import preset
    from spades_env.evaluation.duplicate import _games_report
    from spades_env.evaluation.league import UNDECIDED_SHARE
    from spades_env.evaluation.stats import undecided_share

    g = _games_report(preset("standard"), synthetic_games([["A", None], ["B", "A"]]))
    assert g["n_games"] == 4 and g["undecided"] == 1 and g["mean_hands"] == 10
    assert g["a_win_rate"]["rate"] == pytest.approx((2 + 0.5) / 4)
    assert g["b_win_rate"]["rate"] == pytest.approx((1 + 0.5) / 4)
    g3 = _games_report(preset("cutthroat3"), synthetic_games([[None, "B", "B"]]))
    assert g3["a_win_rate"]["rate"] == pytest.approx((1 / 3) / 3)  # A is one of three sides
    assert UNDECIDED_SHARE == undecided_share(2)


def test_item31_the_win_rate_is_also_given_clustered_by_seed():
    from spades_env.core import preset
    from spades_env.evaluation.duplicate import _games_report

    # each seed decided the same way in both seatings: the seatings are not independent draws
    g = _games_report(preset("standard"), synthetic_games([["A", "A"]] * 6 + [["B", "B"]] * 4))
    wilson, clustered = g["a_win_rate"], g["a_win_rate_by_seed"]
    assert wilson["rate"] == pytest.approx(clustered["mean"]) == pytest.approx(0.6)
    assert clustered["n"] == 10 and (clustered["high"] - clustered["low"]) > (wilson["high"] - wilson["low"])


def test_item28_the_bag_cost_is_counted_once_in_training_evaluation_and_search():
    """Issue 30, item 28: bid 4, take 6 with 9 bags carried: 42 points, then the penalty (-100) at the 11th bag.
    Charging each new bag 10 and refunding the penalty gives +22 everywhere (the evaluation said -78 before)."""
    from types import SimpleNamespace

    import numpy as np

    from spades_env.agents.pimc import position_utility
    from spades_env.core import preset
    from spades_env.core.scoring import Bid, BidKind, score_hand
    from spades_env.evaluation.stats import SideTally
    from spades_env.rewards import charged_points, shaped_hand_points

    rules = preset("cutthroat")  # one seat a side: the side's numbers are the seat's
    bids = [Bid(BidKind.NUMBER, 4), Bid(BidKind.NUMBER, 3), Bid(BidKind.NUMBER, 2), Bid(BidKind.NUMBER, 2)]
    score = score_hand(rules, bids, [6, 3, 2, 2], [9, 0, 0, 0])
    side = score.sides[0]
    assert (side.points, side.new_bags, side.bag_penalties) == (-58, 2, 1)
    assert charged_points(rules, side.points, side.new_bags, side.bag_penalties) == 22
    assert shaped_hand_points(rules, np.array([-58]), np.array([9]), np.array([1]), np.array([1]))[0] == 22
    tally = SideTally(hands=1, points=side.points, new_bags=side.new_bags, bag_penalties=side.bag_penalties)
    assert tally.summary(rules)["bag_adjusted_points_per_hand"] == 22
    finished = SimpleNamespace(bids=bids, tricks_won=[6, 3, 2, 2])  # what position_utility reads of a hand
    others = (30 + 20 + 20) / 3  # the three other players made their bids exactly
    assert position_utility(rules, finished, [9, 0, 0, 0], 10.0) == pytest.approx(22 - others)
    assert position_utility(rules, finished, [9, 0, 0, 0], 0.0) == pytest.approx(-58 - others)  # plain points
