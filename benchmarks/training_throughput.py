"""Learner decisions per second of PPO training (rollouts and updates included): the old configuration against the new.

The configurations run in the same process, alternating, for ``--updates``
PPO updates each per round (``--rounds`` rounds), from fresh networks with the
snapshot pool filled (so that snapshot tables play snapshots), without
imitation, evaluation or checkpoints. A learner decision is a decision the
update trains on (the policy's own seats); the time counted is the rollout
(tables, opponents, inference, trajectory bookkeeping; with the rollout worker,
the wait for its batch) plus the PPO update.

* ``old``: the configuration before the speed-ups (dense first layers,
  30% self-play and 50% heuristic tables, 3 epochs of 2,048-decision
  minibatches, 256 tables x 64 steps, hidden 256x256 for the policy and for
  the critic, which reads the full state, rollouts in this process);
* ``new``: the embedded default config (``training.config.TrainConfig``), or
  the YAML file given with ``--config``;
* ``new_in_process``: ``new`` with its rollouts in this process, when ``new``
  has rollout workers (``rollout_workers``): the workers' own share;
* ``new_workers_N``: ``new`` with N rollout workers, for each N of
  ``--rollout-workers`` (the tables split among them; for machines with more cores);
* ``new_ray_N``: ``new`` with N rollout workers as Ray actors (``rollout_backend: ray``), for each N of
  ``--ray-workers``, beside its process counterpart (``new`` or ``new_workers_N``): the ratio of the two is
  the Ray backend's cost. The benchmark starts one local Ray for them all, with as many logical CPUs as
  their actors together (one configuration runs at a time);
* ``new_torch``: with ``--backend torch``, ``new`` on the torch batch engine on ``--device``
  (``backend: torch``: the tables, the rollout and GAE on the device, collected in this process);
* ``new_without_card_scorer``: ``new`` with a plain MLP policy (``card_scorer: 0``),
  when ``new`` has the card-centred scorer: the network the speed-ups were made
  for; the scorer makes every decision dearer (and the imitation far closer).

    python benchmarks/training_throughput.py [--updates 6] [--rounds 2] [--clock wall|cpu] [--config new.yaml]
        [--rollout-workers 2,4] [--ray-workers 1,2] [--backend numpy|torch] [--device cpu|cuda] [--json out.json]

It prints each configuration's learner decisions/s with the time split
between rollouts and updates, and the ratios to ``old`` over the summed
rounds. The rollout worker's time is not this process's: a configuration with
it needs ``--clock wall`` (on a machine with nothing else running).

Measured 2026-12-03 on a 2-vCPU Intel Xeon machine (nothing else running), once the
default had the card-centred scorer (``card_scorer: 64``), with ``--updates 4
--rounds 2 --clock wall``: old 3,699, new in process 4,875, new without the card
scorer 11,564 (**3.13x**), new 7,363 learner decisions/s (**1.99x**): the scorer's
per-card features and shared network make each decision dearer (updates 13.3 s
against 9.2 s for the same decisions), and its imitation far closer (docs/training.md).

Measured again later that day, after the card scorer's features were made once per
batch (same command, nothing else running): old 4,145, new in process 4,258, new
without the card scorer 9,484 (2.29x), new 7,121 (**1.72x**); the scorer-less path,
which that change leaves alone, measured lower than in the run above, so the machine
was slower then and the two runs' ratios do not compare (docs/training.md).

Measured 2026-12-03, later, on a 2-vCPU AMD EPYC machine (AVX2, no AMX: the first layers' weight gradient
is float32 there), nothing else running, ``--updates 4 --rounds 2 --clock wall``. Before the changes of
that evening: old 2,889, new without the card scorer 8,567 (2.97x), new 5,964 (**2.06x**). After them
(the scorer scores the legal cards of decisions with a choice only; snapshot scorers stacked; the
rollout's card features kept for the update; the weight gradient as a feature-major CSR product;
the policy's update pass on decisions with a choice only), three runs: old 4,047 / 4,624 / 3,868,
new without the scorer 13,614 / 15,289 / 12,023 (3.36x / 3.31x / 3.11x), new 11,199 / 12,870 /
10,005 (**2.77x / 2.78x / 2.59x**); with ``--updates 6 --rounds 3``: old 4,492, without the scorer
12,325 (2.74x), new 11,046 (**2.46x**). The machine's speed drifted by half between runs (old
2,889 to 4,624), so only ratios within a run compare (docs/training.md).

Measured the night of 2026-12-03 (the AMD EPYC machine, nothing else running), once the default critic read
the position (``critic_input: position``, the state without the history of play) with ``critic_hidden: [256,
128]``, the worker ran no critic and the snapshot tables' card features came from the learner's pass: final code,
``--updates 6 --rounds 3``, twice: old 4,671 / 4,501, new without the scorer 17,868 / 16,515 (3.83x / 3.67x), new
14,984 / 15,393 (**3.21x / 3.42x**); ``--updates 4
--rounds 2``, twice: old 4,634 / 4,494, new 14,377 / 16,707 (**3.10x / 3.72x**). The same code before its last
small change (the first layers' bias added in place) gave 2.80x-3.65x in four runs (docs/training.md).

Measured earlier on 2026-12-03 (the Xeon machine, nothing else running), after
the bf16 first-layer weight gradient (``weight_grad: auto``, AMX), the numpy
sparse rows and the heuristic's batched decoding, with ``--updates 6 --rounds 3
--clock wall``, two runs: old 3,858 and 3,704, new in process 6,810 and 7,022,
new with the rollout worker 11,484 and 11,426 learner decisions/s, **2.98x and
3.08x** (3.19x and 3.17x the issue's 3,600).

Measured earlier that day, before those changes, with
``--updates 4 --rounds 2 --clock wall``, three runs: old 3,626, 3,208 and
3,960, new in process 5,455, 5,420 and 6,504 (1.50x, 1.69x and 1.64x), new
with the rollout worker 9,756, 8,777 and 10,229 learner decisions/s, **2.69x,
2.74x and 2.58x**.

Measured 2026-12-01 on a shared 2-core AMD EPYC machine (load 3.2 to 4.2) with
``--updates 4 --rounds 2 --clock cpu``, before the rollout worker, two runs
each, alternately: old 6,151 and 6,525, new 14,569 and 14,970 learner
decisions/s, 2.37x and 2.29x; the code before the sparse trajectory store and
the cheaper sampling (main at ``1e8e067``): 1.47x and 1.55x.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import sys
import tempfile
from pathlib import Path
from typing import Any

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from aec_throughput import CLOCKS  # noqa: E402

from training.config import TrainConfig, from_mapping, load_config  # noqa: E402
from training.imitation import set_learning_rate  # noqa: E402
from training.ppo import ppo_update  # noqa: E402
from training.train import Batches, learning_rate, start_run  # noqa: E402

OLD = {
    "sparse_input": False,
    "selfplay_fraction": 0.3,
    "heuristic_fraction": 0.5,
    "random_fraction": 0.0,
    "update_epochs": 3,
    "minibatch_size": 2048,
    "num_envs": 256,
    "rollout_steps": 64,
    "hidden": [256, 256],
    "critic_hidden": [256, 256],
    "critic_input": "state",
    "rollout_workers": 0,
    "card_scorer": 0,
}
WARMUP_UPDATES = 1  # the first update of each configuration (tables all at a hand's start) is not timed
# and, in every round, the first update of each configuration: a rollout worker's batch in flight was collected
# before that round (see Trainer.settle), and is not counted


class Trainer:
    """One configuration's run state, stepped one update at a time with its rollout and update timed apart."""

    def __init__(self, name: str, config: TrainConfig, folder: str):
        self.name, self.config = name, config
        self.run = start_run(config, Path(folder), resume=False)
        state = {k: v.detach().clone() for k, v in self.run.learner.policy.state_dict().items()}
        self.run.pool = [{k: v.clone() for k, v in state.items()} for _ in range(config.pool_size)]
        self.run.rollout.start(len(self.run.pool), self.run.rng)
        self.source = Batches(self.run)  # in this process, or the rollout workers (rollout_workers)
        self.totals = {"decisions": 0, "rollout_s": 0.0, "update_s": 0.0}
        self.steps = 0  # updates, timed or not

    def step(self, clock, timed: bool) -> None:
        """One rollout and PPO update (counted when ``timed``)."""
        run, learner = self.run, self.run.learner
        set_learning_rate(learner.optimizer, learning_rate(self.config, 0))
        t0 = clock()
        self.steps += 1
        batch, _ = self.source.next()
        t1 = clock()
        if batch is not None:
            ppo_update(
                learner.policy,
                learner.critic,
                learner.optimizer,
                learner.params,
                batch,
                self.config,
                run.rng,
                run.device,
            )
        t2 = clock()
        if timed and batch is not None:
            self.totals["decisions"] += len(batch["action"])
            self.totals["rollout_s"] += t1 - t0
            self.totals["update_s"] += t2 - t1

    def settle(self) -> None:
        """Wait for the rollout worker's batch in flight, if any, so that it is not collected beside (and does not
        slow) the next configuration's timed updates."""
        if self.source.worker is not None and self.source.worker.pending:
            self.source.inflight()

    def rate(self) -> float:
        """Learner decisions per second so far."""
        return self.totals["decisions"] / max(self.totals["rollout_s"] + self.totals["update_s"], 1e-9)


def main() -> None:
    """Run the configurations, alternating, and print their rates and the ratios to the old one."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--updates", type=int, default=6, help="timed PPO updates per configuration per round")
    parser.add_argument("--rounds", type=int, default=2, help="rounds, alternating old and new")
    parser.add_argument("--clock", choices=sorted(CLOCKS), default="wall", help="wall-clock or process CPU time")
    parser.add_argument(
        "--config", default=None, help="the new configuration's YAML file (default: the embedded default)"
    )
    parser.add_argument(
        "--rollout-workers",
        default="",
        help="comma-separated worker counts to run as well (new_workers_N: the new configuration with N workers)",
    )
    parser.add_argument(
        "--ray-workers",
        default="",
        help="comma-separated actor counts to run on Ray (new_ray_N, beside the same count of worker processes)",
    )
    parser.add_argument("--device", default=None, help="torch device of every configuration (default: the config's)")
    parser.add_argument(
        "--backend", choices=("numpy", "torch"), default="numpy", help="torch: also run new_torch (backend: torch)"
    )
    parser.add_argument("--json", default=None, help="also write the figures to this JSON file")
    args = parser.parse_args()
    try:
        worker_counts = [int(n) for n in args.rollout_workers.split(",") if n.strip()]
        ray_counts = [int(n) for n in args.ray_workers.split(",") if n.strip()]
    except ValueError:
        parser.error(f"--rollout-workers and --ray-workers take comma-separated counts, got {args.rollout_workers!r}")
    if any(n < 1 for n in ray_counts):
        parser.error(f"--ray-workers counts must be at least 1, got {args.ray_workers!r}")
    if ray_counts:  # each configuration's process counterpart runs too
        worker_counts += [n for n in ray_counts if n not in worker_counts]
        from training.ray_workers import init_ray

        init_ray(num_cpus=max(os.cpu_count() or 1, sum(ray_counts)))
    torch.set_num_threads(1)
    clock = CLOCKS[args.clock]
    new_config = load_config(args.config)
    device = {"device": args.device} if args.device else {}
    new_config = dataclasses.replace(new_config, **device).validate()
    uses_workers = new_config.rollout_workers or any(worker_counts) or ray_counts
    if uses_workers and args.clock == "cpu":  # the workers' time is other processes'
        parser.error(
            "the new configuration collects rollouts in a worker process, whose time the cpu clock (this "
            "process's) does not see: use --clock wall on an otherwise idle machine"
        )
    with tempfile.TemporaryDirectory() as tmp:
        trainers = [Trainer("old", from_mapping({**OLD, **device}), os.path.join(tmp, "old"))]
        if new_config.rollout_workers:
            in_process = dataclasses.replace(new_config, rollout_workers=0)
            trainers.append(Trainer("new_in_process", in_process, os.path.join(tmp, "new_in_process")))
        if new_config.card_scorer:
            plain = dataclasses.replace(new_config, card_scorer=0)
            trainers.append(Trainer("new_without_card_scorer", plain, os.path.join(tmp, "new_without_card_scorer")))
        trainers.append(Trainer("new", new_config, os.path.join(tmp, "new")))
        if args.backend == "torch":
            on_torch = dataclasses.replace(new_config, backend="torch", rollout_workers=0, prior_weight=0.0).validate()
            trainers.append(Trainer("new_torch", on_torch, os.path.join(tmp, "new_torch")))
        for count in worker_counts:
            if count != new_config.rollout_workers:
                more = dataclasses.replace(new_config, rollout_workers=count).validate()
                trainers.append(Trainer(f"new_workers_{count}", more, os.path.join(tmp, f"new_workers_{count}")))
        for count in ray_counts:
            on_ray = dataclasses.replace(new_config, rollout_workers=count, rollout_backend="ray").validate()
            trainers.append(Trainer(f"new_ray_{count}", on_ray, os.path.join(tmp, f"new_ray_{count}")))
        try:
            for trainer in trainers:
                for _ in range(WARMUP_UPDATES):
                    trainer.step(clock, timed=False)
                trainer.settle()
            for _ in range(args.rounds):
                for trainer in trainers:
                    trainer.step(clock, timed=False)
                    for _ in range(args.updates):
                        trainer.step(clock, timed=True)
                    trainer.settle()
        finally:
            for trainer in trainers:
                trainer.source.close()
    out: dict[str, Any] = {"clock": args.clock, "updates": args.updates, "rounds": args.rounds}
    for trainer in trainers:
        t = trainer.totals
        out[trainer.name] = {**t, "decisions_per_second": trainer.rate()}
        traffic = ""
        if trainer.name.startswith("new_ray_"):  # what crossed the object store, per update
            source, steps = trainer.source.worker, trainer.steps
            out[trainer.name]["weights_bytes_per_update"] = source.weights_bytes / steps
            out[trainer.name]["answer_bytes_per_update"] = source.answer_bytes / steps
            traffic = f"; per update {source.weights_bytes / steps / 1e6:.1f} MB of weights out, "
            traffic += f"{source.answer_bytes / steps / 1e6:.1f} MB of decisions back"
        print(
            f"{trainer.name}: {trainer.rate():,.0f} learner decisions/s ({t['decisions']:,} decisions; "
            f"rollouts {t['rollout_s']:.1f} s, updates {t['update_s']:.1f} s{traffic})"
        )
    for trainer in trainers[1:]:
        ratio = out[f"ratio_{trainer.name}"] = trainer.rate() / trainers[0].rate()
        print(f"ratio {trainer.name} / old: {ratio:.2f}")
    out["ratio"] = out["ratio_new"]
    rates = {trainer.name: trainer.rate() for trainer in trainers}
    for count in ray_counts:
        processes = "new" if count == new_config.rollout_workers else f"new_workers_{count}"
        ratio = out[f"ratio_new_ray_{count}_to_processes"] = rates[f"new_ray_{count}"] / rates[processes]
        print(f"ratio new_ray_{count} / {processes} (the same {count} worker(s) as processes): {ratio:.2f}")
    if args.json:
        with open(args.json, "w") as fh:
            json.dump(out, fh, indent=1)


if __name__ == "__main__":
    main()
