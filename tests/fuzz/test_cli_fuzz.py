"""Fuzzing the command-line tools' arguments (issue 30: "exit 0 or 2 with a one-line message, never a traceback,
never a partial output file").

Each tool's ``main`` runs in-process on argument lists drawn from its own flags and from hostile values
(negative, huge, non-numeric, NaN, empty, missing folders, directories, files of the wrong kind). The work
itself is replaced by a stub that raises ``Reached``: the property is about what happens before any work
starts. Per list, exactly one of:

* the arguments were accepted (``Reached``: checking passed and the work would begin), or
* the tool exited with status 2 (argparse's) and its last line of stderr is one message naming the problem,

and no traceback was printed and no output file was written.
"""

from __future__ import annotations

import io
import os

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import spades_env.evaluation.__main__ as evaluate_cli
import spades_env.evaluation.league as league_cli
import spades_env.play as play_cli
import spades_env.replay as replay_cli
from training import train as train_cli

GOLDEN = os.path.join(os.path.dirname(__file__), "..", "golden", "standard_seed7.json")
NUMBERS = ["0", "1", "2", "-1", "-2", "3", "10", "99999999999999999999", "2.5", "nan", "inf", "x", ""]
PATHS = [
    "missing_folder/out.json",
    ".",
    "out.json",
    "out.png",
    "out.txt",
    GOLDEN,
    "/dev/null",
    "nosuch.yaml",
    "bad.yaml",
    "text.pt",
]
NAMES = [
    "random",
    "heuristic",
    "pimc",
    "bogus",
    "nosuch.pt",
    GOLDEN,
    "",
    "two_player",
    "standard",
    "cutthroat",
    "x=random",
    "=random",
    "bad.yaml",
    "text.pt",
]
INPUTS = {"bad.yaml": "x: [\n  - {", "text.pt": "not a policy"}  # hostile input files in the working folder


class Reached(Exception):
    """The arguments passed every check: the tool would start its work here."""


def reached(*args, **kwargs):
    raise Reached


def tokens(flags: list[str]) -> st.SearchStrategy[list[str]]:
    """Argument lists: flags of the tool followed by values, and stray values."""
    value = st.sampled_from(NUMBERS + PATHS + NAMES)
    item = st.one_of(
        st.tuples(st.sampled_from(flags), value).map(list),
        value.map(lambda v: [v]),
        st.sampled_from(flags).map(lambda f: [f]),
    )
    return st.lists(item, max_size=5).map(lambda parts: [t for part in parts for t in part])


def check(run, argv, capsys, tmp_path) -> None:
    """Run ``run(argv)`` in ``tmp_path``: accepted, or exit 2 with one message; no traceback, no new files."""
    for name, text in INPUTS.items():
        (tmp_path / name).write_text(text)
    before = set(os.listdir(tmp_path))
    try:
        code = run(argv)
    except Reached:
        code = "reached"
    except SystemExit as exited:
        code = exited.code
    err = capsys.readouterr().err
    assert "Traceback" not in err, (argv, err)
    assert code in ("reached", 0, 2), (argv, code, err)
    if code == 2:  # argparse's usage lines (if any), then exactly one line: the message
        lines = err.strip().splitlines()
        message = (
            [k for k, line in enumerate(lines) if not line.startswith(("usage:", " "))]
            if lines[0].startswith("usage:")
            else [0]
        )
        assert message and message[0] == len(lines) - 1 and ": " in lines[-1], (argv, err)
    assert set(os.listdir(tmp_path)) == before, (argv, "an output file was written")


FUZZ = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


@FUZZ
@given(
    argv=tokens(
        [
            "--deals",
            "--games",
            "--rules",
            "--seed",
            "--workers",
            "--json",
            "--png",
            "--context",
            "--a-opt",
            "--b-opt",
            "--partner",
            "--cross-play",
            "--no-progress",
        ]
    )
)
def test_spades_evaluate_arguments(argv, capsys, tmp_path_factory, monkeypatch):
    tmp = tmp_path_factory.mktemp("evaluate")
    monkeypatch.chdir(tmp)
    monkeypatch.setattr(evaluate_cli, "evaluate", reached)
    check(evaluate_cli.main, ["random", "heuristic", *argv], capsys, tmp)


@FUZZ
@given(
    argv=tokens(
        ["--deals", "--games", "--rules", "--seed", "--workers", "--json", "--png", "--anchor", "--no-progress"]
    ),
    entries=st.lists(st.sampled_from(NAMES), max_size=4),
)
def test_league_arguments(argv, entries, capsys, tmp_path_factory, monkeypatch):
    tmp = tmp_path_factory.mktemp("league")
    monkeypatch.chdir(tmp)
    monkeypatch.setattr(league_cli, "evaluate", reached)  # the first match
    check(evaluate_cli.main, ["--league", *entries, *argv] if entries else ["--league", *argv], capsys, tmp)


@FUZZ
@given(
    argv=tokens(
        [
            "--rules",
            "--seat",
            "--partner",
            "--opponents",
            "--seats",
            "--episode",
            "--seed",
            "--hint-agent",
            "--record",
            "--ascii",
        ]
    )
)
def test_spades_play_arguments(argv, capsys, tmp_path_factory, monkeypatch):
    tmp = tmp_path_factory.mktemp("play")
    monkeypatch.chdir(tmp)
    monkeypatch.setattr(play_cli, "play_game", reached)
    check(lambda a: play_cli.main(a, stdin=io.StringIO(""), stdout=io.StringIO()), argv, capsys, tmp)


@FUZZ
@given(argv=tokens(["--seat", "--all", "--ascii", "--frames", "--gif"]), record=st.sampled_from(PATHS))
def test_spades_replay_arguments(argv, record, capsys, tmp_path_factory, monkeypatch):
    tmp = tmp_path_factory.mktemp("replay")
    monkeypatch.chdir(tmp)
    monkeypatch.setattr(replay_cli, "view", reached)
    check(lambda a: replay_cli.main(a, stdin=io.StringIO(""), stdout=io.StringIO()), [record, *argv], capsys, tmp)


@FUZZ
@given(
    argv=tokens(
        [
            "--config",
            "--seed",
            "--learning-rate",
            "--gamma",
            "--num-envs",
            "--exp-name",
            "--eval-opponents",
            "--total-decisions",
            "--time-limit-minutes",
            "--rules",
        ]
    )
)
def test_spades_train_arguments(argv, capsys, tmp_path_factory, monkeypatch):
    tmp = tmp_path_factory.mktemp("train")
    monkeypatch.chdir(tmp)

    def configure_only(a):
        train_cli.configure(a)
        raise Reached

    check(configure_only, argv, capsys, tmp)


@pytest.mark.parametrize("argv", [["--seed", "-1"], ["--workers", "0"], ["--json", "missing_folder/out.json"]])
def test_known_bad_arguments_are_refused_by_the_evaluation(argv, capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(evaluate_cli, "evaluate", reached)
    with pytest.raises(SystemExit) as exited:
        evaluate_cli.main(["random", "heuristic", *argv])
    assert exited.value.code == 2 and argv[0] in capsys.readouterr().err
