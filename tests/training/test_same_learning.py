"""The faster training path learns the same: each replaced computation against the one it replaced."""

from __future__ import annotations

import math

import numpy as np
import torch
from torch.distributions import Categorical

from spades_env.batch import BatchEnv
from spades_env.core.actions import NUM_ACTIONS
from spades_env.core.rules import Rules
from spades_env.nn import SparseRows, feature_table, fixed_weights, masked_logits, sparse_rows
from spades_env.obs.encode import OBS_SIZE
from spades_env.rewards import BagLedger
from training.config import CRITIC_INPUTS, TrainConfig
from training.learner import ADAM_EPS, build_learner
from training.ppo import action_log_probs, ppo_update
from training.rollout import sample_actions
from training.trajectories import TrajectoryStore

TABLES, STEPS = 8, 70  # a hand is about 56 decisions: some end, some are carried
REWARD_SCALE = 0.01
TOLERANCE = 1e-5


def _stores_fed_the_same_play(value_fn) -> tuple[dict, dict]:
    """The batches of a dense and a sparse store fed the same random play of real tables."""
    env, rng = BatchEnv(TABLES, seed=5, episode="game"), np.random.default_rng(5)
    obs, mask, to_act = env.reset()
    ledger = BagLedger(Rules(), TABLES)
    stores = [TrajectoryStore(TABLES, 4, sparse=sparse) for sparse in (False, True)]
    rows = np.arange(TABLES)
    for _ in range(STEPS):
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in mask])
        for store in stores:
            store.add(
                rows,
                to_act,
                obs=obs.copy(),
                mask=mask.copy(),
                critic=env.state().copy(),
                action=actions,
                logp=np.zeros(TABLES),
                value=np.zeros(TABLES),
            )
        obs, mask, to_act, _, dones, info = env.step(actions)
        ended, rewards = ledger.hand_rewards(info, REWARD_SCALE, True)
        for store in stores:
            if len(ended):
                store.end_hands(ended, rewards)
        ledger.new_games(dones)
    return tuple(store.take_complete(1.0, 0.95, value_fn) for store in stores)


def test_a_sparse_store_gives_the_batch_of_a_dense_store():
    seen = []

    def value_fn(inputs):
        dense = inputs.dense().numpy() if isinstance(inputs, SparseRows) else inputs
        seen.append(dense)
        return dense[:, :3].sum(1)

    dense, sparse = _stores_fed_the_same_play(value_fn)
    assert dense is not None and len(dense["action"]) > TABLES  # hands ended: there is something to compare
    np.testing.assert_array_equal(seen[0], seen[1])
    for key, value in dense.items():
        got = sparse[key].dense().numpy() if isinstance(sparse[key], SparseRows) else sparse[key]
        np.testing.assert_array_equal(got, value, err_msg=key)
    assert isinstance(sparse["obs"], SparseRows) and isinstance(sparse["critic"], SparseRows)


def test_the_store_on_tensors_gives_the_batch_the_store_on_numpy_gives():
    """One store, two forms: the numpy rollout's (the learner's rows only) and the torch rollout's (every table's
    row, ``valid`` where the learner chose), fed the same play of real tables over two rollouts (a carry between)."""
    env, rng = BatchEnv(TABLES, seed=7, episode="game"), np.random.default_rng(7)
    obs, mask, to_act = env.reset()
    ledger = BagLedger(Rules(), TABLES)
    on_numpy, on_torch = TrajectoryStore(TABLES, 4), TrajectoryStore(TABLES, 4, device=torch.device("cpu"))
    tables = np.arange(TABLES)
    taken = []
    for _ in range(2):
        for _ in range(STEPS):
            actions = np.array([rng.choice(np.flatnonzero(m)) for m in mask])
            learner = (to_act % 2 == 0) | (rng.random(TABLES) < 0.2)  # a side's seats, and now and then another
            rows = np.flatnonzero(learner)
            logp = rng.normal(size=TABLES).astype(np.float32)
            on_numpy.add(rows, to_act[rows], obs=obs[rows], mask=mask[rows], action=actions[rows], logp=logp[rows])
            on_torch.add(
                torch.as_tensor(tables),
                torch.as_tensor(to_act),
                torch.as_tensor(learner),
                obs=torch.tensor(obs),  # copies: the engine writes its next outputs over these
                mask=torch.tensor(mask),
                action=torch.as_tensor(actions),
                logp=torch.as_tensor(logp),
            )
            obs, mask, to_act, _, dones, info = env.step(actions)
            ended, rewards = ledger.hand_rewards(info, REWARD_SCALE, True)
            if len(ended):
                on_numpy.end_hands(ended, rewards)
            over = np.zeros(TABLES, bool)
            over[ended] = True
            paid = np.zeros((TABLES, rewards.shape[1]), np.float32)
            paid[ended] = rewards
            on_torch.end_hands(torch.as_tensor(tables), torch.as_tensor(paid), torch.as_tensor(over))
            ledger.new_games(dones)
        value_fn = lambda inputs: inputs[:, :5].sum(1)  # noqa: E731
        taken.append((on_numpy.take_complete(0.99, 0.9, value_fn), on_torch.take_complete(0.99, 0.9, value_fn)))
    for numpy_batch, torch_batch in taken:
        assert numpy_batch is not None and len(numpy_batch["action"]) > TABLES  # hands ended in each rollout
        assert set(numpy_batch) == set(torch_batch)
        for key, value in numpy_batch.items():
            np.testing.assert_allclose(torch_batch[key].numpy(), value, rtol=1e-6, atol=1e-6, err_msg=key)
    assert on_numpy.size == on_torch.size > 0  # the same decisions carried


def _random_batch(n: int, rng: np.random.Generator) -> dict:
    mask = (rng.random((n, NUM_ACTIONS)) < 0.3).astype(np.int8)
    mask[np.arange(n), rng.integers(NUM_ACTIONS, size=n)] = 1
    action = np.array([rng.choice(np.flatnonzero(m)) for m in mask])
    sparse_floats = lambda width: (rng.random((n, width)) < 0.1) * rng.normal(size=(n, width)).astype(np.float32)  # noqa: E731
    return {
        "obs": sparse_floats(OBS_SIZE).astype(np.float32),
        "mask": mask,
        "critic": sparse_floats(CRITIC_INPUTS[TrainConfig().critic_input].size).astype(np.float32),
        "action": action,
        "logp": np.log(1 / mask.sum(1)).astype(np.float32),
        "advantage": rng.normal(size=n).astype(np.float32),
        "return": rng.normal(size=n).astype(np.float32),
        "prior": np.full(n, -1),
    }


def test_ppo_update_on_the_stores_sparse_rows_moves_the_weights_as_on_dense_rows():
    config = TrainConfig(hidden=[16, 16], minibatch_size=64, update_epochs=2, target_kl=0.0, weight_grad="float32")
    batch = _random_batch(150, np.random.default_rng(0))  # a short last minibatch too
    given_sparse = {**batch, "obs": sparse_rows(batch["obs"]), "critic": sparse_rows(batch["critic"])}
    weights = []
    for inputs, sparse in ((batch, False), (given_sparse, True)):
        torch.manual_seed(0)
        learner = build_learner(TrainConfig(**{**config.to_dict(), "sparse_input": sparse}), torch.device("cpu"))
        ppo_update(
            learner.policy,
            learner.critic,
            learner.optimizer,
            learner.params,
            inputs,
            config,
            np.random.default_rng(1),
            torch.device("cpu"),
        )
        weights.append([p.detach().clone() for p in learner.params])
    for dense_w, sparse_w in zip(*weights):
        assert torch.allclose(dense_w, sparse_w, atol=TOLERANCE)


def test_the_learners_fused_adam_steps_as_the_per_tensor_adam():
    torch.manual_seed(0)
    learner = build_learner(TrainConfig(hidden=[16, 16]), torch.device("cpu"))
    twins = [p.detach().clone().requires_grad_() for p in learner.params]
    plain = torch.optim.Adam(twins, lr=learner.optimizer.param_groups[0]["lr"], eps=ADAM_EPS)
    generator = torch.Generator().manual_seed(1)
    for _ in range(5):
        for p, twin in zip(learner.params, twins):
            p.grad = torch.randn(p.shape, generator=generator)
            twin.grad = p.grad.clone()
        learner.optimizer.step()
        plain.step()
    assert learner.optimizer.param_groups[0]["fused"]
    for p, twin in zip(learner.params, twins):
        assert torch.allclose(p, twin, atol=1e-6)
        assert not math.isnan(float(p.detach().abs().sum()))


def test_sampled_actions_follow_the_masked_policy_and_stay_legal():
    torch.manual_seed(0)
    rows = 20_000
    logits = torch.tensor([[2.0, 0.0, 1.0, 5.0, -1.0] + [0.0] * (NUM_ACTIONS - 5)]).repeat(rows, 1)
    mask = np.zeros((rows, NUM_ACTIONS), np.int8)
    mask[:, [0, 1, 2, 4]] = 1  # action 3, the policy's favourite, is illegal
    actions, logp = sample_actions(logits, mask, torch.device("cpu"), 0.0)
    expected = torch.softmax(logits[0, [0, 1, 2, 4]], 0).numpy()
    counts = np.bincount(actions, minlength=NUM_ACTIONS)
    assert counts[3] == 0 and counts[5:].sum() == 0
    np.testing.assert_allclose(counts[[0, 1, 2, 4]] / rows, expected, atol=0.01)
    log_expected = dict(zip([0, 1, 2, 4], np.log(expected)))
    np.testing.assert_allclose(logp, [log_expected[int(a)] for a in actions], rtol=1e-5)
    greedy, _ = sample_actions(logits[:3], mask[:3], torch.device("cpu"), 0.0, greedy=True)
    assert greedy.tolist() == [0, 0, 0]


def test_action_log_probs_are_those_of_the_categorical_distribution_on_masked_logits():
    torch.manual_seed(2)
    logits = torch.randn(64, NUM_ACTIONS, requires_grad=True)
    mask = torch.rand(64, NUM_ACTIONS) < 0.3
    mask[:, 7] = True
    masked = masked_logits(logits, mask)
    actions = torch.stack([torch.multinomial(row.float(), 1)[0] for row in mask])
    dist = Categorical(logits=masked, validate_args=False)
    logp, probs = action_log_probs(masked, actions)
    assert torch.allclose(logp, dist.log_prob(actions), atol=1e-6)
    assert torch.allclose(probs, dist.probs, atol=1e-7)
    assert torch.allclose(
        torch.autograd.grad(logp.sum(), logits, retain_graph=True)[0],
        torch.autograd.grad(dist.log_prob(actions).sum(), logits)[0],
        atol=1e-6,
    )


def test_first_layer_tables_are_held_inside_fixed_weights_only():
    torch.manual_seed(3)
    learner = build_learner(TrainConfig(hidden=[16, 16]), torch.device("cpu"))
    obs = (torch.rand(32, OBS_SIZE) < 0.1) * torch.randn(32, OBS_SIZE)
    sparse = sparse_rows(obs)
    for step in range(3):
        with fixed_weights(), torch.inference_mode():  # one table per weight, used by both passes
            assert feature_table(learner.policy.body[0].weight) is feature_table(learner.policy.body[0].weight)
            assert torch.allclose(learner.policy(sparse), learner.policy(obs), atol=TOLERANCE), step
        with torch.no_grad():  # outside: the table of the current weights (fused Adam does not bump versions)
            assert torch.allclose(learner.policy(sparse), learner.policy(obs), atol=TOLERANCE), step
        loss = (
            learner.policy(sparse).square().mean()
            + learner.critic(sparse_rows(torch.zeros(4, learner.critic.input_size))).sum()
        )
        learner.optimizer.zero_grad()
        loss.backward()
        learner.optimizer.step()
