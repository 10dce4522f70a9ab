"""Duplicate evaluation of agent A against agent B.

Two measurements, taken together or separately:

* **Deals** (per-deal points): deal ``i`` is a one-hand episode
  (``episode="hand"``) from the env seed ``seeds[i]``, played once per
  *orientation* with the same cards, dealer and score context; the
  statistic is, per deal, A's side points minus B's side points averaged
  over the orientations, reported with a t interval.
* **Games** (to the target score): game ``j`` from the env seed
  ``game_seeds[j]`` (a game's deals come only from its seed) is played once
  per orientation; the win rate is A's wins over every game played, with a
  Wilson interval.

Orientations (which role sits in each seat):

* partnerships: ``ABAB`` and ``BABA`` (the partnerships swap cards);
* cross-play (``cross_play=True``): each agent partnered with a ``partner``
  agent (the heuristic by default): ``ABPP``, ``BAPP``, ``PPAB``, ``PPBA``;
* cutthroat (3 or 4 players): A in one seat and B in the others, rotated
  through every seat (``ABBB``, ``BABB``, ...); A's points are compared with
  the mean of the B players' points.

Everything derives from ``seed``: the env seeds of deals and games, and each
agent's generator in each orientation, so the same configuration gives the
same numbers whatever the number of workers. Work is spread over processes
(``workers``, default all cores) with a tqdm progress bar.
"""

from __future__ import annotations

import multiprocessing
import os
import sys
from dataclasses import asdict, dataclass, field
from typing import Any, Iterator

import numpy as np

from ..agents import make_agent
from ..config_io import load_rules
from ..core.rules import Rules
from .arena import Timing, play_episode, reseed
from .stats import SideTally, mean_interval, tally_hand, win_interval

DEAL, GAME = 0, 1
ROLE_IDS = {"A": 0, "B": 1, "P": 2}
CONTEXTS = ("zero", "sampled")


@dataclass
class EvalConfig:
    """What to evaluate; every field goes into the JSON report."""

    agent_a: str
    agent_b: str
    a_options: dict[str, Any] = field(default_factory=dict)
    b_options: dict[str, Any] = field(default_factory=dict)
    rules: str | Rules | dict[str, Any] = "standard"  # preset name, YAML path, Rules or Rules.to_dict()
    deals: int = 200
    games: int = 0
    seed: int = 0
    workers: int | None = None
    cross_play: bool = False
    partner: str = "heuristic"
    partner_options: dict[str, Any] = field(default_factory=dict)
    context: str = "zero"
    progress: bool = True

    def __post_init__(self) -> None:
        if self.deals < 0 or self.games < 0:
            raise ValueError("deals and games must be >= 0")
        if self.deals == 0 and self.games == 0:
            raise ValueError("nothing to evaluate: give deals > 0 or games > 0")
        if self.context not in CONTEXTS:
            raise ValueError(f"context must be one of {CONTEXTS}, got {self.context!r}")
        if self.workers is not None and self.workers < 1:
            raise ValueError("workers must be >= 1")


def orientations(rules: Rules, cross_play: bool) -> list[tuple[str, ...]]:
    """Role of each seat in each orientation (see the module docstring)."""
    n = rules.num_players
    if rules.partnerships:
        if cross_play:
            return [("A", "B", "P", "P"), ("B", "A", "P", "P"), ("P", "P", "A", "B"), ("P", "P", "B", "A")]
        return [("A", "B", "A", "B"), ("B", "A", "B", "A")]
    if cross_play:
        raise ValueError("cross-play pairs each agent with a partner: it needs partnership rules")
    base = ["A"] + ["B"] * (n - 1)
    return [tuple(base[(s - k) % n] for s in range(n)) for k in range(n)]


def task_seed(seed: int, kind: int, index: int) -> int:
    """The env seed of deal or game ``index``."""
    return int(np.random.SeedSequence([seed, kind, index]).generate_state(1)[0])


def deal_context(rules: Rules, env_seed: int, context: str) -> dict[str, Any]:
    """Reset options giving the score context of a deal (none for ``zero``)."""
    if context == "zero":
        return {}
    rng = np.random.default_rng([env_seed, 7])
    sides = rules.num_sides
    scores = [int(x) * 10 for x in rng.integers(-10, 45, size=sides)]
    bags = [int(x) for x in rng.integers(0, (rules.bag_limit or 10), size=sides)]
    return {"scores": [s + b for s, b in zip(scores, bags)], "bags": bags}


def resolve_rules(rules: str | Rules | dict[str, Any]) -> Rules:
    """Rules from a preset name, a YAML path, a Rules object or its ``to_dict()``."""
    if isinstance(rules, dict):
        return Rules.from_dict(rules)
    return load_rules(rules)


def _plain_config(cfg: EvalConfig) -> dict[str, Any]:
    """The config as plain values (what worker processes receive)."""
    out = {f: getattr(cfg, f) for f in cfg.__dataclass_fields__}
    if isinstance(cfg.rules, Rules):
        out["rules"] = cfg.rules.to_dict()
    return out


# ------------------------------------------------------------------- workers
_WORKER: dict[str, Any] = {}


def _init_worker(config: dict[str, Any]) -> None:
    if "torch" in sys.modules:  # one thread per worker process: the workers already fill the cores
        sys.modules["torch"].set_num_threads(1)
    cfg = EvalConfig(**config)
    _WORKER["config"] = cfg
    _WORKER["rules"] = resolve_rules(cfg.rules)
    _WORKER["agents"] = {
        "A": make_agent(cfg.agent_a, **cfg.a_options),
        "B": make_agent(cfg.agent_b, **cfg.b_options),
    }
    if cfg.cross_play:
        _WORKER["agents"]["P"] = make_agent(cfg.partner, **cfg.partner_options)
    _WORKER["orientations"] = orientations(_WORKER["rules"], cfg.cross_play)


def _role_mean(rules: Rules, roles: tuple[str, ...], role: str, per_side: list[float]) -> float:
    """Mean over the seats of a role of their side's value."""
    return float(np.mean([per_side[rules.side_of(s)] for s, r in enumerate(roles) if r == role]))


def _tallies(rules: Rules, roles: tuple[str, ...], game, into: dict[str, SideTally]) -> None:
    for result in game.results:
        hand_rules = rules.hand_rules(result.hand_index)
        done = set()
        for seat, role in enumerate(roles):
            if role == "P":
                continue
            side = rules.side_of(seat)
            if side in done:
                continue
            done.add(side)
            into[role].add(tally_hand(hand_rules, result, side))


def _run_task(task: tuple[int, int]) -> dict[str, Any]:
    kind, index = task
    cfg: EvalConfig = _WORKER["config"]
    rules: Rules = _WORKER["rules"]
    agents = _WORKER["agents"]
    env_seed = task_seed(cfg.seed, kind, index)
    timing = Timing()
    tallies = {"A": SideTally(), "B": SideTally()}
    out: dict[str, Any] = {"kind": kind, "index": index, "seed": env_seed, "orientations": []}
    options = deal_context(rules, env_seed, cfg.context) if kind == DEAL else {}
    for o, roles in enumerate(_WORKER["orientations"]):
        seat_agents = [agents[role] for role in roles]
        for role, agent in agents.items():
            reseed(agent, (cfg.seed, kind, index, o, ROLE_IDS[role]))
        game = play_episode(rules, seat_agents, roles, env_seed, "hand" if kind == DEAL else "game",
                            options=dict(options), timing=timing)
        _tallies(rules, roles, game, tallies)
        record: dict[str, Any] = {"roles": "".join(roles)}
        if kind == DEAL:
            result = game.results[0]
            points = list(result.points)
            bags = [side.new_bags for side in result.score.sides]
            record.update(a_points=_role_mean(rules, roles, "A", points),
                          b_points=_role_mean(rules, roles, "B", points),
                          a_bags=_role_mean(rules, roles, "A", bags), b_bags=_role_mean(rules, roles, "B", bags))
        else:
            winner = game.winner
            winner_role = None
            if winner is not None:
                winner_role = next(r for s, r in enumerate(roles) if rules.side_of(s) == winner)
            record.update(winner=winner_role, hands=len(game.results), scores=list(game.scores))
        out["orientations"].append(record)
    out["tallies"] = {k: v.to_dict() for k, v in tallies.items()}
    out["timing"] = asdict(timing)
    return out


# ---------------------------------------------------------------- evaluation
def _tasks(cfg: EvalConfig) -> list[tuple[int, int]]:
    return [(DEAL, i) for i in range(cfg.deals)] + [(GAME, j) for j in range(cfg.games)]


def _run_all(cfg: EvalConfig) -> Iterator[dict[str, Any]]:
    tasks = _tasks(cfg)
    workers = cfg.workers or os.cpu_count() or 1
    workers = min(workers, len(tasks))
    config = _plain_config(cfg)
    if workers <= 1:
        _init_worker(config)
        for task in tasks:
            yield _run_task(task)
        return
    # fork is fastest, but a forked child of a process that has started torch's thread pool can deadlock.
    method = "spawn" if os.name == "nt" else ("forkserver" if "torch" in sys.modules else "fork")
    ctx = multiprocessing.get_context(method)
    with ctx.Pool(workers, initializer=_init_worker, initargs=(config,)) as pool:
        yield from pool.imap_unordered(_run_task, tasks, chunksize=1)


def evaluate(cfg: EvalConfig) -> dict[str, Any]:
    """Run the evaluation and return the report (JSON-ready; see :mod:`spades_env.evaluation.report`)."""
    rules = resolve_rules(cfg.rules)
    orients = orientations(rules, cfg.cross_play)  # validates cross-play against the rules
    total = cfg.deals + cfg.games
    results: list[dict[str, Any]] = []
    iterator = _run_all(cfg)
    if cfg.progress:
        from tqdm import tqdm

        iterator = tqdm(iterator, total=total, desc=f"{cfg.agent_a} vs {cfg.agent_b}", unit="task", smoothing=0.05)
    for item in iterator:
        results.append(item)
    results.sort(key=lambda r: (r["kind"], r["index"]))
    return summarize(cfg, rules, orients, results)


def summarize(cfg: EvalConfig, rules: Rules, orients: list[tuple[str, ...]], results: list[dict[str, Any]]) -> dict:
    """The report of a list of task results."""
    timing = Timing()
    deal_tally = {"A": SideTally(), "B": SideTally()}
    game_tally = {"A": SideTally(), "B": SideTally()}
    diffs, adjusted, a_pts, b_pts, deal_seeds = [], [], [], [], []
    bag_cost = rules.bag_penalty / rules.bag_limit if rules.bag_limit else 0.0
    per_game, game_seeds = [], []
    a_wins = b_wins = undecided = hands = 0
    for r in results:
        timing.merge(Timing(**r["timing"]))
        target = deal_tally if r["kind"] == DEAL else game_tally
        for role in ("A", "B"):
            target[role].add(SideTally.from_dict(r["tallies"][role]))
        if r["kind"] == DEAL:
            a = float(np.mean([o["a_points"] for o in r["orientations"]]))
            b = float(np.mean([o["b_points"] for o in r["orientations"]]))
            a_pts.append(a)
            b_pts.append(b)
            diffs.append(a - b)
            bags = float(np.mean([o["a_bags"] - o["b_bags"] for o in r["orientations"]]))
            adjusted.append(a - b - bag_cost * bags)
            deal_seeds.append(r["seed"])
        else:
            game_seeds.append(r["seed"])
            winners = [o["winner"] for o in r["orientations"]]
            per_game.append(winners)
            a_wins += winners.count("A")
            b_wins += winners.count("B")
            undecided += winners.count(None)
            hands += sum(o["hands"] for o in r["orientations"])
    report: dict[str, Any] = {
        "config": {
            "agent_a": cfg.agent_a, "a_options": cfg.a_options,
            "agent_b": cfg.agent_b, "b_options": cfg.b_options,
            "rules_name": rules.name, "rules": rules.to_dict(),
            "seed": cfg.seed, "deals": cfg.deals, "games": cfg.games,
            "cross_play": cfg.cross_play,
            "partner": cfg.partner if cfg.cross_play else None,
            "partner_options": cfg.partner_options if cfg.cross_play else None,
            "context": cfg.context,
            "orientations": ["".join(o) for o in orients],
            "replay": "deal i: env.reset(seed=deals.seeds[i]) with episode='hand' (and the context's scores/bags); "
                      "game j: env.reset(seed=games.seeds[j]) with episode='game'; each in every orientation",
        },
    }
    if cfg.deals:
        report["deals"] = {
            "n": len(diffs),
            "points_diff": mean_interval(diffs),
            "bag_adjusted_diff": mean_interval(adjusted),
            "bag_cost": bag_cost,
            "a_points": mean_interval(a_pts)["mean"],
            "b_points": mean_interval(b_pts)["mean"],
            "per_deal_diff": diffs,
            "seeds": deal_seeds,
        }
    if cfg.games:
        played = a_wins + b_wins + undecided
        report["games"] = {
            "n_seeds": len(per_game),
            "n_games": played,
            "a_wins": a_wins,
            "b_wins": b_wins,
            "undecided": undecided,
            "a_win_rate": win_interval(a_wins, played),
            "b_win_rate": win_interval(b_wins, played),
            "fair_a_win_rate": 1.0 / rules.num_sides,
            "mean_hands": hands / played if played else None,
            "per_game_winners": per_game,
            "seeds": game_seeds,
        }
    report["sides"] = {}
    if cfg.deals:
        report["sides"]["deals"] = {role: deal_tally[role].summary() for role in ("A", "B")}
    if cfg.games:
        report["sides"]["games"] = {role: game_tally[role].summary() for role in ("A", "B")}
    report["timing"] = timing.summary()
    return report
