"""Training checkpoints: everything a resumed run needs to continue bit for bit.

A checkpoint (``<run>/checkpoints/last.pt``, written atomically) holds the
config, the policy, critic and optimizer states, the snapshot pool, the
counters, torch's random state, and a pickled *session*: the numpy training
generator, Python's ``random`` state and the :class:`training.rollout.Rollout`
(the batch engine with its hands in progress, the unfinished hands'
decisions, each table's bags and opponents, the heuristic agents' memories).
The file itself loads with ``weights_only=True``; the session bytes are
unpickled only on ``--resume`` of one's own run folder (never for
``init_from``), since unpickling trusts the file.

On ``--resume`` only the fields in :data:`RESUMABLE_FIELDS` (when to stop,
how and how often to evaluate and checkpoint, where to run) may differ from
the checkpoint's config; any other difference is refused before anything is
written.
"""

from __future__ import annotations

import pickle
import random
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import torch

from spades_env.nn import POLICY_FORMAT, CheckpointError, PolicyNet, ValueNet, atomic_torch_save, load_policy, safe_load
from training.config import TrainConfig, with_legacy_keys, worker_configs
from training.learner import Learner

# /3: the tables hold one part per preset (training.rollout.PresetTables); /4: both backends' tables keep their
# decisions in the one training.trajectories.TrajectoryStore
CHECKPOINT_FORMAT = "spades_env.train_checkpoint/4"
WEIGHTS_FORMATS = (  # what --init-from reads
    CHECKPOINT_FORMAT,
    "spades_env.train_checkpoint/3",
    "spades_env.train_checkpoint/2",
    "spades_env.train_checkpoint/1",
)
RESUMABLE_FIELDS = frozenset(
    {
        "runs_dir",
        "device",
        "threads",
        "eval_workers",
        "total_decisions",
        "time_limit_minutes",
        "max_updates",
        "eval_every",
        "eval_deals",
        "final_eval_deals",
        "final_eval_games",
        "eval_opponents",
        "checkpoint_every",
        "progress",
        "init_from",
        "rollout_backend",  # the same decisions either way (training.ray_workers): a run may move to a cluster
        "ray_address",
        "ray_spares",
    }
)


@dataclass
class Resumed:
    """What a checkpoint restores besides the weights."""

    pool: list
    counters: dict[str, Any]
    rollout: Any
    rng: np.random.Generator
    torch_rng: torch.Tensor
    python_random: Any
    cuda_rng: list = field(default_factory=list)
    worker: dict | None = None  # the rollout workers' in-flight request (training.pipeline), if they ran


def save_checkpoint(
    path: Path,
    config: TrainConfig,
    learner: Learner,
    pool: list,
    counters: dict[str, Any],
    rollout: Any,
    rng: np.random.Generator,
    worker: dict | None = None,
) -> None:
    """Write the checkpoint atomically (a crash leaves the previous one whole); ``worker``: the rollout workers'
    in-flight request (:meth:`training.pipeline.RolloutWorkers.inflight`), whose states replace ``rollout``."""
    if worker is not None:
        rollout = None  # the worker's tables are the live ones
    session = pickle.dumps({"rng": rng, "rollout": rollout, "python_random": random.getstate(), "worker": worker})
    atomic_torch_save(
        {
            "format": CHECKPOINT_FORMAT,
            "config": config.to_dict(),
            "policy": learner.policy.state_dict(),
            "critic": learner.critic.state_dict(),
            "optimizer": learner.optimizer.state_dict(),
            "pool": pool,
            "counters": dict(counters),
            "torch_rng": torch.get_rng_state(),
            "cuda_rng": torch.cuda.get_rng_state_all() if torch.cuda.is_available() else [],
            "session": torch.frombuffer(bytearray(session), dtype=torch.uint8),
        },
        path,
    )


# Fields added after checkpoints of this format were first written, with the value that trains as such a
# checkpoint's run did: an older checkpoint resumes with that value (and is refused, naming it, with another).
ADDED_FIELDS = {
    "weight_grad": "float32",
    "bc_bid_weight": 1.0,
    "card_scorer": 0,
    # the individual games' rewards, learning from search, distillation and the heuristic tables' agent: what a
    # run trained with before each field existed
    "reward_others": "mean",
    "win_reward": 0.0,
    "expert": "none",
    "expert_fraction": 0.01,
    "expert_samples": 16,
    "expert_coef": 1.0,
    "expert_decisions": "all",
    "teachers": [],
    "teacher_coef": 1.0,
    "opponent": "heuristic",
}


def config_conflicts(saved: dict[str, Any], config: TrainConfig) -> list[str]:
    """The fields outside RESUMABLE_FIELDS whose value differs from the checkpoint's, as 'name: old -> new'."""
    now = config.to_dict()
    # before critic_hidden, the critic had the policy's hidden sizes
    saved = {**ADDED_FIELDS, "critic_hidden": saved.get("hidden"), **with_legacy_keys(saved)}
    return [
        f"{k}: {saved.get(k)!r} -> {v!r}" for k, v in now.items() if k not in RESUMABLE_FIELDS and saved.get(k) != v
    ]


def load_checkpoint(path: Path, config: TrainConfig, learner: Learner) -> Resumed:
    """Check a checkpoint against ``config`` and load its weights into ``learner`` (CheckpointError on any misfit)."""
    payload = safe_load(path)
    if payload.get("format") != CHECKPOINT_FORMAT:
        raise CheckpointError(
            f"{path}: not a resumable training checkpoint (format {payload.get('format')!r}, "
            f"expected {CHECKPOINT_FORMAT!r}; an older one can start a run with --init-from)"
        )
    conflicts = config_conflicts(payload.get("config", {}), config)
    if conflicts:
        raise CheckpointError(
            f"{path}: the checkpoint does not fit this config ({'; '.join(conflicts)}); "
            f"only {sorted(RESUMABLE_FIELDS)} may change on --resume"
        )
    try:
        learner.policy.load_state_dict(payload["policy"])
        learner.critic.load_state_dict(payload["critic"])
        learner.optimizer.load_state_dict(payload["optimizer"])
    except (KeyError, RuntimeError, ValueError) as exc:
        raise CheckpointError(f"{path}: does not fit this config's networks: {exc}") from None
    try:
        session = pickle.loads(payload["session"].numpy().tobytes())
        resumed = Resumed(
            list(payload["pool"]),
            dict(payload["counters"]),
            session["rollout"],
            session["rng"],
            payload["torch_rng"],
            session["python_random"],
            list(payload.get("cuda_rng", [])),
            session.get("worker"),
        )
    except Exception as exc:  # unpickling raises many types (a moved class, truncated bytes)
        raise CheckpointError(f"{path}: its tables cannot be restored ({type(exc).__name__}: {exc})") from None
    if resumed.worker is not None and "state" in resumed.worker:  # one worker's, as saved up to 0.3.0
        resumed.worker = {"states": [resumed.worker.pop("state")], **resumed.worker}
    if resumed.rollout is not None:
        resumed.rollout.config = config  # the allowed changes (stop rules, evaluation) apply to the tables too
    if resumed.worker is not None:
        for share, state in zip(worker_configs(config), resumed.worker["states"]):
            state.rollout.config = share
    return resumed


def restore_random_state(resumed: Resumed) -> None:
    """Put torch's (CPU and CUDA) and Python's global random state back where the checkpoint left them."""
    torch.set_rng_state(resumed.torch_rng)
    if resumed.cuda_rng and torch.cuda.is_available() and len(resumed.cuda_rng) == torch.cuda.device_count():
        torch.cuda.set_rng_state_all(resumed.cuda_rng)
    random.setstate(resumed.python_random)


def widened_state(source: PolicyNet, target: PolicyNet) -> dict[str, torch.Tensor]:
    """``source``'s weights shaped for ``target``: a policy of an older observation layout or action space (such as
    the release trained on ``spades_obs_v1`` with 88 actions) reads its own columns of today's observation (the
    first layer's other columns start at 0) and its outputs are the first actions (the appended ones start at
    logit 0), so the widened network plays every earlier decision exactly as the source did."""
    state = source.state_dict()
    columns = getattr(source, "input_columns", None)
    if columns is None:
        return state
    wide = {key: value.clone() for key, value in target.state_dict().items()}
    for key, value in state.items():
        if key not in wide:
            return state  # another network: load_state_dict names the difference
        if key == "body.0.weight":
            wide[key].zero_()
            wide[key][:, columns] = value
        elif key in ("head.weight", "head.bias"):
            wide[key].zero_()
            wide[key][: len(value)] = value
        else:
            wide[key] = value
    return wide


def init_weights(path: str, policy: PolicyNet, critic: ValueNet) -> None:
    """Load a policy file's weights, or a training checkpoint's policy and critic, into fresh networks."""
    payload = safe_load(path)
    if payload.get("format") == POLICY_FORMAT:
        source, _meta = load_policy(path)
        states = {"policy": widened_state(source, policy)}
    elif payload.get("format") in WEIGHTS_FORMATS:
        states = {"policy": payload["policy"], "critic": payload["critic"]}
    else:
        raise CheckpointError(
            f"{path}: neither a policy file nor a training checkpoint (format {payload.get('format')!r})"
        )
    try:
        policy.load_state_dict(states["policy"])
        if "critic" in states:
            critic.load_state_dict(states["critic"])
    except RuntimeError as exc:
        raise CheckpointError(f"{path}: does not fit this config's networks: {exc}") from None
