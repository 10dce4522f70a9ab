"""Policy distillation from teachers (``teachers``): trained policies whose play the network learns, preset by preset.

A network trained on one preset alone can play it far better than the
every-variant network, and worse at the others (issue 51: a cutthroat-only
fine-tune of the release won 46.5% of 200 cutthroat games against the
heuristic, up from 26%, and fell from 73% to 59% in standard): the presets
pull the shared network in different directions (bidding above all), and
PPO's small steps settle on a compromise. Distillation gives the one network
each preset's play as a dense target, so that it learns to tell them apart,
as policy distillation and Actor-Mimic do for several tasks:

* ``teachers`` lists ``preset=agent`` entries (``*=agent``: every preset not
  named); an agent is a released policy name (``ppo``) or a policy file. A
  preset with no entry has no teacher.
* At each learner decision with more than one legal action, the preset's
  teacher gives its probabilities of the legal actions (one batched forward
  per teacher and table step, in the rollout: in the rollout workers when
  there are any), kept with the decision as ``teacher`` (zeros for none).
* The update adds ``teacher_coef`` times the mean KL divergence of the
  policy from the teacher (:func:`training.ppo.teacher_kl`) over the rows
  with a teacher to PPO's loss, in every minibatch: the network keeps PPO's
  improvement where it finds one, and each preset's teacher's play elsewhere.

Teachers are deterministic (a forward pass): a resumed run gets the same
targets. Their networks are loaded from the files when first needed and never
pickled with the tables (a checkpoint names them; the files must still be
there to resume). The numpy tables only (``backend: numpy``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import torch

from spades_env.agents import make_agent
from spades_env.agents.policy import PolicyAgent
from spades_env.core.actions import NUM_ACTIONS

EVERY_OTHER = "*"  # the teacher of every preset not named


def parse_teachers(entries: Sequence[str]) -> dict[str, str]:
    """``{preset or '*': agent}`` from ``preset=agent`` entries (ValueError naming a bad or repeated entry)."""
    out: dict[str, str] = {}
    for entry in entries:
        if not isinstance(entry, str) or entry.count("=") < 1:
            raise ValueError(f"a teacher is 'preset=agent' (or '*=agent'), got {entry!r}")
        preset, agent = (part.strip() for part in entry.split("=", 1))
        if not preset or not agent:
            raise ValueError(f"a teacher is 'preset=agent' (or '*=agent'), got {entry!r}")
        if preset in out:
            raise ValueError(f"preset {preset!r} has two teachers")
        out[preset] = agent
    return out


def load_teacher(agent: str) -> PolicyAgent:
    """The teacher ``agent`` (a released policy name or a policy file) as a PolicyAgent; ValueError otherwise."""
    with torch.random.fork_rng(devices=[]):  # building a network draws from torch's global generator
        teacher = make_agent(agent)
    if not isinstance(teacher, PolicyAgent):
        raise ValueError(f"teacher {agent!r} is not a trained policy (a released policy name or a policy file)")
    return teacher


class Teachers:
    """Each preset's teacher (see the module docstring): the tables' presets ``names``, in their order."""

    def __init__(self, entries: Sequence[str], names: Sequence[str]):
        spec = parse_teachers(entries)
        self.agent_of = [spec.get(name, spec.get(EVERY_OTHER)) for name in names]  # per preset: agent or None
        self._loaded: dict[str, PolicyAgent] = {}

    def __getstate__(self) -> dict[str, Any]:
        return {**self.__dict__, "_loaded": {}}  # the networks are read again from their files

    def _teacher(self, agent: str) -> PolicyAgent:
        if agent not in self._loaded:
            self._loaded[agent] = load_teacher(agent)
        return self._loaded[agent]

    def targets(self, obs: np.ndarray, mask: np.ndarray, presets: np.ndarray) -> np.ndarray:
        """The teachers' probabilities (rows x actions, float32) of the rows with a choice, by each row's preset
        (an index into ``names``); rows without a teacher or a choice are zeros."""
        out = np.zeros((len(obs), NUM_ACTIONS), dtype=np.float32)
        choice = (mask != 0).sum(1) > 1
        for agent in {a for a in self.agent_of if a is not None}:
            mine = [i for i, a in enumerate(self.agent_of) if a == agent]
            rows = np.flatnonzero(choice & np.isin(presets, mine))
            if len(rows):
                probs = torch.softmax(self._teacher(agent).legal_logits(obs[rows], mask[rows]), -1).numpy()
                out[rows, : probs.shape[1]] = probs  # a policy of 88 actions has none for the drawing turns
        return out


def make_teachers(config: Any, names: Sequence[str]) -> Teachers | None:
    """The tables' teachers (None without ``teachers``)."""
    return Teachers(config.teachers, names) if config.teachers else None
