"""Playing agents against each other through the PettingZoo AEC env.

:func:`play_episode` plays one episode (a hand or a game) with one agent per
seat and returns the core game (read-only) plus the time each agent spent
deciding. Duplicate schedules (which agent sits where) are in
:mod:`spades_env.evaluation.duplicate`.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..aec import raw_env
from ..core.game import Game
from ..core.hand import Phase
from ..core.rules import Rules


@dataclass
class Timing:
    """Decisions and seconds spent deciding, per role name."""

    decisions: dict[str, int] = field(default_factory=dict)
    seconds: dict[str, float] = field(default_factory=dict)
    play_decisions: dict[str, int] = field(default_factory=dict)
    play_seconds: dict[str, float] = field(default_factory=dict)

    def add(self, role: str, seconds: float, play: bool) -> None:
        """Record one decision."""
        self.decisions[role] = self.decisions.get(role, 0) + 1
        self.seconds[role] = self.seconds.get(role, 0.0) + seconds
        if play:
            self.play_decisions[role] = self.play_decisions.get(role, 0) + 1
            self.play_seconds[role] = self.play_seconds.get(role, 0.0) + seconds

    def merge(self, other: Timing) -> None:
        """Accumulate another timing."""
        for mine, theirs in (
            (self.decisions, other.decisions),
            (self.seconds, other.seconds),
            (self.play_decisions, other.play_decisions),
            (self.play_seconds, other.play_seconds),
        ):
            for k, v in theirs.items():
                mine[k] = mine.get(k, 0) + v

    def summary(self) -> dict[str, dict[str, float]]:
        """Milliseconds per decision (all decisions, and card plays only) per role."""
        out = {}
        for role, n in sorted(self.decisions.items()):
            plays = self.play_decisions.get(role, 0)
            out[role] = {
                "decisions": n,
                "ms_per_decision": 1000.0 * self.seconds[role] / n if n else None,
                "play_decisions": plays,
                "ms_per_play": 1000.0 * self.play_seconds.get(role, 0.0) / plays if plays else None,
            }
        return out


def reseed(agent: Any, seed: Sequence[int]) -> None:
    """Give an agent a fresh generator for one task (so results do not depend on scheduling)."""
    hook = getattr(agent, "reseed", None)
    if callable(hook):
        hook(np.random.default_rng(list(seed)))
    elif hasattr(agent, "rng"):
        agent.rng = np.random.default_rng(list(seed))


def play_episode(
    rules: Rules,
    agents: Sequence[Any],
    roles: Sequence[str],
    seed: int,
    episode: str = "hand",
    options: dict[str, Any] | None = None,
    timing: Timing | None = None,
) -> Game:
    """Play one episode with ``agents[seat]``; returns the finished core game.

    ``roles[seat]`` names the agent for the timing; ``options`` are the env's
    reset options (``scores``, ``bags``, ``dealer``, ``deal``...).
    """
    env = raw_env(rules=rules, episode=episode)
    env.reset(seed=seed, options=options)
    clock = time.perf_counter
    for _name in env.agent_iter():
        obs, _, terminated, truncated, _ = env.last()
        if terminated or truncated:
            env.step(None)
            continue
        seat = env.hand.current
        play = env.hand.phase == Phase.PLAY
        start = clock()
        action = agents[seat].act(obs)
        if timing is not None:
            timing.add(roles[seat], clock() - start, play)
        env.step(int(action))
    return env.game
