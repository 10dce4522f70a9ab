"""Rollout workers as Ray actors (``rollout_backend: ray``): the trainer's tables on a Ray cluster.

The same schedule as :mod:`training.pipeline`'s worker processes, with Ray
as the transport: every rollout worker is an actor (:class:`RolloutActor`)
holding one worker's share of the tables (:func:`training.config.worker_configs`),
its dealing streams, its generators and the snapshot pool. Each update puts
the policy's weights into the object store once (``ray.put``), and every
actor reads them from there; a new snapshot pool goes the same way, once
when it changes. The decisions come back in the workers' order and are
joined as the processes' are, so that a run with N actors is the run with N
worker processes: the same decisions, trained on in the same order (the
tests compare the two).

The learner (the critic's pass, GAE, the update) stays in the driver, on CPU
or GPU; the actors run their networks on CPU.

**Faults.** An actor's answer to a rollout carries its tables' state after
that rollout (pickled, kept in the object store of the actor's node and owned
by the driver), so the driver always holds each share's tables from before
the rollout in flight. When an actor's process dies, the driver gives those
tables to a standby actor (``ray_spares``: built, idle, no CPU reserved) and
asks it for the same rollout with the same weights and pool: the redone
rollout is the one that was lost, decision for decision. Ray starts the dead
actor again (``max_restarts``); at a later request the tables go back to it
and the standby stands by again. Without a standby the driver waits for Ray
to start the dead actor again (a new process that imports torch and builds
its networks: seconds) and gives the tables to it. The answers are taken in
the order they come, so a death is acted on when it is known. Nothing is
trained on before every actor has answered, so no decision is lost or trained
on twice; with a standby a lost actor costs the part of the rollout it had
done. A rollout redone :data:`RETRIES` times whose actor dies again stops the
run with an error, as does a lost node (its actors' tables were in its object
store): ``--resume`` continues from the checkpoint, as after any stop.

**Where Ray runs.** ``ray_address: ""`` starts a local Ray for the run (its
CPUs are this machine's cores) and stops it at the end; ``auto`` or
``HOST:PORT`` joins a running cluster (``ray start --head`` on one machine,
``ray start --address HOST:PORT`` on the others), whose nodes need this
package installed. Each actor asks for ``threads`` CPUs; a run asking for
more than the cluster has, or more per actor than its largest node has, is
refused (:class:`RayClusterError`) before it writes anything.
"""

from __future__ import annotations

import logging
import os
import pickle
import time
from typing import Any

import torch

from training.config import TrainConfig
from training.pipeline import RolloutWorkerError, RolloutWorkers, WorkerState, WorkerTables, pool_changed
from training.rollout import Rollout

RETRIES = 3  # actor deaths tolerated within one request before the run stops (its checkpoint resumes it)
RESTART_SECONDS = 300.0  # how long a dead actor may take to be started again (a node may have to come back)
RESTART_POLL = 0.2  # seconds between asks while it restarts
# How long a call to a dead actor waits for the news of its death before it fails (Ray's default is 1 s): the
# driver acts on a death the same way whatever the news says, so it wants the failure at once.
DEATH_NEWS = ("RAY_timeout_ms_task_wait_for_death_info", "0")
INSTALL_HINT = "pip install 'spades_env[ray]'"
NICENESS = "RAY_worker_niceness"  # Ray's setting of its workers' niceness (15 unless set)


class RayClusterError(ValueError):
    """The Ray a run asks for cannot be had: Ray missing, a cluster that cannot be joined, too few CPUs (named by
    the config key; raised before the run writes anything)."""


def ray_module() -> Any:
    """The ``ray`` package (RayClusterError naming the extra to install when it is missing)."""
    try:
        import ray
    except ImportError:
        raise RayClusterError(f"train config 'rollout_backend: ray' needs Ray: {INSTALL_HINT}") from None
    return ray


def init_ray(address: str = "", num_cpus: int | None = None) -> None:
    """Start a local Ray (``address`` empty; ``num_cpus`` logical CPUs, default the cores) or join a cluster, quietly
    (no dashboard, warnings only). A local Ray runs its workers at niceness 0, as the worker processes run: Ray's
    default of 15 would yield the actors' cores to the learner and to anything else on the machine. Calls to a dead
    actor fail at once (:data:`DEATH_NEWS`), so that its rollout is redone at once."""
    ray = ray_module()
    options: dict[str, Any] = {"include_dashboard": False, "logging_level": logging.WARNING}
    os.environ.setdefault(*DEATH_NEWS)  # read by this process's Ray when it starts
    if address:
        ray.init(address=address, **options)
        return
    os.environ.setdefault(NICENESS, "0")  # read by the raylet that ray.init starts, which starts the workers
    ray.init(num_cpus=num_cpus, **options)


class RayCluster:
    """The Ray the run uses: joined at ``address`` (``auto``, ``HOST:PORT``), or started here for the run when
    ``address`` is empty (stopped by :meth:`close`); one already initialised in this process is used as it is."""

    def __init__(self, address: str, actors: int, cpus_each: int):
        ray = self.ray = ray_module()
        self.started = False
        if not ray.is_initialized():
            try:
                init_ray(address)
            except (ConnectionError, RuntimeError, ValueError) as exc:  # Ray's ways of saying "no cluster there"
                raise RayClusterError(
                    f"train config 'ray_address': cannot {'join Ray at ' + repr(address) if address else 'start Ray'} "
                    f"({type(exc).__name__}: {str(exc).strip().splitlines()[0] if str(exc).strip() else ''})"
                ) from None
            self.started = True
        nodes = [node["Resources"].get("CPU", 0) for node in ray.nodes() if node.get("Alive")]
        problem = None
        if actors * cpus_each > sum(nodes):
            problem = (
                f"train config 'rollout_workers': {actors} Ray actors of {cpus_each} CPU(s) each need "
                f"{actors * cpus_each} CPUs, and the Ray cluster has {sum(nodes):g}"
            )
        elif cpus_each > max(nodes, default=0):
            problem = (
                f"train config 'threads': each Ray actor asks for {cpus_each} CPUs, and no node of the Ray cluster "
                f"has that many (the largest has {max(nodes, default=0):g})"
            )
        if problem:
            self.close()
            raise RayClusterError(problem)

    def close(self) -> None:
        """Stop Ray if this run started it."""
        if self.started:
            self.ray.shutdown()
            self.started = False


class RolloutActor:
    """The actor's side (made a Ray actor class by :func:`actor_class`): a :class:`~training.pipeline.WorkerTables`
    whose answers are pickled bytes (writable arrays on the driver, as the processes' pipe gives)."""

    def __init__(self, config: TrainConfig, threads: int):
        self.tables = WorkerTables(config, "cpu", threads)

    def pid(self) -> int:
        """The actor's process id (the tests kill it)."""
        return os.getpid()

    def load(self, state: bytes, config: TrainConfig | None = None) -> None:
        """Take these tables (a pickled :class:`~training.pipeline.WorkerState`), and their config when given (a
        standby actor taking over a share of the tables: the networks are every share's)."""
        if config is not None:
            self.tables.config = config
        self.tables.load(pickle.loads(state))

    def collect(self, policy_state: dict, pool: list | None) -> tuple[bytes, bytes]:
        """One rollout: (the pickled decisions and hand rewards, the pickled tables after it); (b"", b"") from an
        actor without tables (started again by Ray after it died between requests: the driver redoes it)."""
        if self.tables.state is None:
            return b"", b""
        answer = self.tables.collect(policy_state, pool)
        return _dumps(answer), _dumps(self.tables.state)

    def imitate(self, rollout: bytes, decisions: int) -> bytes:
        """The heuristic's decisions on these tables (a pickled :class:`~training.rollout.Rollout`: its arrays
        writable, as the object store's are not), pickled."""
        return _dumps(self.tables.imitate(pickle.loads(rollout), decisions))


def _dumps(value: Any) -> bytes:
    return pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)


def actor_class(cpus: int) -> Any:
    """:class:`RolloutActor` as a Ray actor class: ``cpus`` CPUs, restarted by Ray whenever it dies (the driver
    gives it its tables again), no call retried by Ray (the driver redoes the rollout itself)."""
    return ray_module().remote(num_cpus=cpus, max_restarts=-1, max_task_retries=0)(RolloutActor)


class RayRolloutWorker:
    """One share of the tables and the driver's record of it: its own actor (``home``, ``threads`` CPUs reserved),
    the actor playing its tables now (``actor``: home, or a standby while home is started again), its tables'
    state from before the request in flight (an object in the store), the request's weights and pool, and its
    answer once received."""

    def __init__(self, config: TrainConfig, state: WorkerState | None, cpus: int, spares: list | None = None):
        self.ray = ray_module()
        self.config = config
        self.home = self.actor = actor_class(cpus).remote(config, config.threads)
        self._spares = [] if spares is None else spares  # the group's standby actors, shared by its workers
        self.restarts = 0  # actor deaths survived (requests redone)
        self.answer_bytes = 0  # pickled answers received (decisions, rewards), redone rollouts' included
        self._state = self.ray.put(_dumps(state)) if state is not None else None  # before the next request
        self._loaded: Any = None  # the last load's ref: its failure is named when the rollout finds no tables
        if self._state is not None:
            self._load()
        self._request: tuple | None = None  # (weights ref, pool ref, weights) of the request in flight
        self._refs: tuple | None = None  # its (answer, state after) refs
        self._answer: tuple | None = None
        self._deaths = 0  # deaths within the request in flight
        self._probe: Any = None  # while a standby plays the tables: the question whether home is up again

    @property
    def pending(self) -> bool:
        """Whether a request is in flight."""
        return self._request is not None

    @property
    def waiting(self) -> Any:
        """The ref of the answer awaited (None when there is none to wait for)."""
        return self._refs[0] if self.pending and self._answer is None else None

    def _load(self) -> None:
        self._loaded = self.actor.load.remote(self._state, self.config)

    def submit(self, weights_ref: Any, pool_ref: Any, pool_changed: bool, policy_state: dict) -> None:
        """Ask for the next rollout with the weights and pool in the object store (the pool sent when it changed, or
        to an actor that has not had it)."""
        if self.pending:
            raise RolloutWorkerError("a rollout is already in flight: take its result first")
        moved = self._go_home()
        self._request = (weights_ref, pool_ref, policy_state)
        self._answer = None
        pool = pool_ref if pool_changed or moved else None
        self._refs = self.actor.collect.options(num_returns=2).remote(weights_ref, pool)

    def _go_home(self) -> bool:
        """Give the tables back to their own actor once Ray has started it again (the standby returns to standing
        by, and the CPUs reserved are where the work is again); whether they moved. Never waits: it asks whether
        home is up and reads the answer at a later request."""
        if self.actor is self.home:
            return False
        if self._probe is None:
            self._probe = self.home.pid.remote()
        if not self.ray.wait([self._probe], timeout=0)[0]:
            return False  # no answer yet: the standby plays on
        probe, self._probe = self._probe, None
        try:
            self.ray.get(probe)
        except self.ray.exceptions.RayActorError:
            return False  # not up yet: ask again at the next request
        self._spares.append(self.actor)
        self.actor = self.home
        self._load()
        return True

    def _redo(self, why: str) -> None:
        """The actor playing the tables died (or lost them): give the tables from before the request to a standby
        (home, which Ray starts again, takes them back at a later request), or without one to the actor once Ray
        has started it again; ask again, with the pool (the actor taking over has none)."""
        self.restarts += 1
        self._deaths += 1
        if self._deaths > RETRIES:
            raise RolloutWorkerError(
                f"a rollout was redone {RETRIES} times and its actor died again; resume the run from its "
                f"checkpoint (--resume). Last: {why}"
            )
        dead = self.actor
        if dead is not self.home:
            self._spares.append(dead)  # a standby that died: Ray starts it again, a standby again
        if self._spares and self._spares[0] is not dead:
            self.actor = self._spares.pop(0)
        else:
            self.actor = self.home
        self._wait_restarted()
        self._load()
        weights_ref, pool_ref, _ = self._request
        self._refs = self.actor.collect.options(num_returns=2).remote(weights_ref, pool_ref)

    def _wait_restarted(self) -> None:
        """Wait until the actor answers (one that is up answers at once; calls made while Ray starts it again fail
        at once with ActorUnavailableError rather than wait)."""
        deadline = time.monotonic() + RESTART_SECONDS
        while True:
            try:
                self.ray.get(self.actor.pid.remote(), timeout=max(0.1, deadline - time.monotonic()))
                return
            except (self.ray.exceptions.ActorUnavailableError, self.ray.exceptions.GetTimeoutError) as exc:
                if time.monotonic() > deadline:
                    raise RolloutWorkerError(
                        f"a rollout actor was not started again within {RESTART_SECONDS:g} s ({exc}); resume the run "
                        "from its checkpoint (--resume)"
                    ) from None
                time.sleep(RESTART_POLL)
            except self.ray.exceptions.RayActorError as exc:  # dead for good (its node gone, no restarts left)
                raise RolloutWorkerError(f"a rollout actor is gone: {exc}; resume the run with --resume") from None

    def take(self) -> None:
        """Read the answer awaited (call when it is ready, or to wait for it): keep it, or redo the rollout when the
        actor died or had no tables."""
        exceptions = self.ray.exceptions
        try:
            answer = self.ray.get(self._refs[0])
            why = "the actor had no tables"
        except exceptions.RayActorError as exc:
            answer, why = b"", str(exc)
        except exceptions.ObjectLostError as exc:
            raise _lost(exc) from None
        except exceptions.RayTaskError as exc:
            raise RolloutWorkerError(f"the rollout actor failed:\n{exc}") from None
        if answer:
            self.answer_bytes += len(answer)
            self._answer = pickle.loads(answer)
            return
        self._check_loaded()
        self._redo(why)

    def _check_loaded(self) -> None:
        """Name the failure of the last load, if it failed (not a death: a state that cannot be read there)."""
        try:
            self.ray.get(self._loaded)
        except self.ray.exceptions.RayTaskError as exc:
            raise RolloutWorkerError(f"a rollout actor could not load its tables:\n{exc}") from None
        except self.ray.exceptions.ObjectLostError as exc:  # the tables it was given are gone
            raise _lost(exc) from None
        except self.ray.exceptions.RayActorError:
            pass  # it died: the redo gives the tables again

    def _answered(self) -> tuple:
        if not self.pending:
            raise RolloutWorkerError("no rollout in flight")
        while self._answer is None:
            self.take()
        return self._answer

    def inflight(self) -> dict[str, Any]:
        """For a checkpoint: the tables from before the rollout in flight and that rollout's weights (waits for the
        rollout, which :meth:`result` then returns)."""
        self._answered()
        return {"state": pickle.loads(self.ray.get(self._state)), "policy": self._request[2]}

    def result(self) -> tuple[dict[str, Any] | None, dict[str, list[float]]]:
        """The finished decisions asked for (None when none finished) and seat 0's hand rewards."""
        batch, rewards = self._answered()
        self._state = self._refs[1]  # the tables after this rollout: before the next
        self._request = self._refs = self._answer = None
        self._deaths = 0
        return batch, rewards

    def imitation_data(self, rollout: Rollout, decisions: int) -> Any:
        """Ask for at least ``decisions`` of the heuristic's decisions on ``rollout``'s tables; the answer's
        ``result()`` waits for them."""
        if self.pending:
            raise RolloutWorkerError("a rollout is in flight: take its result first")
        return _Imitation(self.ray, self.actor.imitate.remote(_dumps(rollout), decisions))

    def close(self) -> None:
        """Stop its actor (a rollout in flight is dropped; a standby playing its tables is the group's to stop)."""
        self.ray.kill(self.home, no_restart=True)


def _lost(exc: Exception) -> RolloutWorkerError:
    """The error of tables lost with the node whose object store held them."""
    return RolloutWorkerError(
        f"the tables of a rollout actor were lost with its node ({type(exc).__name__}); resume the run from its "
        "checkpoint (--resume)"
    )


class _Imitation:
    def __init__(self, ray: Any, ref: Any):
        self._ray, self._ref = ray, ref

    def result(self) -> dict[str, Any]:
        try:
            return pickle.loads(self._ray.get(self._ref))
        except self._ray.exceptions.RayError as exc:
            raise RolloutWorkerError(f"the imitation actor failed:\n{exc}") from None


class RayRolloutWorkers(RolloutWorkers):
    """The run's rollout workers as Ray actors (see the module docstring); the interface of
    :class:`~training.pipeline.RolloutWorkers` (``pending``, ``submit``, ``result``, ``inflight``, ``close``)."""

    def __init__(
        self, config: TrainConfig, states: list[WorkerState] | None, device: torch.device, spares: int | None = None
    ):
        shares = self._share_out(config, states)
        self.cluster = RayCluster(config.ray_address, len(shares), config.threads)
        self.ray = self.cluster.ray
        self.workers: list[RayRolloutWorker] = []
        self._pool_sent: list | None = None
        self._pool_ref: Any = None
        self.weights_bytes = 0  # weights put into the object store (once per update), in tensor bytes
        self._closed = False
        # standby actors (ray_spares): built and idle, no CPU reserved; one takes over a dead actor's tables
        self.spares: list = []
        try:
            count = config.ray_spares if spares is None else spares
            self.spares.extend(actor_class(0).remote(shares[0], config.threads) for _ in range(count))
            for index, share in enumerate(shares):
                state = None if states is None else states[index]
                self.workers.append(RayRolloutWorker(share, state, config.threads, self.spares))
        except BaseException:
            self.close()
            raise

    @property
    def restarts(self) -> int:
        """Actor deaths survived so far (each one's rollout redone)."""
        return sum(worker.restarts for worker in self.workers)

    def submit(self, policy_state: dict, pool: list) -> None:
        """Ask every actor for its next rollout: the weights put into the object store once for all of them, the
        pool once when it changed."""
        changed = pool_changed(pool, self._pool_sent)
        if changed:
            self._pool_ref, self._pool_sent = self.ray.put(list(pool)), list(pool)
        weights_ref = self.ray.put(policy_state)
        self.weights_bytes += sum(t.numel() * t.element_size() for t in policy_state.values())
        for worker in self.workers:
            worker.submit(weights_ref, self._pool_ref, changed, policy_state)

    @property
    def answer_bytes(self) -> int:
        """Bytes of the actors' pickled answers received so far (closed or not)."""
        return sum(worker.answer_bytes for worker in self.workers)

    def result(self) -> tuple[dict[str, Any] | None, dict[str, list[float]]]:
        """Every actor's finished decisions joined in the workers' order, and the hand rewards; a dead actor's
        rollout is redone as soon as its death is known, not after the actors before it have answered."""
        self._settle()
        return super().result()

    def inflight(self) -> dict[str, Any]:
        """For a checkpoint: each actor's tables from before the rollout in flight and that rollout's weights."""
        self._settle()
        return super().inflight()

    def _settle(self) -> None:
        """Take the actors' answers in the order they come (redoing the rollouts of those that died)."""
        while True:
            waiting = {worker.waiting: worker for worker in self.workers if worker.waiting is not None}
            if not waiting:
                return
            ready, _ = self.ray.wait(list(waiting), num_returns=1)
            for ref in ready:
                waiting[ref].take()

    def imitation_data(self, rollout: Rollout, decisions: int) -> Any:
        """The first actor's share of the imitation (see :meth:`RayRolloutWorker.imitation_data`)."""
        return self.workers[0].imitation_data(rollout, decisions)

    def close(self) -> None:
        """Stop every actor, and Ray when the run started it (the counts stay readable)."""
        if self._closed:
            return
        self._closed = True
        actors = {worker.home for worker in self.workers} | {worker.actor for worker in self.workers}
        for actor in actors | set(self.spares):
            self.ray.kill(actor, no_restart=True)
        self.cluster.close()
