"""Write the golden transcripts: ``python -m tests.golden.generate`` (only when behaviour changes on purpose).

Each transcript is a game record (``raw_env.game_record()``) of a seeded game played by the
deterministic classic heuristic agent (``heuristic_classic``) at every seat, with ``max_hands``
lowered to keep the files small, plus digests of every observation: ``digest`` over the columns of
observation layout version 0 (``spades_obs_v0``, a part of the current layout: unchanged since it
was first written) and ``digest_obs_v1`` over the whole current observation. ``tests/golden/test_golden.py`` replays them.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import numpy as np

import spades_env
from spades_env.agents import make_agent
from spades_env.obs.layout import OBSERVATION, OBSERVATION_V0

V0_COLUMNS = OBSERVATION.projection(OBSERVATION_V0.describe(), "the golden digest")

HERE = Path(__file__).resolve().parent
CASES = {  # file stem: (preset, seed, max_hands)
    "standard_seed7": ("standard", 7, 6),
    "pagat_seed3": ("pagat", 3, 4),
    "jokers_seed11": ("jokers", 11, 4),
    "online_seed5": ("online", 5, 4),
    "barmore_seed2": ("barmore", 2, 4),
    "cutthroat3_seed4": ("cutthroat3", 4, 3),
    "crazy_seed9": ("crazy", 9, 4),
}


def play(preset: str, seed: int, max_hands: int) -> tuple[dict, str, str]:
    """Play the case; return its record and the SHA-256 of every observation (its version 0 columns, then
    the whole observation), mask and reward in order."""
    rules = spades_env.load_rules(preset).replace(max_hands=max_hands)
    env = spades_env.raw_env(rules=rules, episode="game")
    env.reset(seed=seed, options={"scores": [0, 120] + [0] * (rules.num_sides - 2)})  # blind nil becomes possible
    agent = make_agent("heuristic_classic", seed=0)  # the classic heuristic pins its exact play
    digest, digest_v1 = hashlib.sha256(), hashlib.sha256()
    for name in env.agent_iter():
        obs, reward, terminated, truncated, _ = env.last()
        for d, observed in ((digest, obs["observation"][V0_COLUMNS]), (digest_v1, obs["observation"])):
            d.update(observed.tobytes())
            d.update(obs["action_mask"].tobytes())
            d.update(np.float64(reward).tobytes())
        env.step(None if terminated or truncated else agent.act(obs))
    return env.game_record(), digest.hexdigest(), digest_v1.hexdigest()


def main() -> None:
    """Regenerate every golden file."""
    for stem, (preset, seed, max_hands) in CASES.items():
        record, digest, digest_v1 = play(preset, seed, max_hands)
        path = HERE / f"{stem}.json"
        path.write_text(json.dumps({"case": [preset, seed, max_hands], "digest": digest, "digest_obs_v1": digest_v1,
                                    "record": record}, indent=None))
        print(path, len(record["actions"]), "actions")


if __name__ == "__main__":
    main()
