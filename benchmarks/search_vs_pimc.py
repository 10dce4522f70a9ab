"""The learned search agent against PIMC (or any two agents) on duplicate deals, run in resumable chunks.

Each chunk is one run of the evaluation tool (``evaluate``) on ``--chunk`` duplicate deals of its own seed
(``--seed`` + chunk index: the deals of different seeds are independent draws), saved as its JSON report
under ``--out``; a chunk already saved is not played again, so the run can be stopped and resumed, and the
pooled figures are exact at any point. The pooled report is the mean points per deal and the bag-adjusted
points per deal (bags charged at their game cost) over every saved deal, with 95% t intervals computed from
the chunks' means and standard deviations (the same figures as one evaluation over all those deals), and
each agent's milliseconds per decision over all of them (measured in the same processes, so comparable).

    python benchmarks/search_vs_pimc.py [--a search] [--b pimc] [--deals 300] [--chunk 10] [--seed 11]
        [--workers 2] [--a-opt KEY=VALUE ...] [--b-opt KEY=VALUE ...] [--out DIR] [--report-only]
"""

from __future__ import annotations

import argparse
import json
import math
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from scipy import stats as sps

from spades_env.evaluation import EvalConfig, evaluate

CONFIDENCE = 0.95


def parse_options(items: Sequence[str]) -> dict[str, Any]:
    """KEY=VALUE pairs, values read as JSON when they parse (as the evaluation tool's ``--a-opt``)."""
    out: dict[str, Any] = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or not key:
            raise SystemExit(f"an option must be KEY=VALUE, got {item!r}")
        try:
            out[key] = json.loads(value)
        except json.JSONDecodeError:
            out[key] = value
    return out


def pooled_interval(blocks: Sequence[dict[str, float]]) -> dict[str, float]:
    """Mean and t interval over the union of groups given by their ``n``, ``mean`` and ``sd`` (ddof 1)."""
    n = sum(b["n"] for b in blocks)
    mean = sum(b["n"] * b["mean"] for b in blocks) / n
    squares = sum(
        (b["n"] - 1) * (b["sd"] ** 2 if b["n"] > 1 else 0.0) + b["n"] * (b["mean"] - mean) ** 2 for b in blocks
    )
    sd = math.sqrt(squares / (n - 1))
    half = float(sps.t.ppf(0.5 + CONFIDENCE / 2, n - 1)) * sd / math.sqrt(n)
    return {"n": n, "mean": mean, "sd": sd, "low": mean - half, "high": mean + half}


def pooled_report(reports: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """Points and bag-adjusted points per deal over every chunk, and each role's ms per decision."""
    timing: dict[str, dict[str, float]] = {}
    for report in reports:
        for role, t in report["timing"].items():
            row = timing.setdefault(role, {"decisions": 0, "ms": 0.0, "play_decisions": 0, "play_ms": 0.0})
            row["decisions"] += t["decisions"]
            row["ms"] += t["ms_per_decision"] * t["decisions"]
            row["play_decisions"] += t["play_decisions"]
            row["play_ms"] += (t["ms_per_play"] or 0.0) * t["play_decisions"]
    return {
        "chunks": len(reports),
        "points_diff": pooled_interval([r["deals"]["points_diff"] for r in reports]),
        "bag_adjusted_diff": pooled_interval([r["deals"]["bag_adjusted_diff"] for r in reports]),
        "ms_per_decision": {role: t["ms"] / t["decisions"] for role, t in timing.items()},
        "ms_per_play": {role: t["play_ms"] / max(t["play_decisions"], 1) for role, t in timing.items()},
    }


def main() -> None:
    """Play the missing chunks, then print the pooled report (and save it as pooled.json)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--a", default="search")
    parser.add_argument("--b", default="pimc")
    parser.add_argument("--a-opt", action="append", default=[], metavar="KEY=VALUE")
    parser.add_argument("--b-opt", action="append", default=[], metavar="KEY=VALUE")
    parser.add_argument("--deals", type=int, default=300)
    parser.add_argument("--chunk", type=int, default=10, help="deals per saved evaluation")
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument("--rules", default="standard")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--out", type=Path, default=Path("benchmarks/results/search_vs_pimc"))
    parser.add_argument("--report-only", action="store_true", help="pool the saved chunks, play nothing")
    args = parser.parse_args()
    if args.deals < 1 or args.chunk < 1:
        parser.error("--deals and --chunk must be >= 1")
    args.out.mkdir(parents=True, exist_ok=True)
    a_options, b_options = parse_options(args.a_opt), parse_options(args.b_opt)
    if args.workers == 1:  # played in this process: one torch thread, as the evaluation's worker processes use
        import torch

        torch.set_num_threads(1)
    for k in range(math.ceil(args.deals / args.chunk)):
        path = args.out / f"chunk_{k:03d}.json"
        if path.exists() or args.report_only:
            continue
        cfg = EvalConfig(
            args.a,
            args.b,
            a_options=a_options,
            b_options=b_options,
            rules=args.rules,
            deals=min(args.chunk, args.deals - k * args.chunk),
            seed=args.seed + k,
            workers=args.workers,
            progress=False,
        )
        report = evaluate(cfg)
        tmp = path.with_suffix(".tmp")
        tmp.write_text(json.dumps(report))
        tmp.replace(path)
        print(
            f"chunk {k}: bag-adjusted {report['deals']['bag_adjusted_diff']['mean']:+.1f} "
            f"over {report['deals']['n']} deals",
            flush=True,
        )
    reports = [json.loads(p.read_text()) for p in sorted(args.out.glob("chunk_*.json"))]
    if not reports:
        raise SystemExit(f"no chunk saved under {args.out}")
    pooled = pooled_report(reports)
    (args.out / "pooled.json").write_text(json.dumps(pooled, indent=2))
    print(json.dumps(pooled, indent=2))


if __name__ == "__main__":
    main()
