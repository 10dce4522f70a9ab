"""Gymnasium vector envs (sync and async, default NEXT_STEP autoreset, and SAME_STEP): the mask is valid at every step.

The recipe is Gymnasium's own: ``gymnasium.make_vec(id, num_envs, vectorization_mode)``
and a sampler that masks illegal logits with ``-inf``; nothing of ours in between.
"""

from __future__ import annotations

import gymnasium
import numpy as np
import pytest
from gymnasium.vector import AutoresetMode

import spades_env  # noqa: F401 - registers the ids
from spades_env.core.actions import NUM_ACTIONS

NUM_ENVS = 3
STEPS = 150  # more than two one-hand episodes per env (13 learner decisions and a bid each)


def masked_sample(logits: np.ndarray, mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A softmax sample of each row's logits, illegal actions at -inf (NaN if a row's mask is empty)."""
    masked = np.where(mask.astype(bool), logits, -np.inf)
    shifted = masked - masked.max(axis=1, keepdims=True)
    probs = np.exp(shifted)
    probs /= probs.sum(axis=1, keepdims=True)
    if not np.isfinite(probs).all():
        raise FloatingPointError("a row of the mask allows no action")
    return np.array([rng.choice(len(p), p=p) for p in probs])


@pytest.mark.parametrize(
    "mode, autoreset",
    [
        ("sync", AutoresetMode.NEXT_STEP),
        ("async", AutoresetMode.NEXT_STEP),
        ("sync", AutoresetMode.SAME_STEP),
    ],
    ids=["sync-next-step", "async-next-step", "sync-same-step"],
)
def test_vector_env_masks_are_valid_at_every_step(mode, autoreset):
    envs = gymnasium.make_vec(
        "spades_env/Spades-v3", num_envs=NUM_ENVS, vectorization_mode=mode, vector_kwargs={"autoreset_mode": autoreset}
    )
    try:
        assert envs.metadata["autoreset_mode"] == autoreset
        same_step = autoreset == AutoresetMode.SAME_STEP
        rng = np.random.default_rng(0)
        obs, info = envs.reset(seed=0)
        episodes = 0
        resetting = np.zeros(NUM_ENVS, dtype=bool)
        for _ in range(STEPS):
            mask = info["action_mask"]
            assert mask.shape == (NUM_ENVS, NUM_ACTIONS) and mask.any(axis=1).all()
            assert envs.single_observation_space.contains(obs[0])
            actions = masked_sample(rng.normal(size=(NUM_ENVS, NUM_ACTIONS)), mask, rng)
            obs, reward, terminated, truncated, info = envs.step(actions)
            # NEXT_STEP: an env that autoresets at this step ignores the action and reports its reset
            assert not (reward[resetting] != 0).any()
            assert "illegal_action" not in info  # every sampled action was legal (or ignored by an autoreset)
            ended = terminated | truncated
            resetting = np.zeros_like(ended) if same_step else ended
            episodes += int(ended.sum())
        assert episodes >= NUM_ENVS  # every env went through the end of an episode and its reset
    finally:
        envs.close()
