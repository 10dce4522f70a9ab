"""Command line: ``python -m spades_env.evaluation A B [options]`` (also ``spades-evaluate``).

Plays agent A's side against agent B's on duplicate deals and games (see
:mod:`spades_env.evaluation.duplicate`) and prints a table; ``--json`` and
``--png`` also write the report and a chart. Agents are names for
``make_agent`` (``random``, ``heuristic``, ``pimc``, a checkpoint path or a
released policy); ``--a-opt key=value`` passes options (values are read as
JSON when they parse, e.g. ``--a-opt samples=40``).

Examples::

    spades-evaluate heuristic random --deals 0 --games 250
    spades-evaluate pimc heuristic --deals 500 --a-opt samples=24 --workers 2 --json pimc.json --png pimc.png
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from .duplicate import CONTEXTS, EvalConfig, evaluate
from .report import format_report, write_json, write_png


def parse_options(items: list[str] | None) -> dict[str, Any]:
    """``["key=value", ...]`` -> dict, values parsed as JSON when possible."""
    out: dict[str, Any] = {}
    for item in items or []:
        if "=" not in item:
            raise SystemExit(f"agent option {item!r} must look like key=value")
        key, value = item.split("=", 1)
        try:
            out[key] = json.loads(value)
        except json.JSONDecodeError:
            out[key] = value
    return out


def build_parser() -> argparse.ArgumentParser:
    """The argument parser."""
    p = argparse.ArgumentParser(prog="spades-evaluate", description=__doc__.splitlines()[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("agent_a", help="agent A: a make_agent name, checkpoint path or released policy")
    p.add_argument("agent_b", help="agent B")
    p.add_argument("--deals", type=int, default=200, help="duplicate deals (one-hand episodes); 0 to skip")
    p.add_argument("--games", type=int, default=0, help="game seeds played to the target, each in every orientation")
    p.add_argument("--rules", default="standard", help="preset name or YAML path")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--workers", type=int, default=None, help="processes (default: all cores)")
    p.add_argument("--json", dest="json_path", help="write the report as JSON here")
    p.add_argument("--png", dest="png_path", help="write a chart here")
    p.add_argument("--cross-play", action="store_true", help="partner each agent with --partner (heuristic)")
    p.add_argument("--partner", default="heuristic", help="the partner agent in cross-play")
    p.add_argument("--context", choices=CONTEXTS, default="zero",
                   help="score context of the deals: 0-0, or sampled scores and bags")
    p.add_argument("--a-opt", action="append", metavar="KEY=VALUE", help="option for agent A (repeatable)")
    p.add_argument("--b-opt", action="append", metavar="KEY=VALUE", help="option for agent B (repeatable)")
    p.add_argument("--partner-opt", action="append", metavar="KEY=VALUE", help="option for the partner agent")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    return p


def main(argv: list[str] | None = None) -> int:
    """Entry point of ``spades-evaluate``."""
    if "--league" in (sys.argv[1:] if argv is None else argv):  # the league has its own options
        from .league import main as league_main
        return league_main(argv)
    args = build_parser().parse_args(argv)
    cfg = EvalConfig(
        agent_a=args.agent_a, agent_b=args.agent_b,
        a_options=parse_options(args.a_opt), b_options=parse_options(args.b_opt),
        rules=args.rules, deals=args.deals, games=args.games, seed=args.seed, workers=args.workers,
        cross_play=args.cross_play, partner=args.partner, partner_options=parse_options(args.partner_opt),
        context=args.context, progress=not args.no_progress,
    )
    report = evaluate(cfg)
    print(format_report(report))
    if args.json_path:
        write_json(report, args.json_path)
        print(f"\nJSON report: {args.json_path}")
    if args.png_path:
        write_png(report, args.png_path)
        print(f"chart: {args.png_path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
