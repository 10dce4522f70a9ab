"""The sparse first layer (active features only) equals the dense Linear on the same input, values and gradients."""

from __future__ import annotations

import pickle

import numpy as np
import pytest
import torch

from spades_env.batch import BatchEnv
from spades_env.nn import WEIGHT_GRADS, PolicyNet, SparseRows, ValueNet, sparse_rows, weight_grad_dtype
from spades_env.nn.sparse import _sparse_rows_torch
from spades_env.obs.encode import OBS_SIZE, STATE_SIZE

TOLERANCE = 1e-5


def _observations_and_states(steps: int = 30, tables: int = 16) -> tuple[np.ndarray, np.ndarray]:
    """Real observations and states of random play (mostly zeros, a few large scores)."""
    env = BatchEnv(tables, seed=3)
    obs, mask, _ = env.reset()
    rng = np.random.default_rng(3)
    seen, states = [], []
    for _ in range(steps):
        actions = np.array([rng.choice(np.flatnonzero(row)) for row in mask])
        obs, mask, _, _, _, _ = env.step(actions)
        seen.append(obs.copy())
        states.append(env.state().copy())
    return np.concatenate(seen), np.concatenate(states)


def test_sparse_rows_hold_exactly_the_active_features():
    x = torch.tensor([[0.0, 2.5, 0.0, -1.0], [0.0, 0.0, 0.0, 0.0], [3.0, 0.0, 0.0, 0.0]])
    rows = sparse_rows(x)
    assert rows.indices.tolist() == [1, 3, 0] and rows.values.tolist() == [2.5, -1.0, 3.0]  # no padding
    assert rows.offsets.tolist() == [0, 2, 2, 3]  # the empty row has no features
    assert torch.equal(rows.dense(), x)
    assert torch.equal(rows[torch.tensor([2, 0])].dense(), x[[2, 0]])


@pytest.mark.parametrize(
    "pick", [np.array([2, 0, 2]), np.array([True, False, True]), slice(1, None), np.array([], int)]
)
def test_sparse_rows_pick_rows_as_the_dense_rows_do(pick):
    x = torch.tensor([[0.0, 2.5, 0.0, -1.0], [0.0, 0.0, 0.0, 0.0], [3.0, 0.0, 0.0, 0.0]])
    assert torch.equal(
        sparse_rows(x)[pick].dense(), x[torch.as_tensor(pick)] if not isinstance(pick, slice) else x[pick]
    )


def test_sparse_rows_joined_are_the_rows_of_the_joined_input():
    x, y = torch.tensor([[0.0, 1.0], [2.0, 0.0]]), torch.tensor([[0.0, 0.0], [4.0, 5.0]])
    assert torch.equal(SparseRows.cat([sparse_rows(x), sparse_rows(y)]).dense(), torch.cat([x, y]))
    with pytest.raises(ValueError, match="one row length"):
        SparseRows.cat([sparse_rows(x), sparse_rows(torch.zeros(1, 3))])


@pytest.mark.parametrize("width", [STATE_SIZE, 40_000])  # small indices pickle as int16, large ones as int64
def test_sparse_rows_pickle_to_the_same_rows(width):
    x = torch.zeros(3, width)
    x[0, width - 1], x[2, 0], x[2, 5] = 1.5, -2.0, 0.25
    rows = pickle.loads(pickle.dumps(sparse_rows(x)))
    assert rows.size == width and rows.indices.dtype == torch.int64 and torch.equal(rows.dense(), x)
    assert torch.equal(rows.offsets, sparse_rows(x).offsets)


def test_sparse_rows_refuse_an_input_that_is_not_a_matrix():
    with pytest.raises(ValueError, match="2-D"):
        sparse_rows(torch.zeros(4))


def test_sparse_policy_equals_dense_policy_in_logits_and_gradients():
    torch.manual_seed(0)
    obs, _ = _observations_and_states()
    policy = PolicyNet((32, 16))
    dense_x, sparse_x = torch.as_tensor(obs), sparse_rows(torch.as_tensor(obs))
    assert sparse_x.indices.shape[0] < len(obs) * OBS_SIZE // 4  # the point: few active features
    dense_out, sparse_out = policy(dense_x), policy(sparse_x)
    assert torch.allclose(dense_out, sparse_out, atol=TOLERANCE)
    grads = []
    for out in (dense_out, sparse_out):
        policy.zero_grad()
        (out**2).sum().backward()
        grads.append([p.grad.clone() for p in policy.parameters()])
    for dense_grad, sparse_grad in zip(*grads):
        assert torch.allclose(dense_grad, sparse_grad, atol=TOLERANCE * 10)


def test_sparse_critic_equals_dense_critic_on_the_full_state():
    torch.manual_seed(1)
    _, states = _observations_and_states()
    critic = ValueNet(STATE_SIZE, (32,))
    x = torch.as_tensor(states)
    assert torch.allclose(critic(x), critic(sparse_rows(x)), atol=TOLERANCE)


def test_sparse_input_of_the_wrong_width_is_refused():
    with pytest.raises(ValueError, match="features for a layer"):
        PolicyNet((8,))(sparse_rows(torch.ones(2, OBS_SIZE + 1)))


def test_sparse_rows_of_a_cpu_input_equal_the_device_path():
    # CPU inputs take the numpy path; the torch path (for GPU inputs) must give the very same rows
    obs, states = _observations_and_states(steps=12)
    for x in (obs, states, obs[:0], np.zeros((3, OBS_SIZE), np.float32)):
        fast, device_path = sparse_rows(x), _sparse_rows_torch(torch.as_tensor(x))
        for name in ("indices", "values", "offsets"):
            assert torch.equal(getattr(fast, name), getattr(device_path, name)), name
            assert getattr(fast, name).dtype == getattr(device_path, name).dtype, name


@pytest.mark.parametrize("net", ["policy", "critic"])
def test_bf16_weight_gradient_keeps_the_forward_and_is_close_to_float32(net):
    torch.manual_seed(2)
    obs, states = _observations_and_states(steps=12)
    x = sparse_rows(obs if net == "policy" else states)
    model = PolicyNet((32, 16)) if net == "policy" else ValueNet(STATE_SIZE, (32,))
    outputs, grads = [], []
    for dtype in (torch.float32, torch.bfloat16):
        model.weight_grad_dtype = dtype
        model.zero_grad()
        out = model(x)
        (out**2).sum().backward()
        outputs.append(out.detach())
        grads.append([p.grad.clone() for p in model.parameters()])
    assert torch.equal(outputs[0], outputs[1])  # the forward (every probability and ratio) is untouched
    first_exact, first_low = grads[0][0], grads[1][0]
    assert first_low.dtype == torch.float32 and first_low.shape == first_exact.shape
    relative = (first_low - first_exact).norm() / first_exact.norm()
    assert 0 < relative < 1e-2  # rounded to bf16, not otherwise changed
    for exact, low in zip(grads[0][1:], grads[1][1:]):  # every later gradient is computed in float32
        assert torch.equal(exact, low)


def test_weight_grad_auto_is_bf16_only_on_a_cpu_with_matrix_units(monkeypatch):
    import spades_env.nn.sparse as nn_module

    assert weight_grad_dtype("float32") == torch.float32 and weight_grad_dtype("bfloat16") == torch.bfloat16
    for has_units, expected in ((True, torch.bfloat16), (False, torch.float32)):
        monkeypatch.setattr(nn_module, "bf16_matrix_units", lambda has=has_units: has)
        assert weight_grad_dtype("auto", "cpu") == expected
        assert weight_grad_dtype("auto", "cuda") == torch.float32
    with pytest.raises(ValueError, match="weight_grad must be one of"):
        weight_grad_dtype("float16")


def test_the_config_weight_grad_reaches_both_networks():
    from training.config import WEIGHT_GRADS as CONFIG_WEIGHT_GRADS
    from training.config import TrainConfig, from_mapping
    from training.learner import build_learner

    assert CONFIG_WEIGHT_GRADS == WEIGHT_GRADS  # the config's copy of the choices (it does not import torch)
    for name, dtype in (("float32", torch.float32), ("bfloat16", torch.bfloat16)):
        learner = build_learner(TrainConfig(hidden=[8], weight_grad=name), torch.device("cpu"))
        assert learner.policy.weight_grad_dtype == dtype and learner.critic.weight_grad_dtype == dtype
    with pytest.raises(ValueError, match="'weight_grad' must be one of"):
        from_mapping({"weight_grad": "fp8"})


@pytest.mark.parametrize("sparse", [False, True])
def test_scores_beyond_twice_the_target_reach_the_networks_as_twice_the_target(sparse):
    from spades_env.nn import FEATURE_CLIP
    from spades_env.obs.layout import OBSERVATION

    torch.manual_seed(4)
    obs, _ = _observations_and_states(steps=4, tables=4)
    scores = OBSERVATION["scores"]
    far, edge, near = obs.copy(), obs.copy(), obs.copy()
    far[:, scores] = np.where(np.arange(scores.stop - scores.start) % 2, -12.0, 7.5)  # -6,000 and 3,750 at 500
    edge[:, scores] = np.where(np.arange(scores.stop - scores.start) % 2, -FEATURE_CLIP, FEATURE_CLIP)
    near[:, scores] = edge[:, scores] * 0.9
    policy, critic = PolicyNet((16,), card_scorer=4), ValueNet(OBS_SIZE, (16,))
    as_input = (lambda x: sparse_rows(x)) if sparse else (lambda x: torch.from_numpy(x))
    for net in (policy, critic):
        assert torch.allclose(net(as_input(far)), net(as_input(edge)), atol=1e-6)
        assert not torch.allclose(net(as_input(near)), net(as_input(edge)), atol=1e-6)  # within the clip, they differ
