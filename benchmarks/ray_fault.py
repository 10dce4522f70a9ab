"""What a lost actor costs the Ray backend: the same run timed twice, once as it is and once with an actor killed.

The trainer's own loop (``training.train.Batches`` and the PPO update, as
``training_throughput.py`` times them) on the Ray backend with ``--workers``
actors, on a local Ray. After ``--warmup`` updates, each update's time (the
wait for the batch, then the update) is recorded. The run is made twice from
the same config and seed, so with the same batches and the same work at each
update (snapshots, pool changes): first as it is (the reference), then with
one actor's process killed with SIGKILL during update ``--kill-at`` (0-based),
a third of a rollout after the next rollout was asked for, from a timer while
the update goes on. That rollout is redone (by
a standby actor with ``--spares 1``, or by the actor once Ray has started it
again with ``--spares 0``). It prints, update by update, the killed run's time
over the reference's, and two sums in units of one rollout (a rollout asked
for and waited for alone, timed in the reference):

* the update that waited for the redone rollout: the issue's measure, at most
  one rollout;
* every update from the kill on: the whole cost, with the start of the actor
  Ray starts again, which on a machine with no free core slows the updates
  beside it; also less the two runs' mean difference per update before the
  kill (a machine whose speed drifts between the runs).

That the redone rollout is the one a run without the kill trains on, decision
for decision, is the tests' part (tests/training/test_ray_workers.py).

    python benchmarks/ray_fault.py [--config C.yaml] [--workers 2] [--spares 1] [--updates 16] [--kill-at 5]
        [--json out.json]
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import signal
import sys
import tempfile
import threading
import time
from pathlib import Path

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from training.config import load_config  # noqa: E402
from training.imitation import set_learning_rate  # noqa: E402
from training.ppo import ppo_update  # noqa: E402
from training.train import Batches, learning_rate, start_run  # noqa: E402


def main() -> None:
    """Time the run, then the same run with one actor killed inside a rollout; print the extra time in rollouts."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--config", default=None, help="the training config (default: the embedded default)")
    parser.add_argument("--workers", type=int, default=2, help="Ray actors (rollout_workers)")
    parser.add_argument("--spares", type=int, default=1, help="standby actors (ray_spares)")
    parser.add_argument("--updates", type=int, default=16, help="updates timed")
    parser.add_argument("--warmup", type=int, default=2, help="updates before the timing")
    parser.add_argument("--kill-at", type=int, default=5, help="the timed update during which an actor is killed")
    parser.add_argument("--json", default=None, help="also write the figures to this JSON file")
    args = parser.parse_args()
    if not 1 <= args.kill_at < args.updates - 1:
        parser.error("--kill-at must be at least 1 and below --updates - 1 (the update after it waits for the redo)")
    from training.ray_workers import init_ray

    torch.set_num_threads(1)
    config = dataclasses.replace(
        load_config(args.config), rollout_workers=args.workers, rollout_backend="ray", ray_spares=args.spares
    ).validate()
    init_ray(num_cpus=max(os.cpu_count() or 1, args.workers))
    rollout_s, reference, _, _ = timed_run(config, args, kill=False)
    _, times, restarts, inside = timed_run(config, args, kill=True)
    over = [t - r for t, r in zip(times, reference)]
    extra, total = over[args.kill_at + 1], sum(over[args.kill_at :])
    offset = sum(over[: args.kill_at]) / args.kill_at  # how far apart the two runs were before the kill
    corrected = total - offset * (len(times) - args.kill_at)
    out = {
        "workers": args.workers,
        "spares": args.spares,
        "rollout_s": rollout_s,
        "reference_update_s": reference,
        "update_s": times,
        "killed_at": args.kill_at,
        "killed_inside_the_rollout": inside,
        "restarts": restarts,
        "extra_s": extra,
        "extra_in_rollouts": extra / rollout_s,
        "total_extra_s": total,
        "total_extra_in_rollouts": total / rollout_s,
        "noise_before_the_kill_s": sum(abs(o) for o in over[: args.kill_at]) / args.kill_at,
        "offset_before_the_kill_s": offset,
        "total_extra_less_offset_s": corrected,
        "total_extra_less_offset_in_rollouts": corrected / rollout_s,
    }
    print(f"a rollout alone: {rollout_s:.2f} s; updates over the reference: {', '.join(f'{o:+.2f}' for o in over)} s")
    print(
        f"the update that waited for the redo: {extra:+.2f} s = {extra / rollout_s:.2f} rollouts; every update from "
        f"the kill on ({len(times) - args.kill_at}): {total:+.2f} s = {total / rollout_s:.2f} rollouts ({restarts} "
        f"actor death(s) survived, {args.spares} standby; killed {'inside' if inside else 'after'} the rollout; "
        f"before the kill the two runs differed by {out['noise_before_the_kill_s']:.2f} s an update)"
    )
    print(
        f"every update from the kill on, less the runs' mean difference before it ({offset:+.2f} s an update): "
        f"{corrected:+.2f} s = {corrected / rollout_s:.2f} rollouts"
    )
    if args.json:
        Path(args.json).write_text(json.dumps(out, indent=1))


def timed_run(config, args, kill: bool) -> tuple[float, list[float], int, bool | None]:
    """One run in a folder of its own: (a rollout alone, each timed update's seconds, the actor deaths survived,
    whether the kill landed inside the rollout); with ``kill``, one actor is killed during update ``--kill-at``."""
    import ray

    with tempfile.TemporaryDirectory() as tmp:
        run = start_run(config, Path(tmp) / "run", resume=False)
        run.rollout.start(0, run.rng)
        source = Batches(run)
        actors = source.worker
        try:
            for _ in range(args.warmup):
                update(run, source.next()[0])
            source.inflight()  # the rollout in flight done: a rollout alone is timed next
            source.next()  # takes it, asks for the next one with the same weights
            t0 = time.perf_counter()
            source.inflight()
            rollout_s = time.perf_counter() - t0
            worker = actors.workers[-1]
            victim = ray.get(worker.actor.pid.remote())  # asked now: the actor answers between rollouts only
            times, inside = [], []

            def kill_inside() -> None:
                inside.append(not ray.wait([worker.waiting], timeout=0)[0])  # its answer not there yet
                os.kill(victim, signal.SIGKILL)

            for step in range(args.updates):
                t0 = time.perf_counter()
                batch, _ = source.next()  # waits for its batch, asks for the next
                killer = None
                if kill and step == args.kill_at:  # a third into the rollout just asked for, the update going on
                    killer = threading.Timer(rollout_s / 3, kill_inside)
                    killer.start()
                update(run, batch)
                times.append(time.perf_counter() - t0)
                if killer is not None:
                    killer.join()  # done long before (a third of a rollout, against an update): not timed
        finally:
            source.close()
    return rollout_s, times, actors.restarts, (inside[0] if inside else None)


def update(run, batch) -> None:
    """One PPO update on ``batch`` (as the trainer does it, at the first learning rate)."""
    learner = run.learner
    set_learning_rate(learner.optimizer, learning_rate(run.config, 0))
    if batch is not None:
        ppo_update(
            learner.policy, learner.critic, learner.optimizer, learner.params, batch, run.config, run.rng, run.device
        )


if __name__ == "__main__":
    main()
