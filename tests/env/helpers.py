"""Shared helpers for the environment tests: literal deals, random play, snapshots."""

from __future__ import annotations

import copy
from typing import Any

import numpy as np

import spades_env
from spades_env.core.cards import cards_of, format_card

RANKS = "23456789TJQKA"
PRESET_NAMES = sorted(spades_env.PRESETS)


def suit(s: str, ranks: str = RANKS) -> list[str]:
    """Cards of one suit as strings, e.g. suit("C") -> ["2C", ..., "AC"]."""
    return [r + s for r in ranks]


# Dealer 0: seat 1 bids first and leads; it holds three top hearts and ten spades.
# Seat 2 (diamonds and the AS) has no heart, seat 3 follows hearts, seat 0 holds all clubs.
MIXED_DEAL = [
    suit("C"),
    ["AH", "KH", "QH"] + suit("S", "23456789TJ"),
    suit("D", "3456789TJQKA") + ["AS"],
    suit("H", "23456789TJ") + ["2D", "QS", "KS"],
]


def cards(mask: int) -> set[str]:
    """Card strings of a bitboard."""
    return {format_card(c) for c in cards_of(mask)}


def block_cards(block: np.ndarray) -> set[str]:
    """Card strings set in a 54-wide observation block."""
    return {format_card(int(c)) for c in np.flatnonzero(block > 0.5)}


def done(env) -> bool:
    """Whether the agent to act in a raw env has terminated or truncated."""
    a = env.agent_selection
    return bool(env.terminations[a] or env.truncations[a])


def random_policy(seed: int):
    """A seeded chooser of a uniformly random legal action of a raw env."""
    rng = np.random.default_rng(seed)

    def choose(env) -> int:
        legal = env.legal_actions()
        return int(legal[rng.integers(len(legal))])

    return choose


def play_to_end(env, seed: int = 0, on_step=None, max_steps: int = 100_000) -> int:
    """Step a raw env with random legal actions until the episode ends; returns the number of steps.

    ``on_step(env, agent, action)`` is called after every step."""
    choose = random_policy(seed)
    steps = 0
    while not done(env):
        agent = env.agent_selection
        action = choose(env)
        env.step(action)
        steps += 1
        if on_step is not None:
            on_step(env, agent, action)
        assert steps < max_steps
    return steps


def snapshot(env) -> dict[str, Any]:
    """Everything observable about a raw env (observations, masks, selection, scores, history)."""
    return {
        "obs": {a: {k: v.copy() for k, v in env.observe(a).items()} for a in env.possible_agents},
        "state": env.state().copy(),
        "agent_selection": env.agent_selection,
        "scores": list(env.game.scores),
        "bags": list(env.game.bags),
        "dealer": env.game.dealer,
        "history": list(env.hand.history),
        "hands": list(env.hand.hands),
        "terminations": dict(env.terminations),
        "truncations": dict(env.truncations),
        "rewards": dict(env.rewards),
        "infos": copy.deepcopy(env.infos),
        "record": env.game_record(),
    }


def same_value(a: Any, b: Any) -> bool:
    """Equality that reads arrays (dtype and values) inside dicts and lists, as infos hold them."""
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        return isinstance(a, np.ndarray) and isinstance(b, np.ndarray) and a.dtype == b.dtype and np.array_equal(a, b)
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(same_value(a[k], b[k]) for k in a)
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return type(a) is type(b) and len(a) == len(b) and all(same_value(x, y) for x, y in zip(a, b))
    return type(a) is type(b) and a == b


def assert_same_snapshot(a: dict[str, Any], b: dict[str, Any]) -> None:
    """Compare two snapshots field by field (arrays exactly)."""
    assert a.keys() == b.keys()
    for agent in a["obs"]:
        for key in ("observation", "action_mask"):
            np.testing.assert_array_equal(a["obs"][agent][key], b["obs"][agent][key], err_msg=f"{agent} {key}")
    np.testing.assert_array_equal(a["state"], b["state"])
    for key in a:
        if key not in ("obs", "state"):
            assert same_value(a[key], b[key]), key


# Seat 0 holds every spade (and leads first with dealer 3): it wins all 13 tricks.
SPADES_TO_SEAT_0 = [suit("S"), suit("C"), suit("D"), suit("H")]


def play_scripted_hand(env, bids: dict[int, int]) -> None:
    """Play the current hand of a raw env: each seat bids ``bids[seat]`` (looking first where
    a blind decision is offered), then everyone plays its lowest legal card (exchange passes
    included) until the hand ends."""
    from spades_env.core.actions import SEE_CARDS, bid_action
    from spades_env.core.hand import Phase

    start = len(env.game.results)
    while env.hand.phase in (Phase.BLIND, Phase.BID):
        action = bid_action(bids[env.hand.current])
        if env.hand.phase == Phase.BLIND and action not in env.legal_actions():
            env.step(SEE_CARDS)
        env.step(action)
    while len(env.game.results) == start:
        env.step(env.legal_actions()[0])
