"""Write docs/table_frame.png: one rgb_array frame of a seeded game in progress (the README's picture).

Run from the repository root: ``python docs/table_frame.py``.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

import spades_env
from spades_env.render_image import save_frames

SEED = 7
ACTIONS = 23  # the bids and a few tricks: a trick in progress on the table


def main() -> None:
    """Play ``ACTIONS`` seeded random legal actions and save the frame."""
    env = spades_env.raw_env(render_mode="rgb_array")
    env.reset(seed=SEED)
    rng = np.random.default_rng(SEED)
    for _ in range(ACTIONS):
        env.step(int(rng.choice(env.legal_actions())))
    folder = Path(__file__).resolve().parent
    (path,) = save_frames([env.render()], str(folder))
    target = folder / "table_frame.png"
    Path(path).replace(target)
    print(target)


if __name__ == "__main__":
    main()
