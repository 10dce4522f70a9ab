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
with it). Its arguments, seeds, actions and seats go through the numpy engine's checks
(:mod:`spades_env.batch.arguments`): the same refusals, the same messages, the same memory bound. A seed of 2**64 or
more seeds the torch generator with its numpy ``SeedSequence`` hash (the generator takes 64 bits). Not (yet) on this
backend: ``obs_format="packed"`` (refused by name), the deal record (``record_deals`` and ``output_buffers`` are
checked and have no effect: outputs are fresh tensors) and the per-table queries of the numpy engine
(``episode_deals``, ``legal_actions(table)``).
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
from .arguments import (
    as_int64,
    check_arguments,
    check_observe,
    check_seed,
    generator_seed,
    illegal_action,
    integer_rows,
    on_host,
)
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
        record_deals: bool = True,
        output_buffers: int = 2,
        obs_format: str = "float32",
        device: str | torch.device | None = "cpu",
        check_actions: bool = True,
    ):
        num_envs, seed, self.device = check_arguments(
            num_envs,
            episode,
            seed,
            observations,
            record_deals,
            output_buffers,
            obs_format,
            check_actions,
            "torch",
            device,
        )
        self.rules = load_rules(rules)
        self.num_envs = num_envs
        self.num_players, self.num_sides = self.rules.num_players, self.rules.num_sides
        self.obs_size, self.num_actions = OBS_SIZE, A.NUM_ACTIONS
        self.episode, self.observations, self.check_actions = episode, bool(observations), bool(check_actions)
        self.reward_scheme = make_reward(reward)
        # seed None: a fresh seed from the system's entropy, as the numpy engine's generator takes
        self._seed = int(np.random.SeedSequence().entropy % 2**63) if seed is None else generator_seed(seed)
        self.games = MaskedGames(self.rules, torch_ops(self.device), episode=episode, seed=self._seed)
        self.reset(seed)

    def reset(self, seed: int | None = None) -> tuple[torch.Tensor | None, torch.Tensor, torch.Tensor]:
        """A new episode at every table; ``(obs, mask, to_act)``. With a seed the generator restarts from it."""
        seed = check_seed(seed)
        if seed is not None:
            self.games._gen.manual_seed(generator_seed(seed))
        self.games.reset(self.num_envs)
        return self._outputs(self.observations)

    def _outputs(self, observe: bool) -> tuple[torch.Tensor | None, torch.Tensor, torch.Tensor]:
        self._legal = self.games.legal()
        obs = self.games.observe() if observe else None
        return obs, self._legal.to(torch.int8), self.games.hands.cur.clone()

    def _checked(self, actions: Any) -> torch.Tensor:
        given = integer_rows(actions, self.num_envs, "actions", IllegalActionError)
        a = as_int64(given, self.device)  # values of 2**63 and more wrap negative: refused as out of range
        if self.check_actions:
            inside = (a >= 0) & (a < A.NUM_ACTIONS)
            legal = inside & self._legal.gather(1, a.clamp(0, A.NUM_ACTIONS - 1)[:, None])[:, 0]
            if not bool(legal.all()):  # one read of the device per step: the price of checking
                bad = (~legal).nonzero()[:, 0].tolist()
                t, hands = bad[0], self.games.hands
                legal_ids = self._legal[t].nonzero()[:, 0].tolist()
                action = int(on_host(given[t : t + 1])[0])  # as given (a uint64 tensor's value too)
                raise illegal_action(t, action, int(hands.cur[t]), int(hands.phase[t]), legal_ids, bad)
        return a

    def observe(self, seats: Any) -> torch.Tensor:
        """Fresh observations of the given seat at each table (a seat per table, any seat)."""
        given = integer_rows(seats, self.num_envs, "seats")
        s = as_int64(given, self.device)
        outside = (s < 0) | (s >= self.num_players)
        if bool(outside.any()):
            t = int(outside.nonzero()[0, 0])
            raise ValueError(
                f"seats must be in 0..{self.num_players - 1}; table {t} has seat {on_host(given[t : t + 1])[0]}"
            )
        return self.games.observe(s)

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
        check_observe(observe)
        out = self.games.step(a)
        scheme, rules = self.reward_scheme, self.rules
        # the built-in schemes read only the seats' sides, the same for every hand of a rotation
        hand = torch.as_tensor(scheme.hand_end(self.games.hand_rules[0], out.points), device=self.device)
        episode = torch.as_tensor(scheme.episode_end(rules, out.winner), device=self.device)
        rewards = (hand * out.hand_over[:, None] + episode * out.done[:, None]).to(torch.float32)
        info = out._asdict()  # hand_over, points, scores, bags, done, winner, truncated, bag_penalties
        obs, mask, to_act = self._outputs(self.observations if observe is None else observe)
        return obs, mask, to_act, rewards, out.done.clone(), info
