"""Duplicate evaluation of agent A against agent B.

Two measurements, taken together or separately:

* **Deals** (per-deal points): deal ``i`` is a one-hand episode
  (``episode="hand"``) from the env seed ``seeds[i]``, played once per
  *orientation* with the same cards, dealer and score context; the
  statistic is, per deal, A's side points minus B's side points averaged
  over the orientations, reported with a t interval. Under a ``crazy``
  rotation deal ``i`` is the rotation's hand ``i`` modulo its length (reset
  option ``hand_index``), so the deals cover every variant of the rotation
  in turn, not only its first.
* **Games** (to the target score): game ``j`` from the env seed
  ``game_seeds[j]`` (a game's deals come only from its seed) is played once
  per orientation; the win rate is A's wins over every game played (an
  undecided game, truncated or tied, counts each side its fair share,
  1/number of sides, as in the league), with a Wilson interval that treats
  every game as independent, and beside it the interval clustered by seed
  (the mean over seeds of A's share of each seed's games, t interval): the
  orientations of a seed play the same deals, so the clustered one is the
  honest one when they differ.

Orientations (which role sits in each seat):

* partnerships: ``ABAB`` and ``BABA`` (the partnerships swap cards);
* cross-play (``cross_play=True``): each agent partnered with a ``partner``
  agent (the heuristic by default): ``ABPP``, ``BAPP``, ``PPAB``, ``PPBA``;
* cutthroat (3 or 4 players): A in one seat and B in the others, rotated
  through every seat (``ABBB``, ``BABB``, ...); A's points are compared with
  the mean of the B players' points;
* two players: ``AB`` and ``BA``, the same stock and dealer in both, so each
  agent draws from the same stock order from both seats.

Everything derives from ``seed``: the env seeds of deals and games, and each
agent's generator in each orientation, so the same configuration gives the
same numbers whatever the number of workers. Work is spread over processes
(``workers``, default all cores) with a tqdm progress bar.

The rules, the orientations and every agent (built once with its options)
are checked before any worker starts (:func:`check_config`, raising
:class:`ConfigError`); :class:`EvalConfig` refuses (ValueError) a setting that
would be ignored: a ``partner`` or ``partner_options`` without ``cross_play``,
a ``context`` other than ``"zero"`` with no deals. A worker that cannot start,
fails or dies ends the run with :class:`WorkerError` naming the error, instead
of being restarted.
"""

from __future__ import annotations

import itertools
import multiprocessing
import os
import sys
from collections.abc import Iterator
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np

from ..agents import check_plays, make_agent
from ..cli_args import max_workers
from ..config_io import load_rules
from ..core.rules import Rules
from ..rewards import bag_cost, charged_points
from .arena import Timing, play_episode, reseed
from .stats import SideTally, mean_interval, tally_hand, undecided_share, win_interval

DEAL, GAME = 0, 1
ROLE_IDS = {"A": 0, "B": 1, "P": 2}
CONTEXTS = ("zero", "sampled")
PARTNER_DEFAULT = "heuristic"  # the cross-play partner
# The sampled score context: scores in steps of 10 from -100 to 440, bags below the limit.
SAMPLED_SCORE_STEPS = (-10, 45)  # integers() bounds, times SCORE_STEP
SCORE_STEP = 10
SAMPLED_BAGS_WHEN_UNLIMITED = 10  # bag counts drawn below this when the rules have no bag limit
CONTEXT_STREAM = 7  # the context's generator: seeded [env seed, CONTEXT_STREAM], apart from the deal's


class EvaluationError(RuntimeError):
    """The evaluation cannot run or could not finish; the message names the problem."""


class ConfigError(EvaluationError, ValueError):
    """Bad rules, agent name or agent options, found before any deal is played."""


class WorkerError(EvaluationError):
    """A worker process failed (its error is in the message) or died during the run."""


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
    partner: str = PARTNER_DEFAULT
    partner_options: dict[str, Any] = field(default_factory=dict)
    context: str = "zero"
    progress: bool = True
    seed_stream: str = "tool"  # "training": the seeds of training's evaluations (disjoint from the tool's)

    def __post_init__(self) -> None:
        if self.deals < 0 or self.games < 0:
            raise ValueError("deals and games must be >= 0")
        if self.deals == 0 and self.games == 0:
            raise ValueError("nothing to evaluate: give deals > 0 or games > 0")
        if self.context not in CONTEXTS:
            raise ValueError(f"context must be one of {CONTEXTS}, got {self.context!r}")
        if self.workers is not None and self.workers < 1:
            raise ValueError("workers must be >= 1")
        if self.seed_stream not in SEED_STREAMS:
            raise ValueError(f"seed_stream must be one of {SEED_STREAMS}, got {self.seed_stream!r}")
        # a setting that would be ignored is refused: the partner plays only in cross-play, the context only in deals
        if not self.cross_play and self.partner != PARTNER_DEFAULT:
            raise ValueError(f"partner {self.partner!r} has no effect without cross_play=True")
        if not self.cross_play and self.partner_options:
            raise ValueError(f"partner_options {self.partner_options} have no effect without cross_play=True")
        if self.context != "zero" and self.deals == 0:
            raise ValueError(f"context {self.context!r} has no effect with deals=0 (it sets the deals' score context)")


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


SEED_STREAMS = ("tool", "training")  # whose evaluation: the command line and library (default), or training's
STREAM_SPAN = 2**32  # env seeds of stream k lie in [k * 2**32, (k + 1) * 2**32): disjoint by construction


def task_seed(seed: int, kind: int, index: int, stream: str = "tool") -> int:
    """The env seed of deal or game ``index``. The evaluation tool's seeds are below 2**32; training's evaluations
    (``stream="training"``) draw theirs from a separate sequence above it, so that no deal training printed is
    ever one of an evaluation run with the tool, whatever the two seeds."""
    k = SEED_STREAMS.index(stream)
    entropy = [seed, kind, index] + ([k] if k else [])
    return k * STREAM_SPAN + int(np.random.SeedSequence(entropy).generate_state(1)[0])


def deal_context(rules: Rules, env_seed: int, context: str) -> dict[str, Any]:
    """Reset options giving the score context of a deal (none for ``zero``)."""
    if context == "zero":
        return {}
    rng = np.random.default_rng([env_seed, CONTEXT_STREAM])
    sides = rules.num_sides
    scores = [int(x) * SCORE_STEP for x in rng.integers(*SAMPLED_SCORE_STEPS, size=sides)]
    bags = [int(x) for x in rng.integers(0, (rules.bag_limit or SAMPLED_BAGS_WHEN_UNLIMITED), size=sides)]
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


# -------------------------------------------------------------------- checks
def _roles(cfg: EvalConfig) -> list[tuple[str, str, dict[str, Any]]]:
    """(role, agent name, options) of every role that plays."""
    out = [("A", cfg.agent_a, cfg.a_options), ("B", cfg.agent_b, cfg.b_options)]
    if cfg.cross_play:
        out.append(("P", cfg.partner, cfg.partner_options))
    return out


def check_config(cfg: EvalConfig) -> tuple[Rules, list[tuple[str, ...]], dict[str, Any]]:
    """The rules, orientations and one agent per role, built as a worker builds them (:class:`ConfigError`
    naming the rules, agent or option that is wrong, or why an agent cannot play the rules)."""
    try:
        rules = resolve_rules(cfg.rules)
    except (ValueError, TypeError, KeyError, OSError) as exc:
        raise ConfigError(f"rules {cfg.rules!r}: {exc}") from exc
    try:
        orients = orientations(rules, cfg.cross_play)
    except ValueError as exc:
        raise ConfigError(str(exc)) from exc
    agents = {}
    for role, name, options in _roles(cfg):
        try:
            agents[role] = make_agent(name, **options)
            check_plays(agents[role], rules)  # a policy without the drawing turns is refused here, not at deal 0
        except Exception as exc:  # whatever the factory raises: unknown name, bad option, unreadable checkpoint
            with_options = f" with options {options}" if options else ""
            raise ConfigError(f"agent {role} {name!r}{with_options}: {type(exc).__name__}: {exc}") from exc
    return rules, orients, agents


# ------------------------------------------------------------------- workers
_WORKER: dict[str, Any] = {}


def _install(cfg: EvalConfig, rules: Rules, orients: list[tuple[str, ...]], agents: dict[str, Any]) -> None:
    _WORKER.clear()
    _WORKER.update(config=cfg, rules=rules, orientations=orients, agents=agents)


def _init_worker(config: dict[str, Any]) -> None:
    try:
        cfg = EvalConfig(**config)
        _install(cfg, *check_config(cfg))
    except Exception as exc:  # reported by this worker's tasks: an initializer that raises only breaks the pool
        _WORKER.clear()
        _WORKER["error"] = f"{type(exc).__name__}: {exc}"
    # One torch thread per worker process, the workers already fill the cores (two threads a worker on two cores
    # made a policy's decision about 9x slower); set after the agents are built, since building a policy agent is
    # what loads torch in a fresh worker.
    if "torch" in sys.modules:
        sys.modules["torch"].set_num_threads(1)


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


def _leader_role(rules: Rules, roles: tuple[str, ...], scores: list[int]) -> str | None:
    """The role of the side with the strictly highest score (None when the highest is shared)."""
    best = max(scores)
    return winner_role(rules, roles, scores.index(best)) if scores.count(best) == 1 else None


def winner_role(rules: Rules, roles: tuple[str, ...], winner: int | None) -> str | None:
    """The role ("A" or "B") playing for the winning side (not its cross-play partner "P"); None if undecided."""
    if winner is None:
        return None
    return next((r for s, r in enumerate(roles) if rules.side_of(s) == winner and r != "P"), "P")


def _run_task(task: tuple[int, int]) -> dict[str, Any]:
    if "error" in _WORKER:
        raise WorkerError(f"the worker could not start: {_WORKER['error']}")
    kind, index = task
    cfg: EvalConfig = _WORKER["config"]
    rules: Rules = _WORKER["rules"]
    agents = _WORKER["agents"]
    env_seed = task_seed(cfg.seed, kind, index, cfg.seed_stream)
    timing = Timing()
    tallies = {"A": SideTally(), "B": SideTally()}
    out: dict[str, Any] = {"kind": kind, "index": index, "seed": env_seed, "orientations": []}
    options = deal_context(rules, env_seed, cfg.context) if kind == DEAL else {}
    if kind == DEAL and rules.crazy is not None:
        options["hand_index"] = index % len(rules.crazy)  # every variant of the rotation in turn
    for o, roles in enumerate(_WORKER["orientations"]):
        seat_agents = [agents[role] for role in roles]
        for role, agent in agents.items():
            reseed(agent, (cfg.seed, kind, index, o, ROLE_IDS[role]))
        game = play_episode(
            rules,
            seat_agents,
            roles,
            env_seed,
            "hand" if kind == DEAL else "game",
            options=dict(options),
            timing=timing,
        )
        _tallies(rules, roles, game, tallies)
        record: dict[str, Any] = {"roles": "".join(roles)}
        if kind == DEAL:
            result = game.results[0]
            points = list(result.points)
            bags = [side.new_bags for side in result.score.sides]
            charged = [float(charged_points(rules, s.points, s.new_bags, s.bag_penalties)) for s in result.score.sides]
            record.update(
                a_points=_role_mean(rules, roles, "A", points),
                b_points=_role_mean(rules, roles, "B", points),
                a_bags=_role_mean(rules, roles, "A", bags),
                b_bags=_role_mean(rules, roles, "B", bags),
                a_charged=_role_mean(rules, roles, "A", charged),
                b_charged=_role_mean(rules, roles, "B", charged),
            )
        else:
            record.update(
                winner=winner_role(rules, roles, game.winner), hands=len(game.results), scores=list(game.scores)
            )
        out["orientations"].append(record)
    out["tallies"] = {k: v.to_dict() for k, v in tallies.items()}
    out["timing"] = asdict(timing)
    return out


# ---------------------------------------------------------------- evaluation
def _tasks(cfg: EvalConfig) -> list[tuple[int, int]]:
    return [(DEAL, i) for i in range(cfg.deals)] + [(GAME, j) for j in range(cfg.games)]


def _task_name(task: tuple[int, int]) -> str:
    kind, index = task
    return f"{'deal' if kind == DEAL else 'game'} {index}"


WORKER_EXIT_S = 5.0  # how long a killed worker may take to be reaped before the pool is shut down
TASKS_IN_FLIGHT_PER_WORKER = 4  # tasks submitted ahead of the workers: a bounded wave, whatever the task count


def _run_in_pool(config: dict[str, Any], tasks: list[tuple[int, int]], workers: int) -> Iterator[dict[str, Any]]:
    """Task results from worker processes as each finishes; the first failure stops the run (:class:`WorkerError`).

    Tasks are submitted in a bounded wave (``TASKS_IN_FLIGHT_PER_WORKER`` per worker), not all at once, so that
    memory stays flat for a million deals. When the run ends early (a failure, Ctrl-C, SIGTERM turned into an
    interrupt by the command line), the worker processes are killed rather than left to finish their tasks.
    """
    # fork is fastest, but a forked child of a process that has started torch's thread pool can deadlock.
    method = "spawn" if os.name == "nt" else ("forkserver" if "torch" in sys.modules else "fork")
    pool = ProcessPoolExecutor(
        workers, mp_context=multiprocessing.get_context(method), initializer=_init_worker, initargs=(config,)
    )
    queue = iter(tasks)
    pending: dict[Any, tuple[int, int]] = {}
    finished = False
    try:
        for task in itertools.islice(queue, workers * TASKS_IN_FLIGHT_PER_WORKER):
            pending[pool.submit(_run_task, task)] = task
        while pending:
            done, _ = wait(pending, return_when=FIRST_COMPLETED)
            for future in done:
                task = pending.pop(future)
                try:
                    result = future.result()
                except WorkerError:
                    raise
                except BrokenProcessPool as exc:
                    raise WorkerError(
                        f"a worker process died during the run ({_task_name(task)} unfinished): {exc}"
                    ) from exc
                except Exception as exc:
                    raise WorkerError(f"{_task_name(task)} failed: {type(exc).__name__}: {exc}") from exc
                for more in itertools.islice(queue, 1):
                    pending[pool.submit(_run_task, more)] = more
                yield result
        finished = True
    finally:
        if not finished:  # stop the workers now: their tasks' results are not wanted any more
            # SIGKILL, not SIGTERM: a forked worker inherits the command line's SIGTERM handler, which a worker
            # stuck in a lock cannot run; it then outlived the run and the pool's manager waited for it forever
            processes = list(getattr(pool, "_processes", {}).values())
            for process in processes:
                process.kill()
            for process in processes:  # gone before the pool's manager is told to shut down
                process.join(WORKER_EXIT_S)
        pool.shutdown(wait=finished, cancel_futures=True)


def _run_all(
    cfg: EvalConfig, prepared: tuple[Rules, list[tuple[str, ...]], dict[str, Any]]
) -> Iterator[dict[str, Any]]:
    """Every task's result: in this process with one worker (``prepared`` by :func:`check_config`), else in a
    pool of worker processes."""
    tasks = _tasks(cfg)
    cores = max_workers()
    workers = min(cfg.workers or cores, cores, len(tasks))  # more processes than cores or tasks only cost memory
    if workers <= 1:
        _install(cfg, *prepared)
        for task in tasks:
            yield _run_task(task)
        return
    yield from _run_in_pool(_plain_config(cfg), tasks, workers)


def evaluate(cfg: EvalConfig) -> dict[str, Any]:
    """Run the evaluation and return the report (JSON-ready; see :mod:`spades_env.evaluation.report`).

    Rules and agents are checked first (:class:`ConfigError`); a failing worker ends the run
    (:class:`WorkerError`)."""
    prepared = check_config(cfg)
    rules, orients, _ = prepared
    total = cfg.deals + cfg.games
    results: list[dict[str, Any]] = []
    iterator = _run_all(cfg, prepared)
    if cfg.progress:
        from tqdm import tqdm

        iterator = tqdm(iterator, total=total, desc=f"{cfg.agent_a} vs {cfg.agent_b}", unit="task", smoothing=0.05)
    for item in iterator:
        results.append(item)
    results.sort(key=lambda r: (r["kind"], r["index"]))
    return summarize(cfg, rules, orients, results)


def _config_report(cfg: EvalConfig, rules: Rules, orients: list[tuple[str, ...]]) -> dict[str, Any]:
    """The report's ``config`` block: what was evaluated and how to replay it."""
    return {
        "agent_a": cfg.agent_a,
        "a_options": cfg.a_options,
        "agent_b": cfg.agent_b,
        "b_options": cfg.b_options,
        "rules_name": rules.name,
        "rules": rules.to_dict(),
        "seed": cfg.seed,
        "deals": cfg.deals,
        "games": cfg.games,
        "cross_play": cfg.cross_play,
        "partner": cfg.partner if cfg.cross_play else None,
        "partner_options": cfg.partner_options if cfg.cross_play else None,
        "context": cfg.context,
        "orientations": ["".join(o) for o in orients],
        "replay": "deal i: env.reset(seed=deals.seeds[i]) with episode='hand' (and the context's scores/bags; "
        "in a crazy rotation hand_index i mod its length); "
        "game j: env.reset(seed=games.seeds[j]) with episode='game'; each in every orientation",
    }


def _deals_report(rules: Rules, deals: list[dict[str, Any]]) -> dict[str, Any]:
    """The report's ``deals`` block: per-deal point differences (and bag-adjusted) with t intervals."""
    cost = bag_cost(rules)
    diffs, adjusted, a_pts, b_pts = [], [], [], []
    for r in deals:
        a = float(np.mean([o["a_points"] for o in r["orientations"]]))
        b = float(np.mean([o["b_points"] for o in r["orientations"]]))
        a_pts.append(a)
        b_pts.append(b)
        diffs.append(a - b)
        adjusted.append(float(np.mean([o["a_charged"] - o["b_charged"] for o in r["orientations"]])))
    return {
        "n": len(diffs),
        "points_diff": mean_interval(diffs),
        "bag_adjusted_diff": mean_interval(adjusted),
        "bag_cost": cost,
        "a_points": mean_interval(a_pts)["mean"],
        "b_points": mean_interval(b_pts)["mean"],
        "per_deal_diff": diffs,
        "seeds": [r["seed"] for r in deals],
    }


def _games_report(rules: Rules, games: list[dict[str, Any]]) -> dict[str, Any]:
    """The report's ``games`` block: wins per role (an undecided game counts each side its fair share,
    :func:`.stats.undecided_share`) with Wilson intervals over the games, and A's rate clustered by seed (the
    orientations of a seed play the same deals, so its games are not independent); and of the undecided games, how
    many A led when they stopped (truncated at ``max_hands``: not a win, but where they were heading)."""
    per_game = [[o["winner"] for o in r["orientations"]] for r in games]
    leading = [
        _leader_role(rules, tuple(o["roles"]), o["scores"])
        for r in games
        for o in r["orientations"]
        if o["winner"] is None
    ]
    a_wins = sum(w.count("A") for w in per_game)
    b_wins = sum(w.count("B") for w in per_game)
    undecided = sum(w.count(None) for w in per_game)
    hands = sum(o["hands"] for r in games for o in r["orientations"])
    played = sum(len(w) for w in per_game)
    share = undecided_share(rules.num_sides)  # A is one side; B the others
    a_score = [(w.count("A") + share * w.count(None)) / len(w) for w in per_game]
    return {
        "n_seeds": len(per_game),
        "n_games": played,
        "a_wins": a_wins,
        "b_wins": b_wins,
        "undecided": undecided,
        "undecided_share": share,
        "undecided_a_leading": leading.count("A"),
        "a_win_rate": win_interval(a_wins + share * undecided, played),
        "b_win_rate": win_interval(b_wins + (1 - share) * undecided, played),
        "a_win_rate_by_seed": mean_interval(a_score),
        "fair_a_win_rate": 1.0 / rules.num_sides,
        "mean_hands": hands / played if played else None,
        "per_game_winners": per_game,
        "seeds": [r["seed"] for r in games],
    }


def summarize(cfg: EvalConfig, rules: Rules, orients: list[tuple[str, ...]], results: list[dict[str, Any]]) -> dict:
    """The report of a list of task results."""
    timing = Timing()
    tallies = {DEAL: {"A": SideTally(), "B": SideTally()}, GAME: {"A": SideTally(), "B": SideTally()}}
    for r in results:
        timing.merge(Timing(**r["timing"]))
        for role in ("A", "B"):
            tallies[r["kind"]][role].add(SideTally.from_dict(r["tallies"][role]))
    report: dict[str, Any] = {"config": _config_report(cfg, rules, orients)}
    if cfg.deals:
        report["deals"] = _deals_report(rules, [r for r in results if r["kind"] == DEAL])
    if cfg.games:
        report["games"] = _games_report(rules, [r for r in results if r["kind"] == GAME])
    report["sides"] = {}
    if cfg.deals:
        report["sides"]["deals"] = {role: tallies[DEAL][role].summary(rules) for role in ("A", "B")}
    if cfg.games:
        report["sides"]["games"] = {role: tallies[GAME][role].summary(rules) for role in ("A", "B")}
    report["headline"] = headline(report)
    report["timing"] = timing.summary()
    return report


def headline(report: dict[str, Any]) -> dict[str, Any]:
    """The report's headline: A's game win rate, then A - B points per deal bag-adjusted, then plain."""
    games, deals = report.get("games"), report.get("deals")
    return {
        "win_rate": games["a_win_rate"] if games else None,
        "games": games["n_games"] if games else 0,
        "target_score": report["config"]["rules"]["target_score"],
        "bag_adjusted_points_per_deal": deals["bag_adjusted_diff"] if deals else None,
        "points_per_deal": deals["points_diff"] if deals else None,
        "deals": deals["n"] if deals else 0,
        "bag_cost": deals["bag_cost"] if deals else None,
    }
