"""The replay viewer walks a golden record trick by trick and hand by hand; --seat hides the other hands."""

from __future__ import annotations

import io
import json
from pathlib import Path

import numpy as np
import pytest

from spades_env.aec import raw_env
from spades_env.core.rules import Rules
from spades_env.records import save_record
from spades_env.replay import main, read_record, view

GOLDEN = Path(__file__).resolve().parent.parent / "golden"
GOLDEN_FILES = ["standard_seed7.json", "cutthroat3_seed4.json", "jokers_seed11.json"]


def run(argv: list[str], stdin: str = "") -> tuple[int, str]:
    out = io.StringIO()
    code = main(argv, stdin=io.StringIO(stdin), stdout=out)
    return code, out.getvalue()


@pytest.mark.parametrize("name", GOLDEN_FILES)
def test_replay_walks_every_trick_and_hand_of_a_golden_record(name):
    record = json.loads((GOLDEN / name).read_text())["record"]
    code, text = run([str(GOLDEN / name), "--all", "--ascii"])
    assert code == 0
    rules = Rules.from_dict(record["rules"])
    hands = len(record["results"])
    tricks = sum(rules.hand_rules(h).num_tricks for h in range(hands))
    assert text.count("== trick ") == tricks
    assert text.count(" over\n") >= hands  # "== hand k over" per hand
    final = record["results"][-1]
    assert f"final score {final['scores']}, bags {final['bags']}" in text


@pytest.mark.parametrize("seat", [0, 1, 2])
def test_replay_seat_view_hides_the_other_hands(seat):
    path = GOLDEN / "standard_seed7.json"
    record = read_record(str(path))
    code, text = run([str(path), "--all", "--ascii", "--seat", str(seat)])
    assert code == 0
    first_table = text.split("== ")[1].splitlines()  # the deal: every hand still full
    for line in first_table[1:5]:
        owner = int(line.split()[1])
        if owner == seat:
            shown = line.split("hand: ")[1].split()
            assert sorted(shown) == sorted(record["deals"][0][seat])
        else:
            assert line.endswith("13 cards hidden")
    _, full = run([str(path), "--all", "--ascii"])
    assert "hidden" not in full


def test_replay_steps_on_enter_and_stops_on_q():
    record = read_record(str(GOLDEN / "standard_seed7.json"))
    out = io.StringIO()
    shown = view(record, out, io.StringIO("\n\nq\n"), viewer=None, show_all=False, symbols=False)
    assert shown == 3
    assert out.getvalue().count("== ") == 3


def test_replay_end_of_input_prints_the_rest():
    record = read_record(str(GOLDEN / "standard_seed7.json"))
    everything = view(record, io.StringIO(), io.StringIO(""), viewer=None, show_all=True, symbols=False)
    stepped = view(record, io.StringIO(), io.StringIO("\n"), viewer=None, show_all=False, symbols=False)
    assert stepped == everything > 3


def _one_hand_record(tmp_path: Path) -> Path:
    env = raw_env(episode="hand")
    env.reset(seed=4)
    rng = np.random.default_rng(0)
    while not any(env.terminations.values()):
        env.step(int(rng.choice(env.legal_actions())))
    path = tmp_path / "hand.json"
    save_record(env.game_record(), path)
    return path


@pytest.mark.parametrize("gif", [False, True])
def test_replay_frames_one_picture_per_event(tmp_path, gif):
    path = _one_hand_record(tmp_path)
    frames = tmp_path / "frames"
    argv = [str(path), "--all", "--frames", str(frames)] + (["--gif"] if gif else [])
    code, text = run(argv)
    assert code == 0
    events = text.count("== ")
    files = sorted(frames.iterdir())
    if gif:
        from PIL import Image, ImageSequence

        from spades_env.render_image import FRAME_MS

        assert [f.name for f in files] == ["replay.gif"]
        # Pillow merges identical frames in a row (the hand's end and the episode's end) into a longer one.
        durations = [f.info["duration"] for f in ImageSequence.Iterator(Image.open(files[0]))]
        assert sum(durations) == events * FRAME_MS
    else:
        assert len(files) == events  # deal, bidding, 13 tricks, hand over, the end
        assert events == 17


@pytest.mark.parametrize(
    "content, message",
    [
        ("{not json", "not a JSON game record"),
        ('{"env": "spades_v0"}', "record is missing"),
        ('{"record": [1, 2]}', "a record must be a JSON object"),
    ],
)
def test_replay_bad_record_is_named(tmp_path, capsys, content, message):
    path = tmp_path / "bad.json"
    path.write_text(content)
    code, _ = run([str(path), "--all"])
    assert code == 2
    assert message in capsys.readouterr().err


def test_replay_bad_action_is_named(tmp_path, capsys):
    record = json.loads((GOLDEN / "standard_seed7.json").read_text())["record"]
    record["actions"][0] = 0  # 2C: not a bid
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(record))
    assert run([str(path), "--all"])[0] == 2
    assert "action 0 (0) does not replay" in capsys.readouterr().err


def test_replay_bad_seat_is_named(capsys):
    assert run([str(GOLDEN / "cutthroat3_seed4.json"), "--all", "--seat", "3"])[0] == 2
    assert "--seat must be a seat in 0..2" in capsys.readouterr().err


def test_replay_unfinished_record_says_so(tmp_path):
    env = raw_env()
    env.reset(seed=2)
    rng = np.random.default_rng(0)
    for _ in range(6):  # the four bids and two cards of the first trick
        env.step(int(rng.choice(env.legal_actions())))
    path = tmp_path / "partial.json"
    save_record(env.game_record(), path)
    code, text = run([str(path), "--all", "--ascii"])
    assert code == 0
    assert "== the record ends here (the game was not finished)" in text
    assert "game over" not in text and "episode over" not in text
    assert text.count("  on the table: ") == 1


# ------------------------------------------------------------- issue 30, items 8, 9, 10, 24
def golden_record() -> dict:
    return json.loads((GOLDEN / "standard_seed7.json").read_text())["record"]


def write(tmp_path, data, name="r.json") -> str:
    path = tmp_path / name
    path.write_bytes(
        data if isinstance(data, bytes) else json.dumps(data).encode() if not isinstance(data, str) else data.encode()
    )
    return str(path)


def refused(args, capsys) -> str:
    """spades-replay exits 2 with one message and no traceback (argparse's exit included)."""
    try:
        code, _ = run(args)
    except SystemExit as exited:
        code = exited.code
    err = capsys.readouterr().err
    assert code == 2 and "Traceback" not in err and err.strip()
    return err


@pytest.mark.parametrize(
    "rules",
    [
        {"num_players": 5},
        {"num_players": "four"},
        {"nil_value": -50, "bogus_option": 1},
        [],
        "standard",
        None,
        {"target_score": 10**400},
    ],
)
def test_item8_bad_rules_in_a_record_are_named(tmp_path, capsys, rules):
    record = golden_record()
    record["rules"] = rules
    assert "does not set up a game" in refused([write(tmp_path, record), "--all"], capsys)


@pytest.mark.parametrize(
    "content, message",
    [
        ("[" * 100_000 + "]" * 100_000, "nested too deeply"),
        (bytes(range(256)) * 4, "not UTF-8"),
        ('{"actions": [' + "9" * 5000 + "]}", "not a game record"),
    ],
)
def test_item8_hostile_files_are_named_by_the_viewer_and_load_record(tmp_path, capsys, content, message):
    from spades_env.records import RecordError, load_record

    path = write(tmp_path, content)
    assert message in refused([path, "--all"], capsys)
    with pytest.raises(RecordError, match=message):
        load_record(path)


def _cut_over(record):
    record["actions"] = record["actions"][:-5]


@pytest.mark.parametrize(
    "edit, message",
    [
        (lambda r: r["results"][0].update(points=[999, -999]), "result"),
        (_cut_over, "marked over=True"),
        (lambda r: r.update(over="yes"), "'over' must be true or false"),
        (lambda r: r["actions"].__setitem__(0, "38"), "action ids are integers"),
        (lambda r: r["actions"].__setitem__(0, 38.7), "action ids are integers"),
    ],
)
def test_item9_the_viewer_refuses_what_replay_refuses(tmp_path, capsys, edit, message):
    from spades_env.records import RecordError, replay

    record = golden_record()
    edit(record)
    with pytest.raises(RecordError):
        replay(record)
    assert message in refused([write(tmp_path, record), "--all"], capsys)


def test_item10_reads_are_bounded(capsys):
    import os

    if not os.path.exists("/dev/zero"):
        pytest.skip("needs /dev/zero")
    from training.config import load_config

    assert "too large" in refused(["/dev/zero", "--all"], capsys)
    with pytest.raises(ValueError, match="too large"):
        load_config("/dev/zero")


def test_item24_frames_never_mix_with_an_older_replays(tmp_path, capsys):
    folder = tmp_path / "frames"
    folder.mkdir()
    (folder / "frame_0000.png").write_bytes(b"old")
    err = refused([str(GOLDEN / "standard_seed7.json"), "--all", "--frames", str(folder)], capsys)
    assert "already holds 1 frame file" in err
    assert "--gif needs --frames" in refused([str(GOLDEN / "standard_seed7.json"), "--all", "--gif"], capsys)
