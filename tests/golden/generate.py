"""Write the golden transcripts: ``python -m tests.golden.generate`` (only when behaviour changes on purpose).

Each transcript is a game record (``raw_env.game_record()``) of a seeded game played by the
deterministic classic heuristic agent (``heuristic_classic``) at every seat, with ``max_hands``
lowered to keep the files small, plus digests of every observation: ``digest`` over the columns of
observation layout version 0 (``spades_obs_v0``, a part of the current layout: unchanged since it
was first written) and ``digest_obs_v1`` over those of version 1 (``spades_obs_v1``), each with the
first 88 entries of the action mask (the action space before ``spades_v3``), so that both are
unchanged since they were first written; ``digest_obs_v2`` covers the whole current observation and
the whole mask. ``tests/golden/test_golden.py`` replays them.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import numpy as np

import spades_env
from spades_env.agents import make_agent
from spades_env.core.actions import NUM_ACTIONS_V2
from spades_env.obs.layout import OBSERVATION, OBSERVATION_V0, OBSERVATION_V1

V0_COLUMNS = OBSERVATION.projection(OBSERVATION_V0.describe(), "the golden digest")
V1_COLUMNS = OBSERVATION.projection(OBSERVATION_V1.describe(), "the golden digest")

HERE = Path(__file__).resolve().parent
CASES = {  # file stem: (preset, seed, max_hands)
    "standard_seed7": ("standard", 7, 6),
    "pagat_seed3": ("pagat", 3, 4),
    "jokers_seed11": ("jokers", 11, 4),
    "online_seed5": ("online", 5, 4),
    "barmore_seed2": ("barmore", 2, 4),
    "cutthroat3_seed4": ("cutthroat3", 4, 3),
    "crazy_seed9": ("crazy", 9, 4),
    "two_player_seed6": ("two_player", 6, 4),
}


def play(preset: str, seed: int, max_hands: int) -> tuple[dict, str, str, str]:
    """Play the case; return its record and the SHA-256 of every observation (its version 0 columns, its
    version 1 columns, each with the mask's first 88 actions; then the whole observation and mask), mask and
    reward in order."""
    rules = spades_env.load_rules(preset).replace(max_hands=max_hands)
    env = spades_env.raw_env(rules=rules, episode="game")
    env.reset(seed=seed, options={"scores": [0, 120] + [0] * (rules.num_sides - 2)})  # blind nil becomes possible
    agent = make_agent("heuristic_classic", seed=0)  # the classic heuristic pins its exact play
    digest, digest_v1, digest_v2 = hashlib.sha256(), hashlib.sha256(), hashlib.sha256()
    for _name in env.agent_iter():
        obs, reward, terminated, truncated, _ = env.last()
        observation, mask = obs["observation"], obs["action_mask"]
        for d, observed, shown in (
            (digest, observation[V0_COLUMNS], mask[:NUM_ACTIONS_V2]),
            (digest_v1, observation[V1_COLUMNS], mask[:NUM_ACTIONS_V2]),
            (digest_v2, observation, mask),
        ):
            d.update(observed.tobytes())
            d.update(shown.tobytes())
            d.update(np.float64(reward).tobytes())
        env.step(None if terminated or truncated else agent.act(obs))
    return env.game_record(), digest.hexdigest(), digest_v1.hexdigest(), digest_v2.hexdigest()


def main() -> None:
    """Regenerate every golden file."""
    for stem, (preset, seed, max_hands) in CASES.items():
        record, digest, digest_v1, digest_v2 = play(preset, seed, max_hands)
        path = HERE / f"{stem}.json"
        path.write_text(
            json.dumps(
                {
                    "case": [preset, seed, max_hands],
                    "digest": digest,
                    "digest_obs_v1": digest_v1,
                    "digest_obs_v2": digest_v2,
                    "record": record,
                },
                indent=None,
            )
        )
        print(path, len(record["actions"]), "actions")


if __name__ == "__main__":
    main()
