"""One lean wrapper with the semantics of PettingZoo's three stock AEC wrappers.

``spades_env.env()`` used to stack ``TerminateIllegalWrapper`` ->
``AssertOutOfBoundsWrapper`` -> ``OrderEnforcingWrapper`` around ``raw_env``.
Each layer answers most attribute reads through ``BaseWrapper.__getattr__``
(an exception-driven fallback), so the stack cost several times the env itself
per decision. :class:`LeanWrapper` is one layer doing exactly what the stack
does, in the same order:

* call order (``OrderEnforcingWrapper``): ``step``, ``observe``, ``state``,
  ``render`` and ``agent_iter`` before ``reset`` raise the same
  ``AssertionError``; ``rewards``, ``terminations``, ``truncations``,
  ``infos``, ``agent_selection``, ``num_agents``, ``agents`` before ``reset``
  raise the same ``AttributeError``; a step once every agent has been removed
  logs the same warning and does nothing; ``agent_iter`` demands a ``step``
  between iterations.
* out-of-range actions (``AssertOutOfBoundsWrapper``): an ``AssertionError``
  unless the action is in the action space, or is ``None`` for a terminated or
  truncated agent.
* illegal actions (``TerminateIllegalWrapper``): the action is checked against
  the mask of the last observation of the agent to act (observed afresh when
  there is none); an illegal one logs the same warning, sets every agent's
  termination AND truncation, rewards the offender ``illegal_reward`` and the
  others 0, and later steps remove the dead agents.

It subclasses all three stock wrappers, so ``isinstance`` checks for any of
them hold, and reaches the raw env's attributes directly (``unwrapped``,
``rules``, ``hand``... still resolve through the stock ``__getattr__``).
Private attributes other than ``_cumulative_rewards`` stay hidden, as in the
stack. ``tests/speed/test_lean_wrapper.py`` plays seeded games, including
illegal, out-of-range and late actions, through both and compares every output.
"""

from __future__ import annotations

from typing import Any

from gymnasium.spaces import Discrete
from pettingzoo import AECEnv
from pettingzoo.utils.env_logger import EnvLogger
from pettingzoo.utils.wrappers import (
    AssertOutOfBoundsWrapper,
    BaseWrapper,
    OrderEnforcingWrapper,
    TerminateIllegalWrapper,
)
from pettingzoo.utils.wrappers.order_enforcing import AECOrderEnforcingIterable, AECOrderEnforcingIterator

_BEFORE_RESET = "{} cannot be accessed before reset"  # OrderEnforcingWrapper's message


class LeanWrapper(OrderEnforcingWrapper, AssertOutOfBoundsWrapper, TerminateIllegalWrapper):
    """PettingZoo's illegal-move, out-of-bounds and order-enforcing wrappers as one layer; see the module docstring."""

    def __init__(self, env: AECEnv, illegal_reward: float):
        assert isinstance(env, AECEnv), "LeanWrapper is only compatible with AEC environments"
        BaseWrapper.__init__(self, env)
        self._raw = env.unwrapped  # the stock wrappers write terminations etc. on the unwrapped env
        self._illegal_value = illegal_reward
        self._prev_obs: Any = None
        self._prev_info: Any = None
        self._terminated = False  # terminated by an illegal move
        self._has_reset = False
        self._has_updated = False
        self._space: Any = None  # the action space last checked, and its bounds when it is Discrete
        self._bounds: tuple[int, int] | None = None

    # Hot attributes read straight from the env; before reset they raise the
    # order-enforcing AttributeError (Python then falls back to __getattr__,
    # which raises the same error).
    @property
    def agents(self) -> list:
        """The env's live agents (AttributeError before reset)."""
        if not self._has_reset:
            raise AttributeError(_BEFORE_RESET.format("agents"))
        return self.env.agents

    @property
    def agent_selection(self) -> Any:
        """The agent to act (AttributeError before reset)."""
        if not self._has_reset:
            raise AttributeError(_BEFORE_RESET.format("agent_selection"))
        return self.env.agent_selection

    @property
    def rewards(self) -> dict:
        """The env's rewards of the last step (AttributeError before reset)."""
        if not self._has_reset:
            raise AttributeError(_BEFORE_RESET.format("rewards"))
        return self.env.rewards

    @property
    def terminations(self) -> dict:
        """The env's terminations (AttributeError before reset)."""
        if not self._has_reset:
            raise AttributeError(_BEFORE_RESET.format("terminations"))
        return self.env.terminations

    @property
    def truncations(self) -> dict:
        """The env's truncations (AttributeError before reset)."""
        if not self._has_reset:
            raise AttributeError(_BEFORE_RESET.format("truncations"))
        return self.env.truncations

    @property
    def infos(self) -> dict:
        """The env's infos (AttributeError before reset)."""
        if not self._has_reset:
            raise AttributeError(_BEFORE_RESET.format("infos"))
        return self.env.infos

    @property
    def num_agents(self) -> int:
        """How many agents are live (AttributeError before reset)."""
        if not self._has_reset:
            raise AttributeError(_BEFORE_RESET.format("num_agents"))
        return len(self.env.agents)

    @property
    def _cumulative_rewards(self) -> dict:
        """The env's cumulative rewards (the one private attribute the stock wrappers expose)."""
        return self.env._cumulative_rewards

    # ------------------------------------------------------------------ calls
    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """Reset the env and the wrapper's bookkeeping, in the stock stack's order."""
        self._has_reset = True
        self._has_updated = True
        self._terminated = False
        self._prev_obs = None
        self._prev_info = None
        self.env.reset(seed=seed, options=options)

    def observe(self, agent: Any) -> Any:
        """The env's observation; that of the agent to act is kept for the illegal-move check."""
        if not self._has_reset:
            EnvLogger.error_observe_before_reset()
        return self._observe(agent)

    def _observe(self, agent: Any) -> Any:
        """TerminateIllegalWrapper.observe: remember the observation (and info) of the agent to act."""
        env = self.env
        obs = env.observe(agent)
        if agent == env.agent_selection:
            self._prev_obs = obs
            infos = env.infos
            self._prev_info = infos[agent] if agent in infos else {}
        return obs

    def last(self, observe: bool = True) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        """AECEnv.last over this wrapper, without the attribute fallbacks or a second call level."""
        if not self._has_reset:
            raise AttributeError(_BEFORE_RESET.format("agent_selection"))
        env = self.env
        agent = env.agent_selection
        assert agent is not None
        observation = None
        if observe:  # self.observe(agent), inlined: the agent is the one to act, so its observation is kept
            observation = self._prev_obs = env.observe(agent)
            infos = env.infos
            self._prev_info = infos[agent] if agent in infos else {}
        return (
            observation,
            env._cumulative_rewards[agent],
            env.terminations[agent],
            env.truncations[agent],
            env.infos[agent],
        )

    def step(self, action: Any) -> None:
        """Order check, then bounds check, then illegal-move check, then the env's step."""
        if not self._has_reset:
            EnvLogger.error_step_before_reset()
        env = self.env
        if not env.agents:
            self._has_updated = True
            EnvLogger.warn_step_after_terminated_truncated()
            return
        self._has_updated = True
        agent = env.agent_selection
        dead = env.terminations[agent] or env.truncations[agent]
        # AssertOutOfBoundsWrapper
        space = env.action_space(agent)
        if action is None:
            assert dead or space.contains(action), "action is not in action space"
        else:
            if space is not self._space:  # a Discrete space's bounds as ints (its start is a numpy integer)
                self._space = space
                self._bounds = (int(space.start), int(space.start + space.n)) if type(space) is Discrete else None
            bounds = self._bounds
            # A Python int inside a Discrete space is in it (Discrete.contains says so, slower).
            assert (bounds is not None and type(action) is int and bounds[0] <= action < bounds[1]) or space.contains(
                action
            ), "action is not in action space"
        # TerminateIllegalWrapper
        if self._prev_obs is None:
            self._observe(agent)
        prev_obs = self._prev_obs
        if isinstance(prev_obs, dict):
            assert "action_mask" in prev_obs, (
                f"`action_mask` not found in dictionary observation: {prev_obs}. Action mask must either be in "
                "`observation['action_mask']` or `info['action_mask']` to use TerminateIllegalWrapper."
            )
            prev_mask = prev_obs["action_mask"]
        else:
            assert self._prev_info is not None
            assert "action_mask" in self._prev_info, (
                f"`action_mask` not found in info for non-dictionary observation: {self._prev_info}. Action mask "
                "must either be in observation['action_mask'] or info['action_mask'] to use TerminateIllegalWrapper."
            )
            prev_mask = self._prev_info["action_mask"]
        self._prev_obs = None
        self._prev_info = None
        raw = self._raw
        if self._terminated and dead:
            raw._was_dead_step(action)
        elif not dead and not prev_mask[action]:
            EnvLogger.warn_on_illegal_move()
            raw._cumulative_rewards[agent] = 0
            raw.terminations = dict.fromkeys(env.agents, True)
            raw.truncations = dict.fromkeys(env.agents, True)
            raw.rewards = dict.fromkeys(env.truncations, 0)
            raw.rewards[agent] = float(self._illegal_value)
            raw._accumulate_rewards()
            raw._deads_step_first()
            self._terminated = True
        else:
            env.step(action)

    def agent_iter(self, max_iter: int = 2**63) -> AECOrderEnforcingIterable:
        """OrderEnforcingWrapper.agent_iter with a direct-read iterator."""
        if not self._has_reset:
            EnvLogger.error_agent_iter_before_reset()
        return _LeanIterable(self, max_iter)

    def __str__(self) -> str:
        """The env's name, as the stock stack prints it."""
        return str(self.env)


class _LeanIterable(AECOrderEnforcingIterable):
    def __iter__(self) -> AECOrderEnforcingIterator:
        return _LeanIterator(self.env, self.max_iter)


class _LeanIterator(AECOrderEnforcingIterator):
    """AECOrderEnforcingIterator reading the env through the wrapper's direct path."""

    def __next__(self) -> Any:
        wrapper = self.env
        env = wrapper.env
        if not env.agents or self.iters_til_term <= 0:
            raise StopIteration
        self.iters_til_term -= 1
        assert wrapper._has_updated, "need to call step() or reset() in a loop over `agent_iter`"
        wrapper._has_updated = False
        return env.agent_selection
