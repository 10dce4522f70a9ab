"""How often a policy's decisions agree with the heuristic's, bids and card plays apart.

The policy's partnership plays the heuristic's on seeded one-hand deals (standard rules by default);
at each of the policy's decisions the heuristic is asked what it would do in the same spot.

    python benchmarks/policy_agreement.py [POLICY] [--deals N] [--rules NAME] [--seed S]

POLICY defaults to the released ``ppo``; any ``make_agent`` name or policy file works.
"""

from __future__ import annotations

import argparse
from collections.abc import Mapping
from typing import Any

from spades_env.agents import HeuristicAgent, check_plays, make_agent
from spades_env.config_io import load_rules
from spades_env.core.actions import BID_OFFSET
from spades_env.evaluation import play_episode


class Shadowed:
    """Plays ``policy`` and counts how often the heuristic would have done the same."""

    def __init__(self, policy: Any):
        self.policy, self.shadow = policy, HeuristicAgent()
        self.counts = {"bid": [0, 0], "card": [0, 0]}  # kind -> [agreed, decisions]

    def act(self, observation: Mapping[str, Any]) -> int:
        """The policy's action, tallied against the heuristic's."""
        action, reference = self.policy.act(observation), self.shadow.act(observation)
        kind = "card" if reference < BID_OFFSET else "bid"
        self.counts[kind][0] += action == reference
        self.counts[kind][1] += 1
        return action


def main() -> None:
    """Play the deals and print the agreement per kind of decision."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("policy", nargs="?", default="ppo", help="agent name or policy file")
    parser.add_argument("--deals", type=int, default=200, help="one-hand deals, each played with the sides swapped")
    parser.add_argument("--rules", default="standard")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    rules = load_rules(args.rules)
    policy = make_agent(args.policy)
    check_plays(policy, rules)  # before any deal: a policy without the drawing turns cannot play two_player
    player, opponent = Shadowed(policy), HeuristicAgent()
    for deal in range(args.deals):
        for policy_side in (0, 1):
            agents = [player if rules.side_of(s) == policy_side else opponent for s in range(rules.num_players)]
            play_episode(rules, agents, ["policy"] * rules.num_players, seed=args.seed + deal)
    for kind, (agreed, total) in player.counts.items():
        print(f"{kind:5s} decisions: {total:6d}, same as the heuristic: {agreed / max(total, 1):.1%}")


if __name__ == "__main__":
    main()
