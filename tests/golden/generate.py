"""Write the golden transcripts: ``python -m tests.golden.generate`` (only when behaviour changes on purpose).

Each transcript is a game record (``raw_env.game_record()``) of a seeded game played by the
deterministic classic heuristic agent (``heuristic_classic``) at every seat, with ``max_hands``
lowered to keep the files small,
plus a digest of every observation. ``tests/golden/test_golden.py`` replays them.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import numpy as np

import spades_env
from spades_env.agents import make_agent

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


def play(preset: str, seed: int, max_hands: int) -> tuple[dict, str]:
    """Play the case; return its record and the SHA-256 of every observation and mask in order."""
    rules = spades_env.load_rules(preset).replace(max_hands=max_hands)
    env = spades_env.raw_env(rules=rules, episode="game")
    env.reset(seed=seed, options={"scores": [0, 120] + [0] * (rules.num_sides - 2)})  # blind nil becomes possible
    agent = make_agent("heuristic_classic", seed=0)  # the classic heuristic pins its exact play
    digest = hashlib.sha256()
    for name in env.agent_iter():
        obs, reward, terminated, truncated, _ = env.last()
        digest.update(obs["observation"].tobytes())
        digest.update(obs["action_mask"].tobytes())
        digest.update(np.float64(reward).tobytes())
        env.step(None if terminated or truncated else agent.act(obs))
    return env.game_record(), digest.hexdigest()


def main() -> None:
    """Regenerate every golden file."""
    for stem, (preset, seed, max_hands) in CASES.items():
        record, digest = play(preset, seed, max_hands)
        path = HERE / f"{stem}.json"
        path.write_text(json.dumps({"case": [preset, seed, max_hands], "digest": digest, "record": record}, indent=None))
        print(path, len(record["actions"]), "actions")


if __name__ == "__main__":
    main()
