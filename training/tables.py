"""The run's tables, asked for once by ``train.py``: the one place that reads ``backend``.

``backend: numpy`` gives the numpy engine's tables (:class:`training.rollout.Rollout`, one part per preset of a
mixture); ``backend: torch`` the torch engine's on the run's device
(:class:`training.device_rollout.DeviceRollout`). Both answer the training loop the same way:

* ``start(pool_size, rng)``: draw every table's opponents and start new games;
* ``collect_batch(learner, pool, rng, device)``: one rollout, the finished decisions as a PPO batch (values, GAE
  advantages and returns, :func:`training.ppo.gae_advantages` on either form) and seat 0's hand rewards by preset;
* ``host_tables(rng)``: numpy-engine tables for the heuristic's imitation (the tables themselves on numpy);
* they pickle whole, for checkpoints that resume bit for bit.
"""

from __future__ import annotations

from typing import Any, Protocol

import numpy as np
import torch

from spades_env.core.rules import Rules
from training.config import TrainConfig
from training.device_rollout import DeviceRollout
from training.learner import Learner
from training.rollout import Rollout


class Tables(Protocol):
    """What the training loop asks of a run's tables, on either backend (see the module docstring)."""

    config: TrainConfig
    rules: Rules

    def start(self, pool_size: int, rng: np.random.Generator) -> None:
        """Draw every table's opponents and start new games everywhere."""

    def collect_batch(
        self, learner: Learner, pool: list, rng: np.random.Generator, device: torch.device
    ) -> tuple[dict[str, Any] | None, dict[str, list[float]]]:
        """One rollout: the finished decisions as a PPO batch (None if none finished) and seat 0's hand rewards."""

    def host_tables(self, rng: np.random.Generator) -> Rollout:
        """Tables on the numpy engine for the heuristic's imitation."""


def make_tables(config: TrainConfig, rules: Rules, rng: np.random.Generator, device: torch.device) -> Tables:
    """The tables of a run of ``config``: on the torch engine on ``device`` (``backend: torch``), else the numpy
    engine's."""
    if config.backend == "torch":
        return DeviceRollout(config, rules, rng, device)
    return Rollout(config, rules, rng)
