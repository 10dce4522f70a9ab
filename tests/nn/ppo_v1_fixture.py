"""Write ``ppo_v1_fixture.json``: the play of the standard-only release of 2026-12-03 (released as ``ppo``
until 2026-12-05, now ``ppo_standard``: ``spades_env/policies/ppo_standard.pt``, 88 actions, trained on layout
``spades_obs_v1``), recorded with the release before the ``spades_v3`` bump (``spades_v2``, at c47199f, where it
was ``ppo``; run from that release's checkout: ``python -m tests.env.ppo_v1_fixture OUT``).

For each case, a seeded hand is played by that ``ppo`` agent at every seat; the fixture keeps every
action and the SHA-256 of every observation's ``spades_obs_v1`` columns with the mask's first 88 entries
(the whole observation and mask in that release). ``test_policy_file.py`` plays the same hands with the
current release and checks both: the policy plays bit-identically after the bump.
"""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path

import spades_env
from spades_env.agents import make_agent
from spades_env.obs.layout import OBSERVATION

FIXTURE = Path(__file__).with_name("ppo_v1_fixture.json")
# (preset, seed): every preset of spades_v2, two seeded hands each
CASES = tuple(
    (preset, seed)
    for preset in (
        "barmore",
        "crazy",
        "cutthroat",
        "cutthroat3",
        "jokers",
        "mirror",
        "online",
        "openspiel",
        "pagat",
        "standard",
        "suicide",
    )
    for seed in (0, 1)
)
OLD_ACTIONS = 88  # the action space of spades_v2
RELEASED_NAME = "ppo_standard"  # its name since the every-variant release (2026-12-05); "ppo" when recorded
try:  # the current layout: its version 1 columns
    from spades_env.obs.layout import OBSERVATION_V1

    V1_COLUMNS = OBSERVATION.projection(OBSERVATION_V1.describe(), "the fixture")
except ImportError:  # the release that wrote the fixture: the observation is version 1
    V1_COLUMNS = slice(None)


def play(preset: str, seed: int) -> tuple[list[int], str]:
    """The actions of one seeded hand played by the released ppo at every seat, and the digest of its
    observations and masks."""
    env = spades_env.raw_env(rules=preset, episode="hand")
    env.reset(seed=seed)
    agent = make_agent(RELEASED_NAME)
    digest = hashlib.sha256()
    actions = []
    for _ in env.agent_iter():
        obs, _, terminated, truncated, _ = env.last()
        digest.update(obs["observation"][V1_COLUMNS].tobytes())
        digest.update(obs["action_mask"][:OLD_ACTIONS].tobytes())
        action = None if terminated or truncated else agent.act(obs)
        if action is not None:
            actions.append(int(action))
        env.step(action)
    return actions, digest.hexdigest()


def main(out: str) -> None:
    """Write the fixture to ``out``."""
    cases = [
        {"preset": preset, "seed": seed, **dict(zip(("actions", "digest"), play(preset, seed)))}
        for preset, seed in CASES
    ]
    Path(out).write_text(
        json.dumps({"policy": "spades_env/policies/ppo.pt", "layout": "spades_obs_v1", "cases": cases}, indent=None)
    )
    print(out, sum(len(c["actions"]) for c in cases), "actions")


if __name__ == "__main__":
    main(sys.argv[1])
