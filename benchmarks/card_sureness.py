"""How sure policies are of their card: how many legal cards each gives a fair chance, on the same positions.

The heuristic plays every seat of seeded one-hand deals; at each card play with two or more legal cards,
each policy is asked for its probabilities, and the cards it gives at least ``--threshold`` (default 0.05)
are counted. Printed per policy: the share of those decisions with two or more such cards (where
``search`` searches more than the policy's own card: its ``prune`` is this threshold) and their mean
number. A flat policy (learned from noisy targets) keeps several cards in most decisions.

    python benchmarks/card_sureness.py NAME=POLICY [NAME=POLICY ...] [--rules cutthroat] [--hands 60]

POLICY is any ``make_agent`` name or policy file with ``probabilities(observation)`` (``ppo``, a ``policy.pt``).
"""

from __future__ import annotations

import argparse
from collections.abc import Mapping
from typing import Any

import numpy as np

from spades_env.aec import raw_env
from spades_env.agents import HeuristicAgent, check_plays, make_agent
from spades_env.config_io import load_rules
from spades_env.core import Phase
from spades_env.core.actions import BID_OFFSET

DEFAULT_THRESHOLD = 0.05  # search's default prune: a card at this probability or more is searched


def card_counts(policies: Mapping[str, Any], rules: str, hands: int, threshold: float) -> dict[str, np.ndarray]:
    """Per policy, the number of legal cards it gives probability >= ``threshold`` at each card play with two or
    more legal cards of ``hands`` heuristic-played hands (seeds 0 .. hands-1), the same positions for all."""
    counts: dict[str, list[int]] = {name: [] for name in policies}
    heuristic = HeuristicAgent()
    for seed in range(hands):
        env = raw_env(rules=rules, episode="hand")
        env.reset(seed=seed)
        for _ in env.agent_iter():
            obs, _, terminated, truncated, _ = env.last()
            if terminated or truncated:
                env.step(None)
                continue
            mask = obs["action_mask"]
            if env.hand.phase == Phase.PLAY and mask[:BID_OFFSET].sum() > 1:  # a card play with a choice
                for name, policy in policies.items():
                    probs = policy.probabilities(obs)
                    counts[name].append(int((probs[:BID_OFFSET][mask[:BID_OFFSET] != 0] >= threshold).sum()))
            env.step(int(heuristic.act(obs)))
    return {name: np.array(values) for name, values in counts.items()}


def main(argv: list[str] | None = None) -> None:
    """Count and print each policy's sure and unsure card plays."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("policies", nargs="+", metavar="NAME=POLICY", help="a label and an agent name or file")
    parser.add_argument("--rules", default="cutthroat")
    parser.add_argument("--hands", type=int, default=60, help="seeded one-hand deals played by the heuristic")
    parser.add_argument("--threshold", type=float, default=DEFAULT_THRESHOLD)
    args = parser.parse_args(argv)
    if args.hands < 1 or not 0 < args.threshold < 1:
        parser.error("--hands must be >= 1 and --threshold in (0, 1)")
    policies = {}
    for entry in args.policies:
        name, sep, spec = entry.partition("=")
        if not sep or not name or not spec:
            parser.error(f"give each policy as NAME=POLICY, got {entry!r}")
        policies[name] = make_agent(spec)
        check_plays(policies[name], load_rules(args.rules))
        if not callable(getattr(policies[name], "probabilities", None)):
            parser.error(f"{spec!r} gives no probabilities (a trained policy does)")
    counts = card_counts(policies, args.rules, args.hands, args.threshold)
    for name, values in counts.items():
        print(
            f"{name}: {len(values)} card plays with 2+ legal cards; 2+ cards at p >= {args.threshold}: "
            f"{(values >= 2).mean():.1%}; mean such cards: {values.mean():.2f}"
        )


if __name__ == "__main__":
    main()
