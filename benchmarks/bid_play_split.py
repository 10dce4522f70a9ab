"""Where a policy's strength comes from: its bids and its card play, each beside the heuristic's.

Plays a split agent against the heuristic on duplicate deals: bids (and blind calls) from one
agent, card play (and the blind-nil exchange, and two players' drawing turns) from another.

    python benchmarks/bid_play_split.py POLICY [--deals N] [--games M] [--rules PRESET] [--seed S]

prints two matches against ``heuristic``: POLICY's bids with the heuristic's play, and the
heuristic's bids with POLICY's play. Runs in one process (the split agent is registered here).
"""

from __future__ import annotations

import argparse
from collections.abc import Mapping
from typing import Any

import numpy as np

from spades_env.agents import check_plays, make_agent
from spades_env.agents.registry import register_agent
from spades_env.core.actions import BID_OFFSET, KEEP
from spades_env.core.rules import Rules
from spades_env.evaluation import EvalConfig, evaluate, headline_summary


class SplitAgent:
    """Bids with one agent, plays cards with another."""

    def __init__(self, bid: str = "heuristic", play: str = "heuristic"):
        self.bidder, self.player = make_agent(bid), make_agent(play)

    def check_rules(self, rules: Rules) -> None:
        """ValueError when the card player cannot play ``rules`` (it takes the drawing turns too)."""
        check_plays(self.player, rules)

    def act(self, observation: Mapping[str, np.ndarray]) -> int:
        """The bidder's action when a bid or call is legal, else the player's."""
        bidding = bool(np.asarray(observation["action_mask"])[BID_OFFSET:KEEP].any())  # drawing turns: the player's
        return (self.bidder if bidding else self.player).act(observation)


def main() -> None:
    """Run both split matches and print their headline (win rate, bag-adjusted and plain points per deal)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("policy", help="agent name or policy file")
    parser.add_argument("--deals", type=int, default=2000)
    parser.add_argument("--games", type=int, default=100, help="game seeds to the target (each seating both ways)")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--rules", default="standard", help="preset name or YAML path")
    args = parser.parse_args()
    register_agent("split", SplitAgent, "bids from one agent, card play from another", overwrite=True)
    splits: dict[str, dict[str, Any]] = {
        "policy bids, heuristic play": {"bid": args.policy, "play": "heuristic"},
        "heuristic bids, policy play": {"bid": "heuristic", "play": args.policy},
    }
    for label, options in splits.items():
        report = evaluate(
            EvalConfig(
                "split",
                "heuristic",
                a_options=options,
                rules=args.rules,
                deals=args.deals,
                games=args.games,
                seed=args.seed,
                workers=1,  # the split agent is registered in this process only
                progress=False,
            )
        )
        print(f"{label:28s} vs heuristic: {headline_summary(report)}")


if __name__ == "__main__":
    main()
