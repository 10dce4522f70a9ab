"""The sparse first layer (active features only) equals the dense Linear on the same input, values and gradients."""

from __future__ import annotations

import pickle

import numpy as np
import pytest
import torch

from spades_env.batch import BatchEnv
from spades_env.encoding import OBS_SIZE, STATE_SIZE
from spades_env.nn import PolicyNet, SparseRows, ValueNet, sparse_rows

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


@pytest.mark.parametrize("pick", [np.array([2, 0, 2]), np.array([True, False, True]), slice(1, None), np.array([], int)])
def test_sparse_rows_pick_rows_as_the_dense_rows_do(pick):
    x = torch.tensor([[0.0, 2.5, 0.0, -1.0], [0.0, 0.0, 0.0, 0.0], [3.0, 0.0, 0.0, 0.0]])
    assert torch.equal(sparse_rows(x)[pick].dense(), x[torch.as_tensor(pick)] if not isinstance(pick, slice) else x[pick])


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
        (out ** 2).sum().backward()
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
