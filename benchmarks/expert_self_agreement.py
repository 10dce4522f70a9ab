"""How often the expert of learning from search agrees with itself: two searches of the same positions.

The training tables (``training.rollout.Rollout``, 8 tables) are played by the heuristic; at the decisions
with a choice of every 4th table step, two experts built alike but for their seed (``training.expert.Expert``:
PIMC, 16 deals) give their targets, and the share of positions where both searched and agree is printed, card
plays and bids apart. A card target stands for its run of equivalent cards, so two cards of one run agree.
This is the agreement (``expert_agreement`` in ``metrics.csv``) of a learner that reproduces the expert's
choices exactly, what fitting its targets converges to: what one search says and the next does not is noise
that the learner can only fit by spreading its probability.

    python benchmarks/expert_self_agreement.py [--rules cutthroat] [--steps 400] [--samples 16] [--seed 11]
"""

from __future__ import annotations

import argparse
import dataclasses
from pathlib import Path

import numpy as np

from spades_env.core.actions import BID_OFFSET
from spades_env.core.rules import preset
from training.config import load_config
from training.expert import Expert
from training.ppo import NO_TARGET
from training.rollout import Rollout

SMOKE = Path(__file__).resolve().parents[1] / "configs" / "train" / "smoke.yaml"  # small tables, numpy backend
TABLES = 8
EVERY = 4  # table steps between the positions kept (bids and card play of different tricks)


def positions(rules: str, steps: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Observations and masks of the rows with a choice, every ``EVERY``-th step of heuristic-played tables."""
    config = dataclasses.replace(load_config(str(SMOKE)), rules=rules, num_envs=TABLES).validate()
    rng = np.random.default_rng(seed)
    tables = Rollout(config, preset(rules), rng)
    tables.start(0, rng)
    obs, mask = [], []
    for step in range(steps):
        if step % EVERY == 0:
            obs.append(tables.obs.copy())
            mask.append(tables.mask.copy())
        tables.step(tables.store, tables.heuristic.act_batch(tables.obs, tables.mask))
    obs_all, mask_all = np.concatenate(obs), np.concatenate(mask)
    choice = (mask_all != 0).sum(1) > 1
    return obs_all[choice], mask_all[choice]


def agreement(
    kind: str, rules: str, steps: int, samples: int, seed: int, offsets: tuple[int, int] = (1, 2)
) -> dict[str, tuple[int, float]]:
    """Per kind of decision ('card', 'bid'): the positions both experts (seeded ``seed`` plus each of ``offsets``)
    searched and the share where they agree."""
    obs, mask = positions(rules, steps, seed)
    first = Expert(kind, 1.0, samples, seed=seed + offsets[0])
    second = Expert(kind, 1.0, samples, seed=seed + offsets[1])
    a, a_cards = first.targets(obs, mask)
    b, _ = second.targets(obs, mask)
    both = (a != NO_TARGET) & (b != NO_TARGET)
    out = {}
    for name, rows in (("card", both & (a < BID_OFFSET)), ("bid", both & (a >= BID_OFFSET))):
        index = np.flatnonzero(rows)
        if name == "card":  # b's card within a's run of equivalent cards
            same = [int(a_cards[i]) >> int(b[i]) & 1 for i in index]
        else:
            same = (a[index] == b[index]).tolist()
        out[name] = (len(index), float(np.mean(same)) if len(index) else float("nan"))
    return out


def main(argv: list[str] | None = None) -> None:
    """Search the positions twice and print the agreement."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--expert", default="pimc", choices=["pimc"], help="the expert (the search expert needs a network)"
    )
    parser.add_argument("--rules", default="cutthroat")
    parser.add_argument("--steps", type=int, default=400, help="table steps played (8 tables)")
    parser.add_argument("--samples", type=int, default=16, help="deals per search (expert_samples)")
    parser.add_argument("--seed", type=int, default=11)
    args = parser.parse_args(argv)
    if args.steps < 1 or args.samples < 1:
        parser.error("--steps and --samples must be >= 1")
    for name, (n, share) in agreement(args.expert, args.rules, args.steps, args.samples, args.seed).items():
        print(
            f"{name} plays searched by both: {n}; the same {'run of cards' if name == 'card' else 'bid'}: {share:.1%}"
        )


if __name__ == "__main__":
    main()
