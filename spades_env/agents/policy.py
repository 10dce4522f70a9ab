"""Trained policies as agents (the ``ppo`` agent and the checkpoint loader of policy files).

Importing this module registers:

* a checkpoint loader for policy files written by :func:`spades_env.nn.save_policy`
  (``make_agent("runs/.../policy.pt")``), and
* the agent ``ppo``: ``make_agent("ppo")`` plays the released policy shipped
  as ``spades_env/policies/ppo.pt``; ``make_agent("ppo", path=...)`` another
  policy file.

A policy agent plays the most probable legal action by default
(``greedy=False`` samples, with ``temperature``). A policy residual over the
heuristic (``PolicyNet.prior_weight`` > 0) gets its prior from the classic
heuristic (:class:`~spades_env.agents.heuristic.ClassicHeuristicAgent`) at each decision.
"""

from __future__ import annotations

import math
import os
from collections.abc import Mapping
from typing import Any

import numpy as np

from ..core.actions import ACTION_NAMES, BID_OFFSET, NUM_ACTIONS
from ..core.drawing import has_drawing
from ..core.rules import Rules
from ..nn import (
    POLICY_FORMAT,
    CheckpointError,
    PolicyNet,
    apply_prior,
    load_policy,
    masked_logits,
    safe_load,
    torch,  # noqa: I001 - first, so that a missing torch is reported with the extra to install
)
from ..nn.policy_file import PolicyFileError
from .base import Agent, check_observation, check_option
from .heuristic import ClassicHeuristicAgent
from .registry import POLICY_DIR, register_agent, register_checkpoint_loader

RELEASED_POLICY = POLICY_DIR / "ppo.pt"


def prior_of_actions(actions: np.ndarray, on_bids: bool) -> np.ndarray:
    """The heuristic's actions as a prior: -1 where it does not apply (bids, blind and 10-for-200 calls unless on_bids)."""
    prior = np.array(actions, dtype=np.int64)
    if not on_bids:
        prior[prior >= BID_OFFSET] = -1  # only card actions (play, exchange) are below BID_OFFSET (drawing is above)
    return prior


def heuristic_prior(heuristic: Agent, obs: np.ndarray, mask: np.ndarray, on_bids: bool) -> np.ndarray:
    """The heuristic's action per row as a prior (see :func:`prior_of_actions`)."""
    return prior_of_actions(heuristic.act_batch(obs, mask), on_bids)


class PolicyAgent(Agent):
    """Plays a :class:`PolicyNet`: greedy by default, or sampling with a temperature."""

    name = "ppo"

    def __init__(
        self,
        policy: PolicyNet,
        greedy: bool = True,
        temperature: float = 1.0,
        seed: int | None = None,
        rng: np.random.Generator | None = None,
        device: str = "cpu",
        path: str | None = None,
    ):
        super().__init__(seed=seed, rng=rng)
        check_option("temperature", temperature, 0, math.inf, low_included=False)
        self.policy = policy.to(device).eval()
        self.greedy = bool(greedy)
        self.temperature = float(temperature)
        self.device = device
        self.path = path
        # The classic heuristic: the prior the released policy was trained with.
        self.heuristic = ClassicHeuristicAgent() if policy.prior_weight > 0 else None

    def _no_drawing(self) -> str:
        """What a policy of the older action space lacks (no file path: a web table shows it to the page)."""
        known = self.policy.num_actions
        return (
            f"trained on {known} actions (spades_v2 or older), it "
            f"has no output for {', '.join(repr(ACTION_NAMES[a]) for a in range(known, NUM_ACTIONS))}"
            "; the drawing turns of two-player Spades need a policy trained on spades_v3"
        )

    def check_rules(self, rules: Rules) -> None:
        """PolicyFileError when these rules have turns the policy has no output for (a spades_v2 policy in
        two-player Spades, whose hands start with drawing)."""
        if has_drawing(rules) and self.policy.num_actions < NUM_ACTIONS:
            raise PolicyFileError(self._no_drawing())

    @torch.no_grad()
    def legal_logits(self, obs: np.ndarray, mask: np.ndarray) -> torch.Tensor:
        """The policy's logits per row of (obs, mask), illegal actions pushed to a huge negative value (on the CPU)."""
        if self.policy.num_actions < NUM_ACTIONS and np.asarray(mask)[..., self.policy.num_actions :].any():
            raise PolicyFileError(f"{self.path or 'this policy'}: {self._no_drawing()}")
        x = torch.as_tensor(np.asarray(obs, dtype=np.float32), device=self.device)
        m = torch.as_tensor(np.asarray(mask), device=self.device)
        logits = self.policy(x, legal=m)
        if self.heuristic is not None:
            prior = heuristic_prior(self.heuristic, np.asarray(obs), np.asarray(mask), self.policy.prior_on_bids)
            logits = apply_prior(logits, torch.as_tensor(prior, device=self.device), self.policy.prior_weight)
        return masked_logits(logits, m).cpu()

    def probabilities(self, observation: Mapping[str, np.ndarray]) -> np.ndarray:
        """The policy's probability of every action for one observation dict (0 for illegal ones)."""
        obs, mask = check_observation(observation)
        return torch.softmax(self.legal_logits(obs[None], mask[None])[0].double(), dim=-1).numpy()

    def act_batch(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """One legal action per row of (obs, mask)."""
        logits = self.legal_logits(obs, mask)
        if self.greedy:
            return logits.argmax(dim=-1).numpy().astype(np.int64)
        probs = torch.softmax(logits / self.temperature, dim=-1).numpy().astype(np.float64)
        probs[np.asarray(mask) == 0] = 0.0  # at a high temperature the masked logits no longer vanish by themselves
        probs /= probs.sum(axis=1, keepdims=True)
        return np.array([self.rng.choice(len(p), p=p) for p in probs], dtype=np.int64)

    def act(self, observation: Mapping[str, np.ndarray]) -> int:
        """The action for one observation dict."""
        obs, mask = check_observation(observation)
        return int(self.act_batch(obs[None], mask[None])[0])

    def describe(self) -> dict[str, Any]:
        """Name, file and options, for evaluation records."""
        return {
            "name": self.name,
            "path": self.path,
            "greedy": self.greedy,
            "temperature": self.temperature,
            "seed": self.seed,
            "prior_weight": self.policy.prior_weight,
            "prior_on_bids": self.policy.prior_on_bids,
            "card_scorer": self.policy.card_scorer,
        }


def load_policy_agent(path: str | os.PathLike | None = None, **options: Any) -> PolicyAgent:
    """A PolicyAgent from a policy file (default: the released policy)."""
    path = RELEASED_POLICY if path is None else path
    if not os.path.isfile(path):
        raise CheckpointError(
            f"policy file not found: {path}"
            + ("; the released policy is missing from this installation" if path == RELEASED_POLICY else "")
        )
    policy, _meta = load_policy(path)
    return PolicyAgent(policy, path=os.fspath(path), **options)


def _checkpoint_loader(path: str, **options: Any) -> PolicyAgent | None:
    payload = safe_load(path)
    if payload.get("format") != POLICY_FORMAT:
        return None  # not ours: let another loader try
    return load_policy_agent(path, **options)


register_checkpoint_loader("spades_env.policy", _checkpoint_loader)
register_agent("ppo", load_policy_agent, "trained PPO policy: the released one, or path=<policy.pt>", overwrite=True)
