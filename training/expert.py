"""Learning from search (expert iteration, ``expert``): search gives targets for some of the learner's decisions.

In the style of ExIt and AlphaZero, a search agent improves on the network's
play at a sample of the positions the rollout visits, and the network learns
to play as the search did:

* **Which positions.** Every learner decision with more than one legal action
  (self-play tables and the tables against the judged opponents alike) is
  offered to the expert with probability ``expert_fraction``, drawn from the
  expert's own generator. The expert acts on the decision's observation
  through the agent protocol (``act(observation) -> action``), exactly as it
  would at a table; the position gets a target only when the expert searched
  it (it left values for more than one candidate in ``last_values``): card
  play, and PIMC's bids. Decisions the expert does not search (blind calls,
  the exchange, two players' drawing turns: the heuristic's or the network's
  choice) and positions whose candidates are all equivalent get none.
  ``expert_decisions`` narrows the offer to the bidding (``bids``: rows whose
  legal actions are bids; PIMC only, as the search expert takes the network's
  bid unsearched) or to the card play (``cards``: rows whose legal actions are
  cards); ``all`` (the default) offers both. Within a call the rows are
  drawn as with ``all`` and those of the other kind dropped (the searches
  they skip leave the generator elsewhere for the next call).
* **Which expert.** ``pimc`` (:class:`~spades_env.agents.pimc.PIMCAgent`:
  heuristic rollouts, searched bids) or ``search``
  (:class:`~spades_env.agents.search.SearchAgent`: the network itself
  finishes the sampled deals and bids; its network is the learner's current
  policy, refreshed at every rollout, so each round of targets improves on
  the network that plays). ``expert_samples`` deals per searched decision.
* **The target** is the searched action; ``-1`` marks a decision without
  one. A searched card stands for its run of equivalent cards (cards of a
  suit with no unseen card between them: the search plays only the lowest),
  kept as a bitmask of those legal cards (``expert_cards``; 0 for a bid). The
  update adds ``expert_coef`` times the policy's cross-entropy at the targets
  (:func:`training.ppo.expert_loss`: minus the log of the probability the
  policy gives the target's run) to PPO's loss, in every minibatch. The search's values are not a
  critic target: they are the values of the expert's own continuation
  (heuristic or greedy-network play at every seat, PIMC's in plain points),
  not of the learner's play, whose returns the critic already regresses on.
* **Where it runs.** In the rollout, beside the tables (:mod:`training.rollout`):
  in the rollout workers when there are any, so the search overlaps the
  update. The expert and its generator belong to the tables' state, which a
  checkpoint pickles whole: a resumed run draws the same positions and deals
  and gets the same targets, bit for bit, and a run is reproducible for a
  given seed and number of workers. The searches use a fixed number of deals
  (never a time limit), so that targets do not depend on the machine's speed.

The numpy tables only (``backend: numpy``): the search reads host observations.
"""

from __future__ import annotations

import copy
from typing import Any

import numpy as np

from spades_env.agents.base import mask_bits
from spades_env.agents.knowledge import rules_from_observation
from spades_env.agents.pimc import PIMCAgent, representative_card
from spades_env.agents.policy import PolicyAgent
from spades_env.agents.search import SearchAgent
from spades_env.core.actions import BID_ACTIONS, BID_OFFSET, CARD_ACTIONS
from spades_env.core.cards import cards_of
from spades_env.nn import PolicyNet
from spades_env.obs.decode import decode_observation
from training.config import EXPERT_DECISIONS, EXPERTS
from training.ppo import NO_TARGET

EXPERT_STREAM = 0xE4  # mixed into the run's seed: the expert's generator is its own stream


class Expert:
    """A search agent giving targets for a sample of decisions (see the module docstring); pickles with the tables."""

    decisions = "all"  # what an expert pickled before expert_decisions existed was offered

    def __init__(self, kind: str, fraction: float, samples: int, seed: int, decisions: str = "all"):
        if kind not in EXPERTS[1:]:
            raise ValueError(f"expert must be one of {EXPERTS[1:]}, got {kind!r}")
        if decisions not in EXPERT_DECISIONS:
            raise ValueError(f"expert decisions must be one of {EXPERT_DECISIONS}, got {decisions!r}")
        self.kind, self.fraction, self.decisions = kind, float(fraction), decisions
        self.rng = np.random.default_rng([seed, EXPERT_STREAM])  # the positions drawn and the search's deals
        if kind == "pimc":
            self.agent: PIMCAgent = PIMCAgent(rng=self.rng, samples=samples)
        else:  # a network being trained has an output for every action: it takes the decisions never searched
            self.agent = SearchAgent(rng=self.rng, samples=samples, others="network")
        self._network: PolicyNet | None = None  # search: the learner's weights, refreshed per rollout

    def refresh(self, policy: PolicyNet) -> None:
        """Search with ``policy``'s current weights (the ``search`` expert; PIMC reads no network)."""
        if self.kind != "search":
            return
        if self._network is None:  # the learner's architecture, once; then only its weights
            self._network = copy.deepcopy(policy).cpu().eval()
            self.agent.net = PolicyAgent(self._network)
        self._network.load_state_dict(policy.state_dict())

    def targets(self, obs: np.ndarray, mask: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """For a drawn sample of these rows with a choice, the expert's action and the bitmask of the legal cards
        equivalent to it (:func:`equivalent_cards`); :data:`NO_TARGET` and 0 elsewhere."""
        actions = np.full(len(obs), NO_TARGET, dtype=np.int64)
        cards = np.zeros(len(obs), dtype=np.int64)
        drawn = self.rng.random(len(obs)) < self.fraction  # one uniform per row: the same draws whatever the rows
        offered = drawn & ((mask != 0).sum(1) > 1)
        if self.decisions != "all":
            actions_of = BID_ACTIONS if self.decisions == "bids" else CARD_ACTIONS
            offered &= (mask[:, actions_of.start : actions_of.stop] != 0).any(1)
        for row in np.flatnonzero(offered):
            self.agent.last_values = {}
            action = self.agent.act({"observation": obs[row], "action_mask": mask[row]})
            if len(self.agent.last_values) > 1:  # searched among several candidates
                actions[row] = action
                cards[row] = equivalent_cards(self.agent, obs[row], mask[row], action)
        return actions, cards

    def describe(self) -> dict[str, Any]:
        """The expert's kind, fraction, decisions offered and its agent's settings."""
        return {
            "kind": self.kind,
            "fraction": self.fraction,
            "decisions": self.decisions,
            "agent": self.agent.describe(),
        }


def equivalent_cards(agent: PIMCAgent, obs: np.ndarray, mask: np.ndarray, action: int) -> int:
    """The bitmask of the legal cards of ``obs`` in the searched ``action``'s run of equivalent cards (the cards the
    search stood it for), or 0 for an action that is not a card."""
    if action >= BID_OFFSET:
        return 0
    view = decode_observation(obs)
    rules = rules_from_observation(obs, view)
    legal = mask_bits(mask)
    unseen, choices = agent._card_choices(view, rules, legal)
    deuce_high = rules.deuce_of_spades_high
    run = representative_card(action, choices, unseen, deuce_high)
    return sum(1 << c for c in cards_of(legal) if representative_card(c, choices, unseen, deuce_high) == run)


def make_expert(config: Any, rng: np.random.Generator) -> Expert | None:
    """The tables' expert (None with ``expert: none``, drawing nothing from ``rng``), seeded from ``rng``: the
    tables' own stream, so that several rollout workers search different deals."""
    if config.expert == "none":
        return None
    return Expert(
        config.expert,
        config.expert_fraction,
        config.expert_samples,
        int(rng.integers(2**63)),
        config.expert_decisions,
    )
