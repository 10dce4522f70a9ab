"""obs_format="packed": compact rows that decode to exactly the float32 observation."""

from __future__ import annotations

import pickle

import numpy as np
import pytest

from spades_env.batch import BatchEnv
from spades_env.batch.pieces import PACKED_KEPT, PACKED_SIZE
from spades_env.core.drawing import has_drawing
from spades_env.core.rules import PRESETS, preset

TABLES = 48
STEPS = 400


def random_legal(rng: np.random.Generator, mask: np.ndarray) -> np.ndarray:
    """A uniformly random legal action per table."""
    counts = mask.cumsum(axis=1)
    k = (rng.random(len(mask)) * counts[:, -1]).astype(np.int64)
    return (counts > k[:, None]).argmax(axis=1)


@pytest.mark.parametrize("rules", sorted(PRESETS))
def test_packed_observation_decodes_to_the_float32_observation(rules):
    plain = BatchEnv(TABLES, rules, episode="hand", seed=5)
    packed = BatchEnv(TABLES, rules, episode="hand", seed=5, obs_format="packed")
    rng = np.random.default_rng(1)
    obs, mask, to_act = plain.reset(seed=5)
    pobs, pmask, pto_act = packed.reset(seed=5)
    drew = False
    for _ in range(STEPS):
        assert pobs.dtype == np.uint8 and pobs.shape == (TABLES, PACKED_SIZE)
        assert np.array_equal(packed.unpack_observations(pobs), obs)
        assert np.array_equal(pmask, mask) and np.array_equal(pto_act, to_act)
        actions = random_legal(rng, mask)
        obs, mask, to_act, rewards, dones, _ = plain.step(actions)
        pobs, pmask, pto_act, prewards, pdones, _ = packed.step(actions)
        assert np.array_equal(prewards, rewards) and np.array_equal(pdones, dones)
        drew |= bool(pobs[:, PACKED_KEPT].any())
    assert drew == has_drawing(preset(rules))  # two players write the drawing fields; the others never do


def test_unpack_writes_into_a_caller_array():
    env = BatchEnv(8, "standard", seed=0, obs_format="packed")
    obs, *_ = env.reset()
    out = np.full((8, env.obs_size), np.nan, np.float32)
    assert env.unpack_observations(obs, out=out) is out
    assert np.array_equal(out, BatchEnv(8, "standard", seed=0).reset()[0])


@pytest.mark.parametrize("bad", [np.zeros((8, PACKED_SIZE - 1), np.uint8), np.zeros(PACKED_SIZE, np.uint8)])
def test_unpack_rejects_rows_of_the_wrong_shape(bad):
    with pytest.raises(ValueError, match="packed observations must have shape"):
        BatchEnv(8, "standard", obs_format="packed").unpack_observations(bad)


@pytest.mark.parametrize("obs_format", ["uint8", None, 3])
def test_unknown_obs_format_is_rejected(obs_format):
    with pytest.raises(ValueError, match="obs_format must be one of"):
        BatchEnv(4, "standard", obs_format=obs_format)


def test_packed_env_pickles_mid_game_and_continues_alike():
    env = BatchEnv(16, "pagat", seed=2, obs_format="packed")
    rng = np.random.default_rng(0)
    _, mask, _ = env.reset()
    for _ in range(30):
        _, mask, *_ = env.step(random_legal(rng, mask))
    copy = pickle.loads(pickle.dumps(env))
    actions = random_legal(rng, mask)
    a, *_ = env.step(actions)
    b, *_ = copy.step(actions)
    assert np.array_equal(env.unpack_observations(a), copy.unpack_observations(b))


def test_unpack_writes_into_a_torch_tensor_without_a_copy():
    torch = pytest.importorskip("torch")
    env = BatchEnv(8, "cutthroat3", seed=4, obs_format="packed")
    packed, *_ = env.reset()
    tensor = torch.zeros((8, env.obs_size), dtype=torch.float32)
    env.unpack_observations(packed, out=tensor.numpy())
    assert np.array_equal(tensor.numpy(), BatchEnv(8, "cutthroat3", seed=4).reset()[0])
