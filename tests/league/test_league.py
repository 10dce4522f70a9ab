"""League ratings: the round robin is reproducible, ratings order the agents, Bradley-Terry fits."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

import spades_env.evaluation.league as league_module
from spades_env.evaluation.league import (
    ELO_PER_LOGIT,
    LeagueConfig,
    LeagueError,
    fit_bradley_terry,
    format_league,
    play_league,
    resolve_entries,
)

SMALL = dict(deals=2, games=1, seed=3, workers=1, progress=False)
ENTRIES = ["random", "heuristic", "random"]


@pytest.fixture(scope="module")
def league_report():
    return play_league(LeagueConfig(entries=ENTRIES, **SMALL))


def test_league_same_seed_gives_the_same_json(league_report, tmp_path):
    from spades_env.evaluation.__main__ import main

    out = tmp_path / "league.json"
    png = tmp_path / "league.png"
    argv = [
        "--league",
        *ENTRIES,
        "--deals",
        "2",
        "--games",
        "1",
        "--seed",
        "3",
        "--workers",
        "1",
        "--no-progress",
        "--json",
        str(out),
        "--png",
        str(png),
    ]
    assert main(argv) == 0
    assert json.loads(out.read_text()) == json.loads(json.dumps(league_report))
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_league_rates_heuristic_above_random(league_report):
    ratings = league_report["ratings"]
    assert set(ratings) == {"random", "heuristic", "random#2"}
    assert ratings["heuristic"]["rating"] > ratings["random"]["rating"]
    assert ratings["heuristic"]["rating"] > ratings["random#2"]["rating"]
    assert ratings["heuristic"]["win_rate"] > ratings["random"]["win_rate"]


def test_league_anchor_is_rated_zero_and_named(league_report):
    assert league_report["method"]["anchor"] == "random"
    anchor = league_report["ratings"]["random"]
    assert anchor["rating"] == anchor["low"] == anchor["high"] == 0.0
    assert "anchor random = 0" in format_league(league_report)


def test_league_pairs_cover_every_match(league_report):
    pairs = {(p["a"], p["b"]) for p in league_report["pairs"]}
    assert pairs == {("random", "heuristic"), ("random", "random#2"), ("heuristic", "random#2")}
    for p in league_report["pairs"]:
        g = p["games"]
        assert g["a_wins"] + g["b_wins"] + g["undecided"] == g["n"] == 2  # 1 seed x 2 orientations


def test_league_charges_bags_at_their_game_cost(league_report):
    cost = league_report["method"]["bag_cost"]
    assert cost == 10.0  # standard: 100 points per 10 bags
    for p in league_report["pairs"]:
        d = p["deals"]
        assert d["a_points_charged"] == pytest.approx(d["a_points"] - cost * d["a_bags"])


@pytest.mark.parametrize(
    "wins, expected",
    [
        ([[0, 3], [1, 0]], math.log(3)),  # r1 - r0 = log(1/3): the anchor won 3 of 4
        ([[0, 1], [3, 0]], -math.log(3)),
        ([[0, 5], [5, 0]], 0.0),
    ],
)
def test_bradley_terry_two_entries_is_the_log_odds(wins, expected):
    r, se = fit_bradley_terry(np.array(wins), anchor=0, prior_sd=1e6)
    assert r[0] == 0.0 and se[0] == 0.0
    assert r[0] - r[1] == pytest.approx(expected, abs=1e-6)
    w = np.array(wins, dtype=float)
    n, p = w.sum(), w[0, 1] / w.sum()
    assert se[1] == pytest.approx(1 / math.sqrt(n * p * (1 - p)), rel=1e-4)  # Fisher information


def test_bradley_terry_unbeaten_record_stays_finite():
    r, se = fit_bradley_terry(np.array([[0, 0], [4, 0]]), anchor=0)
    assert np.isfinite(r).all() and np.isfinite(se).all() and r[1] > 0


def test_bradley_terry_orders_a_transitive_league():
    wins = np.array([[0, 2, 1], [8, 0, 3], [9, 7, 0]])
    r, _ = fit_bradley_terry(wins, anchor=0)
    assert r[0] < r[1] < r[2]


@pytest.mark.parametrize(
    "wins, anchor, message",
    [
        ([[0]], 0, "square matrix of 2"),
        ([[0, 1], [1, 0]], 5, "anchor index"),
        ([[0, -1], [1, 0]], 0, ">= 0"),
    ],
)
def test_bradley_terry_bad_input_is_named(wins, anchor, message):
    with pytest.raises(LeagueError, match=message):
        fit_bradley_terry(np.array(wins), anchor=anchor)


@pytest.mark.parametrize(
    "entries, message",
    [
        (["random"], "at least 2 entries"),
        (["=random", "heuristic"], "LABEL=AGENT"),
    ],
)
def test_league_entries_bad_input_is_named(entries, message, tmp_path):
    with pytest.raises(LeagueError, match=message):
        resolve_entries(entries, tmp_path)


def test_league_unknown_anchor_is_named():
    with pytest.raises(LeagueError, match="anchor 'pimc' is not an entry"):
        play_league(LeagueConfig(entries=["random", "heuristic"], anchor="pimc", **SMALL))


def test_league_labels_and_duplicates(tmp_path):
    labels = [e.label for e in resolve_entries(["random", "strong=heuristic", "random", "random"], tmp_path)]
    assert labels == ["random", "strong", "random#2", "random#3"]


def test_league_elo_scale_is_400_per_factor_ten():
    assert ELO_PER_LOGIT * math.log(10) == pytest.approx(400)


def test_league_run_folder_lists_policy_and_checkpoint_snapshots(tmp_path):
    torch = pytest.importorskip("torch")
    from spades_env.nn import PolicyNet, save_policy

    run = tmp_path / "myrun"
    (run / "checkpoints").mkdir(parents=True)
    nets = [PolicyNet([8]) for _ in range(3)]
    save_policy(run / "policy.pt", nets[2], meta={"update": 25})
    torch.save(
        {
            "format": "spades_env.train_checkpoint/1",
            "config": {"hidden": [8], "prior_weight": 0.0, "prior_on_bids": False, "snapshot_every": 10},
            "policy": nets[2].state_dict(),
            "pool": [nets[0].state_dict(), nets[1].state_dict()],
            "counters": {"update": 25},
        },
        run / "checkpoints" / "last.pt",
    )
    work = tmp_path / "work"
    work.mkdir()
    entries = resolve_entries(["random", str(run)], work)
    # The final policy.pt repeats the checkpoint's policy: listed once.
    assert [e.label for e in entries] == ["random", "myrun/snapshot@u10", "myrun/snapshot@u20", "myrun/policy@u25"]
    from spades_env.agents import make_agent

    assert all(make_agent(e.agent) is not None for e in entries[1:])


def test_league_empty_run_folder_is_named(tmp_path):
    pytest.importorskip("torch")
    (tmp_path / "empty").mkdir()
    with pytest.raises(LeagueError, match="no policy file or training checkpoint"):
        resolve_entries(["random", str(tmp_path / "empty")], tmp_path)


@pytest.mark.parametrize(
    "games, expected_wins",
    [
        # Three-player cutthroat, one match A vs B: A won 1, a B player won 2 (what equal players do).
        ({"n": 3, "a_wins": 1, "b_wins": 2, "undecided": 0, "b_players": 2}, [[0, 2], [2, 0]]),
        # Partnerships: one side against one side, an undecided game half each way.
        ({"n": 4, "a_wins": 3, "b_wins": 0, "undecided": 1, "b_players": 1}, [[0, 3.5], [0.5, 0]]),
    ],
)
def test_league_game_winner_beats_every_other_player(games, expected_wins):
    from spades_env.evaluation.league import _wins_matrix

    wins = _wins_matrix(["A", "B"], [{"a": "A", "b": "B", "games": games}], "games")
    assert wins.tolist() == expected_wins


def test_league_cutthroat_win_rates_share_b_wins():
    report = play_league(LeagueConfig(entries=["random", "random"], rules="cutthroat3", **SMALL))
    assert report["method"]["fair_win_rate"] == pytest.approx(1 / 3)
    pair = report["pairs"][0]["games"]
    rates = {name: x["win_rate"] for name, x in report["ratings"].items()}
    assert rates["random"] == pytest.approx((pair["a_wins"] + pair["undecided"] / 3) / pair["n"])
    assert rates["random#2"] == pytest.approx((pair["b_wins"] / 2 + pair["undecided"] / 3) / pair["n"])


@pytest.mark.parametrize(
    "flag, path", [("--json", "no_such_folder/league.json"), ("--png", "no_such_folder/league.png")]
)
def test_league_output_paths_are_checked_before_any_match(flag, path, tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(league_module, "play_league", lambda cfg: pytest.fail("a match was played"))
    with pytest.raises(SystemExit) as exited:
        league_module.main(["--league", "random", "heuristic", flag, str(tmp_path / path)])
    assert exited.value.code == 2
    assert "no_such_folder" in capsys.readouterr().err
