"""The model zoo: every agent the package offers, measured against `heuristic` on every preset, with its time per
decision beside the heuristic's in the same runs (docs/model_zoo.md).

    python benchmarks/model_zoo.py [--agents ppo ppo_v3 ...] [--presets standard cutthroat ...] [--deals 300]
        [--games 50] [--search-deals 40] [--seed 0] [--workers 2] [--out benchmarks/results/zoo] [--resume]

For each agent and preset: the duplicate evaluation tool (docs/evaluation.md) with the agent as A and `heuristic`
as B, on the tool's seed: bag-adjusted points per deal with its 95% interval over ``--deals`` duplicate deals, and
the share of ``--games`` game seeds (each in every seating) won, with its Wilson interval. The search agents
(``SEARCHERS``: tens of milliseconds a decision) play ``--search-deals`` deals and no games. Time per decision:
the tool's timing of A and of B in the same evaluations, summed over every preset (milliseconds per decision,
and A's over B's as a ratio: the machine's speed cancels out).

Each match writes ``<out>/<agent>_<preset>.json``; ``--resume`` reads back a match already written with the same
agents, rules, seed, deals and games. The script ends with the markdown table (also ``<out>/zoo.md``), every figure
from these runs.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from spades_env.agents import check_plays, make_agent
from spades_env.agents.registry import POLICY_DIR, available_agents, released_policies
from spades_env.core.rules import PRESETS, preset
from spades_env.evaluation import EvalConfig, evaluate, finished_report, write_json

REFERENCE = "heuristic"
SEARCHERS = ("pimc", "search")  # tens of milliseconds a decision: deals only, fewer of them
CODE = {  # where a rule-based or search agent is written (a learned one is its policy file)
    "random": "spades_env/agents/random_agent.py",
    "heuristic": "spades_env/agents/heuristic/",
    "heuristic_classic": "spades_env/agents/heuristic/ (ClassicHeuristicAgent)",
    "pimc": "spades_env/agents/pimc.py",
    "search": "spades_env/agents/search.py",
}


def zoo_agents() -> list[str]:
    """Every agent name the evaluation tool takes, the reference aside: registered agents and released policies."""
    names = [n for n in available_agents() if n != REFERENCE] + list(released_policies())
    return sorted(set(names), key=lambda n: (n in SEARCHERS, n))


def kind_of(name: str) -> str:
    """learned (a policy file), search, or rule-based."""
    if name in released_policies():
        return "learned"
    return "search" if name in SEARCHERS else "rule-based"


def source_of(name: str) -> tuple[str, str]:
    """The agent's file and how it is made: a policy file and the training command in its meta, or its code."""
    if name in released_policies():
        from spades_env.nn import load_policy

        path = POLICY_DIR / f"{name}.pt"
        _, meta = load_policy(path)
        return f"spades_env/policies/{path.name}", f"`{meta.get('command', 'not recorded')}`"
    return CODE.get(name, "spades_env/agents/"), "code: no training"


def cannot_play(agent: str, preset_name: str) -> str | None:
    """Why ``agent`` cannot play ``preset_name`` (``check_plays``: a policy of the older 88-action space has no
    drawing actions), or None."""
    built = make_agent(agent)  # an unknown name or unreadable file is an error, not "cannot play it"
    try:
        check_plays(built, preset(preset_name))
    except ValueError as exc:
        return str(exc)
    return None


def match_config(agent: str, preset_name: str, args: argparse.Namespace) -> EvalConfig:
    """The evaluation of ``agent`` against the reference on one preset."""
    searcher = agent in SEARCHERS
    deals = args.search_deals if searcher else args.deals
    games = 0 if searcher else args.games
    return EvalConfig(
        agent, REFERENCE, rules=preset_name, deals=deals, games=games, seed=args.seed, workers=args.workers,
        progress=False,
    )  # fmt: skip


def cell(report: dict) -> str:
    """Points per deal (bags charged) with its interval, and the games won when played."""
    if "cannot" in report:
        return "cannot play it"
    d = report["deals"]["bag_adjusted_diff"]
    text = f"{d['mean']:+.1f} [{d['low']:+.1f}, {d['high']:+.1f}]"
    games = report.get("games")
    if games:
        win = games["a_win_rate"]
        text += f"; {win['rate']:.0%} [{win['low']:.0%}, {win['high']:.0%}] (fair {games['fair_a_win_rate']:.0%})"
    return text


def timing(reports: list[dict]) -> tuple[float, float]:
    """Milliseconds per decision of A and of B over every report (decision-weighted)."""
    totals = {"A": [0.0, 0], "B": [0.0, 0]}
    for report in reports:
        for role in totals:
            t = report["timing"][role]
            totals[role][0] += t["ms_per_decision"] * t["decisions"]
            totals[role][1] += t["decisions"]
    return tuple(ms / max(n, 1) for ms, n in totals.values())  # type: ignore[return-value]


def main(argv: list[str] | None = None) -> str:
    """Measure every agent on every preset; print, write and return the table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--agents", nargs="+", default=None, help="agent names (default: every agent but heuristic)")
    parser.add_argument("--presets", nargs="+", choices=sorted(PRESETS), default=list(PRESETS))
    parser.add_argument("--deals", type=int, default=300, help="duplicate deals per preset (not search agents)")
    parser.add_argument("--games", type=int, default=50, help="game seeds per preset, each in every seating (0: none)")
    parser.add_argument("--search-deals", type=int, default=40, help="duplicate deals per preset for pimc and search")
    parser.add_argument("--seed", type=int, default=0, help="the evaluation tool's seed")
    parser.add_argument("--workers", type=int, default=None, help="processes (default: all cores)")
    parser.add_argument("--out", default="benchmarks/results/zoo")
    parser.add_argument("--resume", action="store_true", help="read back the matches already measured in --out")
    args = parser.parse_args(argv)
    agents = args.agents or zoo_agents()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    head = ["agent", "kind", f"ms per decision ({REFERENCE}'s in the same runs)"] + args.presets + ["file", "made by"]
    rows = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for agent in agents:
        reports = []
        for name in args.presets:
            cfg, path = match_config(agent, name, args), out / f"{agent}_{name}.json"
            report = finished_report(path, cfg) if args.resume else None
            took = "read back"
            why = cannot_play(agent, name)
            if why is not None:
                report, took = {"cannot": why}, "not played"
            elif report is None:
                start = time.perf_counter()
                report = evaluate(cfg)
                write_json(report, str(path))
                took = f"{time.perf_counter() - start:.0f} s"
            reports.append(report)
            print(f"{agent} on {name}: {cell(report)} ({took})", flush=True)
        mine, reference = timing([r for r in reports if "timing" in r])
        speed = f"{mine:.2f} ({reference:.2f}; {mine / reference:.1f}x)"
        file, made = source_of(agent)
        rows.append(f"| `{agent}` | {kind_of(agent)} | {speed} | " + " | ".join(cell(r) for r in reports))
        rows[-1] += f" | `{file}` | {made} |"
    table = "\n".join(rows)
    (out / "zoo.md").write_text(table + "\n")
    print(table)
    return table


if __name__ == "__main__":
    main()
