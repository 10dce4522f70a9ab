"""The headline of every evaluation report: game win rate first, then points per deal with bags
charged at their game cost, then plain points per deal (issue 11, item 2)."""

from __future__ import annotations

import pytest

from spades_env.core.rules import preset
from spades_env.evaluation import EvalConfig, evaluate, format_report, headline_lines, headline_summary
from spades_env.evaluation.__main__ import build_parser
from spades_env.rewards import bag_cost

SHORT = preset("standard").replace(target_score=150)


@pytest.fixture(scope="module")
def report():
    return evaluate(
        EvalConfig(
            "heuristic",
            "random",
            b_options={"seed": 3},
            rules=SHORT,
            deals=6,
            games=2,
            seed=4,
            workers=1,
            progress=False,
        )
    )


def test_headline_holds_the_win_rate_and_both_points_per_deal(report):
    h = report["headline"]
    assert h["win_rate"] == report["games"]["a_win_rate"] and h["games"] == report["games"]["n_games"] == 4
    assert h["bag_adjusted_points_per_deal"] == report["deals"]["bag_adjusted_diff"]
    assert h["points_per_deal"] == report["deals"]["points_diff"] and h["deals"] == 6
    assert h["target_score"] == 150 and h["bag_cost"] == bag_cost(preset("standard")) == 10


def test_bag_adjusted_points_charge_each_new_bag_its_game_cost(report):
    for sides in report["sides"].values():
        for side in sides.values():
            # each new bag charged 10, a paid penalty refunded (the bag cost counted once: issue 30, item 28)
            expected = (
                side["points_per_hand"] + 100 * side["bag_penalties"] / side["hands"] - 10 * side["bags_per_hand"]
            )
            assert side["bag_adjusted_points_per_hand"] == pytest.approx(expected)
    # A - B with bags charged is the per-side difference of the charged points (deals are duplicated).
    a, b = report["sides"]["deals"]["A"], report["sides"]["deals"]["B"]
    diff = a["bag_adjusted_points_per_hand"] - b["bag_adjusted_points_per_hand"]
    assert report["headline"]["bag_adjusted_points_per_deal"]["mean"] == pytest.approx(diff)


def test_headline_comes_first_in_the_order_that_judges_strength(report):
    text = format_report(report)
    lines = headline_lines(report)
    assert [("win rate" in s, "bags charged" in s, "plain" in s) for s in lines] == [
        (True, False, False),
        (False, True, False),
        (False, False, True),
    ]
    assert text.index(lines[0]) < text.index("Duplicate deals") < text.index("Per side")
    summary = headline_summary(report)
    assert summary.index("wins") < summary.index("bag-adjusted") < summary.index("plain")


@pytest.mark.parametrize("deals, games, measures", [(3, 0, ["bags charged", "plain"]), (0, 1, ["win rate"])])
def test_headline_shows_only_what_was_played(deals, games, measures):
    report = evaluate(
        EvalConfig("heuristic", "random", rules=SHORT, deals=deals, games=games, workers=1, progress=False)
    )
    lines = headline_lines(report)
    assert len(lines) == len(measures) and all(m in line for m, line in zip(measures, lines))


def test_cli_plays_games_by_default_so_the_win_rate_is_shown():
    args = build_parser().parse_args(["heuristic", "random"])
    assert args.games > 0 and args.deals > 0
