"""Self-play PPO with RLlib on Ray: one shared PolicyNet plays every seat; exports a spades_env policy file.

    python -m training.rllib_train --smoke                      # a few minutes on 2 cores
    python -m training.rllib_train --iterations 200 --num-env-runners 4
    python -m training.rllib_train --address auto --num-env-runners 16   # join a running Ray cluster

RLlib's new API stack: the env is :func:`spades_env.integrations.rllib.make_env`
(one-hand episodes, ``hand_points`` rewards, partners share them), the
RLModule is ``SpadesPPOModule`` (the project's PolicyNet with masked logits
and a ValueNet critic), and the policy mapping sends every seat to the one
``shared`` policy (``--policies per_seat`` trains one per seat and exports
seat 0's). Each iteration prints the env steps sampled, the wall-clock rate,
the mean episode return and the losses; the illegal actions the env runners
saw are counted (masking makes them impossible) and the run fails if any
occurred. The end is a policy file (:func:`spades_env.nn.save_policy`: layout
and content hash) that ``spades_env.make_agent(path)`` plays and
``spades-evaluate PATH random`` evaluates; the last printed line is
``policy: PATH``.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import time
from pathlib import Path
from typing import Any

SMOKE = {"iterations": 6, "train_batch": 2000, "minibatch": 250, "epochs": 4}
RAY_OBJECT_STORE_BYTES = 200 * 1024**2  # the default (30% of memory) is far more than a small run needs
EXIT_ILLEGAL = 3


def build_parser() -> argparse.ArgumentParser:
    """The argument parser."""
    p = argparse.ArgumentParser(
        prog="python -m training.rllib_train",
        description=__doc__.splitlines()[0],
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument(
        "--address", default=None, help="Ray cluster to join ('auto' or HOST:PORT); default: start Ray locally"
    )
    p.add_argument("--num-cpus", type=int, default=None, help="CPUs of a local Ray (default: env runners + 1)")
    p.add_argument("--num-env-runners", type=int, default=1, help="sampling processes (0 samples in the driver)")
    p.add_argument(
        "--envs-per-runner",
        type=int,
        default=4,
        help="envs each env runner steps (their actions are computed in one batch)",
    )
    p.add_argument("--rules", default="standard", help="rules preset or YAML path")
    p.add_argument(
        "--policies",
        choices=("shared", "per_seat"),
        default="shared",
        help="one shared policy (exported) or one per seat (seat 0's exported)",
    )
    p.add_argument("--iterations", type=int, default=100, help="training iterations")
    p.add_argument("--time-limit-minutes", type=float, default=0.0, help="also stop after this long (0 = no limit)")
    p.add_argument("--train-batch", type=int, default=8000, help="env steps per iteration (per learner)")
    p.add_argument("--minibatch", type=int, default=1000, help="steps per gradient step")
    p.add_argument("--epochs", type=int, default=4, help="passes over each batch")
    p.add_argument("--lr", type=float, default=3e-4)
    p.add_argument("--entropy", type=float, default=0.01, help="entropy bonus")
    p.add_argument("--hidden", type=int, nargs="+", default=[256, 256], help="hidden layer sizes")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument(
        "--out", default=None, help="policy file to write (default: runs/rllib-<rules>-seed<seed>/policy.pt)"
    )
    p.add_argument(
        "--measure-sampling",
        type=int,
        default=0,
        metavar="STEPS",
        help="only measure sampling: time STEPS env steps (after a warm-up) and exit, training nothing",
    )
    p.add_argument(
        "--smoke",
        action="store_true",
        help=f"a short run: {SMOKE['iterations']} iterations of {SMOKE['train_batch']} steps",
    )
    return p


def checked_args(argv: list[str] | None = None) -> argparse.Namespace:
    """Parsed arguments, with --smoke applied and every number checked (argparse error naming the problem)."""
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.smoke:
        args.iterations, args.train_batch = SMOKE["iterations"], SMOKE["train_batch"]
        args.minibatch, args.epochs = SMOKE["minibatch"], SMOKE["epochs"]
    for name in ("iterations", "train_batch", "minibatch", "epochs", "envs_per_runner"):
        if getattr(args, name) < 1:
            parser.error(f"--{name.replace('_', '-')} must be at least 1, got {getattr(args, name)}")
    if args.measure_sampling < 0:
        parser.error(f"--measure-sampling must be >= 0, got {args.measure_sampling}")
    if args.num_env_runners < 0:
        parser.error(f"--num-env-runners must be >= 0, got {args.num_env_runners}")
    if args.minibatch > args.train_batch:
        parser.error(f"--minibatch ({args.minibatch}) must not exceed --train-batch ({args.train_batch})")
    if any(h < 1 for h in args.hidden):
        parser.error(f"--hidden sizes must be positive, got {args.hidden}")
    if args.out is None:
        args.out = os.path.join("runs", f"rllib-{Path(args.rules).stem}-seed{args.seed}", "policy.pt")
    return args


def build_config(args: argparse.Namespace) -> Any:
    """The PPOConfig of a run (new API stack, multi-agent, SpadesPPOModule per policy)."""
    from ray.rllib.algorithms.ppo import PPOConfig  # noqa: PLC0415
    from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec  # noqa: PLC0415
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec  # noqa: PLC0415

    from spades_env.integrations import rllib as adapter  # noqa: PLC0415

    env_id = adapter.register_env()
    agents = adapter.make_env({"rules": args.rules}).possible_agents
    policies, mapping = adapter.policy_mapping(args.policies, agents)
    module = RLModuleSpec(module_class=adapter.SpadesPPOModule, model_config={"hidden": list(args.hidden)})
    return (
        PPOConfig()
        # The pre-check's one random action is usually illegal and would be counted as one; the adapter's
        # tests run the pre-check, so the run skips it and counts only the policy's actions.
        .environment(
            env_id,
            env_config={"rules": args.rules, "episode": "hand", "reward": "hand_points"},
            disable_env_checking=True,
        )
        .framework("torch")
        .env_runners(
            num_env_runners=args.num_env_runners,
            num_envs_per_env_runner=args.envs_per_runner,
            num_cpus_per_env_runner=1,
        )
        .learners(num_learners=0)
        .training(
            train_batch_size_per_learner=args.train_batch,
            minibatch_size=args.minibatch,
            num_epochs=args.epochs,
            lr=args.lr,
            gamma=1.0,
            lambda_=0.95,
            entropy_coeff=args.entropy,
            vf_loss_coeff=0.5,
            grad_clip=0.5,
        )
        .multi_agent(policies=policies, policy_mapping_fn=mapping)
        .rl_module(rl_module_spec=MultiRLModuleSpec(rl_module_specs={pid: module for pid in sorted(policies)}))
        .debugging(seed=args.seed)
    )


def illegal_action_count(algo: Any) -> int:
    """Illegal actions seen by every env of every env runner (the driver's included)."""
    from spades_env.integrations.rllib import illegal_actions  # noqa: PLC0415

    def count(runner: Any) -> int:
        env = getattr(runner, "env", None)
        return 0 if env is None else sum(illegal_actions(e) for e in env.envs)

    return int(sum(algo.env_runner_group.foreach_env_runner(count, local_env_runner=True)))


def iteration_summary(result: dict[str, Any]) -> dict[str, Any]:
    """Env steps sampled (this iteration and in all), RLlib's sampling timer, mean return and each policy's losses."""
    runners = result.get("env_runners", {})
    steps = int(runners.get("num_env_steps_sampled", 0))
    sample_s = float(result.get("timers", {}).get("env_runner_sampling_timer", math.nan))
    losses = {
        pid: {k: float(v) for k, v in stats.items() if k in ("policy_loss", "vf_loss", "total_loss", "entropy")}
        for pid, stats in result.get("learners", {}).items()
        if isinstance(stats, dict) and "policy_loss" in stats
    }
    return {
        "env_steps": steps,
        "env_steps_lifetime": int(runners.get("num_env_steps_sampled_lifetime", 0)),
        "sample_seconds_ema": sample_s,  # RLlib's smoothed sampling timer, not this iteration's alone
        "episode_return_mean": float(runners.get("episode_return_mean", math.nan)),
        "losses": losses,
    }


def measure_sampling(algo: Any, steps: int) -> tuple[int, float]:
    """Env steps sampled and seconds taken by the env runners for ``steps`` env steps (after a warm-up of a tenth)."""
    from ray.rllib.execution.rollout_ops import synchronous_parallel_sample  # noqa: PLC0415

    def sample(n: int) -> int:
        episodes = synchronous_parallel_sample(
            worker_set=algo.env_runner_group, max_env_steps=n, _uses_new_env_runners=True
        )
        return sum(episode.env_steps() for episode in episodes)

    sample(max(1, steps // 10))  # warm-up: module and env creation, first forward passes
    tick = time.perf_counter()
    sampled = sample(steps)
    return sampled, time.perf_counter() - tick


def export(algo: Any, args: argparse.Namespace, history: list[dict[str, Any]]) -> str:
    """Write the trained policy (shared, or seat 0's) as a spades_env policy file; its path."""
    from spades_env.integrations.rllib import SHARED_POLICY, policy_net_from_state  # noqa: PLC0415
    from spades_env.nn import save_policy  # noqa: PLC0415

    pid = SHARED_POLICY if args.policies == "shared" else "player_0"
    state = algo.learner_group.get_weights(module_ids=[pid])[pid]
    policy = policy_net_from_state(state, args.hidden)
    meta = {
        "trainer": "rllib",
        "ray": __import__("ray").__version__,
        "rules": args.rules,
        "seed": args.seed,
        "policies": args.policies,
        "iterations": len(history),
        "env_steps": history[-1]["env_steps_lifetime"] if history else 0,
    }
    save_policy(args.out, policy, meta=meta)
    return args.out


def main(argv: list[str] | None = None) -> int:
    """Train, print one JSON line per iteration, export the policy; the last line is ``policy: PATH``."""
    args = checked_args(argv)
    from spades_env.integrations.rllib import require_rllib  # noqa: PLC0415

    require_rllib()
    import ray  # noqa: PLC0415

    if args.address:
        ray.init(address=args.address)
    else:
        cpus = args.num_cpus or args.num_env_runners + 1
        ray.init(num_cpus=cpus, include_dashboard=False, object_store_memory=RAY_OBJECT_STORE_BYTES)
    try:
        algo = build_config(args).build_algo()
        if args.measure_sampling:
            sampled, seconds = measure_sampling(algo, args.measure_sampling)
            algo.stop()
            print(
                f"sampling: {sampled} env steps in {seconds:.1f} s = {sampled / seconds:.0f} env steps/s "
                f"({args.num_env_runners} env runners x {args.envs_per_runner} envs)"
            )
            return 0
        history: list[dict[str, Any]] = []
        started = time.monotonic()
        for iteration in range(1, args.iterations + 1):
            tick = time.monotonic()
            summary = iteration_summary(algo.train())
            summary["iteration_seconds"] = seconds = time.monotonic() - tick
            summary["env_steps_per_s_wall"] = summary["env_steps"] / seconds  # sampling and learning
            history.append(summary)
            print(json.dumps({"iteration": iteration, **summary}), flush=True)
            if args.time_limit_minutes and time.monotonic() - started > 60 * args.time_limit_minutes:
                break
        illegal = illegal_action_count(algo)
        print(f"illegal actions: {illegal}")
        path = export(algo, args, history)
        algo.stop()
    finally:
        ray.shutdown()
    if illegal:
        print(f"error: the env runners saw {illegal} illegal action(s): masking failed")
        return EXIT_ILLEGAL
    print(f"policy: {path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
