"""Baseline agents and the agent registry.

``make_agent(name, **options)`` builds an agent by name (``random``,
``heuristic``, ``heuristic_classic``, ``pimc``), by checkpoint path or by released policy name (see
:mod:`spades_env.agents.registry`). Every agent has ``act(observation)`` on
the env's observation dict and ``act_batch(obs, mask)`` on batch rows;
``check_plays(agent, rules)`` says up front why an agent cannot play a rule set.
"""

from .base import Agent, AgentProtocol, check_plays, legal_actions, make_rng, mask_bits
from .heuristic import ClassicHeuristicAgent, HeuristicAgent, choose_bid, choose_card, estimate_tricks, nil_risk
from .knowledge import VoidTracker, rules_from_view
from .pimc import PIMCAgent
from .random_agent import RandomAgent
from .registry import (
    UnknownAgentError,
    available_agents,
    load_checkpoint,
    make_agent,
    register_agent,
    register_checkpoint_loader,
    released_policies,
)

register_agent("random", RandomAgent, "uniform over the legal actions")
register_agent("heuristic", HeuristicAgent, "rule-based: trick-counting bids, bag-aware priority-driven play")
register_agent("heuristic_classic", ClassicHeuristicAgent, "the heuristic before its bag-aware improvements")
register_agent("pimc", PIMCAgent, "perfect-information Monte Carlo over sampled hands (card play and bids)")

__all__ = [
    "Agent",
    "AgentProtocol",
    "ClassicHeuristicAgent",
    "HeuristicAgent",
    "PIMCAgent",
    "RandomAgent",
    "UnknownAgentError",
    "VoidTracker",
    "available_agents",
    "check_plays",
    "choose_bid",
    "choose_card",
    "estimate_tricks",
    "legal_actions",
    "load_checkpoint",
    "make_agent",
    "make_rng",
    "mask_bits",
    "nil_risk",
    "register_agent",
    "register_checkpoint_loader",
    "released_policies",
    "rules_from_view",
]
