"""Issue 30, items 11-13: agent options are checked when the agent is built, masking holds at any temperature, and
a malformed mask is refused rather than read."""

from __future__ import annotations

import math

import numpy as np
import pytest

import spades_env
from spades_env.agents import make_agent

BAD_OPTIONS = [
    ("pimc", {"bid_sigma": 0}),
    ("pimc", {"bid_sigma": math.nan}),
    ("pimc", {"time_limit": -1}),
    ("pimc", {"time_limit": 0}),
    ("pimc", {"time_limit": math.nan}),
    ("pimc", {"margin": math.nan}),
    ("pimc", {"play_eps": 5}),
    ("pimc", {"bag_cost": -50}),
    ("pimc", {"samples": 2.5}),
    ("pimc", {"samples": 10**7}),
    ("pimc", {"oversample": 10**6}),
    ("search", {"time_limit": math.nan}),
    ("search", {"samples": 2.5}),
    ("search", {"bag_cost": -50}),
    ("ppo", {"temperature": math.inf}),
    ("ppo", {"temperature": math.nan}),
    ("ppo", {"temperature": 0}),
    ("heuristic", {"bias": math.nan}),
]


@pytest.mark.parametrize("name, options", BAD_OPTIONS, ids=[f"{n}-{o}" for n, o in BAD_OPTIONS])
def test_item11_agent_options_are_checked_when_built(name, options):
    option = next(iter(options))
    with pytest.raises(ValueError, match=option):
        make_agent(name, **options)


def test_item12_masking_holds_at_any_temperature():
    env = spades_env.raw_env()
    env.reset(seed=4)
    agent = make_agent("ppo", greedy=False, temperature=1e9, seed=0)
    rng = np.random.default_rng(4)
    picks = 0
    while not env.episode_over and picks < 300:
        obs = env.observe(env.agent_selection)
        action = agent.act(obs)
        assert obs["action_mask"][action] == 1, f"illegal action {action} at temperature 1e9"
        env.step(action if rng.random() < 0.5 else int(rng.choice(env.legal_actions())))
        picks += 1
    assert picks > 40


@pytest.mark.parametrize("name", ["heuristic", "pimc", "search", "ppo", "random"])
def test_item13_a_mask_of_other_values_is_refused(name):
    env = spades_env.raw_env()
    env.reset(seed=1)
    obs = env.observe(env.agent_selection)
    odd = dict(obs, action_mask=obs["action_mask"] * 0.5)
    with pytest.raises(ValueError, match="0 and 1 only"):
        make_agent(name, seed=0).act(odd)
