"""Warm start: behaviour cloning of the heuristic agent before PPO.

The heuristic plays every seat of the tables for ``bc_decisions`` decisions;
the policy learns its actions (cross-entropy over legal actions) and the critic
the hands' rewards (undiscounted, as in training). Adam's moments are cleared
afterwards, so PPO starts with fresh ones.
"""

from __future__ import annotations

import time

import numpy as np
import torch

from spades_env.core.actions import BID_OFFSET
from spades_env.nn import PolicyNet, ValueNet, apply_prior, masked_logits
from training.config import TrainConfig
from training.pipeline import WORKER_STREAM, RolloutWorker
from training.ppo import batch_tensors, choice_rows
from training.rollout import IMITATION_FIELDS as FIELDS
from training.rollout import Rollout, heuristic_decisions
from training.trajectories import Rows, join_rows

IMITATION_TABLES = 1  # the worker's imitation tables: their own stream of the run's seed
AGREEMENT_SAMPLE = 20_000  # decisions on which the agreement with the heuristic is measured


def imitation_data(rollout: Rollout, config: TrainConfig, worker: RolloutWorker | None = None) -> dict[str, Rows]:
    """The heuristic's decisions to imitate: all on ``rollout``'s tables, or with the rollout worker, half on
    tables of its own beside (seeded from the run's seed), joined after this process's half."""
    if worker is None:
        return heuristic_decisions(rollout, config)
    side = Rollout(config, rollout.rules, np.random.default_rng([config.seed, WORKER_STREAM, IMITATION_TABLES]))
    theirs = worker.imitation_data(side, config.bc_decisions // 2)
    mine = heuristic_decisions(rollout, config, config.bc_decisions - config.bc_decisions // 2)
    other = theirs.result()
    return {key: join_rows([mine[key], other[key]]) for key in FIELDS}


def imitation_loss(
    logits: torch.Tensor, actions: torch.Tensor, bid_weight: float, all_actions: torch.Tensor | None = None
) -> torch.Tensor:
    """Cross-entropy of the heuristic's actions, a bidding decision weighted ``bid_weight`` against 1 for a card play
    (the weighted mean: the plain mean when ``bid_weight`` is 1), over the rows of ``all_actions`` (default:
    ``actions``): rows left out of ``logits`` are forced decisions (one legal action), whose loss is 0."""
    all_actions = actions if all_actions is None else all_actions
    losses = torch.nn.functional.cross_entropy(logits, actions, reduction="none")
    if bid_weight == 1:
        return losses.sum() / len(all_actions)
    weight = torch.where(actions >= BID_OFFSET, bid_weight, 1.0)  # card actions (play, exchange) are below it
    return (losses * weight).sum() / torch.where(all_actions >= BID_OFFSET, bid_weight, 1.0).sum()


def imitate(
    rollout: Rollout,
    policy: PolicyNet,
    critic: ValueNet,
    optimizer: torch.optim.Optimizer,
    params: list,
    config: TrainConfig,
    rng: np.random.Generator,
    device: torch.device,
    worker: RolloutWorker | None = None,
) -> dict[str, float]:
    """Clone the heuristic into ``policy`` (and fit ``critic``); return decisions, seconds and agreement."""
    t0 = time.time()
    data = imitation_data(rollout, config, worker)
    tensor = batch_tensors(data, FIELDS, config.sparse_input, device)
    n = len(data["action"])
    hand_cards = policy.hand_card_features(tensor["obs"], tensor["mask"])  # fixed arithmetic: once, not per epoch

    def logits_of(idx: np.ndarray) -> torch.Tensor:
        cards = None if hand_cards is None else hand_cards[idx]
        logits = apply_prior(policy(tensor["obs"][idx], cards), tensor["prior"][idx], policy.prior_weight)
        return masked_logits(logits, tensor["mask"][idx])

    choice = choice_rows(tensor["mask"]).cpu().numpy()  # forced decisions need no policy pass (loss 0)
    set_learning_rate(optimizer, config.bc_learning_rate)
    for epoch in range(config.bc_epochs):
        order = rng.permutation(n)
        losses = []
        for start in range(0, n, config.minibatch_size):
            idx = order[start : start + config.minibatch_size]
            picked = idx[choice[idx]]
            pl = imitation_loss(
                logits_of(picked), tensor["action"][picked], config.bc_bid_weight, tensor["action"][idx]
            )
            vl = ((critic(tensor["critic"][idx]) - tensor["return"][idx]) ** 2).mean()
            optimizer.zero_grad()
            (pl + config.vf_coef * vl).backward()
            torch.nn.utils.clip_grad_norm_(params, config.max_grad_norm)
            optimizer.step()
            losses.append((pl.item(), vl.item()))
        pl_mean, vl_mean = np.mean(losses, axis=0)
        print(f"imitation epoch {epoch + 1}/{config.bc_epochs}: policy loss {pl_mean:.3f}, value loss {vl_mean:.3f}")
    with torch.no_grad():  # how often the imitation picks the heuristic's action
        idx = rng.choice(n, size=min(AGREEMENT_SAMPLE, n), replace=False)
        agreement = float((logits_of(idx).argmax(-1).cpu().numpy() == data["action"][idx]).mean())
    seconds = time.time() - t0
    print(f"imitation: {n:,} decisions, agreement with the heuristic {agreement:.1%}, {seconds:.0f} s")
    set_learning_rate(optimizer, config.learning_rate)
    optimizer.state.clear()  # fresh Adam moments for PPO
    return {"bc_decisions": n, "bc_seconds": round(seconds, 1), "agreement": agreement}


def set_learning_rate(optimizer: torch.optim.Optimizer, lr: float) -> None:
    """Every parameter group's learning rate."""
    for group in optimizer.param_groups:
        group["lr"] = lr
