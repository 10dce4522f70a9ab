"""Cloning for search: clone(), copy.deepcopy and pickle keep the game in progress, independently."""

from __future__ import annotations

import copy
import pickle

import numpy as np
import pytest

import spades_env
from spades_env import SingleAgentSpadesEnv

COPIERS = {
    "clone": lambda env: env.clone(),
    "deepcopy": copy.deepcopy,
    "pickle": lambda env: pickle.loads(pickle.dumps(env)),
}


def played(rules="standard", episode="game", actions=30, seed=3):
    env = spades_env.raw_env(rules=rules, episode=episode)
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    for _ in range(actions):
        env.step(int(rng.choice(env.legal_actions())))
    return env


def play_out(env, seed, limit=400):
    """Seeded random play from here; returns the actions, rewards and observations it saw."""
    rng = np.random.default_rng(seed)
    trace = []
    for _ in range(limit):
        if env.episode_over:
            break
        action = int(rng.choice(env.legal_actions()))
        env.step(action)
        agent = env.agent_selection
        trace.append((action, dict(env.rewards), env.observe(agent)["observation"].tobytes()))
    return trace


@pytest.mark.parametrize("how", sorted(COPIERS))
@pytest.mark.parametrize("rules", ["standard", "cutthroat3", "crazy"])
def test_copy_keeps_the_game_in_progress(how, rules):
    env = played(rules)
    other = COPIERS[how](env)
    assert other is not env and other.game is not env.game
    assert other.game_record() == env.game_record()
    assert other.agent_selection == env.agent_selection
    for agent in env.possible_agents:
        np.testing.assert_array_equal(other.observe(agent)["observation"], env.observe(agent)["observation"])
        np.testing.assert_array_equal(other.observe(agent)["action_mask"], env.observe(agent)["action_mask"])
    np.testing.assert_array_equal(other.state(), env.state())


@pytest.mark.parametrize("how", sorted(COPIERS))
def test_copy_continues_identically_under_the_same_actions(how):
    env = played()
    other = COPIERS[how](env)
    assert play_out(other, seed=5) == play_out(env, seed=5)
    assert other.game_record() == env.game_record()


@pytest.mark.parametrize("how", sorted(COPIERS))
def test_copy_is_independent_of_the_original(how):
    env = played()
    before = env.game_record()
    other = COPIERS[how](env)
    play_out(other, seed=9, limit=60)
    assert env.game_record() == before  # the original did not move
    assert other.game_record()["actions"][: len(before["actions"])] == before["actions"]
    assert len(other.game_record()["actions"]) > len(before["actions"])


def test_copy_deals_the_next_hands_as_the_original_would():
    env = played(episode="game", actions=0)
    other = env.clone()
    for e in (env, other):  # finish two hands: the next deals come from each copy's own generator
        while len(e.game.results) < 2:
            e.step(e.legal_actions()[0])
    assert other.game_record()["deals"] == env.game_record()["deals"]


def test_wrapped_env_clones_through_unwrapped():
    env = spades_env.env()
    env.reset(seed=1)
    for _ in range(10):
        env.step(int(np.flatnonzero(env.observe(env.agent_selection)["action_mask"])[0]))
    other = env.unwrapped.clone()
    assert other.game_record() == env.unwrapped.game_record()
    assert play_out(other, seed=2) == play_out(env.unwrapped, seed=2)


@pytest.mark.parametrize("how", sorted(COPIERS))
def test_gym_env_copy_continues_identically_with_its_opponents(how):
    env = SingleAgentSpadesEnv(seat=1)
    env.reset(seed=4)
    env.step(int(np.flatnonzero(env.action_masks())[0]))
    other = COPIERS[how](env)
    assert other.aec is not env.aec
    traces = []
    for e in (env, other):
        rng = np.random.default_rng(0)
        trace, done = [], False
        while not done:
            obs, reward, terminated, truncated, _ = e.step(int(rng.choice(np.flatnonzero(e.action_masks()))))
            trace.append((obs.tobytes(), reward))
            done = terminated or truncated
        traces.append((trace, e.aec.game_record()))
    assert traces[0] == traces[1]


def test_a_fresh_env_copies_too():
    env = spades_env.raw_env()
    other = env.clone()
    other.reset(seed=0)
    assert env.game is None and other.game is not None


@pytest.mark.parametrize("how", ["deepcopy", "pickle"])
def test_wrapped_env_copies_with_its_wrappers(how):
    env = spades_env.env()
    env.reset(seed=6)
    for _ in range(12):
        env.step(int(np.flatnonzero(env.observe(env.agent_selection)["action_mask"])[0]))
    other = COPIERS[how](env)
    assert type(other) is type(env) and other.unwrapped is not env.unwrapped
    assert other.unwrapped.game_record() == env.unwrapped.game_record()
    other.step(int(np.flatnonzero(other.observe(other.agent_selection)["action_mask"])[0]))
    assert len(other.unwrapped.game_record()["actions"]) == len(env.unwrapped.game_record()["actions"]) + 1
