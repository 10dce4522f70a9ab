"""Write docs/table_frame.png: one rgb_array frame of a seeded hand of trained play in progress (the README's
picture): the released policy ``ppo`` at every seat, its bids and a trick on the table.

Run from the repository root: ``python docs/table_frame.py``.
"""

from __future__ import annotations

from pathlib import Path

import spades_env
from spades_env.agents import make_agent
from spades_env.render_image import save_frames

SEED = 7
ACTIONS = 23  # the bids and a few tricks: a trick in progress on the table


def main() -> None:
    """Play ``ACTIONS`` decisions of the released policy at every seat on a seeded deal and save the frame."""
    env = spades_env.raw_env(render_mode="rgb_array")
    env.reset(seed=SEED)
    agent = make_agent("ppo")
    for _ in range(ACTIONS):
        env.step(agent.act(env.observe(env.agent_selection)))
    folder = Path(__file__).resolve().parent
    (path,) = save_frames([env.render()], str(folder))
    target = folder / "table_frame.png"
    Path(path).replace(target)
    print(target)


if __name__ == "__main__":
    main()
