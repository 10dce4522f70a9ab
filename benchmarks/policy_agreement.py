"""How often a policy's decisions agree with the heuristic's, bids and card plays apart.

The policy's partnership plays the heuristic's on seeded one-hand deals (standard rules by default);
at each of the policy's decisions the heuristic is asked what it would do in the same spot.

    python benchmarks/policy_agreement.py [POLICY] [--deals N] [--rules NAME] [--seed S]

POLICY defaults to the released ``ppo``; any ``make_agent`` name or policy file works.
"""

from __future__ import annotations

import argparse

import spades_env
from spades_env.agents import HeuristicAgent, make_agent
from spades_env.core.actions import BID_OFFSET


def main() -> None:
    """Play the deals and print the agreement per kind of decision."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("policy", nargs="?", default="ppo", help="agent name or policy file")
    parser.add_argument("--deals", type=int, default=200, help="one-hand deals, each played with the sides swapped")
    parser.add_argument("--rules", default="standard")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    policy, shadow, opponent = make_agent(args.policy), HeuristicAgent(), HeuristicAgent()
    counts = {"bid": [0, 0], "card": [0, 0]}  # kind -> [agreed, decisions]
    env = spades_env.env(rules=args.rules, episode="hand")
    for deal in range(args.deals):
        for policy_side in (0, 1):
            env.reset(seed=args.seed + deal)
            for name in env.agent_iter():
                obs, _, term, trunc, _ = env.last()
                if term or trunc:
                    env.step(None)
                    continue
                seat = int(name.split("_")[1])
                if seat % 2 != policy_side:
                    env.step(opponent.act(obs))
                    continue
                action, reference = policy.act(obs), shadow.act(obs)
                kind = "card" if reference < BID_OFFSET else "bid"
                counts[kind][0] += action == reference
                counts[kind][1] += 1
                env.step(action)
    for kind, (agreed, total) in counts.items():
        print(f"{kind:5s} decisions: {total:6d}, same as the heuristic: {agreed / max(total, 1):.1%}")


if __name__ == "__main__":
    main()
