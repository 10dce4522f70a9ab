"""Decisions per second of random masked play through the AEC API.

Plays random legal actions through ``agent_iter`` / ``last`` / ``step`` (the
observation and the mask are built at every decision) for ``raw_env`` and for
``env()`` (its one lean wrapper, ``spades_env.wrappers``), for PettingZoo's
stock three-wrapper stack around ``raw_env`` (what ``env()`` used to build),
and, when ``open_spiel`` is installed,
OpenSpiel's ``spades`` the same way in the same process: random legal actions,
with the observation tensor and the mask built at each decision, and raw
(legal actions and apply only). Prints decisions per second and the ratios.

    python benchmarks/aec_throughput.py [--seconds 10] [--rounds 5] [--rules standard] [--clock wall|cpu]
        [--json out.json]

The measurements are interleaved in rounds and each figure is the median
round, so that load from other processes affects them alike. ``--clock cpu``
times with ``time.process_time`` (this process's CPU time) instead of the wall
clock: on a shared machine it is less sensitive to other processes. Run with
another checkout first on ``PYTHONPATH`` to measure old code against new.

``--fixed-hands N --only raw_env|env`` plays exactly N seeded one-hand episodes
of one env, untimed, and prints the decisions: a fixed workload to count
instructions with ``valgrind --tool=callgrind`` (a count that load from other
processes does not change; subtract a run with ``--fixed-hands 0``).

Measured 2026-12-01 (branch ``aec4``, 2-core shared machine, load average about 1, alternating with
the previous main on ``PYTHONPATH``): ``--seconds 6 --rounds 3 --clock cpu`` gave ``raw_env`` 1.69x /
1.65x OpenSpiel (obs+mask) before and 1.76x / 1.73x after, ``env()`` 1.55x / 1.50x before and
1.53x / 1.55x after; callgrind (``--fixed-hands 100`` minus ``--fixed-hands 0``, PYTHONHASHSEED=0)
``raw_env`` 99,439 -> 96,720 and ``env()`` 110,177 -> 107,437 instructions a decision. The goals
(2.5x and 1.5x with margin) are not reached; see docs/benchmarks.md.

Measured 2026-12-03 (2-vCPU Intel Xeon, alternating with the previous main on ``PYTHONPATH``, the mask
built from 11-bit chunks): callgrind ``raw_env`` about 96,200 -> 94,800 instructions a decision (four
counts each); ``--seconds 6 --rounds 3 --clock cpu`` ``raw_env`` 1.65x / 1.81x before and 1.65x / 1.76x
after, ``env()`` 1.60x / 1.68x before and 1.56x / 1.60x after (noise larger than the change).
"""

from __future__ import annotations

import argparse
import json
import random
import time

import numpy as np

import spades_env

CLOCKS = {"wall": time.perf_counter, "cpu": time.process_time}
clock = time.perf_counter  # set by --clock
WARM_SEED = 2**31 - 1  # the untimed first hand of --fixed-hands (outside the seeds 0..N-1 it plays)


def stock_env(**kwargs):
    """PettingZoo's stock wrapper stack around raw_env (what env() built before its lean wrapper)."""
    from pettingzoo.utils import wrappers

    environment = spades_env.raw_env(**kwargs)
    environment = wrappers.TerminateIllegalWrapper(environment, illegal_reward=-1)
    environment = wrappers.AssertOutOfBoundsWrapper(environment)
    return wrappers.OrderEnforcingWrapper(environment)


def play_hand(env, rng: random.Random, seed: int) -> int:
    """One seeded one-hand episode of random masked play through the AEC API; returns its decisions."""
    decisions = 0
    env.reset(seed=seed)
    for _agent in env.agent_iter():
        obs, reward, terminated, truncated, info = env.last()
        if terminated or truncated:
            action = None
        else:
            action = int(rng.choice(np.flatnonzero(obs["action_mask"])))
            decisions += 1
        env.step(action)
    return decisions


def run_aec(make, rules: str, seconds: float, seed: int = 0) -> float:
    """Decisions per second of random masked play through the AEC API."""
    env = make(rules=rules, episode="hand")
    rng = random.Random(seed)
    decisions = 0
    episode = 0
    start = clock()
    while clock() - start < seconds:
        decisions += play_hand(env, rng, seed + episode)
        episode += 1
    return decisions / (clock() - start)


def run_openspiel(seconds: float, with_observation: bool, seed: int = 0) -> float | None:
    """Decisions per second of OpenSpiel's spades under random play (None if not installed)."""
    try:
        import pyspiel
    except ImportError:
        return None
    game = pyspiel.load_game("spades")
    num_actions = game.num_distinct_actions()
    rng = random.Random(seed)
    decisions = 0
    start = clock()
    while clock() - start < seconds:
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes = state.chance_outcomes()
                state.apply_action(rng.choice(outcomes)[0])
                continue
            legal = state.legal_actions()
            if with_observation:
                observation = np.asarray(state.observation_tensor(), dtype=np.float32)
                mask = np.zeros(num_actions, dtype=np.int8)
                mask[legal] = 1
                del observation, mask
            state.apply_action(rng.choice(legal))
            decisions += 1
    return decisions / (clock() - start)


def main() -> None:
    """Run every measurement and print a table with ratios."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=10.0, help="total time per measurement")
    parser.add_argument(
        "--rounds",
        type=int,
        default=5,
        help="the measurements are interleaved in this many rounds; each figure is the median round",
    )
    parser.add_argument("--rules", default="standard", help="rules preset for spades_env")
    parser.add_argument(
        "--clock",
        choices=tuple(CLOCKS),
        default="wall",
        help="wall: time.perf_counter; cpu: time.process_time (less sensitive to other processes)",
    )
    parser.add_argument("--json", default=None, help="also write the figures to this JSON file")
    parser.add_argument(
        "--fixed-hands",
        type=int,
        default=None,
        help="play exactly this many one-hand episodes of --only, untimed (for callgrind)",
    )
    parser.add_argument("--only", choices=("raw_env", "env"), default="raw_env", help="the env of --fixed-hands")
    args = parser.parse_args()
    global clock
    clock = CLOCKS[args.clock]
    if args.fixed_hands is not None:
        make = spades_env.raw_env if args.only == "raw_env" else spades_env.env
        env = make(rules=args.rules, episode="hand")
        rng = random.Random(0)
        play_hand(env, rng, seed=WARM_SEED)  # first use (caches, lazy imports), in a run of 0 hands too
        decisions = sum(play_hand(env, rng, seed) for seed in range(args.fixed_hands))
        print(f"{args.only}: {args.fixed_hands} hands, {decisions} decisions")
        return
    # Interleaved rounds: a shared, noisy machine slows every measurement of a round alike.
    runs = {
        "raw_env": lambda s, r: run_aec(spades_env.raw_env, args.rules, s, seed=r),
        "env": lambda s, r: run_aec(spades_env.env, args.rules, s, seed=r),
        "env_stock_wrappers": lambda s, r: run_aec(stock_env, args.rules, s, seed=r),
        "openspiel_obs_mask": lambda s, r: run_openspiel(s, with_observation=True, seed=r),
        "openspiel_raw": lambda s, r: run_openspiel(s, with_observation=False, seed=r),
    }
    per_round: dict[str, list] = {name: [] for name in runs}
    for r in range(args.rounds):
        for name, run in runs.items():
            per_round[name].append(run(args.seconds / args.rounds, r))
    results = {name: (None if values[0] is None else float(np.median(values))) for name, values in per_round.items()}
    print(f"{'measurement':<22}{'decisions/s':>14}")
    for name, value in results.items():
        print(f"{name:<22}{'n/a (open_spiel not installed)' if value is None else f'{value:14,.0f}'}")
    if results["openspiel_obs_mask"]:
        for name in ("raw_env", "env", "env_stock_wrappers"):
            ratios = [a / b for a, b in zip(per_round[name], per_round["openspiel_obs_mask"])]
            results[f"{name}_ratio"] = float(np.median(ratios))
            print(
                f"{name + ' / OpenSpiel (obs+mask):':<45} {results[name + '_ratio']:.2f}x "
                f"(median of {args.rounds} rounds; range {min(ratios):.2f}x .. {max(ratios):.2f}x)"
            )
    if args.json:
        with open(args.json, "w") as fh:
            json.dump({"rules": args.rules, "seconds": args.seconds, "clock": args.clock, **results}, fh, indent=2)


if __name__ == "__main__":
    main()
