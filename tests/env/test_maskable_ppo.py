"""SB3-contrib's MaskablePPO trains on the single-agent wrapper and predicts legal actions."""

from __future__ import annotations

import numpy as np
import sb3_contrib  # in the dev extra: the test must run in CI, so no importorskip

from spades_env import SingleAgentSpadesEnv


def test_maskable_ppo_learns_and_predicts_legal_actions(one_torch_thread):
    env = SingleAgentSpadesEnv(episode="hand")
    model = sb3_contrib.MaskablePPO(
        "MlpPolicy",
        env,
        n_steps=256,
        batch_size=64,
        n_epochs=4,
        seed=0,
        device="cpu",
        policy_kwargs={"net_arch": [32]},
    )
    model.learn(total_timesteps=2048)
    assert model.num_timesteps >= 2048

    eval_env = SingleAgentSpadesEnv(episode="hand", seat=1)
    for seed in range(3):
        obs, info = eval_env.reset(seed=seed)
        done = False
        while not done:
            mask = eval_env.action_masks()
            action, _ = model.predict(obs, action_masks=mask, deterministic=True)
            assert mask[int(action)] == 1, f"illegal action {int(action)}"
            obs, reward, terminated, truncated, info = eval_env.step(int(action))
            assert "illegal_action" not in info
            done = terminated or truncated
        assert len(eval_env.aec.game.results) == 1
    # stochastic predictions are masked too
    obs, _ = eval_env.reset(seed=9)
    mask = eval_env.action_masks()
    for _ in range(20):
        action, _ = model.predict(obs, action_masks=mask, deterministic=False)
        assert mask[int(action)] == 1
    assert np.isfinite(model.policy.parameters().__next__().detach().numpy()).all()
