"""The evaluation harness: statistics, duplicate orientations, reproducibility, the command line."""

from __future__ import annotations

import json
from types import SimpleNamespace

import numpy as np
import pytest
from scipy import stats as sps

from spades_env.agents import HeuristicAgent, registry
from spades_env.agents.knowledge import rules_from_observation
from spades_env.agents.registry import register_agent
from spades_env.core import BidKind, HandState, make_deal, preset, score_hand
from spades_env.core.scoring import Bid
from spades_env.evaluation import EvalConfig, evaluate, mean_interval, orientations, tally_hand, win_interval
from spades_env.evaluation.__main__ import main, parse_options
from spades_env.evaluation.duplicate import ConfigError, deal_context
from spades_env.obs.decode import decode_observation

SHORT = preset("standard").replace(target_score=150)


def strip_timing(report: dict) -> dict:
    return {k: v for k, v in report.items() if k != "timing"}


# ---------------------------------------------------------------- statistics
def test_mean_interval_matches_scipy_t_interval():
    x = [12.0, -3.0, 7.5, 0.0, 22.0, -8.0, 4.0, 9.0]
    got = mean_interval(x)
    low, high = sps.t.interval(0.95, len(x) - 1, loc=np.mean(x), scale=sps.sem(x))
    assert got["mean"] == pytest.approx(np.mean(x))
    assert got["low"] == pytest.approx(low) and got["high"] == pytest.approx(high)
    assert got["sd"] == pytest.approx(np.std(x, ddof=1))


@pytest.mark.parametrize("wins,n", [(0, 10), (3, 10), (50, 100), (499, 500), (500, 500)])
def test_win_interval_matches_scipy_wilson(wins, n):
    got = win_interval(wins, n)
    ci = sps.binomtest(wins, n).proportion_ci(confidence_level=0.95, method="wilson")
    assert got["rate"] == pytest.approx(wins / n)
    assert got["low"] == pytest.approx(ci.low, abs=1e-9) and got["high"] == pytest.approx(ci.high, abs=1e-9)


def test_tally_hand_on_a_scripted_hand():
    rules = preset("standard")
    suit = lambda s: " ".join(r + s for r in "23456789TJQKA")  # noqa: E731
    state = HandState(rules, make_deal(rules, [suit("C"), suit("D"), suit("H"), suit("S")]), dealer=3)
    for action in (54, 57, 58, 59):  # seat 0 nil, seat 1 bids 3, seat 2 bids 4, seat 3 bids 5
        state.apply(action)
    while not state.is_over:
        state.apply(state.legal_actions()[0])
    assert state.tricks_won == [0, 0, 0, 13]  # the spades take every trick
    score = score_hand(rules, state.bids, state.tricks_won, [0, 0])
    result = SimpleNamespace(bids=state.bids, tricks=tuple(state.tricks_won), score=score)
    side0 = tally_hand(rules, result, 0).summary()
    assert side0["set_rate"] == 1.0 and side0["nil_bids"] == 1 and side0["nil_success"] == 1.0
    assert side0["points_per_hand"] == 100 - 40 and side0["mean_contract"] == 4 and side0["mean_bid"] == 4
    side1 = tally_hand(rules, result, 1).summary()
    assert side1["set_rate"] == 0.0 and side1["exact_bid_rate"] == 0.0 and side1["bags_per_hand"] == 5
    assert side1["mean_bid"] == 4 and side1["mean_contract"] == 8
    exact = SimpleNamespace(
        bids=(Bid(BidKind.NUMBER, 4), Bid(BidKind.NUMBER, 4), Bid(BidKind.NUMBER, 4), Bid(BidKind.NUMBER, 1)),
        tricks=(4, 4, 4, 1),
        score=score_hand(rules, [Bid(BidKind.NUMBER, v) for v in (4, 4, 4, 1)], (4, 4, 4, 1), [0, 0]),
    )
    assert tally_hand(rules, exact, 0).exact == 1 and tally_hand(rules, exact, 1).exact == 1


# --------------------------------------------------------------- orientations
def test_orientations_swap_and_rotate_seats():
    assert orientations(preset("standard"), False) == [tuple("ABAB"), tuple("BABA")]
    assert [("".join(o)) for o in orientations(preset("standard"), True)] == ["ABPP", "BAPP", "PPAB", "PPBA"]
    assert ["".join(o) for o in orientations(preset("cutthroat"), False)] == ["ABBB", "BABB", "BBAB", "BBBA"]
    assert ["".join(o) for o in orientations(preset("cutthroat3"), False)] == ["ABB", "BAB", "BBA"]
    with pytest.raises(ValueError, match="partnership"):
        orientations(preset("cutthroat"), True)


class Spy(HeuristicAgent):
    """The heuristic, remembering the cards it was dealt in each episode."""

    seen: list[int] = []

    def act(self, observation):
        view = decode_observation(observation["observation"])
        if view.hand and not any(view.played) and sum(view.tricks_won) == 0:
            self.seen.append(view.hand | view.played[0])
        return super().act(observation)


@pytest.fixture
def spies(monkeypatch):
    monkeypatch.setattr(registry, "_FACTORIES", dict(registry._FACTORIES))
    monkeypatch.setattr(registry, "_DESCRIPTIONS", dict(registry._DESCRIPTIONS))
    made = {}

    def factory(role):
        def make(**options):
            agent = Spy(**options)
            agent.seen = []
            made[role] = agent
            return agent

        return make

    register_agent("spy_a", factory("A"))
    register_agent("spy_b", factory("B"))
    return made


def test_duplicate_deals_give_each_agent_every_hand(spies):
    report = evaluate(EvalConfig("spy_a", "spy_b", deals=3, workers=1, progress=False))
    for role in ("A", "B"):
        union = 0
        for hand in spies[role].seen:
            union |= hand
        assert union == (1 << 52) - 1, role  # over both orientations, each agent held all four hands
    # Identical deterministic agents: every per-deal difference is exactly 0.
    assert report["deals"]["per_deal_diff"] == [0.0, 0.0, 0.0]


class RulesSpy(HeuristicAgent):
    """The heuristic, remembering the variant flags (jokers, mirror, suicide) of the hands it plays."""

    seen: set = set()

    def act(self, observation):
        obs = observation["observation"]
        rules = rules_from_observation(obs, decode_observation(obs))
        self.seen.add((rules.jokers, rules.mirror, rules.suicide))
        return super().act(observation)


def test_crazy_deals_cover_every_variant_of_the_rotation(monkeypatch):
    monkeypatch.setattr(registry, "_FACTORIES", dict(registry._FACTORIES))
    monkeypatch.setattr(registry, "_DESCRIPTIONS", dict(registry._DESCRIPTIONS))
    RulesSpy.seen = set()
    register_agent("rules_spy", RulesSpy)
    evaluate(EvalConfig("rules_spy", "heuristic", rules="crazy", deals=4, workers=1, progress=False))
    # standard, jokers, mirror, suicide: deal i is the rotation's hand i (before, every deal was standard's)
    assert RulesSpy.seen == {(False, False, False), (True, False, False), (False, True, False), (False, False, True)}


def test_identical_agents_are_even_in_cutthroat_and_games():
    report = evaluate(EvalConfig("heuristic", "heuristic", rules="cutthroat3", deals=2, workers=1, progress=False))
    assert report["deals"]["per_deal_diff"] == pytest.approx([0.0, 0.0], abs=1e-9)
    report = evaluate(EvalConfig("heuristic", "heuristic", rules=SHORT, deals=0, games=2, workers=1, progress=False))
    g = report["games"]
    assert g["a_wins"] == g["b_wins"] and g["n_games"] == 4


# ------------------------------------------------------------ reproducibility
def test_same_seed_same_numbers_whatever_the_workers():
    cfg = dict(agent_a="heuristic", agent_b="random", rules=SHORT, deals=4, games=1, seed=5, progress=False)
    one = evaluate(EvalConfig(**cfg, workers=1))
    again = evaluate(EvalConfig(**cfg, workers=1))
    two = evaluate(EvalConfig(**cfg, workers=2))
    assert strip_timing(one) == strip_timing(again) == strip_timing(two)
    other = evaluate(EvalConfig(**{**cfg, "seed": 6}, workers=1))
    assert other["deals"]["seeds"] != one["deals"]["seeds"]
    assert one["config"]["rules"]["target_score"] == 150 and one["config"]["seed"] == 5
    assert len(one["deals"]["per_deal_diff"]) == 4 and one["games"]["n_games"] == 2


def test_cross_play_and_sampled_contexts():
    report = evaluate(
        EvalConfig(
            "random",
            "random",
            a_options={"seed": 1},
            deals=2,
            cross_play=True,
            context="sampled",
            workers=1,
            progress=False,
        )
    )
    assert report["config"]["orientations"] == ["ABPP", "BAPP", "PPAB", "PPBA"]
    assert report["config"]["partner"] == "heuristic"
    ctx = deal_context(preset("standard"), 123, "sampled")
    assert ctx == deal_context(preset("standard"), 123, "sampled")
    assert all((s - b) % 10 == 0 for s, b in zip(ctx["scores"], ctx["bags"]))


# ------------------------------------------------------------------ CLI
def test_cli_writes_table_json_and_png(tmp_path, capsys):
    out_json, out_png = tmp_path / "r.json", tmp_path / "r.png"
    rules_path = tmp_path / "short.yaml"
    rules_path.write_text("base: standard\ntarget_score: 150\n")
    code = main(
        [
            "heuristic",
            "random",
            "--deals",
            "3",
            "--games",
            "1",
            "--rules",
            str(rules_path),
            "--seed",
            "2",
            "--workers",
            "1",
            "--json",
            str(out_json),
            "--png",
            str(out_png),
            "--no-progress",
            "--b-opt",
            "seed=4",
        ]
    )
    assert code == 0
    text = capsys.readouterr().out
    assert "points per deal, A - B" in text and "A win rate" in text and "set rate" in text
    report = json.loads(out_json.read_text())
    assert report["config"]["b_options"] == {"seed": 4}
    assert report["config"]["rules_name"] == "short" and len(report["deals"]["seeds"]) == 3
    assert report["config"]["rules"]["target_score"] == 150
    assert out_png.stat().st_size > 1000


def test_parse_options():
    assert parse_options(["samples=4", "time_limit=0.5", "name=abc", "flag=true"]) == {
        "samples": 4,
        "time_limit": 0.5,
        "name": "abc",
        "flag": True,
    }
    with pytest.raises(SystemExit):
        parse_options(["oops"])


def test_a_fresh_worker_that_loads_torch_for_a_policy_runs_it_on_one_thread(tmp_path):
    # torch is loaded only when the worker builds a policy agent; two threads a worker on two cores made every
    # decision of a policy about ten times slower
    import os
    import subprocess
    import sys

    pytest.importorskip("torch")
    from spades_env.nn import PolicyNet, save_policy

    policy_file = tmp_path / "p.pt"
    save_policy(policy_file, PolicyNet((8,)))
    script = (
        "import sys, dataclasses\n"
        "from spades_env.evaluation.duplicate import EvalConfig, _WORKER, _init_worker\n"
        "assert 'torch' not in sys.modules\n"
        f"_init_worker(dataclasses.asdict(EvalConfig({str(policy_file)!r}, 'random', deals=1, workers=2)))\n"
        "assert 'error' not in _WORKER, _WORKER.get('error')\n"
        "import torch\n"
        "print(torch.get_num_threads())\n"
    )
    env = {**os.environ, "OMP_NUM_THREADS": "2"}  # torch would start with two threads
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env, timeout=300)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "1"


def test_undecided_games_report_how_many_a_led_when_they_stopped():
    rules = preset("standard").replace(max_hands=2)  # no game reaches 500 in two hands: every game is truncated
    report = evaluate(
        EvalConfig("heuristic", "random", rules=rules.to_dict(), deals=0, games=3, workers=1, progress=False)
    )
    g = report["games"]
    assert g["undecided"] == g["n_games"] == 6
    # the heuristic leads random after two hands in most games; the count is of the stopped games only
    assert 0 < g["undecided_a_leading"] <= g["undecided"]


@pytest.mark.parametrize("workers", [1, 2])
def test_an_agent_that_cannot_play_the_rules_is_refused_before_any_deal(workers):
    """ppo_standard has no output for the drawing turns: a ConfigError naming the role and why, before the workers
    start (it used to come back from deal 0 wrapped in a WorkerError)."""
    cfg = EvalConfig("heuristic", "ppo_standard", rules="two_player", deals=2, workers=workers, progress=False)
    with pytest.raises(ConfigError, match=r"agent B 'ppo_standard': PolicyFileError: trained on 88 actions"):
        evaluate(cfg)
