"""CI: the built package, installed outside the repository, plays a game, loads every preset and the released policy.

Run from a folder outside the repository, with the python of a fresh environment into which the wheel was installed
(``.ci/run`` does it); exits non-zero naming what failed.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

import spades_env
from spades_env.agents.registry import released_policies

here = Path(spades_env.__file__).resolve()
if "site-packages" not in here.parts:
    sys.exit(f"spades_env was imported from {here}, not from the installed package")

for name in spades_env.PRESETS:  # every preset builds and plays a whole hand at random
    env = spades_env.env(rules=name)
    env.reset(seed=0)
    rng = np.random.default_rng(0)
    for _agent in env.agent_iter():
        obs, reward, terminated, truncated, info = env.last()
        env.step(None if terminated or truncated else int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    assert env.unwrapped.game_record()["results"], f"{name}: no hand was scored"

static = here.parent / "web" / "static"  # the browser table's page and assets ship in the wheel
missing = [name for name in ("index.html", "table.js", "table.css") if not (static / name).is_file()]
assert not missing, f"the wheel lacks the browser table's {missing}"

policies = released_policies()
assert "ppo" in policies, f"the released policies are {sorted(policies)}"
ppo = spades_env.make_agent("ppo")
env = spades_env.env(rules="standard", episode="game")
env.reset(seed=1)
agents = {seat: ppo if seat in ("player_0", "player_2") else spades_env.make_agent("heuristic") for seat in env.agents}
for agent in env.agent_iter():
    obs, reward, terminated, truncated, info = env.last()
    env.step(None if terminated or truncated else agents[agent].act(obs))
scores = env.unwrapped.game_record()["results"][-1]["scores"]
print(
    f"package check: spades_env {spades_env.__version__} from {here.parent}; {len(spades_env.PRESETS)} presets "
    f"played; a game of the released ppo with the heuristic ended {scores}"
)
