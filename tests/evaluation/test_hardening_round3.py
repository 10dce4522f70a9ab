"""Issue 49 (hardening, third round): spades-evaluate and the league refuse what they would not do as asked.

Each test is named after the item of the issue it pins: a flag that would have no effect (``--partner-opt`` or
``--partner`` without ``--cross-play``, ``--context`` without deals) is refused before the first deal, from the
command line and from ``EvalConfig`` (20); league labels that collide are refused before any match, naming both
entries, from the command line and from ``play_league`` (21).
"""

from __future__ import annotations

import pytest

import spades_env.evaluation.__main__ as cli
import spades_env.evaluation.league as league_module
from spades_env.evaluation.duplicate import EvalConfig
from spades_env.evaluation.league import LeagueConfig, LeagueError, play_league, resolve_entries

from .helpers import exits_2, no_match


# ------------------------------------------------------------------ item 20: flags that would have no effect
@pytest.mark.parametrize(
    "argv, message",
    [
        (["--partner-opt", "samples=4"], "--partner-opt has no effect without --cross-play"),
        (["--partner", "pimc"], "--partner 'pimc' has no effect without --cross-play"),
        (["--partner", "heuristic", "--partner-opt", "x=1"], "--partner 'heuristic' has no effect without"),
        (["--context", "sampled", "--deals", "0", "--games", "2"], "--context sampled has no effect with --deals 0"),
    ],
)
def test_item20_evaluate_refuses_a_flag_that_would_have_no_effect(tmp_path, capsys, monkeypatch, argv, message):
    monkeypatch.setattr(cli, "evaluate", no_match)
    out = tmp_path / "r.json"
    last = exits_2(cli.main, ["random", "heuristic", *argv, "--json", str(out)], capsys).strip().splitlines()[-1]
    assert last.startswith("spades-evaluate: error: ") and message in last
    assert not out.exists()


def test_item20_evaluate_takes_the_partner_flags_with_cross_play(monkeypatch):
    seen = []

    class Reached(Exception):
        pass

    def reached(cfg):
        seen.append(cfg)
        raise Reached

    monkeypatch.setattr(cli, "evaluate", reached)
    with pytest.raises(Reached):
        cli.main(["random", "heuristic", "--cross-play", "--partner", "pimc", "--partner-opt", "samples=4"])
    with pytest.raises(Reached):
        cli.main(["random", "heuristic", "--context", "sampled", "--deals", "3"])
    with pytest.raises(Reached):
        cli.main(["random", "heuristic", "--cross-play"])
    assert (seen[0].partner, seen[0].partner_options) == ("pimc", {"samples": 4})
    assert seen[1].context == "sampled" and seen[2].partner == "heuristic"


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"partner_options": {"samples": 4}}, "partner_options .* have no effect without cross_play=True"),
        ({"partner": "pimc"}, "partner 'pimc' has no effect without cross_play=True"),
        ({"context": "sampled", "deals": 0, "games": 2}, "context 'sampled' has no effect with deals=0"),
    ],
)
def test_item20_eval_config_refuses_a_setting_that_would_be_ignored(kwargs, message):
    with pytest.raises(ValueError, match=message):
        EvalConfig(agent_a="random", agent_b="heuristic", **kwargs)
    EvalConfig(agent_a="random", agent_b="heuristic", **{**kwargs, "cross_play": True, "deals": 1})  # they count


# ------------------------------------------------------------------ item 21: league labels that collide
COLLISIONS = [
    # the audit's case: the heuristic was shown as 'x#3'
    (["x#2=random", "x=random", "x=heuristic"], r"entry 2 \('x=random'\) and entry 3 \('x=heuristic'\).*'x'"),
    (["x#2=random", "x", "x"], r"entry 1 \('x#2=random'\) and entry 3 \('x', numbered #2 as a repeat\).*'x#2'"),
    (["random", "random", "random#2=heuristic"], r"entry 2 \('random', numbered #2 .*entry 3 .*'random#2'"),
    (["random", "random=heuristic"], r"entry 1 \('random'\) and entry 2 \('random=heuristic'\)"),
    (["a=random", "a=random"], r"entry 1 \('a=random'\) and entry 2 \('a=random'\) would both be labelled 'a'"),
]


@pytest.mark.parametrize("specs, message", COLLISIONS)
def test_item21_colliding_league_labels_are_refused_naming_both_entries(tmp_path, monkeypatch, specs, message):
    monkeypatch.setattr(league_module, "evaluate", no_match)
    with pytest.raises(LeagueError, match=message):
        resolve_entries(specs, tmp_path)
    with pytest.raises(LeagueError, match=message):  # the Python API: before any match
        play_league(LeagueConfig(entries=specs, deals=1, games=0, workers=1, progress=False))


def test_item21_colliding_league_labels_are_refused_by_the_command_line(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(league_module, "evaluate", no_match)
    out = tmp_path / "league.json"
    argv = ["--league", "x#2=random", "x=random", "x=heuristic", "--json", str(out), "--no-progress"]
    assert cli.main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("league: entry 2 ('x=random') and entry 3 ('x=heuristic') would both be labelled 'x'")
    assert "Traceback" not in err and not out.exists()


def test_item21_repeated_agents_are_still_numbered(tmp_path):
    labels = [e.label for e in resolve_entries(["random", "x=heuristic", "random", "random", "y=random"], tmp_path)]
    assert labels == ["random", "x", "random#2", "random#3", "y"]


def _checkpoint(path, nets, update):
    import torch

    path.parent.mkdir(parents=True, exist_ok=True)
    torch.save(
        {
            "format": "spades_env.train_checkpoint/1",
            "config": {"hidden": [8], "prior_weight": 0.0, "prior_on_bids": False, "snapshot_every": 10},
            "policy": nets[-1].state_dict(),
            "pool": [n.state_dict() for n in nets[:-1]],
            "counters": {"update": update},
        },
        path,
    )


def test_item21_run_folders_under_one_label_collide_but_a_folders_own_labels_are_numbered(tmp_path):
    pytest.importorskip("torch")
    from spades_env.nn import PolicyNet, save_policy

    for run in ("one", "two"):
        save_policy(tmp_path / run / "run" / "policy.pt", PolicyNet([8]), meta={"update": 5})
    with pytest.raises(LeagueError, match=r"entry 2 \('r=.*one/run'\) and entry 3 \('r=.*two/run'\).*'r/policy@u5'"):
        resolve_entries(["random", f"r={tmp_path / 'one' / 'run'}", f"r={tmp_path / 'two' / 'run'}"], tmp_path)
    # a run folder given twice without a label: its entries again, numbered
    twice = [e.label for e in resolve_entries([str(tmp_path / "one" / "run")] * 2, tmp_path)]
    assert twice == ["run/policy@u5", "run/policy@u5#2"]
    # two checkpoints of one folder with the same update: labels the folder made, numbered even under a LABEL
    run = tmp_path / "three"
    _checkpoint(run / "checkpoints" / "a.pt", [PolicyNet([8])], 25)
    _checkpoint(run / "checkpoints" / "b.pt", [PolicyNet([8])], 25)
    work = tmp_path / "work"
    work.mkdir()
    labels = [e.label for e in resolve_entries(["random", f"mine={run}"], work)]
    assert labels == ["random", "mine/policy@u25", "mine/policy@u25#2"]
