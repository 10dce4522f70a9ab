"""Work the training skips changes nothing: cards that cannot change the masked policy are not scored, forced
decisions get no policy pass, the rollout's card features are the update's, and the CPU weight gradient is the
dense product."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
import torch

from spades_env.batch import BatchEnv
from spades_env.card_scorer import CardFeatures, scored_cards
from spades_env.config_io import load_rules
from spades_env.core.actions import NUM_ACTIONS
from spades_env.core.cards import NUM_CARDS, NUM_STANDARD_CARDS
from spades_env.nn import PolicyNet, SparseRows, ValueNet, apply_prior, masked_logits, sparse_rows
from spades_env.nn.sparse import _sort_key_dtype, _weight_grad
from spades_env.obs.encode import OBS_SIZE, STATE_SIZE
from spades_env.obs.layout import OBSERVATION
from training.config import TrainConfig
from training.imitation import imitation_loss
from training.learner import SnapshotNets
from training.ppo import action_log_probs, choice_rows, policy_log_probs, ppo_loss
from training.rollout import Rollout, collect, step_card_features
from training.trajectories import TrajectoryStore


def positions(preset: str, tables: int) -> tuple[torch.Tensor, torch.Tensor]:
    """(observations, legal masks) at every decision of random play on the batch engine's tables, one hand each:
    bids, forced plays and free plays."""
    rules, rng = load_rules(preset), np.random.default_rng(0)
    env = BatchEnv(tables, rules=rules, episode="hand", seed=0)
    obs, mask, _ = env.reset()
    obs_rows, masks = [], []
    for _ in range(rules.num_players * (NUM_STANDARD_CARDS // rules.num_players + 1)):  # bids, then every card
        obs_rows.append(obs.copy())
        masks.append(mask.copy())
        obs, mask, *_ = env.step(np.array([rng.choice(np.flatnonzero(m)) for m in mask]))
    return torch.from_numpy(np.concatenate(obs_rows)), torch.from_numpy(np.concatenate(masks))


@pytest.fixture(scope="module")
def standard() -> tuple[torch.Tensor, torch.Tensor]:
    return positions("standard", 8)


def test_the_scored_cards_are_the_legal_cards_of_rows_with_a_choice(standard):
    obs, mask = standard
    scored = scored_cards(obs[:, OBSERVATION["hand"]], mask)
    legal_count = (mask != 0).sum(1)
    bidding = mask[:, NUM_CARDS:].sum(1) > 0
    assert bidding.any() and (legal_count == 1).any() and (legal_count > 1).any()  # every kind of row is here
    assert not scored[bidding].any()  # no card is legal while bidding
    assert not scored[legal_count == 1].any()  # a forced play: its probability is 1 whatever its score
    free = (legal_count > 1) & ~bidding
    assert torch.equal(scored[free], mask[free, :NUM_CARDS] != 0)
    assert scored.sum() < (obs[:, OBSERVATION["hand"]] > 0).sum() / 2  # far fewer cards than the hands hold


@pytest.mark.parametrize("preset", ["standard", "jokers"])
def test_scoring_only_the_scored_cards_keeps_the_masked_policy(preset):
    obs, mask = positions(preset, 4)
    torch.manual_seed(0)
    net = PolicyNet((32,), card_scorer=16)
    with torch.no_grad():
        net.cards.score.weight.normal_()  # scores far from zero, so that a wrong score would show
        every_card = torch.log_softmax(masked_logits(net(obs), mask), -1)
        scored = torch.log_softmax(masked_logits(net(obs, legal=mask), mask), -1)
        once = net.hand_card_features(obs, mask)
        from_features = torch.log_softmax(masked_logits(net(sparse_rows(obs), once), mask), -1)
    legal = mask != 0
    assert torch.allclose(scored[legal], every_card[legal], atol=1e-5)
    assert torch.allclose(from_features[legal], every_card[legal], atol=1e-5)


def test_scored_cards_refuse_a_mask_of_another_shape(standard):
    obs, mask = standard
    with pytest.raises(ValueError, match="legal-action mask"):
        CardFeatures()(obs, mask[:-1])
    with pytest.raises(ValueError, match="legal-action masks"):
        PolicyNet((8,), card_scorer=4).hand_card_features(obs, mask[:-1])


def test_snapshots_score_the_legal_cards_as_their_own_networks(standard):
    obs, mask = standard
    obs, mask = obs[:40], mask[:40]  # bids first, then plays: rows with and without scored cards
    torch.manual_seed(3)
    pool = [PolicyNet((16, 16), card_scorer=8).state_dict() for _ in range(3)]
    for state in pool:
        state["cards.score.weight"].normal_()
    nets = SnapshotNets([16, 16], torch.device("cpu"), card_scorer=8)
    which = torch.arange(len(obs)) % 3
    with torch.no_grad():
        got = masked_logits(nets.logits(pool, sparse_rows(obs), which, legal=mask, dense=obs), mask)
        for row in range(len(obs)):
            own = nets.net(pool[int(which[row])])
            expected = masked_logits(own(obs[row : row + 1], legal=mask[row : row + 1]), mask[row : row + 1])[0]
            assert torch.allclose(got[row], expected, atol=1e-5)


@pytest.mark.parametrize("others", [0, 7, 40])
def test_one_card_feature_pass_serves_the_learner_and_the_snapshot_rows(standard, others):
    obs, mask = standard
    obs, mask = obs[20:60].numpy(), mask[20:60].numpy()  # bids and plays on both sides of the split
    torch.manual_seed(4)
    policy = PolicyNet((16,), card_scorer=8)
    pool = [PolicyNet((16,), card_scorer=8).state_dict() for _ in range(2)]
    nets = SnapshotNets([16], torch.device("cpu"), card_scorer=8)
    mine, theirs = step_card_features(policy, obs, mask, others, torch.device("cpu"))
    learner = len(obs) - others
    alone = policy.hand_card_features(torch.as_tensor(obs[:learner]), torch.as_tensor(mask[:learner]))
    assert len(mine) == learner
    for part in ("indices", "values", "offsets"):
        assert torch.equal(getattr(mine, part), getattr(alone, part)), part
    if not others:
        assert theirs is None
        return
    snap_obs, snap_mask = torch.as_tensor(obs[learner:]), torch.as_tensor(mask[learner:])
    for got, expected in zip(theirs, CardFeatures()(snap_obs, snap_mask)):
        assert torch.equal(got, expected)
    which = torch.arange(others) % 2
    with torch.no_grad():
        given = nets.logits(pool, sparse_rows(snap_obs), which, legal=snap_mask, card_features=theirs)
        made = nets.logits(pool, sparse_rows(snap_obs), which, legal=snap_mask, dense=snap_obs)
    assert torch.equal(given, made)


def _policy_batch(obs: torch.Tensor, mask: torch.Tensor, net: PolicyNet) -> dict[str, torch.Tensor]:
    """A minibatch of real positions with legal actions drawn, their log-probabilities and random advantages."""
    rng = np.random.default_rng(1)
    action = torch.tensor([int(rng.choice(np.flatnonzero(m.numpy()))) for m in mask])
    with torch.no_grad():
        logp, _ = action_log_probs(masked_logits(net(obs, legal=mask), mask), action)
    return {
        "obs": sparse_rows(obs),
        "mask": mask,
        "action": action,
        "prior": torch.full((len(obs),), -1),
        "logp": logp,
        "advantage": torch.from_numpy(rng.normal(size=len(obs)).astype(np.float32)),
        "hand_cards": net.hand_card_features(obs, mask),
    }


def _gradients(net: PolicyNet, loss: torch.Tensor) -> list[torch.Tensor]:
    net.zero_grad()
    loss.backward()
    return [p.grad.clone() for p in net.parameters()]


@pytest.mark.parametrize("prior_weight", [0.0, 2.0])
def test_the_policy_pass_over_the_rows_with_a_choice_gives_the_loss_and_gradients_of_all_rows(standard, prior_weight):
    obs, mask = standard
    torch.manual_seed(0)
    net = PolicyNet((32,), card_scorer=16, prior_weight=prior_weight)
    t = _policy_batch(obs, mask, net)
    if prior_weight:  # the heuristic's action as the prior: any legal action will do here
        t["prior"] = mask.float().argmax(1)
    rows = torch.from_numpy(np.random.default_rng(2).permutation(len(obs))[:200])
    choice = choice_rows(mask)
    assert not choice.index_select(0, rows).all()  # the minibatch holds forced decisions
    values, returns = torch.zeros(len(rows)), torch.zeros(len(rows))
    args = (t["logp"][rows], t["advantage"][rows], values, returns)

    logp, probs = policy_log_probs(net, t, rows, choice)
    assert len(probs) == int(choice[rows].sum())
    fast = ppo_loss(logp, args[0], args[1], args[2], args[3], probs, 0.2, 0.5, 0.01)
    fast_grads = _gradients(net, fast["loss"])

    logits = masked_logits(apply_prior(net(obs[rows], legal=mask[rows]), t["prior"][rows], prior_weight), mask[rows])
    full_logp, full_probs = action_log_probs(logits, t["action"][rows])
    full = ppo_loss(full_logp, args[0], args[1], args[2], args[3], full_probs, 0.2, 0.5, 0.01)
    full_grads = _gradients(net, full["loss"])

    assert torch.equal(logp[~choice[rows]], torch.zeros(int((~choice[rows]).sum())))
    assert torch.allclose(logp, full_logp, atol=1e-5)
    for key in ("loss", "policy_loss", "entropy", "approx_kl", "clipfrac"):
        assert torch.allclose(fast[key], full[key], atol=1e-5), key
    for mine, theirs in zip(fast_grads, full_grads):
        assert torch.allclose(mine, theirs, atol=1e-5)


@pytest.mark.parametrize("bid_weight", [1.0, 3.0])
def test_the_imitation_loss_without_the_forced_rows_is_that_of_all_rows(standard, bid_weight):
    obs, mask = standard
    torch.manual_seed(0)
    net = PolicyNet((32,), card_scorer=16)
    action = torch.tensor([int(np.flatnonzero(m.numpy())[-1]) for m in mask])
    choice = choice_rows(mask)
    all_rows = imitation_loss(masked_logits(net(obs, legal=mask), mask), action, bid_weight)
    picked = masked_logits(net(obs[choice], legal=mask[choice]), mask[choice])
    assert torch.allclose(imitation_loss(picked, action[choice], bid_weight, action), all_rows, atol=1e-6)


def test_the_rollout_keeps_the_card_features_the_update_would_make():
    config = dataclasses.replace(
        TrainConfig(), num_envs=8, rollout_steps=70, hidden=[16], card_scorer=8, rollout_workers=0, bc_decisions=0
    )
    torch.manual_seed(0)
    rollout = Rollout(config, load_rules("standard"), np.random.default_rng(0))
    policy, critic = PolicyNet(config.hidden, card_scorer=8), ValueNet(rollout.critic_size, config.hidden)
    rollout.start(0, np.random.default_rng(0))
    nets = SnapshotNets(config.hidden, torch.device("cpu"), card_scorer=8)
    batch, _ = collect(rollout, policy, critic, nets, [], np.random.default_rng(0), torch.device("cpu"))
    assert batch is not None and len(batch["action"]) > 50
    made = policy.hand_card_features(batch["obs"], torch.as_tensor(batch["mask"]))
    kept = batch["hand_cards"]
    assert len(kept) == len(batch["action"]) and len(kept.indices) > 0
    assert torch.equal(kept.offsets, made.offsets) and torch.equal(kept.indices, made.indices)
    assert torch.equal(kept.values, made.values)


def test_a_store_keeps_hand_cards_only_when_every_decision_has_them():
    rows, seats = np.arange(2), np.zeros(2, dtype=np.int64)
    obs, mask = np.zeros((2, OBS_SIZE), np.float32), np.ones((2, NUM_ACTIONS), np.int8)
    cards = SparseRows(torch.tensor([3, 7]), torch.ones(2, 25), torch.tensor([0, 1, 2]), NUM_CARDS)

    def batch(with_cards: list[bool]) -> dict:
        store = TrajectoryStore(2, 4, sparse=True)
        for has in with_cards:
            store.add(
                rows,
                seats,
                obs=obs,
                mask=mask,
                critic=obs,
                action=np.zeros(2),
                logp=np.zeros(2),
                value=np.zeros(2),
                hand_cards=cards if has else None,
            )
        store.end_hands(rows, np.ones((2, 4)))
        return store.take_complete(1.0, 0.95)

    both = batch([True, True])
    assert torch.equal(both["hand_cards"].indices, torch.tensor([3, 7, 3, 7]))  # each decision's card, in order
    assert "hand_cards" not in batch([True, False])


@pytest.mark.parametrize("size, rows, active", [(OBS_SIZE, 64, 30), (STATE_SIZE, 33, 90), (40_000, 16, 5)])
def test_the_cpu_weight_gradient_is_the_dense_product(size, rows, active):
    rng = np.random.default_rng(size)
    dense = np.zeros((rows, size), np.float32)
    for r in range(rows - 1):  # the last row has no active feature
        dense[r, rng.choice(size, active, replace=False)] = rng.normal(size=active)
    grad = torch.from_numpy(rng.normal(size=(rows, 8)).astype(np.float32))
    got = _weight_grad(sparse_rows(dense), grad, torch.float32)
    assert got.shape == (8, size)
    assert torch.allclose(got, grad.t() @ torch.from_numpy(dense), atol=1e-5)
    assert _sort_key_dtype(size) == (torch.int16 if size <= 32768 else torch.int32)
