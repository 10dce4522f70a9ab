"""Issue 49 (hardening, third round): spades-replay and spades-play refuse what they would not do as asked.

Each test is named after the item of the issue it pins: one rule for every output path (a missing parent folder
is refused, naming the flag and the folder, before anything is written), and a flag that would have no effect
(``--partner`` without partnerships, the per-seat flags beside ``--seats``) is refused before the game (20).
"""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from spades_env import play
from spades_env.replay import check_frames_folder
from spades_env.replay import main as replay_main

GOLDEN = Path(__file__).resolve().parent.parent / "golden" / "standard_seed7.json"


def no_game(*args, **kwargs):
    pytest.fail("a game was played")


def tree(folder: Path) -> set[str]:
    return {p.relative_to(folder).as_posix() for p in folder.rglob("*")}


@pytest.mark.parametrize(
    "where, missing",
    [("nosuch/deeper/frames", "nosuch/deeper"), ("nosuch/frames", "nosuch")],
)
def test_item20_frames_refuse_a_missing_parent_folder_like_json_and_record(
    tmp_path, capsys, monkeypatch, where, missing
):
    (tmp_path / "afile.txt").write_text("a file, not a folder")
    before = tree(tmp_path)
    monkeypatch.chdir(tmp_path)
    with pytest.raises(SystemExit) as exited:
        replay_main([str(GOLDEN), "--all", "--frames", where], stdin=io.StringIO(""), stdout=io.StringIO())
    err = capsys.readouterr().err
    assert exited.value.code == 2 and "Traceback" not in err
    assert f"--frames {where!r}: folder {missing!r} does not exist" in err
    assert tree(tmp_path) == before  # no folder made, no frame written
    # the rule of --record (spades-play) and --json (spades-evaluate), for the same path
    code = play.main(["--record", f"{where}.json"], stdin=io.StringIO(""), stdout=io.StringIO())
    assert code == 2 and f"folder {missing!r} does not exist" in capsys.readouterr().err


def test_item20_frames_refuse_a_parent_that_is_a_file_and_an_empty_folder_name(tmp_path, capsys, monkeypatch):
    (tmp_path / "afile.txt").write_text("a file, not a folder")
    before = tree(tmp_path)
    monkeypatch.chdir(tmp_path)
    for where, reason in [("afile.txt/frames", "--frames 'afile.txt/frames': 'afile.txt' is a file, not a folder"),
                          ("", "--frames needs a folder, got ''"), (" ", "--frames needs a folder, got ''")]:  # fmt: skip
        with pytest.raises(SystemExit) as exited:
            replay_main([str(GOLDEN), "--all", "--frames", where], stdin=io.StringIO(""), stdout=io.StringIO())
        err = capsys.readouterr().err
        assert exited.value.code == 2 and reason in err and "Traceback" not in err, err
    assert tree(tmp_path) == before


def test_item20_frames_still_make_a_new_folder_in_an_existing_one(tmp_path):
    check_frames_folder(str(tmp_path / "new"))  # accepted: one level is made when the frames are saved
    assert not (tmp_path / "new").exists()  # checking writes nothing


def test_item20_save_frames_makes_no_parent_folders(tmp_path):
    np = pytest.importorskip("numpy")
    pytest.importorskip("PIL")
    from spades_env.render_image import save_frames

    frame = np.zeros((4, 4, 3), dtype=np.uint8)
    with pytest.raises(FileNotFoundError):
        save_frames([frame], str(tmp_path / "nosuch" / "frames"))
    assert not (tmp_path / "nosuch").exists()
    assert save_frames([frame], str(tmp_path / "frames")) == [str(tmp_path / "frames" / "frame_0000.png")]


@pytest.mark.parametrize(
    "argv, message",
    [
        (["--rules", "cutthroat", "--partner", "random"], "--partner 'random' has no effect: the rules 'cutthroat'"),
        (["--rules", "cutthroat3", "--partner", "heuristic"], "have no partnerships"),
        (["--rules", "two_player", "--partner", "random"], "--partner 'random' has no effect"),
        (["--seats", "human,random,random,random", "--partner", "random"], "--partner has no effect beside --seats"),
        (["--seats", "human,random,random,random", "--opponents", "random"], "--opponents has no effect beside"),
        (["--seats", "random,human,random,random", "--seat", "1"], "--seat has no effect beside --seats"),
    ],
)
def test_item20_play_refuses_a_flag_that_would_have_no_effect(tmp_path, capsys, monkeypatch, argv, message):
    monkeypatch.setattr(play, "play_game", no_game)
    record = tmp_path / "game.json"
    table = io.StringIO()
    assert play.main([*argv, "--record", str(record)], stdin=io.StringIO(""), stdout=table) == 2
    err = capsys.readouterr().err
    assert err.startswith("spades-play: ") and message in err and "Traceback" not in err
    assert table.getvalue() == "" and not record.exists()


@pytest.mark.parametrize(
    "argv, specs",
    [
        ([], ["human", "heuristic", "heuristic", "heuristic"]),
        (["--partner", "random", "--seat", "1"], ["heuristic", "human", "heuristic", "random"]),
        (["--rules", "cutthroat3", "--opponents", "random"], ["human", "random", "random"]),
        (["--seats", "random,human,random,random"], ["random", "human", "random", "random"]),
    ],
)
def test_item20_play_flags_that_count_are_still_taken(monkeypatch, argv, specs):
    seen = []
    monkeypatch.setattr(play, "play_game", lambda console, rules, specs, *rest: seen.append(list(specs)))
    assert play.main(argv, stdin=io.StringIO(""), stdout=io.StringIO()) == 0
    assert seen == [specs]
