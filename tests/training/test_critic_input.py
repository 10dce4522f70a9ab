"""The critic's own network: its input (the position, the full state or the observation) and its hidden sizes."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
import torch

from spades_env.config_io import load_rules
from spades_env.nn import critic_layout
from spades_env.obs.layout import HISTORY_BLOCKS, OBSERVATION, POSITION, POSITION_COLUMNS, STATE
from training.checkpoint import config_conflicts
from training.config import CRITIC_INPUTS, TrainConfig, from_mapping
from training.learner import build_learner
from training.rollout import Rollout

SMALL = dict(
    num_envs=16, rollout_steps=8, hidden=[16], critic_hidden=[8], card_scorer=0, rollout_workers=0, bc_decisions=0
)


def test_position_is_the_state_without_the_history_of_play():
    assert [name for name in STATE.blocks if name not in POSITION.blocks] == list(HISTORY_BLOCKS)
    assert POSITION.size == STATE.size - sum(STATE.block(name).size for name in HISTORY_BLOCKS)
    for name, block in POSITION.blocks.items():  # every other block, same size, in the state's order
        np.testing.assert_array_equal(
            POSITION_COLUMNS[block.slice], np.arange(STATE.block(name).start, STATE.block(name).stop)
        )
    assert critic_layout(POSITION.size) == POSITION.describe()


@pytest.mark.parametrize("critic_input", sorted(CRITIC_INPUTS))
def test_each_critic_input_is_its_layouts_columns_of_the_tables(critic_input):
    config = dataclasses.replace(TrainConfig(), **SMALL, critic_input=critic_input)
    rollout = Rollout(config, load_rules("standard"), np.random.default_rng(0))
    rollout.start(0, np.random.default_rng(0))
    rng = np.random.default_rng(1)
    for _ in range(30):  # into the card play, where the history is not empty
        rollout.step(rollout.new_store(), np.array([rng.choice(np.flatnonzero(m)) for m in rollout.mask]))
    rows = np.array([0, 3, 4, 9, 15])
    got = rollout.critic_input(rows)
    expected = {
        "state": rollout.parts[0].env.state()[rows],
        "observation": rollout.obs[rows],
        "position": rollout.parts[0].env.state()[rows][:, POSITION_COLUMNS],
    }[critic_input]
    np.testing.assert_array_equal(got, expected)
    assert got.shape[1] == rollout.critic_size == CRITIC_INPUTS[critic_input].size
    if critic_input != "observation":  # the state holds the history; the position does not
        played = rollout.parts[0].env.state()[rows][:, STATE["played"]]
        assert played.any() and (critic_input == "state") == (got.shape[1] == STATE.size)


def test_the_critic_reads_its_input_with_its_own_hidden_sizes():
    learner = build_learner(
        TrainConfig(hidden=[32, 16], critic_hidden=[12, 6], critic_input="position"), torch.device("cpu")
    )
    assert learner.policy.hidden == (32, 16) and learner.critic.hidden == (12, 6)
    assert learner.critic.input_size == POSITION.size
    observation_critic = build_learner(TrainConfig(critic_input="observation", critic_hidden=[8]), torch.device("cpu"))
    assert observation_critic.critic.input_size == OBSERVATION.size


@pytest.mark.parametrize("bad", [[], [0], [16, -1], [True], ["64"]])
def test_critic_hidden_must_list_positive_integer_sizes(bad):
    with pytest.raises(ValueError, match="critic_hidden"):
        from_mapping({"critic_hidden": bad})


def test_an_unknown_critic_input_names_the_choices():
    with pytest.raises(ValueError, match="'observation', 'position', 'state'"):
        from_mapping({"critic_input": "oracle"})


def test_a_checkpoint_from_before_critic_hidden_resumes_with_the_policys_hidden_sizes():
    older = {k: v for k, v in TrainConfig(hidden=[256, 256]).to_dict().items() if k != "critic_hidden"}
    assert config_conflicts(older, TrainConfig(hidden=[256, 256], critic_hidden=[256, 256])) == []
    assert config_conflicts(older, TrainConfig(hidden=[256, 256], critic_hidden=[256, 128])) == [
        "critic_hidden: [256, 256] -> [256, 128]"
    ]  # named, not guessed
