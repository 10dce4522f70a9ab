"""Tianshou 2.0's multi-agent recipe (its tic-tac-toe script) runs unchanged on the AEC env.

The plain recipe ``PettingZooEnv(spades_env.env())`` (or
``spades_env.integrations.tianshou.tianshou_env()``), a masked DQN learner at seat
0 against Tianshou's masked random players, ``MultiAgentOffPolicyAlgorithm``,
``DummyVectorEnv`` collectors and ``run_training``. Tianshou checks its replay
buffer for NaN after every collect: infos that change keys or hold strings fail
there (``MalformedBufferError``), which the default ``info_format="numeric"`` avoids
(issue 30, item 25: before ``spades_v3`` the plain recipe needed that option).
"""

from __future__ import annotations

import numpy as np
import pytest

tianshou = pytest.importorskip("tianshou", reason="Tianshou is in the [dev] extra")
torch = pytest.importorskip("torch")

from tianshou.algorithm import DQN, MARLRandomDiscreteMaskedOffPolicyAlgorithm, MultiAgentOffPolicyAlgorithm  # noqa: E402
from tianshou.algorithm.modelfree.dqn import DiscreteQLearningPolicy  # noqa: E402
from tianshou.algorithm.optim import AdamOptimizerFactory  # noqa: E402
from tianshou.data import Collector, CollectStats, VectorReplayBuffer  # noqa: E402
from tianshou.env import DummyVectorEnv  # noqa: E402
from tianshou.env.pettingzoo_env import PettingZooEnv  # noqa: E402
from tianshou.trainer import OffPolicyTrainerParams  # noqa: E402
from tianshou.utils.net.common import Net  # noqa: E402

import spades_env  # noqa: E402
from spades_env.core.actions import NUM_ACTIONS  # noqa: E402
from spades_env.integrations.tianshou import tianshou_env  # noqa: E402

TRAINING_STEPS = 2000
NUM_ENVS = 2


def get_env() -> PettingZooEnv:
    return PettingZooEnv(spades_env.env())  # no option: the default infos stack


def make_algorithm(env: PettingZooEnv) -> MultiAgentOffPolicyAlgorithm:
    net = Net(
        state_shape=env.observation_space["observation"].shape, action_shape=env.action_space.n, hidden_sizes=[32]
    )
    learner = DQN(
        policy=DiscreteQLearningPolicy(model=net, action_space=env.action_space, eps_training=0.1, eps_inference=0.05),
        optim=AdamOptimizerFactory(lr=1e-3),
        gamma=0.9,
        n_step_return_horizon=1,
        target_update_freq=50,
    )
    randoms = [MARLRandomDiscreteMaskedOffPolicyAlgorithm(action_space=env.action_space) for _ in range(3)]
    return MultiAgentOffPolicyAlgorithm(algorithms=[learner, *randoms], env=env)


def test_masked_dqn_against_random_players_trains_for_a_few_thousand_steps():
    torch.manual_seed(0)
    np.random.seed(0)
    algorithm = make_algorithm(get_env())
    training_envs = DummyVectorEnv([get_env for _ in range(NUM_ENVS)])
    test_envs = DummyVectorEnv([get_env for _ in range(NUM_ENVS)])
    training_envs.seed(0)
    test_envs.seed(1)
    training_collector = Collector[CollectStats](
        algorithm, training_envs, VectorReplayBuffer(5000, NUM_ENVS), exploration_noise=True
    )
    test_collector = Collector[CollectStats](algorithm, test_envs, exploration_noise=True)
    training_collector.reset()
    training_collector.collect(n_step=64 * NUM_ENVS)
    result = algorithm.run_training(
        OffPolicyTrainerParams(
            training_collector=training_collector,
            test_collector=test_collector,
            max_epochs=1,
            epoch_num_steps=TRAINING_STEPS,
            collection_step_num_env_steps=100,
            test_step_num_episodes=NUM_ENVS,
            batch_size=32,
            update_step_num_gradient_steps_per_sample=0.02,
            test_in_training=False,
            multi_agent_return_reduction=lambda returns: returns[:, 0],
        )
    )
    assert result.train_step >= TRAINING_STEPS
    assert result.train_episode > 0  # one-hand episodes ended and were reset
    assert not training_collector.buffer.hasnull()
    buffer = training_collector.buffer[:]
    assert buffer.obs.mask.shape[-1] == NUM_ACTIONS and buffer.obs.mask.any(axis=-1)[~buffer.done].all()


def test_adapter_is_the_documented_wrapper():
    env = tianshou_env(rules="cutthroat")
    assert isinstance(env, PettingZooEnv)
    assert env.env.unwrapped.info_format == "numeric" and env.env.unwrapped.rules.name == "cutthroat"
    obs, info = env.reset(seed=0)
    assert set(obs) == {"agent_id", "obs", "mask"} and any(obs["mask"])
    assert not any(isinstance(v, str) or v is None for v in info.values())
