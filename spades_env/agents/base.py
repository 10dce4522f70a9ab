"""The agent protocol: act from an observation dict (observation + action mask).

An agent is any object with ``act(observation) -> int`` where ``observation``
is the env's dict ``{"observation": float32[1207], "action_mask": int8[90]}``
(sizes ``OBS_SIZE`` and ``NUM_ACTIONS``), as the AEC env's ``observe``/``last``,
the Gymnasium wrapper's observation or one row of the batch engine's arrays
gives it. The returned action is legal under the
mask. :class:`Agent` is a convenience base class: it holds a seeded
``numpy.random.Generator`` and gives ``act_batch(obs, mask)`` as a loop over
rows, which agents with a vectorised policy override. An agent that cannot play
some rule set says why in ``check_rules(rules)`` (a ValueError), which
:func:`check_plays` asks before a table or an evaluation starts.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any, Protocol, runtime_checkable

import numpy as np

from ..core.actions import NUM_ACTIONS
from ..core.rules import Rules


@runtime_checkable
class AgentProtocol(Protocol):
    """What the env, the evaluation tool and the training code need from an agent."""

    def act(self, observation: Mapping[str, np.ndarray]) -> int:
        """A legal action for the observation dict."""


def make_rng(seed: int | None = None, rng: np.random.Generator | None = None) -> np.random.Generator:
    """The generator an agent uses: ``rng`` if given, else one seeded with ``seed``."""
    if rng is not None:
        if not isinstance(rng, np.random.Generator):
            raise TypeError(f"rng must be a numpy.random.Generator, got {type(rng).__name__}")
        return rng
    return np.random.default_rng(seed)


def legal_actions(mask: np.ndarray) -> np.ndarray:
    """Indices of the legal actions of an action mask."""
    return np.flatnonzero(np.asarray(mask))


def mask_bits(mask: np.ndarray) -> int:
    """A legal-action bitmask (bit ``a`` set = action ``a`` legal) of an int8 mask array."""
    packed = np.packbits(np.asarray(mask, dtype=np.uint8) != 0, bitorder="little")
    return int.from_bytes(packed.tobytes(), "little")


class Agent:
    """Base class: a name, a seeded generator, ``act`` and a looping ``act_batch``."""

    name = "agent"

    def __init__(self, seed: int | None = None, rng: np.random.Generator | None = None):
        self.seed = seed
        self.rng = make_rng(seed, rng)

    def act(self, observation: Mapping[str, np.ndarray]) -> int:
        """A legal action for ``{"observation": ..., "action_mask": ...}``."""
        raise NotImplementedError

    def act_batch(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """Actions for a batch: ``obs`` (B, 1207) and ``mask`` (B, 90) -> int64 (B,)."""
        obs, mask = check_batch(obs, mask)
        out = np.empty(obs.shape[0], dtype=np.int64)
        for i in range(obs.shape[0]):
            out[i] = self.act({"observation": obs[i], "action_mask": mask[i]})
        return out

    def check_rules(self, rules: Rules) -> None:
        """Raise ValueError naming why this agent cannot play ``rules``; the base class plays every rule set."""

    def describe(self) -> dict[str, Any]:
        """Name and options, for evaluation records."""
        return {"name": self.name, "seed": self.seed}

    def __repr__(self) -> str:
        opts = ", ".join(f"{k}={v!r}" for k, v in self.describe().items() if k != "name")
        return f"{type(self).__name__}({opts})"


def check_plays(agent: Any, rules: Rules) -> None:
    """Raise ValueError naming why ``agent`` cannot play ``rules`` (asked before play, so that a table or an
    evaluation is refused up front, not stopped at the first decision it cannot take); an agent tells by an
    optional ``check_rules(rules)``, and one without it is taken to play every rule set."""
    check = getattr(agent, "check_rules", None)
    if callable(check):
        check(rules)


def check_mask_values(mask: np.ndarray) -> None:
    """Raise ValueError unless a mask holds only 0 and 1 (the env's int8 mask; booleans too): an agent never reads a
    legal action out of another format (e.g. probabilities)."""
    if mask.dtype != np.bool_ and not ((mask == 0) | (mask == 1)).all():
        odd = np.unique(mask[(mask != 0) & (mask != 1)])[:3]
        raise ValueError(f"the action mask must hold 0 and 1 only (the env's int8 mask), got values {odd.tolist()}")


def check_option(
    name: str, value: Any, low: float, high: float, integer: bool = False, low_included: bool = True
) -> None:
    """Raise ValueError naming an agent option unless it is a finite number (an int with ``integer``) in its range
    (``high`` included)."""
    kinds = (int, np.integer) if integer else (int, float, np.integer, np.floating)
    ok = isinstance(value, kinds) and not isinstance(value, bool)
    if ok:
        above = value >= low if low_included else value > low
        ok = math.isfinite(value) and above and value <= high
    if not ok:
        bounds = f"{'[' if low_included else '('}{low:g}, {high:g}]"
        raise ValueError(
            f"option {name} must be {'an integer' if integer else 'a finite number'} in {bounds}, got {value!r}"
        )


def check_batch(obs: np.ndarray, mask: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """A batch's (observations, masks) as arrays, with a clear error unless they are (B, OBS_SIZE) and (B, NUM_ACTIONS)."""
    obs = np.asarray(obs)
    mask = np.asarray(mask)
    if obs.ndim != 2 or mask.ndim != 2 or obs.shape[0] != mask.shape[0] or mask.shape[1] != NUM_ACTIONS:
        raise ValueError(
            f"act_batch needs obs (B, OBS_SIZE) and mask (B, {NUM_ACTIONS}), got {obs.shape} and {mask.shape}"
        )
    check_mask_values(mask)
    return obs, mask


def check_observation(observation: Mapping[str, np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """The (observation array, mask array) of an observation dict, with a clear error otherwise."""
    try:
        obs = observation["observation"]
        mask = observation["action_mask"]
    except (KeyError, TypeError, IndexError):
        raise TypeError(
            "an agent acts on the env's observation dict with keys 'observation' and 'action_mask'"
        ) from None
    mask = np.asarray(mask)
    check_mask_values(mask)
    if not mask.any():
        raise ValueError("the action mask has no legal action: this agent is not to act")
    return np.asarray(obs), mask
