"""Strength of the baseline agents and the released policy, measured with the duplicate evaluation tool.

Reproduces the figures docs/evaluation.md and docs/training.md quote (standard rules, seed 0):

1. heuristic vs random: games to 500, each seed played twice with the partnerships swapped;
2. heuristic vs heuristic, and random vs random (agents with their own seeds): duplicate deals; the
   points-per-deal interval must contain 0 (the harness is fair; the heuristic is deterministic, so
   its self-play differences are exactly 0 and random play gives a non-degenerate check);
3. pimc vs heuristic_classic (the heuristic PIMC models and rolls out with): duplicate deals, PIMC
   with its default budget;
4. the released policy (``ppo``, a pure network) vs heuristic (the heuristic it imitated and trained
   against): 2,000 duplicate deals and 1,000 games to 500 (500 seeds, each played with the
   partnerships swapped), and vs random: 1,000 games.

    python benchmarks/strength_baselines.py [--workers N] [--out DIR] [--quick] [--only NAME ...]

Each run writes ``DIR/<name>.json`` and ``DIR/<name>.png`` and the script ends with a summary. The
same numbers come from the command line, e.g.
``spades-evaluate pimc heuristic_classic --deals 500 --seed 0 --json pimc.json``.
"""

from __future__ import annotations

import argparse
import os
import time

from spades_env.evaluation import EvalConfig, evaluate, format_report, headline_summary, write_json, write_png

RUNS = {
    "heuristic_vs_random": dict(agent_a="heuristic", agent_b="random", b_options={"seed": 1}, deals=0, games=250),
    "heuristic_vs_heuristic": dict(agent_a="heuristic", agent_b="heuristic", deals=500),
    "random_vs_random": dict(
        agent_a="random", agent_b="random", a_options={"seed": 1}, b_options={"seed": 2}, deals=500
    ),
    "pimc_vs_heuristic_classic": dict(agent_a="pimc", agent_b="heuristic_classic", deals=500),
    "ppo_vs_heuristic": dict(agent_a="ppo", agent_b="heuristic", deals=2000, games=500),
    "ppo_vs_random": dict(agent_a="ppo", agent_b="random", b_options={"seed": 1}, deals=0, games=500),
}
QUICK = {
    "heuristic_vs_random": dict(games=25),
    "heuristic_vs_heuristic": dict(deals=50),
    "random_vs_random": dict(deals=50),
    "pimc_vs_heuristic_classic": dict(deals=40),
    "ppo_vs_heuristic": dict(deals=50, games=5),
    "ppo_vs_random": dict(games=5),
}


def summary_line(name: str, report: dict, seconds: float) -> str:
    """One line per run: the headline (win rate, bag-adjusted and plain points per deal) and A's speed."""
    parts = [f"{name:24s}", headline_summary(report)]
    timing = report.get("timing", {}).get("A")
    if timing and timing["ms_per_play"] is not None:
        parts.append(f"A {timing['ms_per_play']:.1f} ms/card play")
    parts.append(f"({seconds / 60:.1f} min)")
    return "  ".join(parts)


def main() -> None:
    """Run the benchmarks."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workers", type=int, default=None, help="processes (default: all cores)")
    parser.add_argument("--out", default="benchmarks/results", help="directory for the JSON reports and charts")
    parser.add_argument("--quick", action="store_true", help="small runs (a smoke test, not the documented figures)")
    parser.add_argument("--only", nargs="+", choices=sorted(RUNS), help="run only these")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)
    lines = []
    for name, spec in RUNS.items():
        if args.only and name not in args.only:
            continue
        spec = {**spec, **(QUICK[name] if args.quick else {})}
        cfg = EvalConfig(seed=args.seed, workers=args.workers, **spec)
        start = time.perf_counter()
        report = evaluate(cfg)
        seconds = time.perf_counter() - start
        print(f"\n=== {name} ===")
        print(format_report(report))
        write_json(report, os.path.join(args.out, f"{name}.json"))
        write_png(report, os.path.join(args.out, f"{name}.png"))
        lines.append(summary_line(name, report, seconds))
    print("\nSummary")
    for line in lines:
        print("  " + line)


if __name__ == "__main__":
    main()
