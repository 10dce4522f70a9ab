"""infos with ``info_format="full"``: the phase is always named; hand_result appears for every agent right after a
hand ends. (The default numeric infos: test_numeric_infos.)"""

from __future__ import annotations

import pytest

import spades_env
from spades_env.aec import PHASE_NAMES
from spades_env.core.hand import Phase

from .helpers import SPADES_TO_SEAT_0, done, play_scripted_hand, random_policy

HAND_RESULT_KEYS = {"points", "scores", "bags", "bids", "tricks"}


def check_phase(env):
    expected = PHASE_NAMES[env.hand.phase]
    for agent in env.agents:
        assert env.infos[agent]["phase"] == expected, agent


def check_hand_result(env):
    result = env.game.results[-1]
    for agent in env.agents:
        info = env.infos[agent]["hand_result"]
        assert HAND_RESULT_KEYS <= set(info)
        assert info["points"] == list(result.points)
        assert info["scores"] == list(result.scores)
        assert info["bags"] == list(result.bags)
        assert info["bids"] == [str(b) for b in result.bids]
        assert info["tricks"] == list(result.tricks)
        assert len(info["bids"]) == len(info["tricks"]) == env.rules.num_players
        assert len(info["points"]) == len(info["scores"]) == len(info["bags"]) == env.rules.num_sides
        assert sum(info["tricks"]) == env.rules.hand_rules(result.hand_index).num_tricks
        assert info["hand_index"] == len(env.game.results) - 1


@pytest.mark.parametrize("rules_name", ["standard", "pagat", "online", "barmore", "cutthroat3", "crazy"])
def test_phase_always_present_and_hand_result_after_each_hand(rules_name):
    rules = spades_env.load_rules(rules_name).replace(max_hands=3)
    env = spades_env.raw_env(rules=rules, episode="game", info_format="full")
    env.reset(seed=21, options={"scores": [0] + [150] * (rules.num_sides - 1)})
    check_phase(env)
    assert all("hand_result" not in env.infos[a] for a in env.agents)
    choose = random_policy(4)
    hands_seen = 0
    phases = set()
    while not done(env):
        env.step(choose(env))
        check_phase(env)
        phases.add(env.infos[env.agent_selection]["phase"])
        if len(env.game.results) > hands_seen:
            hands_seen = len(env.game.results)
            check_hand_result(env)
        else:
            assert all("hand_result" not in env.infos[a] for a in env.agents)
    assert hands_seen == 3
    assert env.infos["player_0"]["phase"] == "over"
    assert "play" in phases


def test_hand_result_values_on_a_literal_deal():
    env = spades_env.raw_env(episode="hand", info_format="full")
    env.reset(options={"deal": SPADES_TO_SEAT_0, "dealer": 3, "scores": [30, 40], "bags": [2, 9]})
    play_scripted_hand(env, {0: 6, 1: 1, 2: 6, 3: 1})
    for agent in env.possible_agents:
        info = env.infos[agent]
        assert info["phase"] == "over"
        hr = info["hand_result"]
        assert hr["bids"] == [str(b) for b in env.hand.bids]
        assert hr["tricks"] == [13, 0, 0, 0]
        assert hr["points"] == [121, -20]
        assert hr["scores"] == [151, 20]
        assert hr["bags"] == [3, 9]
        assert hr["dealer"] == 3


def test_phase_names_cover_every_phase():
    assert set(PHASE_NAMES) == set(Phase)
    assert set(PHASE_NAMES.values()) == {"draw", "blind", "bid", "exchange", "play", "over"}


def test_hand_result_is_cleared_by_the_next_action():
    env = spades_env.raw_env(episode="game", info_format="full")
    env.reset(options={"deal": SPADES_TO_SEAT_0, "dealer": 3})
    play_scripted_hand(env, {0: 6, 1: 1, 2: 6, 3: 1})
    assert all("hand_result" in env.infos[a] for a in env.agents)
    assert env.infos["player_0"]["phase"] == PHASE_NAMES[env.hand.phase]  # the next hand's phase
    env.step(env.legal_actions()[0])
    assert all("hand_result" not in env.infos[a] for a in env.agents)
    check_phase(env)
