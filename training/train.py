"""Masked PPO self-play for Spades on the batch engine (reads top to bottom, CleanRL style).

    python -m training.train                                   # embedded default config (< 15 min on 2 cores)
    python -m training.train --config configs/train/release.yaml
    python -m training.train --config configs/train/release.yaml --resume
    python -m training.train --total-decisions 200000 --num-envs 128   # any field can be overridden

1. Configure: the embedded default (``training.config.TrainConfig``), a YAML
   file, then command-line overrides. The run folder's name is reproducible
   (``<exp_name>-<rules>-seed<seed>``). Everything is checked (every field's
   type and range, the rules, the evaluation opponents built as the
   evaluations build them, the teachers loaded, the device by a tiny tensor made and read back
   there, at most as many rollout workers as the machine has cores, tables
   that fit in the memory (the batch engine's bound), the
   folder, its lock, a checkpoint to resume and its fit with the config)
   before anything is written: a refusal is one line, exit status 2; then the
   run takes the folder's lock (one writer at a time, :mod:`training.run_dir`)
   and saves the resolved config as ``config.yaml``.
2. One policy network plays every seat (observations are relative to the seat);
   illegal actions are masked out of the logits. The critic sees the
   full-information state (``critic_input: state``) or the observation.
3. Warm start (optional): imitate the heuristic (:mod:`training.imitation`),
   or load the weights of an earlier policy file or checkpoint
   (``init_from``). With ``prior_weight`` > 0 the policy is residual over the
   heuristic (see :mod:`spades_env.nn`).
4. Each update: collect a rollout of ``rollout_steps`` steps on ``num_envs``
   tables (:mod:`training.rollout`: self-play, heuristic and snapshot tables).
   Partners share the reward (:func:`spades_env.rewards.training_rewards`:
   the hand's points for the side minus the opponents', scaled, with bags
   charged at ``bag_cost`` when taken). A hand is one episode for credit
   assignment; decisions of unfinished hands wait for the next update. The
   critic values the finished decisions in one batched pass; then PPO epochs
   over them (:mod:`training.ppo`), the networks' first layers fed only the
   active features (``sparse_input``, see :mod:`spades_env.nn`). With
   ``rollout_workers`` the tables live in other processes that collect the
   next rollout during the update (one update of policy lag; the critic's
   pass stays in this process; the first worker also collects half of the
   imitation data): one worker keeps both of 2 cores busy, more split the
   tables among them for more cores (:mod:`training.pipeline`). With an
   ``expert`` (learning from search, :mod:`training.expert`), a search agent
   in the rollout gives its action as a target for a sample of the learner's
   decisions, and the update adds the policy's cross-entropy at them. With
   ``teachers`` (policy distillation, :mod:`training.teachers`), each
   preset's teacher gives its probabilities and the update adds the policy's
   KL divergence from them.
5. Metrics go to ``metrics.csv`` (and TensorBoard when installed), a learning
   curve to ``learning_curve.png``; duplicate evaluations against the
   ``eval_opponents`` run every ``eval_every`` updates; checkpoints are written
   atomically every ``checkpoint_every`` updates (:mod:`training.checkpoint`);
   ``--resume`` continues from the last one exactly as if never stopped.
6. At the end: the policy file ``<run>/policy.pt`` (loadable with
   ``spades_env.make_agent("ppo", path=...)``) and a final evaluation, one line
   per opponent: games won (to the target), points per deal with bags charged
   at their game cost (the headline, with its 95% interval), plain points per
   deal (secondary).
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import torch
from tqdm import tqdm

from spades_env.cli_args import max_workers
from spades_env.config_io import load_rules, one_line
from spades_env.core.rules import Rules, quoted
from spades_env.nn import save_policy
from spades_env.nn.policy_file import MAX_REASON_CHARS
from training.checkpoint import CHECKPOINT_FORMAT, init_weights, load_checkpoint, restore_random_state, save_checkpoint
from training.config import TrainConfig, add_arguments, dump, from_mapping, load_config, overrides, teacher_problem
from training.imitation import imitate, set_learning_rate
from training.learner import Learner, build_learner
from training.metrics import METRIC_FIELDS, MetricsLog, eval_label, plot_learning_curve
from training.mixture import table_presets
from training.pipeline import RolloutWorker, RolloutWorkers, WorkerState, fresh_worker_states, weights
from training.ppo import explained_variance, normalize_by_group, ppo_update
from training.ray_workers import RayCluster, RayClusterError, RayRolloutWorkers, ray_module
from training.rollout import add_rewards, finish_batch
from training.run_dir import CHECKPOINT, RunLock, check_folder, clear_folder
from training.tables import Tables, make_tables

__all__ = ["CHECKPOINT_FORMAT", "METRIC_FIELDS", "TrainConfig", "main", "train"]


@dataclass
class Run:
    """One training run's state: config, folder, learner, tables, pool, counters and the training generator."""

    config: TrainConfig
    folder: Path
    device: torch.device
    rules: Rules
    learner: Learner
    rng: np.random.Generator
    rollout: Tables
    pool: list
    counters: dict[str, Any]
    resumed: bool = False
    worker: dict | None = None  # with rollout workers: the checkpoint's in-flight request (training.pipeline)
    source: Any = None  # where PPO's batches come from while it runs (Batches)


def configure(argv: list[str] | None = None) -> tuple[TrainConfig, argparse.Namespace]:
    """Config from the embedded default, ``--config`` and per-field overrides; the run-folder flags."""
    parser = argparse.ArgumentParser(description="Masked PPO self-play for Spades.")
    parser.add_argument("--config", default=None, help="YAML file overriding the embedded default config")
    parser.add_argument("--resume", action="store_true", help="continue the run from its last checkpoint")
    parser.add_argument("--overwrite", action="store_true", help="delete an existing run folder of the same name")
    parser.add_argument("--no-final-eval", action="store_true", help="skip the final evaluation")
    add_arguments(parser)
    args = parser.parse_args(argv)
    try:
        config = from_mapping(overrides(args), base=load_config(args.config))
        check_run(config)
    except ValueError as exc:  # an unreadable, oversized or invalid config, or a bad override: named, one line
        parser.error(str(exc))
    return config, args


def check_run(config: TrainConfig) -> None:
    """What a valid config still needs on this machine (ValueError naming it): a usable device, teachers that load,
    no more rollout workers than cores, tables that fit in the memory."""
    device = usable_device(config.device)
    problem = teacher_problem(config)
    if problem:
        raise ValueError(f"train config 'teachers': {problem}")
    check_workers(config)
    check_table_memory(config, device)
    if config.rollout_backend == "ray":
        ray_module()  # installed (the cluster itself is joined when the run starts: training.train.train)


def usable_device(name: str) -> torch.device:
    """The torch device ``name``, once a tiny tensor was made, computed with and read back there (ValueError naming
    it otherwise: an unknown name, CUDA missing, ``meta`` that holds no data)."""
    try:
        device = torch.device(name)
        probe = torch.ones(2, device=device)
        (probe + probe).sum().item()
    except Exception as exc:  # torch says "no" with RuntimeError, AssertionError, NotImplementedError, ImportError...
        first = str(exc).strip().split("\n")[0].split(". ")[0]  # torch's first sentence; the rest is advice for builds
        reason = f"{type(exc).__name__}: {one_line(first, MAX_REASON_CHARS)}"
        raise ValueError(
            f"train config 'device': {quoted(name)} cannot be used ({reason}); use cpu, or cuda on a machine with CUDA"
        ) from None
    return device


def check_workers(config: TrainConfig) -> None:
    """Refuse (ValueError) more rollout workers than this machine's cores: the cap of the tools' worker processes
    (:func:`spades_env.cli_args.max_workers`). Not capped silently, as the evaluation's workers are: the workers
    split the tables, so their number shapes the run. Ray actors (``rollout_backend: ray``) may be on other machines:
    the cluster's CPUs are checked when it is joined (:class:`training.ray_workers.RayCluster`)."""
    if config.rollout_backend == "ray":
        return
    cap = max_workers()
    if config.rollout_workers > cap:
        raise ValueError(
            f"train config 'rollout_workers': {config.rollout_workers} worker processes are more than this machine's "
            f"{cap} cores (os.cpu_count(), the cap of every tool's worker processes, spades-evaluate's included)"
        )


def check_table_memory(config: TrainConfig, device: torch.device) -> None:
    """Refuse (ValueError) ``num_envs`` tables that do not fit in the memory where they would live: the batch
    engine's own bound (:func:`spades_env.batch.arguments.check_memory`), checked before the run folder is made."""
    from spades_env.batch.arguments import check_memory

    try:
        check_memory(config.num_envs, backend=config.backend, device=device)
    except MemoryError as exc:
        raise ValueError(f"train config 'num_envs': {exc}") from None


def device_of(config: TrainConfig) -> torch.device:
    """The torch device (and CPU threads) the config asks for; ValueError when it cannot be used (see configure)."""
    torch.set_num_threads(config.threads)
    return usable_device(config.device)


def start_run(config: TrainConfig, folder: Path, resume: bool) -> Run:
    """Seeded networks and tables, resumed from the checkpoint or fresh (init_from); writes nothing."""
    device = device_of(config)
    torch.manual_seed(config.seed)
    rng = np.random.default_rng(config.seed)
    rules = load_rules(config.rules)
    learner = build_learner(config, device)
    counters = {
        "update": 0,
        "learner_decisions": 0,
        "env_decisions": 0,
        "seconds": 0.0,
        "bc_done": False,
        "bc_seconds": 0.0,
        "bc_decisions": 0,
    }
    if resume:
        saved = load_checkpoint(folder / CHECKPOINT, config, learner)
        restore_random_state(saved)
        counters.update(saved.counters)
        print(f"resumed at update {counters['update']} ({counters['learner_decisions']:,} learner decisions)")
        return Run(
            config, folder, device, rules, learner, saved.rng, saved.rollout, saved.pool, counters, True, saved.worker
        )
    if config.init_from:
        init_weights(config.init_from, learner.policy, learner.critic)
        counters["bc_done"] = True  # the loaded weights replace the imitation
        print(f"initial weights from {config.init_from}")
    return Run(config, folder, device, rules, learner, rng, make_tables(config, rules, rng, device), [], counters)


def rollout_workers(config: TrainConfig, states: list[WorkerState], device: torch.device) -> RolloutWorkers:
    """The run's rollout workers on its ``rollout_backend``: processes here, or Ray actors
    (:class:`training.ray_workers.RayRolloutWorkers`, the same interface)."""
    if config.rollout_backend == "ray":
        return RayRolloutWorkers(config, states, device)
    return RolloutWorkers(config, states, device)


def imitation_worker(config: TrainConfig, device: torch.device) -> Any:
    """The worker that collects half of the imitation's decisions (``imitation_data(rollout, decisions)``,
    ``close()``): a process, or one Ray actor on the Ray backend."""
    if config.rollout_backend == "ray":
        return RayRolloutWorkers(dataclasses.replace(config, rollout_workers=1), None, device, spares=0)
    return RolloutWorker(config, None, device)


def warm_start(run: Run) -> None:
    """Imitate the heuristic unless told not to (or already started from weights), deal the PPO tables, checkpoint."""
    config, learner = run.config, run.learner
    if config.bc_decisions > 0 and not run.counters["bc_done"]:
        worker = imitation_worker(config, run.device) if config.rollout_workers else None  # collects half
        try:
            result = imitate(
                run.rollout.host_tables(run.rng),  # the heuristic plays on the numpy engine's tables
                learner.policy,
                learner.critic,
                learner.optimizer,
                learner.params,
                config,
                run.rng,
                run.device,
                worker,
            )
        finally:
            if worker is not None:
                worker.close()
        run.counters.update(bc_done=True, bc_decisions=result["bc_decisions"], bc_seconds=result["bc_seconds"])
    run.rollout.start(len(run.pool), run.rng)
    checkpoint(run)  # a resumed run neither imitates again nor deals other tables


def checkpoint(run: Run) -> None:
    """Save the run's whole state (see :mod:`training.checkpoint`; with a rollout worker, its in-flight request)."""
    worker = run.source.inflight() if run.source is not None else run.worker
    save_checkpoint(
        run.folder / CHECKPOINT, run.config, run.learner, run.pool, run.counters, run.rollout, run.rng, worker
    )


class Batches:
    """PPO's batches: collected here between updates, or by the rollout workers beside them (``rollout_workers``).

    With workers, :meth:`next` returns the batch asked for at the previous
    call (the first call asks with the current weights, or with the weights of
    the checkpoint's request on a resume) and asks for the next one with the
    current weights, so that it is collected during the update; the workers run no critic, so the batch they return
    is valued here, with the current critic (:func:`training.rollout.finish_batch`).
    """

    def __init__(self, run: Run):
        self.run, self.worker = run, None
        if run.config.rollout_workers:
            saved = run.worker or {
                "states": fresh_worker_states(run.config, run.rules, run.rollout, len(run.pool)),
                "policy": None,
            }
            self.worker = rollout_workers(run.config, saved["states"], run.device)
            if saved["policy"] is not None:  # the request in flight at the checkpoint, asked again
                self.worker.submit(saved["policy"], run.pool)

    def next(self) -> tuple[dict[str, np.ndarray] | None, dict[str, list[float]]]:
        """The next batch of finished decisions (None if none finished) and seat 0's hand rewards by preset."""
        run, learner = self.run, self.run.learner
        if self.worker is None:
            return run.rollout.collect_batch(learner, run.pool, run.rng, run.device)
        current = weights(learner.policy)
        if not self.worker.pending:
            self.worker.submit(current, run.pool)
        decisions, rewards = self.worker.result()
        self.worker.submit(current, run.pool)
        return finish_batch(decisions, learner.critic, run.config, run.device), rewards

    def inflight(self) -> dict[str, Any] | None:
        """The workers' in-flight request for a checkpoint (None without workers)."""
        return self.worker.inflight() if self.worker is not None else None

    def close(self) -> None:
        """Stop the workers, if any."""
        if self.worker is not None:
            self.worker.close()


def learning_rate(config: TrainConfig, learner_decisions: int) -> float:
    """PPO's learning rate: annealed linearly to 0 over ``total_decisions`` (or constant)."""
    frac = 1.0 - learner_decisions / config.total_decisions
    return config.learning_rate * (frac if config.anneal_lr else 1.0)


def stop_reason(run: Run, run_start: float) -> str | None:
    """Why PPO stops before ``total_decisions`` (time or update limit), or None."""
    config = run.config
    if config.time_limit_minutes and time.time() - run_start > 60 * config.time_limit_minutes:
        return f"time limit of {config.time_limit_minutes} minutes reached"
    if config.max_updates and run.counters["update"] >= config.max_updates:
        return f"update limit of {config.max_updates} reached"
    return None


def update(
    run: Run, batch: dict[str, np.ndarray], lr: float, hand_rewards: dict[str, list[float]], t_start: float
) -> dict:
    """PPO on one batch; advance the counters and the snapshot pool; return the update's metrics row."""
    config, learner, counters = run.config, run.learner, run.counters
    if config.advantage_norm == "preset" and config.mixture:
        batch = {
            **batch,
            "advantage": normalize_by_group(host(batch["advantage"]), table_presets(config)[host(batch["table"])]),
        }
    stats = ppo_update(
        learner.policy, learner.critic, learner.optimizer, learner.params, batch, config, run.rng, run.device
    )
    # of the values the advantages were made with (the batch's, as CleanRL and SB3 report it): no second critic pass
    explained = explained_variance(host(batch["value"]), host(batch["return"]))
    counters["update"] += 1
    counters["learner_decisions"] += len(batch["action"])
    counters["seconds"] += time.time() - t_start  # the rollout and the update
    if counters["update"] % config.snapshot_every == 0:
        run.pool.append({k: v.detach().cpu().clone() for k, v in learner.policy.state_dict().items()})
        run.pool = run.pool[-config.pool_size :]
    return {
        "update": counters["update"],
        "learner_decisions": counters["learner_decisions"],
        "env_decisions": counters["env_decisions"],
        "seconds": round(counters["seconds"], 1),
        "decisions_per_second": round(counters["env_decisions"] / max(counters["seconds"], 1e-9)),
        "learning_rate": lr,
        "explained_variance": explained,
        "mean_hand_reward": mean_or_nan([r for values in hand_rewards.values() for r in values]),
        **(
            {f"mean_hand_reward_{name}": mean_or_nan(values) for name, values in hand_rewards.items()}
            if config.mixture
            else {}
        ),
        **stats,
    }


def host(values: Any) -> np.ndarray:
    """An array of the batch (numpy, or a tensor of the torch engine's batch) as numpy."""
    return values.cpu().numpy() if isinstance(values, torch.Tensor) else values


def mean_or_nan(values: list[float]) -> float:
    """The mean, or NaN for no values (no hand ended)."""
    return float(np.mean(values)) if values else float("nan")


def evaluate(run: Run, deals: int, games: int, tag: str) -> dict[str, Any]:
    """Duplicate evaluation of the current policy against each of ``eval_opponents`` (printed and returned)."""
    from spades_env.evaluation import EvalConfig
    from spades_env.evaluation import evaluate as run_evaluation

    config, policy_path = run.config, run.folder / "policy.pt"
    save_policy(policy_path, run.learner.policy, meta={"config": config.to_dict(), "update": run.counters["update"]})
    by_preset: dict[str, dict[str, Any]] = {}
    # Loading the policy to play builds a network, which draws from torch's global generator: the training's
    # draws must not depend on when (or whether) evaluations run.
    with torch.random.fork_rng(devices=[]):
        for rules in config.presets:
            out = by_preset.setdefault(rules, {})
            for opponent in config.eval_opponents:
                # training's own seed stream: never the deals of an evaluation run with the tool (issue 30, item 29)
                report = run_evaluation(
                    EvalConfig(
                        str(policy_path),
                        opponent,
                        rules=rules,
                        deals=deals,
                        games=games,
                        seed=config.seed,
                        workers=config.eval_workers,
                        progress=False,
                        seed_stream="training",
                    )
                )
                out[opponent] = report
                where = f" ({rules})" if config.mixture else ""
                print(f"[{tag}] ppo vs {opponent}{where}: " + evaluation_line(report))
    # one preset: {opponent: report}, as before mixtures; a mixture: {preset: {opponent: report}}
    return by_preset if config.mixture else by_preset[config.rules]


def evaluation_line(report: dict[str, Any]) -> str:
    """The headline figures of one evaluation: games won (to the target), bag-adjusted and plain points per deal."""
    parts = []
    if "games" in report:
        win = report["games"]["a_win_rate"]
        parts.append(
            f"games won {win['rate']:.1%} (95% CI {win['low']:.1%} .. {win['high']:.1%}, "
            f"{report['games']['n_games']} games)"
        )
    if "deals" in report:
        adj, ppd = report["deals"]["bag_adjusted_diff"], report["deals"]["points_diff"]
        parts.append(
            f"bag-adjusted points/deal {adj['mean']:+.1f} (95% CI {adj['low']:+.1f} .. {adj['high']:+.1f}, "
            f"{report['deals']['n']} deals); plain points/deal {ppd['mean']:+.1f}"
        )
    return "; ".join(parts)


def eval_columns(result: dict[str, Any], mixture: bool = False) -> dict[str, float]:
    """The metrics columns of an evaluation: bag-adjusted points per deal and its interval per opponent (per preset
    and opponent for a ``mixture``: ``result`` is then ``{preset: {opponent: report}}``)."""
    reports = (
        {f"{preset}_{eval_label(o)}": r for preset, by in result.items() for o, r in by.items()}
        if mixture
        else {eval_label(o): r for o, r in result.items()}
    )
    row = {}
    for label, report in reports.items():
        adj = report["deals"]["bag_adjusted_diff"]
        row.update(
            {f"eval_{label}_ppd": adj["mean"], f"eval_{label}_low": adj["low"], f"eval_{label}_high": adj["high"]}
        )
    return row


def ppo(run: Run, metrics: MetricsLog) -> None:
    """Rollouts and PPO updates until ``total_decisions`` (or a time or update limit), with evaluations and checkpoints."""
    config, learner, counters = run.config, run.learner, run.counters
    target = config.total_decisions
    bar = tqdm(
        total=target,
        initial=min(counters["learner_decisions"], target),
        desc="ppo",
        unit="dec",
        disable=not config.progress,
    )
    hand_rewards: dict[str, list[float]] = {}
    margin: dict[str, str] = {}  # the last evaluation's points per deal against the first opponent, on the bar
    run_start = time.time() - counters["seconds"] - counters["bc_seconds"]  # the limit covers resumed runs too
    run.source = Batches(run)
    try:
        while counters["learner_decisions"] < target:
            reason = stop_reason(run, run_start)
            if reason:
                print(reason)
                break
            t_start = time.time()
            lr = learning_rate(config, counters["learner_decisions"])
            set_learning_rate(learner.optimizer, lr)
            batch, rewards = run.source.next()
            counters["env_decisions"] += config.num_envs * config.rollout_steps
            add_rewards(hand_rewards, rewards)
            if batch is None:
                continue
            row = update(run, batch, lr, hand_rewards, t_start)
            hand_rewards.clear()
            bar.update(len(batch["action"]))
            if config.eval_every and counters["update"] % config.eval_every == 0:
                result = evaluate(run, config.eval_deals, 0, f"update {counters['update']}")
                columns = eval_columns(result, bool(config.mixture))
                row.update(columns)
                first = next((key for key in columns if key.endswith("_ppd")), None)  # None: no eval_opponents
                if first is not None:
                    margin = {first.removeprefix("eval_").removesuffix("_ppd"): f"{columns[first]:+.1f}"}
            metrics.write(row)
            bar.set_postfix(
                dps=row["decisions_per_second"],
                ent=f"{row['entropy']:.2f}",
                r=f"{row['mean_hand_reward']:.3f}",
                **margin,
            )
            if counters["update"] % config.checkpoint_every == 0:
                checkpoint(run)
        bar.close()
        checkpoint(run)
    finally:
        run.source.close()
        run.source = None


def finish(run: Run, final_eval: bool) -> dict[str, Any]:
    """Write the policy file, the learning curve and the summary (with the final evaluation); return the summary."""
    config, counters, folder = run.config, run.counters, run.folder
    seconds = max(counters["seconds"], 1e-9)
    learner_dps, dps = counters["learner_decisions"] / seconds, counters["env_decisions"] / seconds
    print(
        f"training: {counters['learner_decisions']:,} learner decisions, {counters['env_decisions']:,} table decisions "
        f"in {counters['seconds']:.0f} s of PPO ({learner_dps:,.0f} learner and {dps:,.0f} table decisions/s, "
        "rollouts and updates included) "
        f"after {counters['bc_seconds']:.0f} s of imitation"
    )
    save_policy(
        folder / "policy.pt",
        run.learner.policy,
        meta={
            "config": config.to_dict(),
            "update": counters["update"],
            "learner_decisions": counters["learner_decisions"],
            "seconds": round(counters["seconds"], 1),
        },
    )
    plot_learning_curve(folder / "metrics.csv", folder / "learning_curve.png")
    summary: dict[str, Any] = {"run_dir": str(folder), "counters": counters}
    if final_eval and (config.final_eval_deals or config.final_eval_games):
        summary["evaluation"] = evaluate(run, config.final_eval_deals, config.final_eval_games, "final")
    (folder / "summary.json").write_text(json.dumps(summary, indent=1, default=str))
    print(f"policy: {folder / 'policy.pt'}")
    return summary


def train(argv: list[str] | None = None) -> dict[str, Any]:
    """Train, then evaluate; return the run's summary (also written to ``<run>/summary.json``)."""
    config, cli = configure(argv)
    folder = Path(config.runs_dir) / config.run_name
    check_folder(folder, resume=cli.resume, overwrite=cli.overwrite)  # refuses before anything is written
    with ray_cluster(config):  # joined (or refused: RayClusterError) before anything is written
        return _train(config, cli, folder)


@contextmanager
def ray_cluster(config: TrainConfig) -> Iterator[None]:
    """The run's Ray with ``rollout_backend: ray`` (joined, or started for the run and stopped after it; its CPUs
    checked: RayClusterError naming the config key); nothing otherwise."""
    if config.rollout_backend != "ray":
        yield
        return

    cluster = RayCluster(config.ray_address, config.rollout_workers, config.threads)
    try:
        yield
    finally:
        cluster.close()


def _train(config: TrainConfig, cli: argparse.Namespace, folder: Path) -> dict[str, Any]:
    run = start_run(config, folder, resume=cli.resume)
    with RunLock(folder):
        if cli.overwrite and not cli.resume:
            clear_folder(folder)
        (folder / "config.yaml").write_text(dump(config))
        print(f"run folder: {folder}")
        metrics = MetricsLog(
            folder,
            resumed=run.counters if run.resumed else None,
            eval_opponents=config.eval_opponents,
            mixture=list(config.presets) if config.mixture else (),
            expert=config.expert != "none",
            teachers=bool(config.teachers),
        )
        try:
            if not run.resumed:
                warm_start(run)
            ppo(run, metrics)
        finally:
            metrics.close()
        return finish(run, final_eval=not cli.no_final_eval)


def main(argv: list[str] | None = None) -> int:
    """Console entry point (``spades-train``)."""
    from spades_env.nn import CheckpointError, SaveError

    try:
        train(argv)
    except SaveError as exc:  # a full disk: say so; the last checkpoint is whole, --resume continues from it
        print(f"spades-train: {exc}", file=sys.stderr)
        return 1
    except CheckpointError as exc:  # init_from or --resume's checkpoint refused, before anything is written
        print(f"spades-train: error: {exc}", file=sys.stderr)
        return 2
    except RayClusterError as exc:  # the Ray cluster asked for cannot be had, before anything is written
        print(f"spades-train: error: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
