"""The maths of masked PPO, as small pure functions, and one update over a batch.

* :func:`gae_advantages`: generalized advantage estimation along each seat's
  chain of decisions (``next_index``), an episode (hand) ending at ``done``.
* :func:`returns_of`: the critic's targets, advantage + value.
* :func:`normalize_advantages`: zero mean, unit spread per minibatch; a
  minibatch of one decision has no spread, so its advantage is 0 (no policy
  gradient) instead of NaN (which would poison the weights).
* :func:`normalize_by_group`: zero mean and unit spread within each group of
  a batch (the presets of a mixture, ``advantage_norm: preset``), before the
  minibatches: a preset whose points spread less than another's (cutthroat's
  about half of standard's, suicide's about twice) then weighs as much in the
  policy gradient, as per-task normalization does in multi-task RL.
* :func:`clipped_policy_loss`, :func:`value_loss`, :func:`legal_entropy`,
  :func:`ppo_loss`: the clipped surrogate objective and its companions.
* :func:`ppo_update`: epochs of minibatch steps over one batch, with an early
  stop above ``target_kl``.
* :func:`batch_tensors`: a batch's arrays as tensors, the networks' inputs as
  :class:`~spades_env.nn.SparseRows` when ``sparse_input`` is set (as the
  sparse trajectory store hands them over, or converted once per batch).
* :func:`action_log_probs`: the taken actions' log-probabilities and the
  policy's probabilities under masked logits (what ``Categorical`` gives, at a
  fraction of its cost on masked logits).
* :func:`expert_loss`: learning from search (``expert``, :mod:`training.expert`):
  the policy's cross-entropy at the expert's targets, added to PPO's loss
  times ``expert_coef`` in every minibatch that holds targets.
* :func:`teacher_kl`: policy distillation (``teachers``, :mod:`training.teachers`):
  the policy's KL divergence from each preset's teacher, added to PPO's loss
  times ``teacher_coef``.
* :func:`choice_rows`, :func:`policy_log_probs`: the policy's pass runs on the
  decisions with a choice only. A forced decision (one legal action, about a
  fifth of training play) has log-probability 0 and entropy 0 under any policy,
  so its ratio is 1 and it adds nothing to the gradient; it still counts in
  every mean (as a 0 where the policy's pass would give 0), and the critic
  trains on it. The loss and gradients are those of the pass over all rows.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch

from spades_env.nn import PolicyNet, SparseRows, ValueNet, apply_prior, masked_logits, sparse_rows

TINY = 1e-8  # keeps the advantage normalization finite when every advantage is equal
PROB_FLOOR = 1e-12  # log of a zero probability (an illegal action) is taken at this floor, times 0
BATCH_KEYS = (
    "obs",
    "mask",
    "critic",
    "action",
    "logp",
    "advantage",
    "return",
    "prior",
    "hand_cards",
    "expert",
    "expert_cards",
    "teacher",
)
NO_TARGET = -1  # a decision without the expert's action (training.expert)


def gae_advantages(
    reward: Any,
    value: Any,
    done: Any,
    next_index: Any,
    rows: Any,
    gamma: float,
    gae_lambda: float,
) -> Any:
    """GAE (float32) of the decisions ``rows`` (each seat's chain linked by ``next_index``, ending at ``done``;
    others stay 0), on numpy arrays or torch tensors on any device: both rollouts' one sweep.

    A decision at a hand's end (``done``) has advantage reward - value; any other
    has delta + gamma * lambda * (its successor's advantage), with the TD error
    delta = reward + gamma * value[successor] - value. A decision whose successor
    is missing or not among ``rows`` ends its chain there, bootstrapped with 0.
    """
    xp = torch if isinstance(value, torch.Tensor) else np
    picked = xp.zeros_like(value, dtype=bool)  # like value: on its device
    picked[rows] = True
    links = xp.where(picked & (next_index >= 0) & picked[next_index.clip(min=0)], next_index, -1)
    before = xp.full_like(links, -1)  # each decision's predecessor on its chain (at most one)
    linked = xp.where(links >= 0)[0]
    before[links[linked]] = linked
    ends = done | (links < 0)
    adv = xp.zeros_like(value, dtype=xp.float32)
    # A chain's end first, then its predecessors, one place back per wave: every chain at once (a wave per
    # decision of the longest chain, 13 to 30 by preset, instead of a step per decision; on a device, each wave
    # reads its size back).
    wave = xp.where(picked & ends)[0]
    while len(wave):
        nxt = links[wave].clip(min=0)  # a chain's end reads a successor it ignores
        delta = reward[wave] + gamma * value[nxt] - value[wave]
        adv[wave] = xp.where(ends[wave], reward[wave] - value[wave], delta + gamma * gae_lambda * adv[nxt])
        wave = before[wave]
        wave = wave[wave >= 0]
    return adv


def returns_of(advantage: np.ndarray, value: np.ndarray) -> np.ndarray:
    """The critic's targets: advantage + value (the lambda-return)."""
    return advantage + value


def normalize_advantages(adv: torch.Tensor) -> torch.Tensor:
    """Zero mean and unit standard deviation; all zeros for a single decision (no spread to divide by)."""
    if adv.numel() < 2:
        return adv - adv.mean()
    return (adv - adv.mean()) / (adv.std() + TINY)


def normalize_by_group(adv: np.ndarray, groups: np.ndarray) -> np.ndarray:
    """``adv`` with zero mean and unit standard deviation within each group (rows of equal ``groups``); a group of
    one decision, or of equal advantages, gets zeros."""
    adv = np.asarray(adv, dtype=np.float64)
    out = np.zeros_like(adv)
    for group in np.unique(groups):
        rows = groups == group
        part = adv[rows]
        spread = part.std(ddof=1) if len(part) > 1 else 0.0
        out[rows] = (part - part.mean()) / (spread + TINY) if spread > 0 else 0.0
    return out.astype(np.float32)


def clipped_policy_loss(adv: torch.Tensor, ratio: torch.Tensor, clip_coef: float) -> torch.Tensor:
    """PPO's clipped surrogate, as a loss: mean of max(-A r, -A clip(r, 1 - c, 1 + c))."""
    return torch.max(-adv * ratio, -adv * ratio.clamp(1 - clip_coef, 1 + clip_coef)).mean()


def value_loss(predicted: torch.Tensor, returns: torch.Tensor) -> torch.Tensor:
    """Half the mean squared error of the critic."""
    return 0.5 * ((predicted - returns) ** 2).mean()


def legal_entropy(probs: torch.Tensor, rows: int | None = None) -> torch.Tensor:
    """Mean entropy of the rows' distributions (illegal actions have probability 0 and add nothing), over ``rows``
    rows when given: the rows left out of ``probs`` (forced decisions, one legal action) have entropy 0."""
    return -(probs * torch.log(probs.clamp_min(PROB_FLOOR))).sum() / (len(probs) if rows is None else rows)


def ppo_loss(
    new_logp: torch.Tensor,
    old_logp: torch.Tensor,
    adv: torch.Tensor,
    predicted: torch.Tensor,
    returns: torch.Tensor,
    probs: torch.Tensor,
    clip_coef: float,
    vf_coef: float,
    ent_coef: float,
) -> dict[str, torch.Tensor]:
    """The total loss and its parts for one minibatch (``adv`` already normalized); ``probs`` may hold only the rows
    with a choice (forced decisions add no entropy), the other arguments hold every row."""
    log_ratio = new_logp - old_logp
    ratio = log_ratio.exp()
    pg = clipped_policy_loss(adv, ratio, clip_coef)
    v = value_loss(predicted, returns)
    entropy = legal_entropy(probs, len(new_logp))
    with torch.no_grad():
        approx_kl = ((ratio - 1) - log_ratio).mean()
        clipfrac = ((ratio - 1).abs() > clip_coef).float().mean()
    return {
        "loss": pg + vf_coef * v - ent_coef * entropy,
        "policy_loss": pg,
        "value_loss": v,
        "entropy": entropy,
        "approx_kl": approx_kl,
        "clipfrac": clipfrac,
    }


def target_sets(targets: torch.Tensor, cards: torch.Tensor, num_actions: int) -> torch.Tensor:
    """Bool per (row, action): the actions that meet each row's target: the cards of ``cards`` (a bitmask: the
    searched card's run of equivalent cards), else the target action itself (none for :data:`NO_TARGET`)."""
    bits = torch.arange(num_actions, device=cards.device).clamp(max=62)  # cards fit in 54 bits; bids have no bitmask
    in_run = ((cards[:, None] >> bits) & 1).bool() & (bits < 62)
    actions = torch.arange(num_actions, device=targets.device)
    return torch.where((cards != 0)[:, None], in_run, actions == targets[:, None])


def expert_loss(probs: torch.Tensor, targets: torch.Tensor, cards: torch.Tensor) -> torch.Tensor | None:
    """Mean cross-entropy of the rows' distributions ``probs`` at their targets (the expert's action, or its run of
    equivalent ``cards``: :func:`target_sets`): minus the log of the probability given to them, over the rows with a
    target (not :data:`NO_TARGET`); None when no row has one."""
    has = targets != NO_TARGET
    if not bool(has.any()):
        return None
    met = (probs[has] * target_sets(targets[has], cards[has], probs.shape[1])).sum(1)
    return -torch.log(met.clamp_min(PROB_FLOOR)).mean()


def teacher_kl(probs: torch.Tensor, teacher: torch.Tensor) -> torch.Tensor | None:
    """Mean KL divergence KL(teacher || policy) of the rows' distributions ``probs`` from the ``teacher``'s (rows of
    zeros: no teacher), over the rows with a teacher; None when no row has one."""
    has = teacher.sum(1) > 0
    if not bool(has.any()):
        return None
    p, q = teacher[has], probs[has]
    terms = torch.where(p > 0, p * (torch.log(p.clamp_min(PROB_FLOOR)) - torch.log(q.clamp_min(PROB_FLOOR))), 0.0)
    return terms.sum(1).mean()


def action_log_probs(logits: torch.Tensor, actions: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """The log-probability of each row's action and every action's probability, under masked ``logits``."""
    # as Categorical(logits=...) computes them, but in two fused kernels: its logsumexp (and an exp of the log
    # probabilities) takes a slow path on the masked logits, several times the whole softmax
    return torch.log_softmax(logits, -1).gather(1, actions[:, None]).squeeze(1), torch.softmax(logits, -1)


NETWORK_INPUTS = ("obs", "critic")  # the inputs of the policy and the critic


def batch_tensors(
    batch: dict[str, np.ndarray | SparseRows], keys: tuple[str, ...], sparse: bool, device: torch.device
) -> dict[str, torch.Tensor | SparseRows]:
    """The batch's ``keys`` as tensors on ``device``; the network inputs as SparseRows when ``sparse`` (or given so)."""
    t: dict[str, torch.Tensor | SparseRows] = {
        k: v.to(device) if isinstance(v, SparseRows) else torch.as_tensor(v, device=device)
        for k, v in batch.items()
        if k in keys
    }
    if sparse:
        for key in NETWORK_INPUTS:
            if key in t and not isinstance(t[key], SparseRows):
                t[key] = sparse_rows(t[key])
    return t


def minibatch(t: dict[str, torch.Tensor | SparseRows], rows: torch.Tensor) -> dict[str, torch.Tensor | SparseRows]:
    """The ``rows`` of every tensor of a batch (index_select: several times faster than indexing on CPU)."""
    return {k: v[rows] if isinstance(v, SparseRows) else v.index_select(0, rows) for k, v in t.items()}


def choice_rows(mask: torch.Tensor) -> torch.Tensor:
    """Bool per row: more than one legal action. A forced decision (one legal action) has log-probability 0 and
    entropy 0 under any policy, so it adds nothing to the policy's gradient and needs no policy pass."""
    return (mask != 0).sum(1) > 1


def policy_log_probs(
    policy: PolicyNet, t: dict[str, torch.Tensor | SparseRows], rows: torch.Tensor, choice: torch.Tensor
) -> tuple[torch.Tensor, torch.Tensor]:
    """The log-probability of the taken action of each of the batch's ``rows`` (0 at forced decisions) and the
    probabilities of the rows with a choice, from one policy pass over the rows with a choice only."""
    mine = choice.index_select(0, rows)
    picked = rows[mine]
    hand_cards = t["hand_cards"][picked] if "hand_cards" in t else None
    mask = t["mask"].index_select(0, picked)
    logits = masked_logits(
        apply_prior(
            policy(t["obs"][picked], hand_cards, legal=mask), t["prior"].index_select(0, picked), policy.prior_weight
        ),
        mask,
    )
    logp, probs = action_log_probs(logits, t["action"].index_select(0, picked))
    return logp.new_zeros(len(rows)).masked_scatter(mine, logp), probs


def ppo_update(
    policy: PolicyNet,
    critic: ValueNet,
    optimizer: torch.optim.Optimizer,
    params: list,
    batch: dict[str, np.ndarray],
    config: Any,
    rng: np.random.Generator,
    device: torch.device,
) -> dict[str, float]:
    """PPO epochs of minibatch steps over ``batch``; the mean of each loss part and statistic. The policy runs on
    the decisions with a choice only (:func:`choice_rows`: the same loss and gradients); the critic on all."""
    policy.train()
    n = len(batch["action"])
    t = batch_tensors(batch, BATCH_KEYS, config.sparse_input, device)
    if policy.cards is None:
        t.pop("hand_cards", None)
    elif "hand_cards" not in t:  # fixed arithmetic: once per batch (the rollout's, when it kept them), not per epoch
        t["hand_cards"] = policy.hand_card_features(t["obs"], t["mask"])
    choice = choice_rows(t["mask"])
    stats: dict[str, list[float]] = {
        "policy_loss": [],
        "value_loss": [],
        "entropy": [],
        "approx_kl": [],
        "clipfrac": [],
    }
    targets, teacher = t.get("expert"), t.get("teacher")
    if targets is not None:
        stats["expert_loss"] = []
    if teacher is not None:
        stats["teacher_kl"] = []
    for _epoch in range(config.update_epochs):
        order = torch.as_tensor(rng.permutation(n), device=device)
        kl_epoch = []
        for start in range(0, n, config.minibatch_size):
            rows = order[start : start + config.minibatch_size]
            mb = minibatch({key: t[key] for key in ("critic", "logp", "advantage", "return")}, rows)
            new_logp, probs = policy_log_probs(policy, t, rows, choice)
            parts = ppo_loss(
                new_logp,
                mb["logp"],
                normalize_advantages(mb["advantage"]),
                critic(mb["critic"]),
                mb["return"],
                probs,
                config.clip_coef,
                config.vf_coef,
                config.ent_coef,
            )
            if targets is not None or teacher is not None:  # their rows have a choice: the rows of probs
                picked = rows[choice.index_select(0, rows)]
            if targets is not None:
                imitation = expert_loss(
                    probs, targets.index_select(0, picked), t["expert_cards"].index_select(0, picked)
                )
                if imitation is not None:
                    parts["loss"] = parts["loss"] + config.expert_coef * imitation
                    parts["expert_loss"] = imitation
            if teacher is not None:
                kl = teacher_kl(probs, teacher.index_select(0, picked))
                if kl is not None:
                    parts["loss"] = parts["loss"] + config.teacher_coef * kl
                    parts["teacher_kl"] = kl
            optimizer.zero_grad()
            parts["loss"].backward()
            torch.nn.utils.clip_grad_norm_(params, config.max_grad_norm)
            optimizer.step()
            for key in stats:
                if key in parts:
                    stats[key].append(parts[key].item())
            kl_epoch.append(parts["approx_kl"].item())
        if config.target_kl and np.mean(kl_epoch) > config.target_kl:
            break
    out = {k: float(np.mean(v)) if v else float("nan") for k, v in stats.items()}
    if targets is not None:
        has = targets != NO_TARGET
        out["expert_targets"] = int(has.sum())
        sets = target_sets(targets[has], t["expert_cards"][has], t["mask"].shape[1])
        agree = sets.gather(1, t["action"][has][:, None]).squeeze(1).float()
        out["expert_agreement"] = float(agree.mean()) if len(agree) else float("nan")
    return out


def explained_variance(predicted: np.ndarray, returns: np.ndarray) -> float:
    """1 - Var(returns - predicted) / Var(returns); NaN when the returns do not vary."""
    var = np.var(returns)
    return float(1 - np.var(returns - predicted) / var) if var > 0 else float("nan")
