"""Every registered agent is complete: built by name, it plays whole hands of different tables through the AEC
env with ``act(observation) -> action`` and only legal actions (the test a new agent must pass)."""

from __future__ import annotations

import numpy as np
import pytest

import spades_env
from spades_env.agents import available_agents, make_agent

TABLES = ("standard", "cutthroat3", "pagat")  # partners, three players, the blind nil exchange
FAST_OPTIONS = {
    "pimc": {"samples": 4, "bid_samples": 4, "seed": 0},  # a test needs legality, not strength
    "search": {"samples": 4, "seed": 0},
}


@pytest.mark.parametrize("name", sorted(available_agents()))
def test_every_registered_agent_plays_legal_hands(name):
    agent = make_agent(name, **FAST_OPTIONS.get(name, {}))
    for rules in TABLES:
        env = spades_env.raw_env(rules=rules, episode="hand")
        env.reset(seed=5)
        decisions = 0
        for seat in env.agent_iter():
            obs, _, terminated, truncated, _ = env.last()
            if terminated or truncated:
                env.step(None)
                continue
            action = agent.act(obs)
            assert np.issubdtype(type(action), np.integer) or isinstance(action, int), (name, type(action))
            assert obs["action_mask"][int(action)] == 1, (name, rules, seat, int(action))
            env.step(int(action))
            decisions += 1
        assert decisions >= 13 * env.num_agents, (name, rules)
