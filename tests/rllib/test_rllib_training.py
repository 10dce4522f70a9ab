"""RLlib (new API stack) trains on the adapter's env with RLlib's action-masking RLModule: per seat and shared."""

import math

import pytest

pytest.importorskip("ray.rllib")

import ray  # noqa: E402
from ray.rllib.algorithms.ppo import PPOConfig  # noqa: E402
from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec  # noqa: E402
from ray.rllib.core.rl_module.rl_module import RLModuleSpec  # noqa: E402
from ray.rllib.examples.rl_modules.classes.action_masking_rlm import ActionMaskingTorchRLModule  # noqa: E402
from ray.rllib.utils.pre_checks.env import check_multiagent_environments  # noqa: E402

from spades_env.integrations import rllib as adapter  # noqa: E402

pytestmark = pytest.mark.rllib
ITERATIONS = 2
BATCH = 400  # env steps per iteration: a few one-hand episodes (56 decisions each)
LOSSES = ("policy_loss", "vf_loss", "total_loss")


@pytest.fixture(scope="module")
def local_ray():
    ray.init(num_cpus=1, include_dashboard=False, object_store_memory=100 * 1024**2)
    yield
    ray.shutdown()


def test_env_passes_rllibs_multi_agent_env_check():
    check_multiagent_environments(adapter.make_env({"episode": "hand"}))


def test_unknown_env_config_key_is_named():
    with pytest.raises(ValueError, match="'seats'"):
        adapter.make_env({"seats": 4})


@pytest.mark.parametrize("mode", ["per_seat", "shared"])
def test_ppo_trains_with_action_masking_and_takes_no_illegal_action(local_ray, mode):
    env_id = adapter.register_env()
    agents = adapter.make_env().possible_agents
    policies, mapping = adapter.policy_mapping(mode, agents)
    config = (
        PPOConfig()
        .environment(env_id, env_config={"episode": "hand"})  # the env check runs (one random action)
        .env_runners(num_env_runners=0)  # sample in this process, so that its env can be inspected
        .learners(num_learners=0)
        .training(train_batch_size_per_learner=BATCH, minibatch_size=100, num_epochs=1)
        .multi_agent(policies=policies, policy_mapping_fn=mapping)
        .rl_module(
            rl_module_spec=MultiRLModuleSpec(
                rl_module_specs={pid: RLModuleSpec(module_class=ActionMaskingTorchRLModule) for pid in policies}
            )
        )
        .debugging(seed=7)
    )
    algo = config.build_algo()
    try:
        assert config.enable_rl_module_and_learner and config.enable_env_runner_and_connector_v2  # new API stack
        [env] = algo.env_runner.env.envs
        before = adapter.illegal_actions(env)  # the env check's random action may be one
        results = [algo.train() for _ in range(ITERATIONS)]
        assert adapter.illegal_actions(env) == before
    finally:
        algo.stop()
    assert results[-1]["env_runners"]["num_env_steps_sampled_lifetime"] >= ITERATIONS * BATCH
    learners = results[-1]["learners"]
    assert set(policies) <= set(learners)
    for pid in policies:
        for loss in LOSSES:
            assert math.isfinite(learners[pid][loss]), (pid, loss, learners[pid][loss])
