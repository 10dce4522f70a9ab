"""Write docs/images/hand.gif: one hand of trained play (the released policy ``ppo`` at every seat, a seeded deal),
recorded by the env and drawn by ``spades-replay --gif`` (the environment page's animation).

Run from the repository root: ``python docs/hand_gif.py``.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from pathlib import Path

import spades_env
from spades_env.agents import make_agent

SEED = 7


def main() -> None:
    """Play the hand, save its record, and let ``spades-replay`` draw it as one GIF."""
    env = spades_env.raw_env(episode="hand")
    env.reset(seed=SEED)
    agent = make_agent("ppo")
    for name in env.agent_iter():
        _, _, terminated, truncated, _ = env.last()
        env.step(None if terminated or truncated else agent.act(env.observe(name)))
    images = Path(__file__).resolve().parent / "images"
    with tempfile.TemporaryDirectory() as scratch:
        record = Path(scratch) / "hand.json"
        record.write_text(json.dumps(env.unwrapped.game_record()))
        subprocess.run(
            [sys.executable, "-m", "spades_env.replay", str(record), "--all", "--frames", scratch, "--gif"],
            check=True,
            stdout=subprocess.DEVNULL,
        )
        (Path(scratch) / "replay.gif").replace(images / "hand.gif")
    print(images / "hand.gif")


if __name__ == "__main__":
    main()
