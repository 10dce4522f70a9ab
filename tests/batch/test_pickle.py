"""A BatchEnv pickled or deep-copied mid-game continues exactly as the original (generator included)."""

from __future__ import annotations

import copy
import pickle

import numpy as np
import pytest

from spades_env.batch import BatchEnv

NUM_ENVS = 6
STEPS_BEFORE = 70  # into the play of the first hand
STEPS_AFTER = 260  # past several hand ends (new deals are drawn from the generator)


def random_actions(rng: np.random.Generator, mask: np.ndarray) -> np.ndarray:
    keys = rng.random(mask.shape)
    keys[mask == 0] = -1.0
    return keys.argmax(axis=1)


def assert_same_info(a, b) -> None:
    assert list(a) == list(b)
    for key in a:
        if key == "episode_deals":
            assert dict(a[key]) == dict(b[key])
        elif key == "hand_rules":
            assert a[key] == b[key]
        else:
            np.testing.assert_array_equal(a[key], b[key], err_msg=key)


COPIES = {"pickle": lambda env: pickle.loads(pickle.dumps(env)), "deepcopy": copy.deepcopy}


@pytest.mark.parametrize("how", sorted(COPIES))
@pytest.mark.parametrize("rules", ["standard", "pagat", "cutthroat3", "crazy"])
def test_a_copy_mid_game_continues_identically(rules, how):
    env = BatchEnv(NUM_ENVS, rules, seed=11)
    rng = np.random.default_rng(0)
    _, mask, _ = env.reset()
    for _ in range(STEPS_BEFORE):
        _, mask, *_ = env.step(random_actions(rng, mask))
    twin = COPIES[how](env)
    np.testing.assert_array_equal(twin.observe(env.cur), env.observe(env.cur))
    hands_seen = 0
    for _ in range(STEPS_AFTER):
        actions = random_actions(rng, mask)
        mine = env.step(actions)
        theirs = twin.step(actions)
        for name, x, y in zip(("obs", "mask", "to_act", "rewards", "dones"), mine[:5], theirs[:5]):
            np.testing.assert_array_equal(x, y, err_msg=name)
        assert_same_info(mine[5], theirs[5])
        np.testing.assert_array_equal(twin.state(), env.state())
        hands_seen += int(mine[5]["hand_over"].sum())
        mask = mine[1]
    assert hands_seen > 0  # the continuation crossed hand ends, so new deals were drawn
    assert twin.rng.bit_generator.state == env.rng.bit_generator.state


def test_the_copy_is_independent_of_the_original():
    env = BatchEnv(NUM_ENVS, "standard", seed=3)
    obs, mask, _ = env.reset()
    twin = pickle.loads(pickle.dumps(env))
    env.step(random_actions(np.random.default_rng(1), mask))
    np.testing.assert_array_equal(twin.observe(twin.cur), obs)
    out, _, _, _, _, _ = twin.step(random_actions(np.random.default_rng(1), twin.action_masks()))
    assert np.shares_memory(out, twin._obs_bufs[twin._flip])  # the encoder still writes into the buffers
