"""The training maths on hand-built inputs: GAE, returns, advantage normalization, the PPO loss."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch

from spades_env.core.actions import NUM_ACTIONS
from spades_env.nn import PolicyNet, ValueNet
from spades_env.obs.encode import OBS_SIZE
from training.config import TrainConfig
from training.ppo import clipped_policy_loss, gae_advantages, normalize_advantages, ppo_loss, ppo_update, returns_of
from training.trajectories import TrajectoryStore

# One seat's chain 0 -> 1 -> 2, the hand ending at 2 (reward 1).
CHAIN = dict(
    reward=np.array([0.0, 0.0, 1.0], np.float32),
    value=np.array([0.5, 0.2, 0.4], np.float32),
    done=np.array([False, False, True]),
    next_index=np.array([1, 2, -1]),
)
# adv2 = 1 - 0.4; adv1 = (0 + 0.9 * 0.4 - 0.2) + 0.9 * 0.8 * adv2; adv0 = (0 + 0.9 * 0.2 - 0.5) + 0.72 * adv1
CHAIN_ADV = [-0.32 + 0.72 * 0.592, 0.16 + 0.72 * 0.6, 0.6]

# Two seats interleaved (0 -> 2 and 1 -> 3), both hands ending; decision 4 is not complete (left at 0).
INTERLEAVED = dict(
    reward=np.array([0.0, 0.0, 2.0, -1.0, 5.0], np.float32),
    value=np.array([1.0, 0.5, 1.5, 0.0, 3.0], np.float32),
    done=np.array([False, False, True, True, False]),
    next_index=np.array([2, 3, -1, -1, -1]),
)
# gamma 1, lambda 0.5: adv2 = 0.5, adv3 = -1, adv0 = (1.5 - 1) + 0.5 * 0.5, adv1 = (0 - 0.5) + 0.5 * -1
INTERLEAVED_ADV = [0.75, -1.0, 0.5, -1.0, 0.0]


@pytest.mark.parametrize(
    "case, rows, gamma, lam, expected",
    [
        (CHAIN, [0, 1, 2], 0.9, 0.8, CHAIN_ADV),
        (INTERLEAVED, [0, 1, 2, 3], 1.0, 0.5, INTERLEAVED_ADV),
    ],
)
def test_gae_follows_each_seats_chain_with_gamma_and_lambda(case, rows, gamma, lam, expected):
    adv = gae_advantages(case["reward"], case["value"], case["done"], case["next_index"], np.array(rows), gamma, lam)
    assert adv.dtype == np.float32
    np.testing.assert_allclose(adv, expected, rtol=1e-6, atol=1e-6)


def one_decision_at_a_time(reward, value, done, next_index, gamma, lam):
    """GAE by the definition, one decision at a time from the last (successors are recorded later)."""
    adv = np.zeros(len(reward), dtype=np.float32)
    for i in range(len(reward) - 1, -1, -1):
        if done[i]:
            adv[i] = reward[i] - value[i]
        else:
            j = next_index[i]
            adv[i] = reward[i] + gamma * value[j] - value[i] + gamma * lam * adv[j]
    return adv


def random_chains(rng, decisions, seats):
    """Interleaved chains of decisions (a seat's next decision comes later), each hand ending at ``done``."""
    seat = rng.integers(seats, size=decisions)
    next_index = np.full(decisions, -1)
    done = np.zeros(decisions, dtype=bool)
    for s in range(seats):
        mine = np.flatnonzero(seat == s)
        if len(mine):
            next_index[mine[:-1]] = mine[1:]
            done[mine[-1]] = True
            done[mine[:-1]] = rng.random(len(mine) - 1) < 0.15  # a hand ends; the seat's next decision starts one
    next_index[done] = -1
    reward = np.where(done, rng.normal(size=decisions), 0.0).astype(np.float32)
    return reward, rng.normal(size=decisions).astype(np.float32), done, next_index


@pytest.mark.parametrize("seed", range(5))
def test_gae_sweeps_every_chain_as_the_definition_does_on_numpy_and_torch(seed):
    rng = np.random.default_rng(seed)
    reward, value, done, next_index = random_chains(rng, int(rng.integers(50, 400)), int(rng.integers(1, 40)))
    gamma, lam = float(rng.uniform(0.9, 1.0)), float(rng.uniform(0.5, 1.0))
    expected = one_decision_at_a_time(reward, value, done, next_index, gamma, lam)
    rows = np.arange(len(reward))
    np.testing.assert_array_equal(gae_advantages(reward, value, done, next_index, rows, gamma, lam), expected)
    on_torch = gae_advantages(*map(torch.as_tensor, (reward, value, done, next_index, rows)), gamma, lam)
    assert on_torch.dtype == torch.float32 and on_torch.device == torch.as_tensor(value).device
    np.testing.assert_array_equal(on_torch.numpy(), expected)


def test_a_successor_outside_the_rows_ends_the_chain_with_no_bootstrap():
    # 0 -> 1 -> 2 with 2 left out: 1 is the chain's end (reward - value), 0 follows it
    adv = gae_advantages(CHAIN["reward"], CHAIN["value"], CHAIN["done"], CHAIN["next_index"], np.arange(2), 0.9, 0.8)
    end = 0.0 - 0.2
    np.testing.assert_allclose(adv, [(0 + 0.9 * 0.2 - 0.5) + 0.72 * end, end, 0.0], rtol=1e-6, atol=1e-6)


def test_return_is_advantage_plus_value_and_the_last_decisions_return_is_its_reward():
    adv = gae_advantages(CHAIN["reward"], CHAIN["value"], CHAIN["done"], CHAIN["next_index"], np.arange(3), 0.9, 0.8)
    ret = returns_of(adv, CHAIN["value"])
    np.testing.assert_allclose(ret, np.array(CHAIN_ADV) + CHAIN["value"], rtol=1e-6)
    assert ret[2] == pytest.approx(1.0)  # the hand's end: the reward itself


def test_trajectory_store_gives_gae_and_returns_of_finished_hands_only():
    store = TrajectoryStore(num_envs=1, num_seats=4)
    zeros = lambda k, w: np.zeros((k, w), np.float32)  # noqa: E731
    for seat, value in ((0, 0.5), (0, 0.2), (0, 0.4)):
        store.add(
            np.array([0]),
            np.array([seat]),
            obs=zeros(1, 2),
            mask=zeros(1, 3),
            critic=zeros(1, 2),
            action=np.array([1]),
            logp=np.zeros(1),
            value=np.array([value]),
        )
    store.end_hands(np.array([0]), np.array([[1.0, -1.0, 1.0, -1.0]]))
    store.add(
        np.array([0]),
        np.array([1]),
        obs=zeros(1, 2),
        mask=zeros(1, 3),
        critic=zeros(1, 2),
        action=np.array([1]),
        logp=np.zeros(1),
        value=np.array([7.0]),
    )  # the next hand: unfinished, carried over
    out = store.take_complete(0.9, 0.8)
    np.testing.assert_allclose(out["advantage"], CHAIN_ADV, rtol=1e-6)
    np.testing.assert_allclose(out["return"], np.array(CHAIN_ADV) + CHAIN["value"], rtol=1e-6)
    assert store.size == 1


@pytest.mark.parametrize(
    "adv, expected",
    [
        ([3.0], [0.0]),  # one decision: no spread, no policy gradient (not NaN)
        ([1.0, 3.0], [-1 / math.sqrt(2), 1 / math.sqrt(2)]),
        ([2.0, 2.0, 2.0], [0.0, 0.0, 0.0]),
    ],
)
def test_advantage_normalization_is_finite_for_any_minibatch_size(adv, expected):
    out = normalize_advantages(torch.tensor(adv))
    assert torch.isfinite(out).all()
    np.testing.assert_allclose(out.numpy(), expected, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize(
    "adv, ratio, expected",
    [
        ([1.0, -1.0], [1.5, 0.5], (-1.2 + 0.8) / 2),  # both clipped: the gain is capped
        ([1.0], [0.5], -0.5),  # a positive advantage whose ratio fell: the unclipped, pessimistic term
        ([-1.0], [1.5], 1.5),  # a negative advantage whose ratio rose: the unclipped, pessimistic term
        ([1.0, -1.0], [1.1, 0.9], (-1.1 + 0.9) / 2),  # inside the clip range
    ],
)
def test_clipped_objective_takes_the_pessimistic_term(adv, ratio, expected):
    loss = clipped_policy_loss(torch.tensor(adv), torch.tensor(ratio), clip_coef=0.2)
    assert loss.item() == pytest.approx(expected, abs=1e-6)


def test_ppo_loss_on_a_tiny_batch_matches_the_hand_computed_value():
    new_logp = torch.log(torch.tensor([1.5, 0.5]))
    parts = ppo_loss(
        new_logp,
        torch.zeros(2),
        torch.tensor([1.0, -1.0]),
        torch.tensor([1.0, 2.0]),
        torch.zeros(2),
        torch.tensor([[0.5, 0.5, 0.0], [1.0, 0.0, 0.0]]),
        clip_coef=0.2,
        vf_coef=0.5,
        ent_coef=0.01,
    )
    entropy = math.log(2) / 2
    assert parts["policy_loss"].item() == pytest.approx(-0.2, abs=1e-6)
    assert parts["value_loss"].item() == pytest.approx(0.5 * (1 + 4) / 2, abs=1e-6)
    assert parts["entropy"].item() == pytest.approx(entropy, abs=1e-6)
    assert parts["loss"].item() == pytest.approx(-0.2 + 0.5 * 1.25 - 0.01 * entropy, abs=1e-6)
    kl = ((0.5 - math.log(1.5)) + (-0.5 - math.log(0.5))) / 2
    assert parts["approx_kl"].item() == pytest.approx(kl, abs=1e-6)
    assert parts["clipfrac"].item() == 1.0


def test_ppo_update_with_a_last_minibatch_of_one_decision_keeps_the_weights_finite():
    torch.manual_seed(0)
    n, rng = 5, np.random.default_rng(0)
    config = TrainConfig(minibatch_size=4, update_epochs=2, target_kl=0.0)
    policy, critic = PolicyNet((8,)), ValueNet(OBS_SIZE, (8,))
    params = list(policy.parameters()) + list(critic.parameters())
    optimizer = torch.optim.Adam(params, lr=1e-2)
    mask = np.zeros((n, NUM_ACTIONS), np.int8)
    mask[:, :3] = 1
    batch = {
        "obs": rng.random((n, OBS_SIZE), dtype=np.float32),
        "mask": mask,
        "critic": rng.random((n, OBS_SIZE), dtype=np.float32),
        "action": rng.integers(3, size=n),
        "logp": np.full(n, -math.log(3), np.float32),
        "advantage": rng.normal(size=n).astype(np.float32),
        "return": rng.normal(size=n).astype(np.float32),
        "prior": np.full(n, -1),
    }
    stats = ppo_update(policy, critic, optimizer, params, batch, config, rng, torch.device("cpu"))
    assert all(math.isfinite(v) for v in stats.values())
    assert all(torch.isfinite(p).all() for p in params)


# Two decisions with uniform logits over 4 legal actions (cross-entropy log 4 each) and one with a sure action
# (cross-entropy ~0): the bid's weight moves the mean between them.
LOG4 = math.log(4)


@pytest.mark.parametrize(
    "bid_weight, actions, expected",
    [
        (1.0, [0, 54, 1], (LOG4 + LOG4 + 0) / 3),  # the plain mean
        (4.0, [0, 54, 1], (LOG4 + 4 * LOG4 + 0) / 6),  # the bid (54 = nil) counts four times
        (4.0, [0, 3, 1], (LOG4 + LOG4 + 0) / 3),  # no bid: the weight changes nothing
        (0.5, [72, 3, 1], (0.5 * LOG4 + LOG4 + 0) / 2.5),  # blind nil is a bidding decision too
    ],
)
def test_imitation_loss_weights_the_bidding_decisions(bid_weight, actions, expected):
    from training.imitation import imitation_loss

    logits = torch.full((3, NUM_ACTIONS), -1e9)
    logits[0, [actions[0], 40, 41, 42]] = 0.0
    logits[1, [actions[1], 60, 61, 62]] = 0.0
    logits[2, 1] = 0.0
    loss = imitation_loss(logits, torch.tensor(actions), bid_weight)
    assert loss.item() == pytest.approx(expected, rel=1e-6)


def test_bc_bid_weight_must_be_positive():
    from training.config import from_mapping

    with pytest.raises(ValueError, match="bc_bid_weight"):
        from_mapping({"bc_bid_weight": 0.0})
