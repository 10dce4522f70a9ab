"""The incremental encoder (ObservationTracker, used by observe()) equals the reference encoder
at every step, and the action mask is the hand's legal mask for the agent to act only."""

from __future__ import annotations

import numpy as np
import pytest

import spades_env
from spades_env.core.actions import NUM_ACTIONS, mask_array
from spades_env.core.hand import Phase
from spades_env.core.scoring import BidKind
from spades_env.obs.encode import OBS_SLICES, encode_observation
from tests.env.helpers import PRESET_NAMES, play_to_end


def behind_scores(rules) -> list[int]:
    """Scores with side 0 behind by 150 (blind nil becomes legal for it)."""
    return [0] + [150] * (rules.num_sides - 1)


def check_all_agents(env) -> None:
    hand = env.hand
    for agent in env.possible_agents:
        seat = int(agent.split("_")[1])
        got = env.observe(agent)
        ref = encode_observation(hand, env.game.scores, env.game.bags, env.rules, seat)
        diff = np.flatnonzero(got["observation"] != ref)
        assert not len(diff), f"{agent}: cells {diff[:10]} differ after {len(hand.history)} actions"
        acting = agent == env.agent_selection and not (env.terminations[agent] or env.truncations[agent])
        expected_mask = mask_array(hand.legal_mask()) if acting else np.zeros(NUM_ACTIONS, np.int8)
        np.testing.assert_array_equal(got["action_mask"], expected_mask, err_msg=agent)
        if acting:
            assert got["action_mask"].any()
            assert hand.current == seat


@pytest.mark.parametrize("behind", [False, True], ids=["level", "behind"])
@pytest.mark.parametrize("rules_name", PRESET_NAMES)
def test_incremental_observation_equals_reference_in_game_mode(rules_name, behind):
    rules = spades_env.load_rules(rules_name).replace(max_hands=3)
    env = spades_env.raw_env(rules=rules, episode="game")
    env.reset(seed=17, options={"scores": behind_scores(rules)} if behind else None)
    check_all_agents(env)
    seen = set()

    def on_step(env, agent, action):
        seen.add(env.hand.phase)
        check_all_agents(env)

    play_to_end(env, seed=5, on_step=on_step)
    assert Phase.PLAY in seen
    assert len(env.game.results) >= 1


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("rules_name", PRESET_NAMES)
def test_incremental_observation_equals_reference_in_hand_mode(rules_name, seed):
    env = spades_env.raw_env(rules=rules_name, episode="hand")
    rules = env.rules
    env.reset(seed=seed, options={"scores": behind_scores(rules)} if seed == 1 else None)
    check_all_agents(env)
    play_to_end(env, seed=seed + 100, on_step=lambda env, a, x: check_all_agents(env))


@pytest.mark.parametrize("rules_name", ["pagat", "standard", "online"])
def test_incremental_observation_through_blind_nil_exchanges(rules_name):
    """Blind nil chosen whenever legal (once per side), so exchanges (pagat) and blind decisions are covered."""
    rules = (
        spades_env.load_rules(rules_name).replace(blind_nil_exchange=3)
        if rules_name == "standard"
        else spades_env.load_rules(rules_name)
    )
    env = spades_env.raw_env(rules=rules, episode="hand")
    exchanged = 0
    for seed in range(4):
        env.reset(seed=seed, options={"scores": [0, 300]})
        rng = np.random.default_rng(seed)
        check_all_agents(env)
        while not (env.terminations[env.agent_selection] or env.truncations[env.agent_selection]):
            legal = env.legal_actions()
            partner = (env.hand.current + 2) % 4
            blind = 72 in legal and env.hand.bid_kinds[partner] != BidKind.BLIND_NIL  # one blind nil per side
            action = 72 if blind else int(rng.choice(legal))
            exchanged += env.hand.phase == Phase.EXCHANGE
            env.step(action)
            check_all_agents(env)
    if rules.blind_nil_exchange:
        assert exchanged > 0


def test_observe_returns_a_fresh_array():
    env = spades_env.raw_env()
    env.reset(seed=0)
    first = env.observe("player_0")
    first["observation"][:] = 7.0
    first["action_mask"][:] = 1
    again = env.observe("player_0")
    assert not (again["observation"] == 7.0).all()
    assert again["observation"][OBS_SLICES["target_score"]][0] == pytest.approx(0.5)
    check_all_agents(env)
