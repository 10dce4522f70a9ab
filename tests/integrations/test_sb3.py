"""Stable-Baselines3 / SB3-contrib recipes run unchanged on the registered Gym id.

``make_vec_env`` passes ``render_mode="rgb_array"`` (the env must accept it; under
``SubprocVecEnv`` an error would only show as a broken pipe), ``MaskablePPO`` reads
``action_masks()`` through the VecEnv, sb3-contrib's ``evaluate_policy`` masks its
predictions, and ``ActionMasker`` works on what ``gymnasium.make`` returns.
"""

from __future__ import annotations

import gymnasium
import numpy as np
import pytest
from sb3_contrib import MaskablePPO
from sb3_contrib.common.maskable.evaluation import evaluate_policy
from sb3_contrib.common.maskable.utils import get_action_masks
from sb3_contrib.common.wrappers import ActionMasker
from stable_baselines3.common.env_util import make_vec_env
from stable_baselines3.common.vec_env import DummyVecEnv, SubprocVecEnv

from spades_env import GYM_ENV_ID
from spades_env.core.actions import NUM_ACTIONS

ENV_ID = "spades_env:spades_env/Spades-v3"  # the module prefix imports us in every subprocess


def test_make_vec_env_with_subprocesses_trains_maskable_ppo_and_evaluates_it(one_torch_thread):
    venv = make_vec_env(ENV_ID, n_envs=2, seed=0, vec_env_cls=SubprocVecEnv)
    try:
        assert venv.render_mode == "rgb_array"  # what make_vec_env asked for, accepted
        venv.reset()
        masks = get_action_masks(venv)
        assert masks.shape == (2, NUM_ACTIONS) and masks.any(axis=1).all()
        model = MaskablePPO(
            "MlpPolicy",
            venv,
            n_steps=64,
            batch_size=64,
            n_epochs=1,
            seed=0,
            device="cpu",
            policy_kwargs={"net_arch": [32]},
        )
        model.learn(total_timesteps=256)
        assert model.num_timesteps >= 256
        mean, std = evaluate_policy(model, venv, n_eval_episodes=4, warn=False)
        assert np.isfinite(mean) and np.isfinite(std)
        frames = venv.get_images()
        assert len(frames) == 2 and frames[0].ndim == 3 and frames[0].dtype == np.uint8
    finally:
        venv.close()


def test_maskable_evaluate_policy_never_plays_an_illegal_action(one_torch_thread):
    venv = make_vec_env(ENV_ID, n_envs=1, seed=1, vec_env_cls=DummyVecEnv)
    model = MaskablePPO(
        "MlpPolicy", venv, n_steps=32, batch_size=32, n_epochs=1, seed=1, device="cpu", policy_kwargs={"net_arch": [16]}
    )
    illegal = []

    def callback(local_vars, _globals):
        illegal.extend(info.get("illegal_action", False) for info in local_vars["infos"])

    evaluate_policy(model, venv, n_eval_episodes=3, callback=callback, warn=False)
    assert illegal and not any(illegal)


@pytest.mark.parametrize(
    "mask_fn",
    [
        lambda e: e.action_masks(),  # sb3-contrib's documented recipe: the env's own method
        lambda e: e.get_wrapper_attr("action_masks")(),
        lambda e: e.unwrapped.action_masks(),
    ],
    ids=["method", "get_wrapper_attr", "unwrapped"],
)
def test_action_masker_over_gymnasium_make(mask_fn):
    env = ActionMasker(gymnasium.make(GYM_ENV_ID), mask_fn)
    env.reset(seed=0)
    mask = env.action_masks()
    assert mask.shape == (NUM_ACTIONS,) and mask.any()
    np.testing.assert_array_equal(mask, env.unwrapped.action_masks())
    env.step(int(np.flatnonzero(mask)[0]))
    np.testing.assert_array_equal(env.action_masks(), env.unwrapped.action_masks())
