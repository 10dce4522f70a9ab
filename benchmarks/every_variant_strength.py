"""The strength table of every preset: a policy against the heuristic and against random, and the heuristic against
random, each measured with the duplicate evaluation tool (docs/evaluation.md), and where the policy stands beside
the heuristic (set rate, nil success, bags per hand, exact bids).

    python benchmarks/every_variant_strength.py [--policy ppo] [--deals 1000] [--games 200] [--random-games 100]
        [--presets standard cutthroat ...] [--seed 0] [--workers 2] [--out benchmarks/results/every_variant] [--resume]

Partnership presets: the policy's side against the heuristic's; individual presets (cutthroat, cutthroat3,
two_player): one policy seat against heuristics in the others, rotated through the seats, so a fair share of the
games is 1 / players. ``--games N`` plays N game seeds in every seating. Each match writes ``<out>/<preset>_<match>
.json``; the script ends with the markdown table (also ``<out>/table.md``), every figure from these runs. With
``--resume`` a match whose JSON is already in ``<out>`` with the same agents, rules, seed, deals and games is read
back instead of played again (a long table interrupted goes on where it stopped).
"""

from __future__ import annotations

import argparse
import os
import time
from pathlib import Path

from spades_env.core.rules import PRESETS, preset
from spades_env.evaluation import EvalConfig, evaluate, finished_report, write_json

MATCHES = ("policy_vs_heuristic", "policy_vs_random", "heuristic_vs_random")
SIDE_FIELDS = (
    ("set_rate", "set rate", "{:.1%}"),
    ("nil_success", "nil made", "{:.1%}"),
    ("bags_per_hand", "bags/hand", "{:.2f}"),
    ("exact_bid_rate", "exact bids", "{:.1%}"),
)


def match_config(match: str, policy: str, preset_name: str, args: argparse.Namespace) -> EvalConfig:
    """The evaluation of one match on one preset."""
    a, b = {
        "policy_vs_heuristic": (policy, "heuristic"),
        "policy_vs_random": (policy, "random"),
        "heuristic_vs_random": ("heuristic", "random"),
    }[match]
    deals = args.deals if match == "policy_vs_heuristic" else 0
    games = args.games if match == "policy_vs_heuristic" else args.random_games
    return EvalConfig(
        a, b, rules=preset_name, deals=deals, games=games, seed=args.seed, workers=args.workers, progress=False
    )


def cell_games(report: dict) -> str:
    """A's game win rate with its Wilson interval and the fair share."""
    if "games" not in report:
        return "-"
    g = report["games"]
    win = g["a_win_rate"]
    text = (
        f"{win['rate']:.1%} [{win['low']:.1%}, {win['high']:.1%}] of {g['n_games']} (fair {g['fair_a_win_rate']:.0%})"
    )
    if g["undecided"]:  # truncated at max_hands: counted a fair share; where they stood
        text += f"; {g['undecided']} undecided, A led {g.get('undecided_a_leading', '?')}"
    return text


def cell_points(report: dict) -> str:
    """A - B bag-adjusted points per deal with its 95% interval."""
    if "deals" not in report:
        return "-"
    d = report["deals"]["bag_adjusted_diff"]
    return f"{d['mean']:+.2f} [{d['low']:+.2f}, {d['high']:+.2f}] over {report['deals']['n']}"


def cell_sides(report: dict) -> str:
    """The policy (A) beside the heuristic (B) on the duplicate deals."""
    sides = report.get("sides", {}).get("deals")
    if not sides:
        return "-"
    parts = []
    for key, label, form in SIDE_FIELDS:
        a, b = sides["A"].get(key), sides["B"].get(key)
        if a is None or b is None:
            continue
        parts.append(f"{label} {form.format(a)} vs {form.format(b)}")
    return "; ".join(parts)


def main() -> None:
    """Run every match on every preset; print and write the table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--policy", default="ppo", help="the agent measured: ppo, a policy file, any agent name")
    parser.add_argument("--presets", nargs="+", choices=sorted(PRESETS), default=list(PRESETS))
    parser.add_argument("--deals", type=int, default=1000, help="duplicate deals against the heuristic")
    parser.add_argument(
        "--games", type=int, default=200, help="game seeds against the heuristic (each in every seating)"
    )
    parser.add_argument("--random-games", type=int, default=100, help="game seeds against random")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--workers", type=int, default=None, help="processes (default: all cores)")
    parser.add_argument("--out", default="benchmarks/results/every_variant")
    parser.add_argument("--resume", action="store_true", help="read back the matches already measured in --out")
    args = parser.parse_args()
    out = Path(args.out)
    os.makedirs(out, exist_ok=True)
    rows = [
        "| preset | players | policy vs heuristic: games | points per deal, bags charged | policy vs random: games "
        "| heuristic vs random: games | policy beside the heuristic (deals) |",
        "|---|---|---|---|---|---|---|",
    ]
    for name in args.presets:
        rules = preset(name)
        reports = {}
        for match in MATCHES:
            start = time.perf_counter()
            cfg, path = match_config(match, args.policy, name, args), out / f"{name}_{match}.json"
            reports[match] = finished_report(path, cfg) if args.resume else None
            took = "read back"
            if reports[match] is None:
                reports[match] = evaluate(cfg)
                write_json(reports[match], str(path))
                took = f"{time.perf_counter() - start:.0f} s"
            print(f"{name} {match}: {cell_games(reports[match])}; {cell_points(reports[match])} ({took})", flush=True)
        vs_h = reports["policy_vs_heuristic"]
        players = f"{rules.num_players}, {'partners' if rules.partnerships else 'individual'}"
        rows.append(
            f"| {name} | {players} | {cell_games(vs_h)} | {cell_points(vs_h)} | "
            f"{cell_games(reports['policy_vs_random'])} | {cell_games(reports['heuristic_vs_random'])} | "
            f"{cell_sides(vs_h)} |"
        )
    table = "\n".join(rows)
    (out / "table.md").write_text(table + "\n")
    print(table)


if __name__ == "__main__":
    main()
