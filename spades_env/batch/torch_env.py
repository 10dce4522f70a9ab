"""``BatchEnv(..., backend="torch", device=...)``: the batch engine on torch tensors, on any device.

``TorchBatchEnv`` has ``BatchEnv``'s ``reset`` and ``step`` (see the package docstring) with torch tensors in and
out, on ``device``: observations float32 ``(num_envs, OBS_SIZE)`` (the same layout and values), masks int8
``(num_envs, NUM_ACTIONS)``, seats to act int64, rewards float32 ``(num_envs, num_players)`` (the reward scheme's
``hand_end`` at a hand's end plus ``episode_end`` when the episode ends, as the numpy engine pays them), dones
bool. ``info`` is a dict of tensors, one row per table: ``hand_over``, ``points``, ``scores``, ``bags`` (after the
hand), ``done``, ``winner`` (-1 if none), ``truncated`` and ``bag_penalties``.

The engine is :class:`~spades_env.batch.masked.MaskedGames`: every table through every phase's update at every
step, fixed shapes, dealing from the engine's own torch generator on the device, every rule the core's. Off the
CPU, ``Ops.any`` is answered without reading the device (``torch_ops(device)``), so a step does not wait for the
device unless actions are checked: ``check_actions`` (default on) reads back one flag per step to refuse an
illegal or out-of-range action with :class:`~spades_env.core.hand.IllegalActionError` naming the table, before
any table changes; turn it off where the actions come from the mask (a policy sampling it).

``observe(seats)`` gives any seat's observation at each table and ``action_masks()`` the current mask, as on
numpy, and ``state()`` the full-information state (a critic's input); the engine pickles (its generator's state
with it). Not (yet) on this backend: ``obs_format="packed"`` (refused by name), ``record_deals`` and the per-table
queries of the numpy engine (``episode_deals``, ``legal_actions(table)``).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch

from ..config_io import load_rules
from ..core import actions as A
from ..core.hand import IllegalActionError
from ..core.rules import Rules
from ..obs.encode import OBS_SIZE
from ..rewards import RewardScheme, make_reward
from .masked import MaskedGames
from .torch_ops import torch_ops


class TorchBatchEnv:
    """``num_envs`` Spades tables stepped together on torch tensors (see the module docstring)."""

    backend = "torch"

    def __init__(
        self,
        num_envs: int,
        rules: Rules | str = "standard",
        episode: str = "game",
        seed: int | None = 0,
        reward: str | RewardScheme = "hand_points",
        observations: bool = True,
        device: str | torch.device = "cpu",
        check_actions: bool = True,
    ):
        if isinstance(num_envs, bool) or not isinstance(num_envs, int) or num_envs < 1:
            raise ValueError(f"num_envs must be a positive integer, got {num_envs!r}")
        if episode not in ("game", "hand"):
            raise ValueError(f"episode must be 'game' or 'hand', got {episode!r}")
        self.rules = load_rules(rules)
        self.device = torch.device(device)
        self.num_envs = num_envs
        self.num_players, self.num_sides = self.rules.num_players, self.rules.num_sides
        self.obs_size, self.num_actions = OBS_SIZE, A.NUM_ACTIONS
        self.episode, self.observations, self.check_actions = episode, bool(observations), bool(check_actions)
        self.reward_scheme = make_reward(reward)
        # seed None: a fresh seed from the system's entropy, as the numpy engine's generator takes
        self._seed = int(np.random.SeedSequence().entropy % 2**63) if seed is None else int(seed)
        self.games = MaskedGames(self.rules, torch_ops(self.device), episode=episode, seed=self._seed)
        self.reset(seed)

    def reset(self, seed: int | None = None) -> tuple[torch.Tensor | None, torch.Tensor, torch.Tensor]:
        """A new episode at every table; ``(obs, mask, to_act)``. With a seed the generator restarts from it."""
        if seed is not None:
            self.games._gen.manual_seed(int(seed))
        self.games.reset(self.num_envs)
        return self._outputs(self.observations)

    def _outputs(self, observe: bool) -> tuple[torch.Tensor | None, torch.Tensor, torch.Tensor]:
        self._legal = self.games.legal()
        obs = self.games.observe() if observe else None
        return obs, self._legal.to(torch.int8), self.games.hands.cur.clone()

    def _checked(self, actions: Any) -> torch.Tensor:
        a = torch.as_tensor(actions, device=self.device)
        if a.shape != (self.num_envs,) or a.is_floating_point() or a.dtype == torch.bool:
            raise ValueError(
                f"actions must be integers of shape ({self.num_envs},), got {a.dtype} {tuple(a.shape)}; "
                "no table was changed"
            )
        a = a.to(torch.int64)
        if self.check_actions:
            inside = (a >= 0) & (a < A.NUM_ACTIONS)
            legal = inside & self._legal.gather(1, a.clamp(0, A.NUM_ACTIONS - 1)[:, None])[:, 0]
            if not bool(legal.all()):  # one read of the device per step: the price of checking
                t = int((~legal).nonzero()[0, 0])
                action = int(a[t])
                names = A.action_names(sum(1 << int(i) for i in self._legal[t].nonzero()[:, 0]))
                shown = A.action_name(action) if 0 <= action < A.NUM_ACTIONS else "not an action id"
                raise IllegalActionError(
                    f"table {t}: illegal action {action} ({shown}); legal: {names}; no table was changed"
                )
        return a

    def observe(self, seats: Any) -> torch.Tensor:
        """Fresh observations of the given seat at each table (a seat per table, any seat)."""
        seats = torch.as_tensor(seats, device=self.device)
        if seats.shape != (self.num_envs,) or seats.is_floating_point() or seats.dtype == torch.bool:
            raise ValueError(
                f"seats must be integers of shape ({self.num_envs},), got {seats.dtype} {tuple(seats.shape)}"
            )
        if bool(((seats < 0) | (seats >= self.num_players)).any()):
            raise ValueError(f"seats must be in 0..{self.num_players - 1}")
        return self.games.observe(seats.to(torch.int64))

    def state(self) -> torch.Tensor:
        """Full-information float32 tensors ``(num_envs, STATE_SIZE)`` relative to the seat to act (as numpy's
        ``state()``: ``encode_state``)."""
        return self.games.state()

    def action_masks(self) -> torch.Tensor:
        """A fresh int8 mask ``(num_envs, NUM_ACTIONS)`` of the current legal actions."""
        return self._legal.to(torch.int8)

    def step(self, actions: Any, observe: bool | None = None):
        """One action per table; ``(obs, mask, to_act, rewards, dones, info)`` (see the module docstring)."""
        a = self._checked(actions)
        if observe is not None and not isinstance(observe, bool):
            raise TypeError(f"observe must be True, False or None, got {observe!r}; no table was changed")
        out = self.games.step(a)
        scheme, rules = self.reward_scheme, self.rules
        # the built-in schemes read only the seats' sides, the same for every hand of a rotation
        hand = torch.as_tensor(scheme.hand_end(self.games.hand_rules[0], out.points), device=self.device)
        episode = torch.as_tensor(scheme.episode_end(rules, out.winner), device=self.device)
        rewards = (hand * out.hand_over[:, None] + episode * out.done[:, None]).to(torch.float32)
        info = out._asdict()  # hand_over, points, scores, bags, done, winner, truncated, bag_penalties
        obs, mask, to_act = self._outputs(self.observations if observe is None else observe)
        return obs, mask, to_act, rewards, out.done.clone(), info
