"""Bad input to BatchEnv raises a clear error naming the problem and changes no table."""

from __future__ import annotations

import numpy as np
import pytest

from spades_env.batch import BatchEnv, IllegalActionError

NUM_ENVS = 4


def snapshot(env: BatchEnv) -> dict[str, np.ndarray]:
    """Copies of every array of the engine's state (and the generator's state)."""
    out = {key: value.copy() for key, value in vars(env).items() if isinstance(value, np.ndarray)}
    out["rng"] = env.rng.bit_generator.state
    return out


def assert_unchanged(env: BatchEnv, before: dict) -> None:
    after = snapshot(env)
    assert after.keys() == before.keys()
    for key in before:
        if key == "rng":
            assert after[key] == before[key]
        else:
            np.testing.assert_array_equal(after[key], before[key], err_msg=key)


@pytest.fixture
def env():
    env = BatchEnv(NUM_ENVS, "standard", seed=5)
    env.reset()
    return env


@pytest.mark.parametrize(
    "seats, fragment",
    [
        ([0.5] * NUM_ENVS, "integers"),
        ([0.0] * NUM_ENVS, "integers"),
        ([True] * NUM_ENVS, "integers"),
        ([0, 1, 2, 4], "table 3 has seat 4"),
        ([0, -1, 2, 3], "table 1 has seat -1"),
        ([0.5], r"shape \(4,\)"),
        ([0, 1, 2], r"shape \(4,\)"),
        (0, r"shape \(4,\)"),
        ([[0, 1, 2, 3]], r"shape \(4,\)"),
        (["a"] * NUM_ENVS, "integers"),
    ],
)
def test_observe_rejects_bad_seats_and_changes_nothing(env, seats, fragment):
    before = snapshot(env)
    with pytest.raises(ValueError, match=fragment):
        env.observe(seats)
    assert_unchanged(env, before)


def test_observe_accepts_any_integer_dtype(env):
    expected = env.observe(np.array([0, 1, 2, 3]))
    np.testing.assert_array_equal(env.observe(np.array([0, 1, 2, 3], np.uint8)), expected)


@pytest.mark.parametrize(
    "actions, error, fragment",
    [
        ([54.0] * NUM_ENVS, IllegalActionError, "integers"),
        ([True] * NUM_ENVS, IllegalActionError, "integers"),
        ([54] * (NUM_ENVS - 1), ValueError, r"shape \(4,\)"),
        ([[54] * NUM_ENVS], ValueError, r"shape \(4,\)"),
        ([90] * NUM_ENVS, IllegalActionError, "not an action"),
        ([-1] * NUM_ENVS, IllegalActionError, "not an action"),
        ([0] * NUM_ENVS, IllegalActionError, "table 0: illegal action 0"),
    ],
)
def test_step_rejects_bad_actions_and_changes_nothing(env, actions, error, fragment):
    before = snapshot(env)
    with pytest.raises(error, match=fragment):
        env.step(actions)
    assert_unchanged(env, before)


@pytest.mark.parametrize("table", [1.0, True, -1, NUM_ENVS, "0"])
def test_table_queries_reject_bad_table_indices(env, table):
    for query in (env.legal_actions, env.episode_deals, env.episode_dealer, env.hand_rules):
        with pytest.raises(ValueError, match="table must"):
            query(table)


@pytest.mark.parametrize("observe", ["yes", 1, 0.0])
def test_step_rejects_an_observe_flag_that_is_not_a_bool(env, observe):
    before = snapshot(env)
    legal = env.action_masks().argmax(axis=1)
    with pytest.raises(TypeError, match="observe"):
        env.step(legal, observe=observe)
    assert_unchanged(env, before)


def test_item18_a_batch_too_large_for_the_memory_is_refused_before_allocating(monkeypatch):
    """Issue 30, item 18: BatchEnv(10**8) is refused at once with the size it would need, not after 26 s."""
    import time

    from spades_env.batch import state

    start = time.perf_counter()
    with pytest.raises(MemoryError, match=r"BatchEnv\(100000000\) needs about [\d,.]+ GiB"):
        BatchEnv(10**8)
    assert time.perf_counter() - start < 5  # nothing was allocated first
    monkeypatch.setattr(state, "available_memory", lambda: 1_000_000)  # 1 MB free
    with pytest.raises(MemoryError, match="packed"):
        BatchEnv(1000, obs_format="packed")
    BatchEnv(100, obs_format="packed")  # 300 KB fits
