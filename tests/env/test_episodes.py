"""Episode modes: one hand, or a game to the target score (truncated at max_hands)."""

from __future__ import annotations

import numpy as np
import pytest

import spades_env
from spades_env import preset
from spades_env.core.hand import Phase
from spades_env.obs.encode import OBS_SLICES

from .helpers import SPADES_TO_SEAT_0, done, play_scripted_hand, play_to_end


@pytest.mark.parametrize("rules", ["standard", "cutthroat3", "crazy"])
def test_hand_mode_ends_after_one_hand(rules):
    env = spades_env.raw_env(rules=rules, episode="hand")
    env.reset(seed=1)
    play_to_end(env, seed=1)
    assert len(env.game.results) == 1
    assert all(env.terminations.values()) and not any(env.truncations.values())
    assert env.hand.phase == Phase.OVER
    for agent in env.possible_agents:
        obs = env.observe(agent)
        assert not obs["action_mask"].any()
        assert obs["observation"][OBS_SLICES["phase"]][Phase.OVER] == 1.0
        assert env.infos[agent]["phase"] == Phase.OVER and env.infos[agent]["hand_over"]


def test_game_mode_plays_on_with_scores_carried():
    env = spades_env.raw_env(episode="game")
    env.reset(options={"deal": SPADES_TO_SEAT_0, "dealer": 3, "scores": [10, 20], "bags": [0, 1]})
    play_scripted_hand(env, {0: 6, 1: 1, 2: 6, 3: 1})
    assert not any(env.terminations.values()) and not any(env.truncations.values())
    assert env.game.scores == [131, 0] and env.game.bags == [1, 1]
    assert env.game.dealer == 0 and env.hand.dealer == 0
    assert env.hand.phase in (Phase.BLIND, Phase.BID) and env.hand.history == []
    assert env.agent_selection == "player_1"
    obs = env.observe("player_0")["observation"]
    np.testing.assert_allclose(obs[OBS_SLICES["scores"]], np.array([131, 0, 131, 0]) / 500, rtol=1e-6)
    np.testing.assert_allclose(obs[OBS_SLICES["bags"]], [0.1, 0.1, 0.1, 0.1], rtol=1e-6)
    assert env.observe("player_1")["action_mask"].any()


def test_game_mode_ends_when_target_reached():
    env = spades_env.raw_env(episode="game")
    env.reset(options={"deal": SPADES_TO_SEAT_0, "dealer": 3, "scores": [450, 0]})
    play_scripted_hand(env, {0: 6, 1: 1, 2: 6, 3: 1})
    assert env.game.winner == 0
    assert all(env.terminations.values()) and not any(env.truncations.values())
    assert env.hand.phase == Phase.OVER  # the finished hand stays observable


@pytest.mark.parametrize("max_hands", [1, 2])
def test_truncation_at_max_hands(max_hands):
    env = spades_env.raw_env(rules=preset("standard").replace(max_hands=max_hands), episode="game")
    env.reset(seed=4)
    play_to_end(env, seed=4)
    assert len(env.game.results) == max_hands
    assert env.game.truncated and env.game.winner is None
    assert all(env.truncations.values()) and not any(env.terminations.values())
    for agent in env.possible_agents:
        assert not env.observe(agent)["action_mask"].any()


def test_hand_mode_ignores_max_hands_truncation():
    env = spades_env.raw_env(rules=preset("standard").replace(max_hands=1), episode="hand")
    env.reset(seed=4)
    play_to_end(env, seed=4)
    assert all(env.terminations.values()) and not any(env.truncations.values())


def test_full_game_reaches_the_target():
    env = spades_env.raw_env(rules=preset("standard").replace(target_score=150, lose_score=-150), episode="game")
    env.reset(seed=12)
    play_to_end(env, seed=12)
    assert done(env)
    assert env.game.winner is not None
    assert max(env.game.scores) >= 150 or min(env.game.scores) <= -150
    assert all(env.terminations.values())
    dealers = [r.dealer for r in env.game.results]
    assert all((b - a) % 4 == 1 for a, b in zip(dealers, dealers[1:]))
