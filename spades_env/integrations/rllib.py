"""RLlib (Ray) adapter: the Spades AEC env as an RLlib ``MultiAgentEnv``, policy mappings, a PolicyNet RLModule.

Tested with ``ray[rllib]==2.60.0`` (new API stack: RLModule, Learner,
EnvRunner), which pins ``gymnasium==1.2.2``. Install with
``pip install "spades_env[rllib]"``. This module imports without ray; the
names that need ray import it on first use and, without it, raise
:class:`RLlibMissingError` naming the ``rllib`` extra.

* :func:`make_env` (``env_config`` -> env) is the env creator:
  ``PettingZooEnv(RLlibObservations(spades_env.env(**env_config)))``. The
  wrapped ``env()`` survives RLlib's env pre-check (one random, usually
  illegal, action): PettingZoo's illegal-move wrapper ends the episode with
  reward -1 for the offender instead of raising. ``env_config`` keys are the
  env's own (``rules``, ``episode``, ``reward``); others are an error.
* :class:`RLlibObservations` renames the observation dict to the keys of
  RLlib's action-masking RLModule (``observations``, ``action_mask``; the
  mask as float32 0/1) and counts the illegal actions it is given
  (``illegal_actions``), so that tests can prove that masking held.
* :func:`policy_mapping` gives the policy ids and the mapping function of
  one shared policy (``"shared"``: every seat plays the same network, as the
  observations are relative to the seat) or one policy per seat (ids are
  the agent names ``player_k``).
* ``SpadesPPOModule`` (built on first access, so that it pickles by
  reference) is a PPO RLModule whose policy is exactly
  :class:`spades_env.nn.PolicyNet` over the ``observations`` with illegal
  logits masked (:func:`spades_env.nn.masked_logits`), and whose critic is a
  :class:`spades_env.nn.ValueNet` over the same observation.
  :func:`policy_net_from_state` rebuilds its policy from the module's
  weights, to be written with :func:`spades_env.nn.save_policy` and played
  by ``make_agent(path)``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import gymnasium
import numpy as np
from pettingzoo.utils.wrappers import BaseWrapper

RLLIB_EXTRA = "rllib"
INSTALL_HINT = f'pip install "spades_env[{RLLIB_EXTRA}]"'
RLLIB_ENV_ID = "spades_rllib"
OBS_KEY = "observations"  # the key RLlib's action-masking RLModule reads
MASK_KEY = "action_mask"
ENV_OPTIONS = ("rules", "episode", "reward")
SHARED_POLICY = "shared"
POLICY_MODES = ("shared", "per_seat")
DEFAULT_HIDDEN = (256, 256)  # the project's own PPO default (training.config.TrainConfig.hidden)


class RLlibMissingError(ImportError):
    """Ray RLlib is not installed; the message names the extra that installs it."""


def require_rllib() -> Any:
    """The ``ray.rllib`` package; RLlibMissingError naming the ``rllib`` extra when ray is missing."""
    try:
        import ray.rllib  # noqa: PLC0415 - lazy: ray is an optional extra
    except ImportError as exc:
        raise RLlibMissingError(
            f"the RLlib adapter needs Ray RLlib, which is not installed ({exc}); "
            f"install the '{RLLIB_EXTRA}' extra: {INSTALL_HINT}"
        ) from None
    return ray.rllib


class RLlibObservations(BaseWrapper):
    """A PettingZoo AEC wrapper: observations keyed ``observations``/``action_mask`` (float32), illegal actions counted."""

    def __init__(self, env: Any):
        super().__init__(env)
        inner = env.observation_space(env.possible_agents[0])
        self._space = gymnasium.spaces.Dict(
            {
                OBS_KEY: inner["observation"],
                MASK_KEY: gymnasium.spaces.Box(0.0, 1.0, inner["action_mask"].shape, np.float32),
            }
        )
        self.illegal_actions = 0  # actions taken while the mask forbade them, over the wrapper's life

    def observation_space(self, agent: str) -> gymnasium.spaces.Space:
        """The renamed Dict space (same for every agent)."""
        return self._space

    def observe(self, agent: str) -> dict[str, np.ndarray] | None:
        """The agent's observation under RLlib's keys."""
        obs = self.env.observe(agent)
        if obs is None:
            return None
        return {OBS_KEY: obs["observation"], MASK_KEY: obs["action_mask"].astype(np.float32)}

    def step(self, action: Any) -> None:
        """Count the action if the mask forbids it, then step (the inner wrapper ends the episode on it)."""
        agent = self.env.agent_selection
        live = not (self.env.terminations.get(agent) or self.env.truncations.get(agent))
        if live and action is not None:
            mask = self.env.observe(agent)["action_mask"]
            if not (0 <= int(action) < len(mask)) or not mask[int(action)]:
                self.illegal_actions += 1
        self.env.step(action)


def make_env(env_config: dict[str, Any] | None = None) -> Any:
    """An RLlib MultiAgentEnv (``PettingZooEnv``) over ``spades_env.env(**env_config)`` with RLlib's keys."""
    require_rllib()
    from ray.rllib.env.wrappers.pettingzoo_env import PettingZooEnv  # noqa: PLC0415

    from ..aec import env as spades_env  # noqa: PLC0415

    config = dict(env_config or {})
    unknown = sorted(set(config) - set(ENV_OPTIONS))
    if unknown:
        raise ValueError(f"unknown env_config key(s) {unknown}; known: {list(ENV_OPTIONS)}")
    return PettingZooEnv(RLlibObservations(spades_env(**config)))


def register_env(name: str = RLLIB_ENV_ID) -> str:
    """Register :func:`make_env` with Ray Tune under ``name`` (for ``config.environment(name)``); the name."""
    require_rllib()
    from ray.tune.registry import register_env as tune_register_env  # noqa: PLC0415

    tune_register_env(name, make_env)
    return name


def illegal_actions(env: Any) -> int:
    """Illegal actions an env from :func:`make_env` was given (also through RLlib's vector wrappers)."""
    inner = getattr(env, "unwrapped", env)
    wrapper = getattr(inner, "env", None)
    if not isinstance(wrapper, RLlibObservations):
        raise TypeError(f"not an env made by spades_env.integrations.rllib.make_env: {env!r}")
    return wrapper.illegal_actions


def shared_policy(agent_id: str, episode: Any = None, **kwargs: Any) -> str:
    """Policy mapping: every seat plays the one shared policy."""
    return SHARED_POLICY


def seat_policy(agent_id: str, episode: Any = None, **kwargs: Any) -> str:
    """Policy mapping: each seat plays its own policy, named after the agent (``player_k``)."""
    return agent_id


def policy_mapping(mode: str, agents: list[str] | tuple[str, ...]) -> tuple[set[str], Callable[..., str]]:
    """Policy ids and mapping function for ``mode`` (``shared`` or ``per_seat``) over these agent names."""
    if mode == "shared":
        return {SHARED_POLICY}, shared_policy
    if mode == "per_seat":
        return set(agents), seat_policy
    raise ValueError(f"policy mode must be one of {POLICY_MODES}, got {mode!r}")


def _build_module_class() -> type:
    """The PolicyNet PPO RLModule class (imports ray and torch)."""
    require_rllib()
    from ray.rllib.core.columns import Columns  # noqa: PLC0415
    from ray.rllib.core.rl_module.apis.value_function_api import ValueFunctionAPI  # noqa: PLC0415
    from ray.rllib.core.rl_module.torch.torch_rl_module import TorchRLModule  # noqa: PLC0415

    from ..nn import PolicyNet, ValueNet, masked_logits  # noqa: PLC0415
    from ..obs.encode import OBS_SIZE  # noqa: PLC0415

    class SpadesPPOModule(TorchRLModule, ValueFunctionAPI):
        """PPO RLModule: ``pi`` is a PolicyNet (masked logits), ``vf`` a ValueNet; ``model_config["hidden"]`` sizes both."""

        def setup(self) -> None:
            """Build the policy and value networks of ``model_config["hidden"]``."""
            hidden = tuple((self.model_config or {}).get("hidden", DEFAULT_HIDDEN))
            self.pi = PolicyNet(hidden=hidden)
            self.vf = ValueNet(OBS_SIZE, hidden)

        def _forward(self, batch: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
            """Masked action logits of the batch's observations."""
            obs = batch[Columns.OBS]
            return {Columns.ACTION_DIST_INPUTS: masked_logits(self.pi(obs[OBS_KEY]), obs[MASK_KEY])}

        def compute_values(self, batch: dict[str, Any], embeddings: Any = None) -> Any:
            """Value of each observation (the critic sees what the policy sees)."""
            return self.vf(batch[Columns.OBS][OBS_KEY])

    SpadesPPOModule.__module__ = __name__
    SpadesPPOModule.__qualname__ = "SpadesPPOModule"
    return SpadesPPOModule


def policy_net_from_state(state: dict[str, Any], hidden: Any = DEFAULT_HIDDEN) -> Any:
    """A PolicyNet (eval mode) from a SpadesPPOModule's state dict (tensors or arrays; the ``pi.`` entries)."""
    import torch  # noqa: PLC0415

    from ..nn import PolicyNet  # noqa: PLC0415

    prefix = "pi."
    weights = {k[len(prefix) :]: torch.as_tensor(np.asarray(v)) for k, v in state.items() if k.startswith(prefix)}
    if not weights:
        raise ValueError(f"no policy weights ('{prefix}*') in the state; keys: {sorted(state)[:8]}")
    policy = PolicyNet(hidden=tuple(hidden))
    policy.load_state_dict(weights)  # raises, naming missing or unexpected weights, on another network
    return policy.eval()


def __getattr__(name: str) -> Any:
    """Build ``SpadesPPOModule`` on first access (it needs ray), so that pickles find it by name."""
    if name == "SpadesPPOModule":
        cls = _build_module_class()
        globals()[name] = cls
        return cls
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
