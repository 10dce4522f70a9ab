"""Policy and value networks, and the safe checkpoint format of released policies.

The policy is an MLP over the flat observation (layout in
:mod:`spades_env.encoding`); illegal actions are masked out of its logits. The
same network plays every seat, since observations are relative to the seat.
A policy may be *residual over the heuristic* (``prior_weight`` > 0): its
logits get ``prior_weight`` added at the action the heuristic agent would
take (on card decisions only, or on bids too with ``prior_on_bids``), so it
starts as the heuristic's play and learns where to depart from it. The
weight travels in the policy file; agents compute the prior themselves
(:func:`spades_env.agents.policy.heuristic_prior`).

A policy file is written with ``torch.save`` and read with
``torch.load(..., weights_only=True)``: a dict of tensors and plain values
(``POLICY_FORMAT``), never pickled objects.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Sequence

import numpy as np
import torch
from torch import nn

from .core.actions import NUM_ACTIONS
from .encoding import OBS_SIZE

POLICY_FORMAT = "spades_env.policy/1"
FEATURE_CLIP = 10.0  # scores can be large multiples of the target in long random games
MASKED_LOGIT = -1e9


class CheckpointError(ValueError):
    """A policy or checkpoint file that is corrupt, of another format, or of another shape."""


def mlp(sizes: Sequence[int]) -> nn.Sequential:
    """Linear layers with ReLU between them (none after the last)."""
    layers: list[nn.Module] = []
    for i in range(len(sizes) - 1):
        layers.append(nn.Linear(sizes[i], sizes[i + 1]))
        if i < len(sizes) - 2:
            layers.append(nn.ReLU())
    return nn.Sequential(*layers)


class PolicyNet(nn.Module):
    """Observation -> action logits (unmasked)."""

    def __init__(self, hidden: Sequence[int] = (512, 512, 256), obs_size: int = OBS_SIZE, num_actions: int = NUM_ACTIONS,
                 prior_weight: float = 0.0, prior_on_bids: bool = False):
        super().__init__()
        if not prior_weight >= 0:
            raise ValueError(f"prior_weight must be >= 0, got {prior_weight}")
        self.hidden = tuple(int(h) for h in hidden)
        self.prior_weight = float(prior_weight)  # logit bonus at the heuristic's action (0 = no prior)
        self.prior_on_bids = bool(prior_on_bids)
        self.obs_size = obs_size
        self.num_actions = num_actions
        self.body = mlp((obs_size, *self.hidden))
        self.head = nn.Linear(self.hidden[-1], num_actions)
        with torch.no_grad():  # small initial logits: a near-uniform first policy
            self.head.weight.mul_(0.01)
            self.head.bias.zero_()

    def forward(self, obs: torch.Tensor) -> torch.Tensor:
        """Logits for every action."""
        return self.head(torch.relu(self.body(obs.clamp(-FEATURE_CLIP, FEATURE_CLIP))))


class ValueNet(nn.Module):
    """Observation (or full state) -> expected return of the seat."""

    def __init__(self, input_size: int, hidden: Sequence[int] = (512, 512, 256)):
        super().__init__()
        self.input_size = input_size
        self.hidden = tuple(int(h) for h in hidden)
        self.net = mlp((input_size, *self.hidden, 1))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """Value per row."""
        return self.net(x.clamp(-FEATURE_CLIP, FEATURE_CLIP)).squeeze(-1)


def masked_logits(logits: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """Logits with illegal actions pushed to a huge negative value."""
    return logits.masked_fill(mask == 0, MASKED_LOGIT)


def apply_prior(logits: torch.Tensor, prior: torch.Tensor | None, weight: float) -> torch.Tensor:
    """Logits plus ``weight`` at each row's prior action (rows with prior -1 unchanged)."""
    if prior is None or weight == 0:
        return logits
    rows = prior >= 0
    bonus = torch.zeros_like(logits)
    bonus[rows, prior[rows]] = weight
    return logits + bonus


def save_policy(path: str | os.PathLike, policy: PolicyNet, meta: dict[str, Any] | None = None, half: bool = False) -> None:
    """Write a policy file (optionally float16 weights) atomically."""
    state = {k: (v.half() if half and v.is_floating_point() else v).detach().cpu().clone() for k, v in policy.state_dict().items()}
    payload = {
        "format": POLICY_FORMAT,
        "obs_size": policy.obs_size,
        "num_actions": policy.num_actions,
        "hidden": list(policy.hidden),
        "heuristic_prior": {"weight": policy.prior_weight, "on_bids": policy.prior_on_bids},
        "state_dict": state,
        "meta": dict(meta or {}),
    }
    atomic_torch_save(payload, path)


def atomic_torch_save(payload: Any, path: str | os.PathLike) -> None:
    """torch.save to a temporary file, then rename: a crash never leaves a half-written file."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    torch.save(payload, tmp)
    os.replace(tmp, path)


def safe_load(path: str | os.PathLike) -> dict[str, Any]:
    """torch.load with weights_only=True; any failure becomes a CheckpointError naming the file."""
    path = Path(path)
    if not path.is_file():
        raise CheckpointError(f"no such checkpoint file: {path}")
    try:
        payload = torch.load(path, map_location="cpu", weights_only=True)
    except Exception as exc:  # torch raises many types for corrupt files
        raise CheckpointError(f"{path}: cannot be read as a checkpoint ({type(exc).__name__}: {exc})") from None
    if not isinstance(payload, dict):
        raise CheckpointError(f"{path}: expected a dict, got {type(payload).__name__}")
    return payload


def load_policy(path: str | os.PathLike) -> tuple[PolicyNet, dict[str, Any]]:
    """A PolicyNet (float32, eval mode) and its meta from a policy file."""
    payload = safe_load(path)
    if payload.get("format") != POLICY_FORMAT:
        raise CheckpointError(f"{path}: not a spades_env policy (format {payload.get('format')!r}, expected {POLICY_FORMAT!r})")
    if payload.get("obs_size") != OBS_SIZE or payload.get("num_actions") != NUM_ACTIONS:
        raise CheckpointError(
            f"{path}: made for observations of {payload.get('obs_size')} and {payload.get('num_actions')} actions; "
            f"this version has {OBS_SIZE} and {NUM_ACTIONS}"
        )
    prior = payload.get("heuristic_prior", {"weight": 0.0, "on_bids": False})  # files before the prior had none
    try:
        policy = PolicyNet(hidden=payload["hidden"], prior_weight=float(prior["weight"]), prior_on_bids=bool(prior["on_bids"]))
    except (KeyError, TypeError, ValueError) as exc:
        raise CheckpointError(f"{path}: malformed network description ({type(exc).__name__}: {exc})") from None
    state = {k: v.float() if v.is_floating_point() else v for k, v in payload["state_dict"].items()}
    try:
        policy.load_state_dict(state)
    except RuntimeError as exc:
        raise CheckpointError(f"{path}: weights do not fit the network: {exc}") from None
    policy.eval()
    return policy, dict(payload.get("meta", {}))
