"""The AEC env reads the core: HandState.apply says what an action did, the env keeps no copy of the
hand's state or history, and no module of the env layer reaches into another object's private attributes."""

from __future__ import annotations

import ast
from pathlib import Path

import numpy as np
import pytest

import spades_env
from spades_env.core.deal import make_deal
from spades_env.core.hand import NO_SEAT, HandState, Phase, Transition

from .helpers import MIXED_DEAL, PRESET_NAMES, done, play_to_end

PACKAGE = Path(spades_env.__file__).resolve().parent
ENV_LAYER_FILES = [
    "aec.py",
    "gym_env.py",
    "records.py",
    "render.py",
    "registration.py",
    "nn/sparse.py",
    "nn/nets.py",
    "nn/policy_file.py",
    "obs/layout.py",
    "obs/features.py",
    "obs/encode.py",
    "obs/decode.py",
    "obs/tracker.py",
    "agents/policy.py",
]


def mixed_hand() -> HandState:
    rules = spades_env.load_rules("standard")
    return HandState(rules, make_deal(rules, MIXED_DEAL), dealer=0)


def test_apply_returns_what_a_bid_did():
    hand = mixed_hand()
    seat = hand.current
    done_ = hand.apply(hand.legal_actions()[0])
    assert isinstance(done_, Transition)
    assert (done_.seat, done_.phase, done_.trick_winner, done_.hand_over) == (seat, Phase.BID, NO_SEAT, False)
    assert hand.last_transition is done_
    assert hand.history[-1] == (done_.seat, done_.action)


def test_apply_names_the_trick_winner_only_on_the_card_that_completes_the_trick():
    hand = mixed_hand()
    while hand.phase != Phase.PLAY:
        hand.apply(hand.legal_actions()[-1])
    transitions = [hand.apply(hand.legal_actions()[0]) for _ in range(hand.num_players)]
    assert [t.trick_winner for t in transitions[:-1]] == [NO_SEAT] * (hand.num_players - 1)
    assert transitions[-1].trick_winner == hand.last_trick[3]
    assert all(t.phase == Phase.PLAY and not t.hand_over for t in transitions)


@pytest.mark.parametrize("rules_name", PRESET_NAMES)
def test_only_the_last_card_of_a_hand_is_marked_hand_over(rules_name):
    rules = spades_env.load_rules(rules_name)
    env = spades_env.raw_env(rules=rules, episode="hand")
    env.reset(seed=3)
    hand = env.hand
    rng = np.random.default_rng(0)
    transitions = []
    while not hand.is_over:
        transitions.append(hand.clone().apply(int(rng.choice(hand.legal_actions()))))  # the clone's copy
        hand.apply(transitions[-1].action)
        assert hand.last_transition == transitions[-1]
    assert [t.hand_over for t in transitions] == [False] * (len(transitions) - 1) + [True]


def test_env_hand_is_the_games_hand_while_the_episode_runs():
    env = spades_env.raw_env(episode="game")
    env.reset(seed=4)
    for _ in range(60):  # into the second hand
        assert env.hand is env.game.hand
        env.step(env.legal_actions()[0])
    assert env.hand is env.game.hand and env.hand_index == env.game.hand_index == 1


def test_hand_episode_shows_the_finished_hand_and_its_index():
    env = spades_env.raw_env(episode="hand")
    env.reset(seed=4)
    first = env.hand
    play_to_end(env, seed=1)
    assert env.episode_over and env.hand is first and first.is_over
    assert env.hand_index == 0
    assert env.game.hand is not first  # the game itself has dealt on


def test_game_record_actions_are_the_hands_histories_in_order():
    env = spades_env.raw_env(rules=spades_env.load_rules("standard").replace(max_hands=3))
    env.reset(seed=6)
    histories = []

    def on_step(env, agent, action):
        histories.append(action)

    play_to_end(env, seed=2, on_step=on_step)
    assert env.game_record()["actions"] == histories
    assert env.game_record()["over"] is True


def test_env_keeps_no_copy_of_the_action_history():
    env = spades_env.raw_env()
    env.reset(seed=1)
    env.step(env.legal_actions()[0])
    lists = [
        name
        for name, value in vars(env).items()
        if isinstance(value, list) and value and all(isinstance(x, int) for x in value)
    ]
    assert lists == [], f"lists of actions held by the env: {lists}"


def test_step_after_the_game_ends_is_never_taken_by_the_core():
    env = spades_env.raw_env(episode="hand")
    env.reset(seed=2)
    play_to_end(env, seed=2)
    assert done(env)
    before = len(env.hand.history)
    env.step(None)  # removes the agent; the core is not asked to act
    assert len(env.hand.history) == before


def _private_reaches(path: Path) -> list[str]:
    """`x._name` where x is not self, cls or super(): a reach into another object's private attribute."""
    found = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Attribute) and node.attr.startswith("_") and not node.attr.startswith("__"):
            owner = node.value
            if isinstance(owner, ast.Name) and owner.id in ("self", "cls"):
                continue
            if isinstance(owner, ast.Call) and isinstance(owner.func, ast.Name) and owner.func.id == "super":
                continue
            found.append(f"{path.name}:{node.lineno} .{node.attr}")
    return found


@pytest.mark.parametrize("name", ENV_LAYER_FILES)
def test_env_layer_module_touches_no_other_objects_private_attributes(name):
    assert _private_reaches(PACKAGE / name) == []
