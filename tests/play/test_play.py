"""Human play: a scripted game plays to the end through bad input and hints, and its record replays."""

from __future__ import annotations

import io
import os
import re
import signal

import pytest

import spades_env
from spades_env.core.actions import parse_action
from spades_env.core.hand import Phase
from spades_env.play import PROMPT, legal_move, main, parse_move, symbols_supported
from spades_env.records import load_record, replay

LOW_TARGET_RULES = "base: standard\ntarget_score: 150\nmax_hands: 6\n"


class ScriptedPerson(io.StringIO):
    """Standard input that types the scripted lines, then the first legal move listed on the table."""

    def __init__(self, script: list[str], table: io.StringIO):
        super().__init__()
        self.script = list(script)
        self.table = table
        self.moves = 0

    def readline(self, *args) -> str:
        if self.script:
            return self.script.pop(0) + "\n"
        listed = re.findall(r"^legal: (.*)$", self.table.getvalue(), flags=re.M)
        self.moves += 1
        return listed[-1].split(", ")[0] + "\n"


def play(argv: list[str], script: list[str]) -> tuple[int, str, ScriptedPerson]:
    table = io.StringIO()
    person = ScriptedPerson(script, table)
    code = main(argv, stdin=person, stdout=table)
    return code, table.getvalue(), person


@pytest.fixture(scope="module")
def scripted_game(tmp_path_factory):
    folder = tmp_path_factory.mktemp("play")
    rules = folder / "low.yaml"
    rules.write_text(LOW_TARGET_RULES)
    record = folder / "game.json"
    code, text, person = play(
        ["--rules", str(rules), "--seed", "5", "--ascii", "--record", str(record), "--partner", "random"],
        ["what", "bid 99", "AS", "hint", "score", "help", ""],
    )
    return code, text, person, record


def test_play_scripted_game_reaches_the_end(scripted_game):
    code, text, person, _ = scripted_game
    assert code == 0
    assert "game over:" in text
    assert person.moves > 13  # at least one hand's worth of typed moves


def test_play_bad_input_reprompts_with_the_reason(scripted_game):
    _, text, _, _ = scripted_game
    assert "not a move: unknown action name 'what'" in text
    assert "not a move: unknown action name 'bid 99'" in text
    assert "not a move: it is the bidding: make a bid, not AS" in text  # a card while bidding (core.explain)


def test_play_hint_names_the_hint_agents_move(scripted_game):
    _, text, _, _ = scripted_game
    hint = re.search(r"^hint \(heuristic\): (.+)$", text, flags=re.M)
    assert hint and parse_action(hint.group(1)) >= 0


def test_play_score_sheet_shown_between_hands(scripted_game):
    _, text, _, record = scripted_game
    hands = len(load_record(record)["results"])
    assert text.count("score sheet:") >= hands
    assert "hand 1: " in text


def test_play_record_replays_to_the_same_outcome(scripted_game):
    _, text, _, path = scripted_game
    record = load_record(path)
    outcome = replay(record)
    assert outcome.scores == record["results"][-1]["scores"]
    assert outcome.results == record["results"]
    final = re.search(r"final score (.+)$", text, flags=re.M).group(1)
    assert [int(x) for x in re.findall(r" (-?\d+)(?:,|$)", final)] == outcome.scores


def test_play_end_of_input_ends_cleanly(tmp_path):
    record = tmp_path / "partial.json"
    table = io.StringIO()
    assert main(["--seed", "1", "--ascii", "--record", str(record)], stdin=io.StringIO("hint\n"), stdout=table) == 0
    assert "input ended" in table.getvalue()
    partial = load_record(record)  # the game so far: the agents' bids before the person's first turn
    assert partial["results"] == []
    assert len(replay(partial).steps) == len(partial["actions"])


def test_play_one_hand_in_cutthroat():
    code, text, person = play(
        ["--rules", "cutthroat3", "--episode", "hand", "--seed", "2", "--ascii", "--opponents", "random"], []
    )
    assert code == 0 and "hand over" in text
    assert person.moves >= 17  # 17 tricks in three-player cutthroat


@pytest.mark.parametrize(
    "argv, message",
    [
        (["--seats", "human,heuristic"], "needs 4 comma-separated entries"),
        (["--seats", "random,heuristic,random,heuristic"], "at least one 'human'"),
        (["--seat", "7"], "--seat must be in 0..3"),
        (["--opponents", "nosuchagent"], "unknown agent 'nosuchagent'"),
        (["--rules", "nosuchrules"], "unknown rules preset"),
        (["--rules", "two_player", "--opponents", "ppo_standard"], "agent 'ppo_standard' cannot play these rules"),
        (["--rules", "two_player", "--hint-agent", "ppo_standard"], "no output for 'keep', 'discard'"),
    ],
)
def test_play_bad_table_is_named(argv, message, capsys):
    assert main(argv, stdin=io.StringIO(""), stdout=io.StringIO()) == 2
    assert message in capsys.readouterr().err


@pytest.mark.parametrize(
    "typed, phase, expected",
    [
        ("AS", Phase.PLAY, "AS"),
        ("as", Phase.PLAY, "AS"),
        ("10D", Phase.PLAY, "TD"),
        ("T\u2666", Phase.PLAY, "TD"),
        ("4", Phase.BID, "bid 4"),
        ("0", Phase.BID, "nil"),
        ("Blind  Nil", Phase.BLIND, "blind nil"),
        ("see cards", Phase.BLIND, "see cards"),
    ],
)
def test_play_move_notation(typed, phase, expected):
    action = parse_action(expected)
    assert parse_move(typed, phase) == action


@pytest.mark.parametrize("typed, message", [("4", "unknown action name"), ("bid four", "unknown action name")])
def test_play_move_notation_errors(typed, message):
    with pytest.raises(ValueError, match=message):
        parse_move(typed, Phase.PLAY)


def test_play_an_illegal_move_names_the_rule():
    hand = spades_env.raw_env()
    hand.reset(seed=3)
    state = hand.hand
    assert state.phase == Phase.BID
    with pytest.raises(ValueError, match="^it is the bidding: make a bid, not KS$"):
        legal_move("KS", state)
    with pytest.raises(ValueError, match="^you may bid at most 13 tricks$"):
        legal_move("bid 14", state)
    assert legal_move("3", state) == parse_action("bid 3")


@pytest.mark.parametrize("encoding, expected", [("utf-8", True), ("ascii", False), ("latin-1", False)])
def test_play_suit_symbols_fall_back_to_letters(encoding, expected):
    assert symbols_supported(io.TextIOWrapper(io.BytesIO(), encoding=encoding)) is expected


def test_play_symbols_shown_unless_ascii():
    table = io.StringIO()
    main(["--seed", "1", "--episode", "hand"], stdin=io.StringIO(""), stdout=table)
    assert "\u2660" in table.getvalue() or "\u2665" in table.getvalue()
    assert PROMPT in table.getvalue()


def test_play_piped_input_is_echoed():
    table = io.StringIO()
    main(["--seed", "1", "--ascii"], stdin=io.StringIO("hint\n"), stdout=table)
    assert PROMPT + "hint\n" in table.getvalue()


class InterruptingPerson(ScriptedPerson):
    """Plays legal moves, then raises what a signal would at the ``after``-th read of a move."""

    def __init__(self, table: io.StringIO, after: int, signum: int | None):
        super().__init__([], table)
        self.after, self.signum = after, signum

    def readline(self, *args) -> str:
        if self.moves == self.after:
            if self.signum is None:
                raise KeyboardInterrupt
            os.kill(os.getpid(), self.signum)  # the handler spades-play installs turns it into an interrupt
        return super().readline()


@pytest.mark.parametrize("signum", [None, signal.SIGTERM], ids=["ctrl-c", "sigterm"])
def test_item1_an_interrupted_game_still_saves_its_record(tmp_path, signum):
    """Issue 30, item 1: Ctrl-C or SIGTERM mid-game writes the record of the game so far."""
    record = tmp_path / "cut.json"
    table = io.StringIO()
    person = InterruptingPerson(table, after=5, signum=signum)
    code = main(["--seed", "3", "--ascii", "--record", str(record)], stdin=person, stdout=table)
    assert code == 130 and "interrupted" in table.getvalue()
    partial = load_record(record)
    assert partial["over"] is False and len(partial["actions"]) >= 5
    assert len(replay(partial).steps) == len(partial["actions"])
    assert signal.getsignal(signal.SIGTERM) is signal.SIG_DFL  # the handler is put back


@pytest.mark.parametrize("where, message", [("missing/game.json", "does not exist"), (".", "is a directory")])
def test_item2_a_record_path_that_cannot_be_written_is_refused_before_the_game(tmp_path, capsys, where, message):
    """Issue 30, item 2: the --record path is checked first (exit 2 naming the option), no game is played."""
    table = io.StringIO()
    code = main(["--seed", "1", "--record", str(tmp_path / where)], stdin=io.StringIO(""), stdout=table)
    err = capsys.readouterr().err
    assert code == 2 and "--record" in err and message in err and "Traceback" not in err
    assert table.getvalue() == ""  # nothing dealt


def test_item2_a_record_that_cannot_be_saved_says_so_and_leaves_no_partial_file(tmp_path, capsys, monkeypatch):
    import spades_env.records as records

    def full_disk(fd, mode):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(records.os, "fdopen", full_disk)
    code = main(
        ["--seed", "1", "--ascii", "--record", str(tmp_path / "g.json")],
        stdin=io.StringIO("quit\n"),
        stdout=io.StringIO(),
    )
    err = capsys.readouterr().err
    assert code == 1 and "could not save the record" in err and "No space left" in err
    assert list(tmp_path.iterdir()) == []  # neither the record nor its temporary file


def test_item19_undecodable_input_is_an_unknown_move_and_the_record_is_kept(tmp_path):
    """Issue 30, item 19: bytes the input's encoding cannot read (non-ASCII under an ASCII locale) are refused as a
    move, the game goes on and its record is saved."""
    record = tmp_path / "g.json"
    raw = io.BytesIO("\u00e9\u00e9\nquit\n".encode("utf-8"))
    stdin = io.TextIOWrapper(raw, encoding="ascii")
    table = io.StringIO()
    assert main(["--seed", "1", "--ascii", "--record", str(record)], stdin=stdin, stdout=table) == 0
    shown = table.getvalue()
    assert "not a move: unknown action name" in shown and "input ended" not in shown  # "quit" was still read
    assert load_record(record)["over"] is False
