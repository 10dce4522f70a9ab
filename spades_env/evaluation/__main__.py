"""Command line: ``python -m spades_env.evaluation A B [options]`` (also ``spades-evaluate``).

Plays agent A's side against agent B's on duplicate deals and games (see
:mod:`spades_env.evaluation.duplicate`) and prints a table; ``--json`` and
``--png`` also write the report and a chart. Agents are names for
``make_agent`` (``random``, ``heuristic``, ``pimc``, a checkpoint path or a
released policy); ``--a-opt key=value`` passes options (values are read as
JSON when they parse, e.g. ``--a-opt samples=40``).

Everything that can be checked is checked before the first deal: the rules,
each agent and its options (every agent is built once), the output paths,
and every flag that would have no effect (``--partner`` or ``--partner-opt``
without ``--cross-play``, ``--context sampled`` with ``--deals 0``); a
problem exits with status 2 and names it. A worker that fails during the
run stops it with that worker's error (status 1).

Examples::

    spades-evaluate heuristic random --deals 0 --games 250
    spades-evaluate pimc heuristic --deals 500 --a-opt samples=24 --workers 2 --json pimc.json --png pimc.png
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from ..cli_args import non_negative_int, positive_int, sigterm_interrupts
from .duplicate import CONTEXTS, PARTNER_DEFAULT, ConfigError, EvalConfig, WorkerError, evaluate
from .report import check_output_paths, format_report, write_outputs

EXIT_USAGE = 2  # argparse's exit status for a bad command line; used for every problem found before playing
EXIT_FAILED = 1  # the run started and failed
EXIT_INTERRUPTED = 130  # Ctrl-C or SIGTERM (128 + SIGINT, as shells report it)


def option_pair(item: str) -> tuple[str, Any]:
    """``"key=value"`` -> ``(key, value)``, the value read as JSON when it parses (an argparse type)."""
    if "=" not in item:
        raise argparse.ArgumentTypeError(f"agent option {item!r} must look like key=value")
    key, value = item.split("=", 1)
    if not key:
        raise argparse.ArgumentTypeError(f"agent option {item!r} has no key before '='")
    try:
        return key, json.loads(value)
    except json.JSONDecodeError:
        return key, value


def parse_options(items: list[str] | None) -> dict[str, Any]:
    """``["key=value", ...]`` -> dict, values parsed as JSON when possible (SystemExit on a malformed item)."""
    out: dict[str, Any] = {}
    for item in items or []:
        try:
            key, value = option_pair(item)
        except argparse.ArgumentTypeError as exc:
            raise SystemExit(str(exc)) from None
        out[key] = value
    return out


def build_parser() -> argparse.ArgumentParser:
    """The argument parser."""
    p = argparse.ArgumentParser(
        prog="spades-evaluate",
        description=__doc__.splitlines()[0],
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("agent_a", help="agent A: a make_agent name, checkpoint path or released policy")
    p.add_argument("agent_b", help="agent B")
    p.add_argument("--deals", type=non_negative_int, default=200, help="duplicate deals (one-hand episodes); 0 to skip")
    p.add_argument(
        "--games",
        type=non_negative_int,
        default=100,
        help="game seeds played to the target, each in every orientation (the headline win rate; 0 to skip)",
    )
    p.add_argument("--rules", default="standard", help="preset name or YAML path")
    p.add_argument("--seed", type=non_negative_int, default=0)
    p.add_argument("--workers", type=positive_int, default=None, help="processes (default: all cores)")
    p.add_argument("--json", dest="json_path", help="write the report as JSON here")
    p.add_argument("--png", dest="png_path", help="write a chart here")
    p.add_argument("--cross-play", action="store_true", help=f"partner each agent with --partner ({PARTNER_DEFAULT})")
    # None: not given, so that a --partner without --cross-play is refused rather than ignored
    p.add_argument(
        "--partner",
        default=None,
        help=f"the partner agent in cross-play (default {PARTNER_DEFAULT}; needs --cross-play)",
    )
    p.add_argument(
        "--context",
        choices=CONTEXTS,
        default="zero",
        help="score context of the deals: 0-0, or sampled scores and bags (needs deals)",
    )
    for flag, whose in (
        ("--a-opt", "agent A"),
        ("--b-opt", "agent B"),
        ("--partner-opt", "the partner agent; needs --cross-play"),
    ):
        p.add_argument(
            flag, action="append", type=option_pair, metavar="KEY=VALUE", help=f"option for {whose} (repeatable)"
        )
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    return p


def ineffective_flags(args: argparse.Namespace) -> str | None:
    """Why a flag given would have no effect in this command line (None when every flag counts)."""
    if not args.cross_play:
        if args.partner is not None:
            return f"--partner {args.partner!r} has no effect without --cross-play (the partner plays only there)"
        if args.partner_opt:
            return "--partner-opt has no effect without --cross-play (the partner plays only there)"
    if args.context != "zero" and args.deals == 0:
        return f"--context {args.context} has no effect with --deals 0 (it sets the score context of the deals)"
    return None


def _checked_config(parser: argparse.ArgumentParser, args: argparse.Namespace) -> EvalConfig:
    """The evaluation config, with the output paths checked (a problem exits with status 2)."""
    problem = ineffective_flags(args)
    if problem:
        parser.error(problem)
    partner = PARTNER_DEFAULT if args.partner is None else args.partner
    try:
        cfg = EvalConfig(
            agent_a=args.agent_a,
            agent_b=args.agent_b,
            a_options=dict(args.a_opt or []),
            b_options=dict(args.b_opt or []),
            rules=args.rules,
            deals=args.deals,
            games=args.games,
            seed=args.seed,
            workers=args.workers,
            cross_play=args.cross_play,
            partner=partner,
            partner_options=dict(args.partner_opt or []),
            context=args.context,
            progress=not args.no_progress,
        )
        check_output_paths(args.json_path, args.png_path, inputs=(args.agent_a, args.agent_b, partner))
    except ValueError as exc:
        parser.error(str(exc))
    return cfg


def main(argv: list[str] | None = None) -> int:
    """Entry point of ``spades-evaluate``."""
    if "--league" in (sys.argv[1:] if argv is None else argv):  # the league has its own options
        from .league import main as league_main

        return league_main(argv)
    parser = build_parser()
    args = parser.parse_args(argv)
    cfg = _checked_config(parser, args)
    try:
        with sigterm_interrupts():  # stopped by a scheduler or timeout: the worker processes stop too
            report = evaluate(cfg)  # checks the rules, agents and options before any worker starts
    except ConfigError as exc:
        parser.error(str(exc))
    except WorkerError as exc:
        print(f"{parser.prog}: error: {exc}", file=sys.stderr)
        return EXIT_FAILED
    except KeyboardInterrupt:
        print(f"{parser.prog}: interrupted; the worker processes were stopped", file=sys.stderr)
        return EXIT_INTERRUPTED
    print(format_report(report))
    write_outputs(report, args.json_path, args.png_path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
