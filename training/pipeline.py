"""Rollouts in other processes beside the PPO update (``rollout_workers: N``): every core busy.

A rollout (the tables, the heuristic, network inference; mostly Python) and a
PPO update (mostly matrix products) take about as long as each other, and each
uses one core. With the rollout worker, the tables live in a child process
that collects the next batch while the main process updates on the last one:

    update k trains on batch k, which was collected with the weights of update k - 1

(batch 0 with the first weights). This is one update of policy lag: PPO's
ratio and clip are taken against the policy that chose the actions (the
recorded log-probabilities). The worker does not run the critic: it sends the
finished decisions with their rewards and links, and the main process values
them in one batched pass when the batch arrives (with its critic of update
k - 1, one update fresher than the acting policy), then computes GAE
(:func:`training.rollout.finish_batch`, about 50 ms for 12,400 decisions: a
sixteenth of a rollout, moved to the side that had time to spare). The schedule does not depend on
timing: a run with the worker is reproducible from its seed, and differs from
a run without it only by the lag and by the random streams (the worker draws
opponents and actions from its own generators, seeded from the run's seed).

The worker holds the :class:`~training.rollout.Rollout` with its generators.
At each request it pickles them first (the state of the tables *before* the
batch it is asked for) and keeps those bytes until the next request; a
checkpoint asks for them (after the batch) and saves that state with the
weights the pending request was made with, so that ``--resume`` collects the
same batch again and continues bit for bit. Only checkpoints need that state,
so it crosses the pipe only for them (it holds the unfinished hands'
decisions: 4 to 20 MB, as much again as a batch).

With N > 1 workers (:class:`RolloutWorkers`), the tables are split among
them (:func:`training.config.worker_configs`: ``num_envs`` as evenly as can
be; in a mixture each worker splits its share among the presets); each deals
its own from a stream of the run's seed and the worker's index, all are asked
for their next batch at once, and their decisions are joined in the workers'
order (:func:`training.trajectories.join_decisions`), so a run is
reproducible for a given N. A checkpoint holds every worker's state. The
learner (the critic's pass, GAE, the update) stays in the main process: N
workers and the learner want N + 1 cores, or N when the update is short.
"""

from __future__ import annotations

import multiprocessing
import os
import pickle
import traceback
from dataclasses import dataclass
from typing import Any

import numpy as np
import torch

from spades_env.core.rules import Rules
from training.config import TrainConfig, worker_configs
from training.learner import SnapshotNets, build_policy, network_options  # the learner's networks
from training.rollout import Rollout, add_rewards, collect, heuristic_decisions
from training.trajectories import join_decisions

WORKER_STREAM = 0x5EED  # mixed into the run's seed: the worker's generators are their own streams
ROLLOUT_TABLES = 2  # several workers' tables: streams [seed, WORKER_STREAM, ROLLOUT_TABLES, worker] (1: imitation's)


@dataclass
class WorkerState:
    """What the worker carries between requests: the tables and the generators of its draws."""

    rollout: Rollout
    rng: np.random.Generator  # opponent draws
    torch_rng: torch.Tensor  # action sampling (torch's global generator in the worker)


def fresh_worker_state(rollout: Rollout, seed: int) -> WorkerState:
    """The worker's state for tables that have not been in a worker yet: generators seeded from the run's seed."""
    generator = torch.Generator().manual_seed(int(np.random.SeedSequence([seed, WORKER_STREAM]).generate_state(1)[0]))
    return WorkerState(rollout, np.random.default_rng([seed, WORKER_STREAM]), generator.get_state())


def fresh_worker_states(config: TrainConfig, rules: Rules, rollout: Rollout, pool_size: int) -> list[WorkerState]:
    """The states of ``rollout_workers`` workers that have not run yet. One worker takes ``rollout`` (the run's
    tables, dealt); several each deal their share of the tables (:func:`training.config.worker_configs`) from
    streams of their own, so that a run is reproducible for a given number of workers."""
    if config.rollout_workers <= 1:
        return [fresh_worker_state(rollout, config.seed)]
    states = []
    for index, share in enumerate(worker_configs(config)):
        stream = [config.seed, WORKER_STREAM, ROLLOUT_TABLES, index]
        rng = np.random.default_rng(stream)
        tables = Rollout(share, rules, rng)
        tables.start(pool_size, rng)
        generator = torch.Generator().manual_seed(int(np.random.SeedSequence(stream).generate_state(1)[0]))
        states.append(WorkerState(tables, rng, generator.get_state()))
    return states


def _networks(config: TrainConfig, device: torch.device) -> tuple[torch.nn.Module, SnapshotNets]:
    """The worker's policy and snapshot networks, as the learner builds them (no critic, no optimizer)."""
    return build_policy(config, device), SnapshotNets(config.hidden, device, **network_options(config))


def _send(conn: Any, message: tuple) -> None:
    # plain pickle: the Connection's own pickler would move every tensor into shared memory (several times slower)
    conn.send_bytes(pickle.dumps(message, protocol=pickle.HIGHEST_PROTOCOL))


def _recv(conn: Any) -> tuple:
    return pickle.loads(conn.recv_bytes())


class WorkerTables:
    """The worker's side of either backend (this module's processes, :mod:`training.ray_workers`' actors): its
    networks, its tables (a :class:`WorkerState`) and the snapshot pool last sent."""

    def __init__(self, config: TrainConfig, device: str, threads: int):
        torch.set_num_threads(threads)
        self.config, self.device = config, torch.device(device)
        self.policy, self.snapshots = _networks(config, self.device)
        self.state: WorkerState | None = None
        self.pool: list = []

    def load(self, state: WorkerState) -> None:
        """Take these tables (the worker's config applies to them)."""
        state.rollout.config = self.config
        self.state = state

    def collect(self, policy_state: dict, pool: list | None) -> tuple[dict[str, Any] | None, dict[str, list[float]]]:
        """One rollout with these weights (and this pool, when not None: else the last one): the finished decisions,
        without the critic's values (the learner values them: :func:`training.rollout.finish_batch`), and seat 0's
        hand rewards."""
        self.policy.load_state_dict(policy_state)
        if pool is not None:
            self.pool = pool
        state = self.state
        torch.set_rng_state(state.torch_rng)
        batch, rewards = collect(state.rollout, self.policy, None, self.snapshots, self.pool, state.rng, self.device)
        state.torch_rng = torch.get_rng_state()
        return batch, rewards

    def imitate(self, rollout: Rollout, decisions: int) -> dict[str, Any]:
        """The heuristic's decisions on ``rollout``'s tables (training.imitation's other half)."""
        return heuristic_decisions(rollout, self.config, decisions, progress=False)


def _serve(conn: Any, config: TrainConfig, device: str, threads: int) -> None:
    """The worker's loop: ("collect", policy weights, pool or None) -> ("batch", decisions, rewards); ("before",)
    -> ("before", the pickled state from before the last batch); ("state", state) sets its tables; ("imitate",
    rollout, decisions) -> ("imitation", the heuristic's decisions)."""
    try:
        tables = WorkerTables(config, device, threads)
        before: bytes | None = None  # the state from before the last batch, for a checkpoint
        while True:
            message = _recv(conn)
            kind = message[0]
            if kind == "close":
                return
            if kind == "before":
                _send(conn, ("before", before))
                continue
            if kind == "state":
                tables.load(message[1])
                continue
            if kind == "imitate":  # the heuristic's decisions on tables of its own (training.imitation)
                _send(conn, ("imitation", tables.imitate(message[1], message[2])))
                continue
            _, policy_state, new_pool = message
            before = pickle.dumps(tables.state, protocol=pickle.HIGHEST_PROTOCOL)  # sent only if a checkpoint asks
            batch, rewards = tables.collect(policy_state, new_pool)
            _send(conn, ("batch", batch, rewards))  # one message: a send blocks until the other side reads
    except (EOFError, KeyboardInterrupt):  # the main process went away
        return
    except BaseException:  # noqa: BLE001 - every failure goes back to the main process, named
        try:
            _send(conn, ("error", traceback.format_exc()))
        except (BrokenPipeError, OSError):
            pass


class RolloutWorkerError(RuntimeError):
    """The rollout worker failed (its traceback is in the message) or died."""


class RolloutWorker:
    """The child process that holds the tables; one request in flight at a time.

    :attr:`inflight` is what a checkpoint saves: the worker's state from before
    the batch in flight and the weights that batch was asked with.
    """

    def __init__(self, config: TrainConfig, state: WorkerState | None, device: torch.device):
        # fork is not safe once torch's thread pool runs; forkserver starts clean (spawn on Windows)
        context = multiprocessing.get_context("spawn" if os.name == "nt" else "forkserver")
        self._conn, child = context.Pipe()
        self._process = context.Process(
            target=_serve, args=(child, config, str(device), config.threads), daemon=True, name="spades-rollout-worker"
        )
        self._process.start()
        child.close()
        self._pool_sent: list | None = None
        self._pending = False
        self._answer: tuple | None = None  # the in-flight request's answer, once received
        self._before: bytes | None = None  # the worker's state from before it, once a checkpoint asked for it
        self._weights: dict | None = None
        if state is not None:  # the tables of rollouts (none for imitation only)
            _send(self._conn, ("state", state))

    def imitation_data(self, rollout: Rollout, decisions: int) -> ImitationRequest:
        """Ask for at least ``decisions`` of the heuristic's decisions on ``rollout``'s tables; the answer's
        :meth:`ImitationRequest.result` waits for them."""
        if self._pending:
            raise RolloutWorkerError("a rollout is in flight: take its result first")
        _send(self._conn, ("imitate", rollout, decisions))
        return ImitationRequest(self)

    @property
    def pending(self) -> bool:
        """Whether a request is in flight."""
        return self._pending

    def submit(self, policy_state: dict, pool: list) -> None:
        """Ask for the next batch with these policy weights and this snapshot pool (sent again only when it changed)."""
        if self._pending:
            raise RolloutWorkerError("a rollout is already in flight: take its result first")
        changed = pool_changed(pool, self._pool_sent)
        _send(self._conn, ("collect", policy_state, list(pool) if changed else None))
        self._pool_sent = list(pool)
        self._pending, self._answer, self._before = True, None, None
        self._weights = policy_state

    def _receive(self, expected: str) -> tuple:
        try:
            message = _recv(self._conn)
        except EOFError:
            raise RolloutWorkerError(f"the rollout worker died (exit code {self._process.exitcode})") from None
        if message[0] == "error":
            raise RolloutWorkerError(f"the rollout worker failed:\n{message[1]}")
        if message[0] != expected:
            raise RolloutWorkerError(f"the rollout worker answered {message[0]!r}, expected {expected!r}")
        return message

    def _answered(self) -> tuple:
        if not self._pending:
            raise RolloutWorkerError("no rollout in flight")
        if self._answer is None:
            self._answer = self._receive("batch")
        return self._answer

    def inflight(self) -> dict[str, Any]:
        """For a checkpoint: the worker's state from before the batch in flight, and that batch's weights (waits for
        the batch, which :meth:`result` then returns)."""
        self._answered()  # the worker answers with the batch first, then waits for the next message
        if self._before is None:
            _send(self._conn, ("before",))
            self._before = self._receive("before")[1]
        return {"state": pickle.loads(self._before), "policy": self._weights}

    def result(self) -> tuple[dict[str, Any] | None, list[float]]:
        """The finished decisions asked for, to value (:func:`training.rollout.finish_batch`; None when none
        finished), and seat 0's hand rewards in them."""
        _, batch, rewards = self._answered()
        self._pending, self._answer, self._before = False, None, None
        return batch, rewards

    def close(self) -> None:
        """Stop the worker (a rollout in flight is dropped)."""
        try:
            _send(self._conn, ("close",))
        except (BrokenPipeError, OSError):
            pass
        self._process.join(timeout=30)
        if self._process.is_alive():
            self._process.kill()
            self._process.join()
        self._conn.close()


class RolloutWorkers:
    """The rollout workers of a run (``rollout_workers``), each with its share of the tables, asked together; their
    decisions joined in the workers' order (tables numbered worker after worker) and their hand rewards pooled.

    :meth:`inflight` is what a checkpoint saves: ``{"states": each worker's state from before the batch in flight,
    "policy": the weights that batch was asked with}``.
    """

    def __init__(self, config: TrainConfig, states: list[WorkerState], device: torch.device):
        shares = self._share_out(config, states)
        self.workers: list[RolloutWorker] = []
        try:
            for share, state in zip(shares, states):
                self.workers.append(RolloutWorker(share, state, device))
        except BaseException:
            self.close()
            raise

    def _share_out(self, config: TrainConfig, states: list[WorkerState] | None) -> list[TrainConfig]:
        """Each worker's share of the run (``tables`` noted: the workers' table counts, in order);
        RolloutWorkerError unless ``states`` (None: fresh) has one state per worker."""
        shares = worker_configs(config)
        if states is not None and len(states) != len(shares):
            raise RolloutWorkerError(f"{len(states)} worker states for {len(shares)} rollout workers")
        self.tables = [share.num_envs for share in shares]
        return shares

    @property
    def pending(self) -> bool:
        """Whether a request is in flight."""
        return self.workers[0].pending

    def submit(self, policy_state: dict, pool: list) -> None:
        """Ask every worker for its next batch (see :meth:`RolloutWorker.submit`)."""
        for worker in self.workers:
            worker.submit(policy_state, pool)

    def result(self) -> tuple[dict[str, Any] | None, dict[str, list[float]]]:
        """Every worker's finished decisions joined (None when none finished), and seat 0's hand rewards by preset."""
        answers = [worker.result() for worker in self.workers]
        rewards: dict[str, list[float]] = {}
        for _, hand_rewards in answers:
            add_rewards(rewards, hand_rewards)
        return join_decisions([decisions for decisions, _ in answers], self.tables), rewards

    def inflight(self) -> dict[str, Any]:
        """For a checkpoint: each worker's state from before the batch in flight, and that batch's weights."""
        requests = [worker.inflight() for worker in self.workers]
        return {"states": [request["state"] for request in requests], "policy": requests[0]["policy"]}

    def close(self) -> None:
        """Stop every worker."""
        for worker in self.workers:
            worker.close()


def pool_changed(pool: list, sent: list | None) -> bool:
    """Whether ``pool`` differs from the pool last sent (``sent``; None: none yet), snapshot by snapshot (the
    learner adds and drops snapshots; it never changes one in place)."""
    return sent is None or len(pool) != len(sent) or any(a is not b for a, b in zip(pool, sent))


class ImitationRequest:
    """The worker's heuristic decisions, once asked for."""

    def __init__(self, worker: RolloutWorker):
        self._worker = worker

    def result(self) -> dict[str, Any]:
        """The decisions (as :func:`training.rollout.heuristic_decisions` returns them)."""
        return self._worker._receive("imitation")[1]


def weights(module: torch.nn.Module) -> dict[str, torch.Tensor]:
    """A detached copy of a network's weights, to send to the worker (the learner keeps training its own)."""
    return {k: v.detach().clone() for k, v in module.state_dict().items()}
