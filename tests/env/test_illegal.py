"""Illegal actions: the bare env raises and keeps its state; env() ends the episode with -1
for the offender; out-of-range actions fail the bounds assertion."""

from __future__ import annotations

import numpy as np
import pytest

import spades_env
from spades_env.core.actions import card_action
from spades_env.core.hand import IllegalActionError, Phase

from .helpers import MIXED_DEAL, assert_same_snapshot, snapshot


def mixed_play_env():
    """Dealer 0; everyone has bid; seat 1 leads holding AH KH QH and ten spades (unbroken)."""
    env = spades_env.raw_env()
    env.reset(options={"deal": MIXED_DEAL, "dealer": 0})
    for n in (4, 2, 3, 0):
        env.step(54 + n)
    assert env.hand.phase == Phase.PLAY and env.agent_selection == "player_1"
    assert env.legal_actions() == [card_action(c) for c in ("QH", "KH", "AH")]
    return env


def test_illegal_bid_phase_action_raises_naming_agent_and_legal_actions():
    env = spades_env.raw_env()
    env.reset(options={"deal": MIXED_DEAL, "dealer": 0})
    before = snapshot(env)
    with pytest.raises(IllegalActionError) as info:
        env.step(card_action("2C"))
    message = str(info.value)
    assert "player_1" in message
    assert "legal" in message and "nil" in message and "bid 13" in message
    assert_same_snapshot(before, snapshot(env))


@pytest.mark.parametrize(
    "action",
    [
        card_action("2S"),  # a spade before spades are broken
        card_action("2C"),  # a card the seat does not hold
        np.int64(card_action("2C")),
        54,  # a bid during play
        90,
        1000,
        -1,  # outside the action space
        None,
        float(card_action("AH")),  # a float equal to a legal action
        np.float64(card_action("AH")),
        True,
        "AH",
    ],
    ids=repr,
)
def test_illegal_play_action_raises_and_leaves_state_unchanged(action):
    env = mixed_play_env()
    before = snapshot(env)
    with pytest.raises(IllegalActionError) as info:
        env.step(action)
    assert "player_1" in str(info.value)
    assert "AH" in str(info.value) and "QH" in str(info.value)
    assert_same_snapshot(before, snapshot(env))
    env.step(card_action("AH"))  # still playable afterwards
    assert env.agent_selection == "player_2"


def test_numpy_integer_actions_are_accepted():
    env = mixed_play_env()
    env.step(np.int64(card_action("KH")))
    assert env.hand.trick_cards == [card_action("KH")]
    assert env.game_record()["actions"][-1] == card_action("KH")
    assert type(env.game_record()["actions"][-1]) is int


def test_step_after_episode_end_requires_none():
    env = spades_env.raw_env(episode="hand")
    env.reset(seed=0)
    while not env.terminations[env.agent_selection]:
        env.step(env.legal_actions()[0])
    assert env.legal_actions() == []
    with pytest.raises(ValueError):
        env.step(0)
    for _ in range(4):
        env.step(None)
    assert env.agents == []


def test_wrapped_env_illegal_action_terminates_everyone_with_penalty():
    env = spades_env.env()
    env.reset(options={"deal": MIXED_DEAL, "dealer": 0})
    offender = env.agent_selection
    obs, *_ = env.last()
    illegal = int(np.flatnonzero(obs["action_mask"] == 0)[0])
    env.step(illegal)  # PettingZoo logs "Illegal move made" and ends the game
    assert all(env.terminations.values())
    assert env.rewards[offender] == -1
    assert all(r == 0 for a, r in env.rewards.items() if a != offender)
    seen = {}
    for agent in env.agent_iter():
        _, reward, termination, truncation, _ = env.last()
        assert termination or truncation
        seen[agent] = reward
        env.step(None)
    assert seen[offender] == -1
    assert all(seen[a] == 0 for a in seen if a != offender)
    assert set(seen) == set(env.possible_agents)


@pytest.mark.parametrize("action", [90, -1, 200])
def test_wrapped_env_out_of_range_action_asserts(action):
    env = spades_env.env()
    env.reset(seed=0)
    with pytest.raises(AssertionError):
        env.step(action)


def test_wrapped_env_enforces_reset_before_use():
    env = spades_env.env()
    with pytest.raises(AssertionError, match="reset"):
        env.step(0)
    with pytest.raises(AssertionError, match="reset"):
        env.observe("player_0")


def test_wrapped_env_legal_play_goes_through():
    env = spades_env.env(episode="hand")
    env.reset(seed=2)
    steps = 0
    for _agent in env.agent_iter():
        obs, reward, termination, truncation, info = env.last()
        if termination or truncation:
            env.step(None)
            continue
        env.step(int(np.flatnonzero(obs["action_mask"])[0]))
        steps += 1
    assert steps >= 52


def test_illegal_action_right_after_a_hand_end_keeps_rewards_and_hand_result():
    from .helpers import SPADES_TO_SEAT_0, play_scripted_hand

    env = spades_env.raw_env(episode="game")
    env.reset(options={"deal": SPADES_TO_SEAT_0, "dealer": 3})
    play_scripted_hand(env, {0: 6, 1: 1, 2: 6, 3: 1})
    assert env.rewards["player_0"] != 0 and env.infos["player_0"]["hand_over"]
    before = snapshot(env)
    with pytest.raises(IllegalActionError):
        env.step(card_action("2C"))  # the new hand starts with bids
    assert_same_snapshot(before, snapshot(env))
