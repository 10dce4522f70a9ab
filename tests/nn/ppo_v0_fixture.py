"""Write ``ppo_v0_fixture.json``: the play of the policy released until 2026-12-03 (kept as ``ppo_v0.pt``
beside this file, trained on layout ``spades_obs_v0``), recorded with the release that observed with that
layout (run from that release's checkout: ``python -m tests.env.ppo_v0_fixture OUT``).

For each case, seeded hands are played by that ``ppo`` agent at every seat; the fixture keeps every
action and the SHA-256 of every observation's ``spades_obs_v0`` columns (the whole observation in that
release). ``test_observation_history.py`` plays the same hands with the current layout and checks both.
"""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path

import spades_env
from spades_env.agents import make_agent
from spades_env.obs.layout import OBSERVATION

V0_POLICY = Path(__file__).with_name("ppo_v0.pt")  # that release's policy file, as shipped then
CASES = (("standard", 0), ("cutthroat3", 1), ("pagat", 2))  # (preset, seed): one hand each
try:  # the current layout: its version 0 columns
    from spades_env.obs.layout import OBSERVATION_V0

    V0_COLUMNS = OBSERVATION.projection(OBSERVATION_V0.describe(), "the fixture")
except ImportError:  # the release that wrote the fixture: the observation is version 0
    V0_COLUMNS = slice(None)


def play(preset: str, seed: int) -> tuple[list[int], str]:
    """The actions of one seeded hand played by ppo at every seat, and the digest of its observations."""
    env = spades_env.raw_env(rules=preset, episode="hand")
    env.reset(seed=seed)
    agent = make_agent("ppo", path=V0_POLICY)
    digest = hashlib.sha256()
    actions = []
    for _ in env.agent_iter():
        obs, _, terminated, truncated, _ = env.last()
        digest.update(obs["observation"][V0_COLUMNS].tobytes())
        action = None if terminated or truncated else agent.act(obs)
        if action is not None:
            actions.append(int(action))
        env.step(action)
    return actions, digest.hexdigest()


def main(out: str) -> None:
    """Write the fixture to ``out``."""
    cases = []
    for preset, seed in CASES:
        actions, digest = play(preset, seed)
        cases.append({"preset": preset, "seed": seed, "actions": actions, "digest": digest})
    with open(out, "w") as f:
        json.dump({"layout": "spades_obs_v0", "cases": cases}, f)


if __name__ == "__main__":
    main(sys.argv[1])
