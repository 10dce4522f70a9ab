"""Single-agent Gymnasium wrapper: the learner plays one seat, given agents play the others.

``SingleAgentSpadesEnv(rules="standard", episode="hand", reward="hand_points",
seat=0, opponents=None, illegal_action="terminate")`` is a ``gymnasium.Env``
over the AEC env (it re-implements no rule). Registered as
``gymnasium.make("spades_env/Spades-v3")`` (one hand per episode; whole games with
``episode="game"``; the older ids are retired, see :mod:`spades_env.registration`):

* Observation: the learner's flat float32 observation (``OBS_SIZE``; layout in
  :mod:`spades_env.obs`; its Box bounds are true, see
  :func:`spades_env.obs.bounds.space_bounds`), or the AEC env's dict when
  ``observation_format="dict"``. ``action_masks()`` returns the current int8
  mask (SB3-contrib's ``MaskablePPO`` reads it); ``info["action_mask"]`` too.
* Masks at the end of an episode: the step that ends an episode returns a mask
  that allows every action (``action_masks()``, ``info["action_mask"]`` and
  the dict observation's). No action is played from there: the next call must
  be ``reset``, and Gymnasium's vector envs (default ``NEXT_STEP`` autoreset,
  sync or async) ignore the action of that step and return the reset's
  observation and mask. An all-zero mask would make a sampler that masks with
  ``-inf`` produce NaN on that step.
* Action space: ``Discrete(90)`` (``NUM_ACTIONS``), as in the AEC env. An action is a Python
  or numpy integer (or a 0-d integer array); floats, bools and strings are
  illegal actions (``55.9`` is never played as 55).
* ``seat``: the learner's seat, or ``"random"`` for a seeded random seat at
  every reset. Partners share rewards, so a learner at seat 0 is rewarded for
  its partnership.
* ``opponents``: one agent per other seat (a list in seat order skipping the
  learner, or a dict seat -> agent); an agent has ``act(observation_dict)``.
  Default: uniformly random legal actions, seeded from ``reset``'s seed.
* Reward: everything the AEC env paid the learner's seat since its last
  decision (hand ends that happen during the opponents' moves included).
* An illegal action (SB3's ``check_env`` sends unmasked random ones) ends the
  episode with reward ``ILLEGAL_ACTION_REWARD`` (-1) and
  ``info["illegal_action"] = True`` by default; ``illegal_action="raise"``
  raises instead.
* ``info_format`` as in the AEC env (default ``"numeric"``: the same numeric
  keys on every step; ``"full"``: phase names and ``hand_result`` dicts).
* ``render_mode``: ``"ansi"``/``"human"`` text, ``"rgb_array"`` a picture of
  the table as the learner sees it (its own hand face up, the others' backs),
  for Gymnasium's ``RecordVideo`` and SB3's ``VecVideoRecorder``.
* ``clone()``, ``copy.deepcopy`` and pickling keep the episode in progress,
  the opponents and the random generators: the copy continues exactly as the
  original would.
* ``gymnasium.make`` returns this env itself (registered without Gymnasium's
  order-enforcing and checker wrappers, which hide methods in Gymnasium 1.x),
  so ``env.action_masks()`` and ``env.clone()`` work on what ``make`` returns;
  through other wrappers use ``env.unwrapped`` or ``env.get_wrapper_attr``.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping, Sequence
from typing import Any

import gymnasium
import numpy as np

from .aec import (
    DEFAULT_EPISODE,
    ILLEGAL_ACTION_REWARD,
    PHASE_NAMES,
    RENDER_MODES,
    EnvStateError,
    raw_env,
)
from .core.actions import NUM_ACTIONS
from .core.hand import IllegalActionError
from .core.rules import Rules
from .obs.bounds import space_bounds
from .obs.encode import OBS_SIZE
from .rewards import RewardScheme

OBSERVATION_FORMATS = ("flat", "dict")
ILLEGAL_ACTION_MODES = ("terminate", "raise")


def integer_action(action: Any) -> int:
    """The action as an int: Python and numpy integers (0-d arrays too); IllegalActionError for anything else."""
    if isinstance(action, np.ndarray) and action.ndim == 0:
        action = action[()]  # SB3 and gymnasium samples may hand over a 0-d array
    if isinstance(action, (bool, np.bool_)) or not isinstance(action, (int, np.integer)):
        raise IllegalActionError(f"an action must be an integer action id, got {action!r} ({type(action).__name__})")
    return int(action)


_ANY_ACTION = np.ones(NUM_ACTIONS, np.int8)  # the mask once an episode is over


class _UniformLegal:
    """Uniformly random legal actions (the default opponent)."""

    def __init__(self, rng: np.random.Generator):
        self.rng = rng

    def act(self, observation: Mapping[str, np.ndarray]) -> int:
        legal = np.flatnonzero(observation["action_mask"])
        return int(legal[self.rng.integers(len(legal))])


class SingleAgentSpadesEnv(gymnasium.Env):
    """One learner seat against fixed agents; see the module docstring."""

    metadata = {"render_modes": list(RENDER_MODES), "render_fps": 1}

    def __init__(
        self,
        rules: Rules | str = "standard",
        episode: str = DEFAULT_EPISODE,
        reward: str | RewardScheme = "hand_points",
        seat: int | str = 0,
        opponents: Sequence[Any] | Mapping[int, Any] | None = None,
        observation_format: str = "flat",
        illegal_action: str = "terminate",
        render_mode: str | None = None,
        info_format: str = "numeric",
    ):
        self.aec = raw_env(
            rules=rules, episode=episode, reward=reward, render_mode=render_mode, info_format=info_format
        )
        self.render_mode = render_mode
        n = self.aec.rules.num_players
        if not (seat == "random" or (isinstance(seat, int) and not isinstance(seat, bool) and 0 <= seat < n)):
            raise ValueError(f"seat must be 'random' or a seat in 0..{n - 1}, got {seat!r}")
        if observation_format not in OBSERVATION_FORMATS:
            raise ValueError(f"observation_format must be one of {OBSERVATION_FORMATS}, got {observation_format!r}")
        if illegal_action not in ILLEGAL_ACTION_MODES:
            raise ValueError(f"illegal_action must be one of {ILLEGAL_ACTION_MODES}, got {illegal_action!r}")
        self.seat_option = seat
        self.observation_format = observation_format
        self.illegal_action = illegal_action
        self._opponent_option = opponents
        self.opponents: dict[int, Any] = {}
        self.seat = 0 if seat == "random" else seat
        self.action_space = gymnasium.spaces.Discrete(NUM_ACTIONS)
        if observation_format == "flat":
            low, high = space_bounds(self.aec.rules)
            self.observation_space = gymnasium.spaces.Box(low, high, (OBS_SIZE,), np.float32)
        else:
            self.observation_space = self.aec.observation_space("player_0")
        self._mask = np.zeros(NUM_ACTIONS, np.int8)
        self._done = True

    # ----------------------------------------------------------------- helpers
    def _agent(self, seat: int) -> str:
        return self.aec.possible_agents[seat]

    def _setup_opponents(self, rng: np.random.Generator) -> None:
        n = self.aec.rules.num_players
        others = [s for s in range(n) if s != self.seat]
        option = self._opponent_option
        if option is None:
            self.opponents = {s: _UniformLegal(np.random.default_rng(rng.integers(2**63))) for s in others}
        elif isinstance(option, Mapping):
            missing = [s for s in others if s not in option]
            if missing:
                raise ValueError(f"opponents has no agent for seat(s) {missing}")
            self.opponents = {s: option[s] for s in others}
        else:
            option = list(option)
            if len(option) != len(others):
                raise ValueError(f"need {len(others)} opponents (seats {others}), got {len(option)}")
            self.opponents = dict(zip(others, option))

    def _observation(self) -> tuple[Any, dict[str, Any]]:
        obs = self.aec.observe(self._agent(self.seat))
        if self._done:  # see the module docstring: every action, none of which is played
            obs["action_mask"] = _ANY_ACTION.copy()
        self._mask = obs["action_mask"]
        # fresh arrays: the AEC env's numeric infos share theirs between steps, and a Gymnasium user keeps each info
        info = {
            k: v.copy() if isinstance(v, np.ndarray) else v
            for k, v in self.aec.infos.get(self._agent(self.seat), {}).items()
        }
        info["action_mask"] = self._mask
        info["seat"] = self.seat
        return (obs["observation"] if self.observation_format == "flat" else obs), info

    def _advance(self) -> float:
        """Let the other seats act until the learner must act or the episode ends; return the learner's reward."""
        aec = self.aec
        learner = self._agent(self.seat)
        reward = 0.0
        while not (aec.terminations[learner] or aec.truncations[learner]):
            agent = aec.agent_selection
            if agent == learner:
                break
            action = self.opponents[aec.seat_of(agent)].act(aec.observe(agent))
            aec.step(action)
            reward += aec.rewards[learner]
        return reward

    # ---------------------------------------------------------------- gym API
    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None):
        """Start an episode (``options`` as in the AEC env's reset) and play until the learner acts."""
        super().reset(seed=seed)
        rng = self.np_random
        kept = (self.seat, self.opponents)
        if self.seat_option == "random":
            self.seat = int(rng.integers(self.aec.rules.num_players))
        try:
            self._setup_opponents(rng)
            self.aec.reset(seed=int(rng.integers(2**63)), options=options)
        except (ValueError, TypeError):
            # bad options leave the env as it was: same learner seat and opponents as the game kept
            self.seat, self.opponents = kept
            raise
        self._done = False
        self._advance()
        learner = self._agent(self.seat)
        self._done = self.aec.terminations[learner] or self.aec.truncations[learner]
        return self._observation()

    def step(self, action: int):
        """Play the learner's action, then the others' until the learner acts again or the episode ends."""
        if self._done:
            raise EnvStateError("step() called on a finished episode; call reset()")
        aec = self.aec
        learner = self._agent(self.seat)
        try:
            aec.step(integer_action(action))
        except (IllegalActionError, TypeError, ValueError) as exc:
            if self.illegal_action == "raise":
                raise
            self._done = True
            obs, info = self._observation()
            info.update(illegal_action=True, error=str(exc))
            return obs, float(ILLEGAL_ACTION_REWARD), True, False, info
        reward = aec.rewards[learner] + self._advance()
        terminated = aec.terminations[learner]
        truncated = aec.truncations[learner]
        self._done = terminated or truncated
        obs, info = self._observation()
        return obs, float(reward), bool(terminated), bool(truncated), info

    def action_masks(self) -> np.ndarray:
        """The learner's current int8 action mask (every action once the episode is over: none is played)."""
        return self._mask.copy()

    def render(self):
        """Text as the AEC env renders it; ``rgb_array``: the table as the learner sees it."""
        if self.render_mode == "rgb_array":
            return self.aec.table_image(viewer=self.seat) if self.aec.game is not None else None
        return self.aec.render()

    def clone(self) -> SingleAgentSpadesEnv:
        """An independent copy of the episode in progress, opponents and random generators included."""
        aec = self.aec
        first = aec.possible_agents[0]
        shared = (
            aec.rules,
            aec.observation_space(first),
            aec.action_space(first),
            aec.state_space,
            aec.observation_spaces,
            aec.action_spaces,
            aec.possible_agents,
            self.observation_space,
            self.action_space,
        )
        return copy.deepcopy(self, {id(x): x for x in shared})

    def close(self) -> None:
        """Nothing to release."""
        self.aec.close()


def phase_name(env: SingleAgentSpadesEnv) -> str:
    """Name of the phase the learner is in (for logging)."""
    return PHASE_NAMES[env.aec.hand.phase]
