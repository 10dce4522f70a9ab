"""training.imitate_records: behaviour cloning from game records (the records the tests make)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
import torch

import spades_env
import spades_env.records
from spades_env.agents import make_agent
from spades_env.nn import load_policy
from spades_env.records import save_record
from training import imitate_records

SMALL = ["--hidden", "64", "64", "--card-scorer", "0", "--epochs", "30", "--lr", "0.003"]


def make_records(folder: Path, games: int, rules: str = "standard", human_seat: int = 0) -> int:
    """``games`` one-hand records of the heuristic at every seat, ``human_seat`` named human (as the server names a
    person's seat); returns the decisions with a choice at that seat."""
    folder.mkdir(parents=True, exist_ok=True)
    agent = make_agent("heuristic")
    choices = 0
    for seed in range(games):
        env = spades_env.raw_env(rules=rules, episode="hand")
        env.reset(seed=seed)
        for name in env.agent_iter():
            observation, _, terminated, truncated, _ = env.last()
            if terminated or truncated:
                env.step(None)
                continue
            if name == f"player_{human_seat}" and observation["action_mask"].sum() > 1:
                choices += 1
            env.step(agent.act(observation))
        record = env.game_record()
        record["seats"] = ["heuristic"] * len(env.possible_agents)
        record["seats"][human_seat] = "human"
        save_record(record, folder / f"game-{seed:03d}.json")
    return choices


def test_a_policy_learns_the_recorded_seat_s_play(tmp_path, capsys):
    records = tmp_path / "records"
    choices = make_records(records, 12)
    out = tmp_path / "imitated.pt"
    assert imitate_records.main([str(records), "--out", str(out), *SMALL]) == 0
    policy, meta = load_policy(out)
    assert meta["records"] == 12 and meta["decisions"] == choices  # the human seat's choices, nothing else
    assert meta["train_accuracy"] > 0.8  # the heuristic's play, learned
    assert 0 <= meta["held_out_accuracy"] <= 1
    assert "12 records" in capsys.readouterr().out
    agent = make_agent("ppo", path=str(out))  # a policy file like any other
    env = spades_env.raw_env(episode="hand")
    env.reset(seed=99)
    for _seat in env.agent_iter():
        observation, _, terminated, truncated, _ = env.last()
        env.step(None if terminated or truncated else agent.act(observation))
    assert env.episode_over


def test_more_seats_give_more_decisions_and_the_split_is_by_game(tmp_path):
    records = tmp_path / "records"
    make_records(records, 6, rules="cutthroat3")
    human, _ = imitate_records.read_decisions(records, "human")
    every, names = imitate_records.read_decisions(records, "all")
    assert len(names) == 6 and len(every.action) > 2.5 * len(human.action)
    fit, held = imitate_records.split_games(every, 6, 0.34, np.random.default_rng(0))
    assert set(fit.game.tolist()).isdisjoint(held.game.tolist()) and len(set(held.game.tolist())) == 2
    assert len(fit.action) + len(held.action) == len(every.action)
    assert all(every.mask[i, a] == 1 for i, a in enumerate(every.action))  # every action legal where taken


def test_a_bad_record_is_named_or_skipped(tmp_path, capsys):
    records = tmp_path / "records"
    make_records(records, 2)
    bad = records / "game-zzz.json"
    tampered = json.loads((records / "game-000.json").read_text())
    tampered["actions"][3] = 999
    bad.write_text(json.dumps(tampered))
    with pytest.raises(SystemExit) as exc:
        imitate_records.main([str(records), "--out", str(tmp_path / "x.pt"), *SMALL])
    assert exc.value.code == 2 and "game-zzz.json" in capsys.readouterr().err
    assert not (tmp_path / "x.pt").exists()
    assert imitate_records.main([str(records), "--out", str(tmp_path / "x.pt"), "--skip-bad", *SMALL]) == 0
    assert "skipped" in capsys.readouterr().err and load_policy(tmp_path / "x.pt")[1]["records"] == 2


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["/no/such/folder"], "not a folder of game records"),
        (["{records}", "--val-fraction", "1"], "--val-fraction must be in [0, 1)"),
        (["{records}", "--lr", "0"], "--lr must be > 0"),
        (["{empty}"], "no decision of the seats chosen"),
    ],
)
def test_bad_inputs_are_refused_naming_the_problem(tmp_path, capsys, argv, message):
    records, empty = tmp_path / "records", tmp_path / "empty"
    make_records(records, 1)
    empty.mkdir()
    argv = [a.format(records=records, empty=empty) for a in argv]
    with pytest.raises(SystemExit) as exc:
        imitate_records.main([*argv, "--out", str(tmp_path / "x.pt")])
    assert exc.value.code == 2 and message in capsys.readouterr().err
    assert not (tmp_path / "x.pt").exists()


def test_records_without_seat_names_need_all_seats(tmp_path, capsys):
    records = tmp_path / "records"
    make_records(records, 1)
    path = records / "game-000.json"
    record = json.loads(path.read_text())
    del record["seats"]
    path.write_text(json.dumps(record))
    with pytest.raises(SystemExit):
        imitate_records.main([str(records), "--out", str(tmp_path / "x.pt")])
    assert "names no seats" in capsys.readouterr().err
    assert imitate_records.main([str(records), "--out", str(tmp_path / "x.pt"), "--seats", "all", *SMALL]) == 0
    assert torch.load(tmp_path / "x.pt", weights_only=True)["meta"]["seats"] == "all"


def test_a_seat_an_agent_took_over_is_learned_only_before_the_takeover(tmp_path):
    records = tmp_path / "records"
    make_records(records, 1)
    whole, _ = imitate_records.read_decisions(records, "human")
    path = records / "game-000.json"
    record = json.loads(path.read_text())
    record["replaced"] = [{"seat": 0, "decision": 20, "agent": "heuristic"}]  # the person left at decision 20
    path.write_text(json.dumps(record))
    before, _ = imitate_records.read_decisions(records, "human")
    every, _ = imitate_records.read_decisions(records, "all")
    expected = sum(
        1
        for i, step in enumerate(spades_env.records.iter_replay(record))
        if i < 20 and step.agent == "player_0" and step.action_mask.sum() > 1
    )
    assert 0 < len(before.action) == expected < len(whole.action)
    assert len(every.action) > len(whole.action)  # --seats all keeps every seat's decisions to the end
    record["replaced"] = [{"seat": "0", "decision": 20}]
    path.write_text(json.dumps(record))
    with pytest.raises(imitate_records.RecordError, match="'replaced' entries"):
        imitate_records.read_decisions(records, "human")
