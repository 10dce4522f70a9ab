"""The random agent: uniform over the legal actions."""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from .base import Agent, check_observation


class RandomAgent(Agent):
    """Uniform over the legal actions of the mask, from its seeded generator."""

    name = "random"

    def act(self, observation: Mapping[str, np.ndarray]) -> int:
        """A uniformly random legal action."""
        _, mask = check_observation(observation)
        legal = np.flatnonzero(mask)
        return int(legal[self.rng.integers(len(legal))])

    def act_batch(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """Vectorised: a uniform legal action per row (Gumbel trick over the mask)."""
        mask = np.asarray(mask)
        noise = self.rng.random(mask.shape)
        return np.where(mask != 0, noise, -1.0).argmax(axis=1).astype(np.int64)
