"""env()'s lean wrapper behaves exactly as PettingZoo's stock three-wrapper stack.

Seeded random games (legal, illegal, out-of-range and late actions, observes of
other agents, ``last(observe=False)``) go through both; every answer, every
raised error (type and message) and every logged warning must match.
"""

from __future__ import annotations

import logging
import random

import numpy as np
import pytest
from pettingzoo.test import api_test, seed_test
from pettingzoo.utils import wrappers
from pettingzoo.utils.env_logger import EnvLogger

import spades_env
from spades_env.aec import ENV_NAME, ILLEGAL_ACTION_REWARD
from spades_env.core.actions import NUM_ACTIONS
from spades_env.wrappers import LeanWrapper

BEFORE_RESET_ATTRIBUTES = (
    "rewards",
    "terminations",
    "truncations",
    "infos",
    "agent_selection",
    "num_agents",
    "agents",
    "_cumulative_rewards",
    "possible_agents",
    "rules",
    "_game",
)
BEFORE_RESET_CALLS = (
    ("step", (0,)),
    ("observe", ("player_0",)),
    ("state", ()),
    ("render", ()),
    ("agent_iter", ()),
    ("last", ()),
)


def stock_env(**kwargs):
    """The stack env() used to build: TerminateIllegal -> AssertOutOfBounds -> OrderEnforcing."""
    environment = spades_env.raw_env(**kwargs)
    environment = wrappers.TerminateIllegalWrapper(environment, illegal_reward=ILLEGAL_ACTION_REWARD)
    environment = wrappers.AssertOutOfBoundsWrapper(environment)
    return wrappers.OrderEnforcingWrapper(environment)


class WarningLog(logging.Handler):
    """Collects PettingZoo's EnvLogger warnings."""

    def __init__(self):
        super().__init__()
        self.messages: list[str] = []

    def emit(self, record):
        self.messages.append(record.getMessage())


@pytest.fixture
def warning_log():
    logger = EnvLogger.get_logger()
    handler = WarningLog()
    logger.addHandler(handler)
    yield handler
    logger.removeHandler(handler)


def outcome(call):
    """(value, None) or (None, (error type, message)) of a call."""
    try:
        return call(), None
    except Exception as exc:  # noqa: BLE001 - the error itself is what is compared
        return None, (type(exc), str(exc))


def same(a, b) -> bool:
    """Deep equality of answers that may hold numpy arrays."""
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        return isinstance(a, np.ndarray) and isinstance(b, np.ndarray) and a.dtype == b.dtype and np.array_equal(a, b)
    if isinstance(a, dict):
        return isinstance(b, dict) and a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    if isinstance(a, (list, tuple)):
        return type(a) is type(b) and len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    return type(a) is type(b) and a == b


def check_same(lean, stock, call):
    """Run ``call`` on both envs; their answers or errors must match."""
    got, want = outcome(lambda: call(lean)), outcome(lambda: call(stock))
    assert same(got[0], want[0]) and got[1] == want[1], (got, want)
    return got


def snapshot(env):
    """Everything a user can read off the env after a call."""
    if not env.agents:
        return env.agents, env.rewards, env.terminations, env.truncations, env.infos
    return (
        env.agents,
        env.agent_selection,
        env.rewards,
        env._cumulative_rewards,
        env.terminations,
        env.truncations,
        env.infos,
    )


def chosen_action(rng: random.Random, mask: np.ndarray | None):
    """Mostly legal actions, sometimes illegal, out-of-range, None or numpy-typed ones."""
    roll = rng.random()
    legal = np.flatnonzero(mask) if mask is not None else np.array([], dtype=int)
    if roll < 0.9 and len(legal):
        return int(rng.choice(legal))
    if roll < 0.93:
        return rng.randrange(NUM_ACTIONS)  # often illegal
    if roll < 0.95:
        return rng.choice([NUM_ACTIONS, -1, 1000])
    if roll < 0.97:
        return None
    if roll < 0.985 and len(legal):
        return np.int64(rng.choice(legal))
    return rng.choice([1.0, "3", np.int32(2)])


@pytest.mark.parametrize(
    "rules, episode", [("standard", "hand"), ("standard", "game"), ("cutthroat3", "hand"), ("crazy", "hand")]
)
def test_lean_wrapper_matches_the_stock_stack_move_by_move(rules, episode, warning_log):
    lean, stock = spades_env.env(rules=rules, episode=episode), stock_env(rules=rules, episode=episode)
    rng = random.Random(f"{rules}-{episode}")
    games = 12 if episode == "hand" else 3
    for game in range(games):
        check_same(lean, stock, lambda e: e.reset(seed=game))
        warning_log.messages.clear()
        for turn in range(2000):
            if not stock.agents and rng.random() < 0.7:
                break
            (last, error) = check_same(lean, stock, lambda e: e.last(observe=turn % 7 != 3))
            if rng.random() < 0.1:
                other = rng.choice(stock.possible_agents)
                check_same(lean, stock, lambda e: e.observe(other))
            mask = last[0]["action_mask"] if last is not None and last[0] is not None else None
            action = chosen_action(rng, mask)
            before = len(warning_log.messages)
            check_same(lean, stock, lambda e: e.step(action))
            assert len(warning_log.messages) - before in (0, 2)  # one warning from each env, or none
            assert len(set(warning_log.messages[before:])) <= 1
            assert same(snapshot(lean), snapshot(stock))
        check_same(lean, stock, lambda e: e.state())


def test_illegal_action_terminates_and_truncates_with_minus_one_for_the_offender(warning_log):
    for env in (spades_env.env(), stock_env()):
        env.reset(seed=1)
        obs, *_ = env.last()
        offender = env.agent_selection
        env.step(int(np.flatnonzero(obs["action_mask"] == 0)[0]))
        assert env.rewards[offender] == ILLEGAL_ACTION_REWARD
        assert all(env.terminations.values()) and all(env.truncations.values())
    assert len(warning_log.messages) == 2 and warning_log.messages[0] == warning_log.messages[1]


@pytest.mark.parametrize("name", BEFORE_RESET_ATTRIBUTES)
def test_attribute_before_reset_answers_as_the_stock_stack(name):
    check_same(spades_env.env(), stock_env(), lambda e: getattr(e, name))


@pytest.mark.parametrize("name, args", BEFORE_RESET_CALLS)
def test_call_before_reset_answers_as_the_stock_stack(name, args):
    check_same(spades_env.env(), stock_env(), lambda e: getattr(e, name)(*args))


def test_agent_iter_demands_a_step_between_agents():
    for env in (spades_env.env(), stock_env()):
        env.reset(seed=0)
        agents = iter(env.agent_iter())
        next(agents)
        with pytest.raises(AssertionError, match="need to call step"):
            next(agents)


def test_lean_wrapper_is_each_stock_wrapper_and_reaches_the_raw_env():
    env = spades_env.env(rules="pagat", render_mode="ansi")
    for stock in (wrappers.OrderEnforcingWrapper, wrappers.AssertOutOfBoundsWrapper, wrappers.TerminateIllegalWrapper):
        assert isinstance(env, stock)
    assert isinstance(env, LeanWrapper) and isinstance(env.unwrapped, spades_env.raw_env)
    assert env.unwrapped is env.env
    env.reset(seed=3)
    assert env.rules is env.unwrapped.rules and env.hand is env.unwrapped.hand
    assert env.render() == env.unwrapped.render()
    assert np.array_equal(env.state(), env.unwrapped.state())
    assert env.observation_space("player_0") is env.unwrapped.observation_space("player_0")
    assert env.action_space("player_1") is env.unwrapped.action_space("player_1")
    assert str(env) == str(stock_env()) == ENV_NAME
    env.close()


@pytest.mark.parametrize("episode", ["game", "hand"])
def test_pettingzoo_api_and_seed_tests_pass_on_the_lean_env(episode):
    api_test(spades_env.env(episode=episode), num_cycles=40)
    seed_test(lambda: spades_env.env(episode=episode), num_cycles=40)
