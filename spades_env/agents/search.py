"""Learned search: PIMC's determinized deals, finished by the network or the heuristic, and the network's bids.

At each card play with more than one sensibly different choice, the agent

1. samples deals of the unseen cards exactly as :mod:`spades_env.agents.pimc`
   does (its sampler, bid and play weighting, and equivalent-card pruning are
   reused, not restated): consistent with everything seen, weighted by how
   well they explain the other players' bids and recent plays;
2. builds the core position of each sample, plays each candidate card in it,
   and finishes every (sample, card) position with the rollout policy:

   * ``rollout="network"``: the network plays all four seats of all positions
     at once (:func:`network_rollouts`): at each step the positions still in
     play are encoded (one incremental
     :class:`~spades_env.encoding.ObservationTracker` per position, relative
     to the seat to act, as the env would show it) and go through **one**
     torch forward; each takes the most probable legal card. A network
     residual over the heuristic (``prior_weight`` > 0) gets the heuristic's
     card as its prior from the core state, as the ``ppo`` agent does;
   * ``rollout="heuristic"`` (default): PIMC's heuristic rollouts. With the
     residual network released before 2026-12-03 a network rollout cost
     about 2.7 heuristic rollouts (the card-scorer network of today's
     release costs more), so at PIMC's time per decision the heuristic
     affords more deals;
3. scores each finished hand with the core scoring and picks the card with the
   best mean utility: the side's points minus the mean of the other sides',
   each new bag charged ``bag_cost`` points (default 0, as PIMC; ``None``
   charges the bag's game cost, :func:`spades_env.rewards.bag_cost`, 10
   points in ``standard``, as the evaluation tool's bag-adjusted figure
   does). Charged inside a one-hand search, the bag made the agent duck
   tricks it needed and bid higher: it was set far more often against PIMC
   and lost points even after bags were charged
   (``benchmarks/search_vs_pimc.py``), so the default searches plain points.

Bids (``bids``): ``"network"`` (default) takes the network's bid on the real
observation (the released policy's edge over the heuristic is its bidding,
and a bid then costs one forward instead of PIMC's bid search);
``"search"`` is PIMC's bid search; ``"heuristic"`` the heuristic's bid. Blind
decisions and the blind-nil exchange are the heuristic's (as in PIMC).

The budget is ``samples`` deals per decision (default 18: PIMC's 16 take
about as long with its bid searches counted, since the network's bids are
nearly free), searched in chunks of ``chunk`` deals (network rollouts) or
one by one (heuristic rollouts); with ``time_limit`` (seconds) no new chunk
starts once the limit is spent (at least ``min_samples`` deals are always
searched). The network is any policy file
(``policy=...``), the released ``ppo.pt`` by default. Policy files carry no
value head, so rollouts run to the end of the hand (no value truncation).
"""

from __future__ import annotations

import copy
import os
import time
from typing import Any, Mapping, Sequence

import numpy as np

from ..nn import torch  # noqa: I001 - first, so that a missing torch is reported with the extra to install
from ..aec import mask_array
from ..core.cards import CARD_SUIT
from ..core.hand import HandState, Phase
from ..core.rules import Rules
from ..encoding import ObservationTracker
from ..nn import apply_prior, masked_logits, one_torch_thread
from ..rewards import bag_cost as game_bag_cost
from .base import check_observation
from .heuristic import choose_card, decide, table_from_state
from .pimc import PIMCAgent, _play_position, _side_context, _utility
from .policy import RELEASED_POLICY, PolicyAgent, load_policy_agent
from .registry import register_agent

ROLLOUTS = ("network", "heuristic")
BID_MODES = ("network", "search", "heuristic")


def _play(state: HandState, tracker: ObservationTracker, voids: list[int], card: int) -> None:
    """Play ``card`` for the seat to act, keeping its observation tracker and the known voids up to date."""
    if state.trick_cards:
        led = CARD_SUIT[state.trick_cards[0]]
        if CARD_SUIT[card] != led:
            voids[state.current] |= 1 << led
    tracker.update(state, state.apply(card))


@torch.no_grad()
def network_rollouts(net: PolicyAgent, states: Sequence[HandState], trackers: Sequence[ObservationTracker],
                     voids: Sequence[list[int]], bags_by_seat: Sequence[int]) -> int:
    """Finish every hand's play with the network's greedy card for every seat (in place); returns the forwards run."""
    policy = net.policy
    prior_weight = policy.prior_weight
    active = [i for i, s in enumerate(states) if s.phase == Phase.PLAY]
    forwards = 0
    while active:
        choose, still = [], []
        for i in active:
            state = states[i]
            legal = state.legal_mask()
            if legal & (legal - 1):
                choose.append(i)
                continue
            _play(state, trackers[i], voids[i], legal.bit_length() - 1)  # a forced card needs no network
            if state.phase == Phase.PLAY:
                still.append(i)
        if choose:
            obs = np.stack([trackers[i].observe(states[i], states[i].current) for i in choose])
            mask = np.stack([mask_array(states[i].legal_mask()) for i in choose])
            logits = policy(torch.from_numpy(obs))
            if prior_weight > 0:
                prior = [choose_card(table_from_state(states[i], voids[i], bags_by_seat)) for i in choose]
                logits = apply_prior(logits, torch.tensor(prior), prior_weight)
            cards = masked_logits(logits, torch.from_numpy(mask)).argmax(dim=-1).tolist()
            forwards += 1
            for i, card in zip(choose, cards):
                _play(states[i], trackers[i], voids[i], card)
                if states[i].phase == Phase.PLAY:
                    still.append(i)
        active = still
    return forwards


class SearchAgent(PIMCAgent):
    """Determinized search with the trained network as rollout policy and bidder (see the module docstring)."""

    name = "search"

    def __init__(self, policy: str | os.PathLike | None = None, rollout: str = "heuristic", bids: str = "network",
                 samples: int = 18, chunk: int = 8, time_limit: float | None = None, min_samples: int = 4,
                 bag_cost: float | None = 0.0, seed: int | None = None, rng: np.random.Generator | None = None,
                 device: str = "cpu", **pimc_options: Any):
        if rollout not in ROLLOUTS:
            raise ValueError(f"rollout must be one of {ROLLOUTS}, got {rollout!r}")
        if bids not in BID_MODES:
            raise ValueError(f"bids must be one of {BID_MODES}, got {bids!r}")
        if isinstance(chunk, bool) or not isinstance(chunk, int) or chunk < 1:
            raise ValueError(f"chunk must be a positive int, got {chunk!r}")
        if time_limit is not None and not time_limit > 0:
            raise ValueError(f"time_limit must be a positive number of seconds or None, got {time_limit!r}")
        if bag_cost is not None and not bag_cost >= 0:
            raise ValueError(f"bag_cost must be >= 0 or None (the bag's game cost), got {bag_cost!r}")
        if bids == "network":
            pimc_options.setdefault("bid_samples", 1)  # PIMC calls search_bid only with a bid budget
        super().__init__(seed=seed, rng=rng, samples=samples, time_limit=time_limit, min_samples=min_samples,
                         **pimc_options)
        self.policy_path = os.fspath(RELEASED_POLICY if policy is None else policy)
        self.net = load_policy_agent(self.policy_path, device=device)
        self.rollout_policy = rollout
        self.bids = bids
        self.chunk = chunk
        self.bag_cost_option = bag_cost
        self.forwards = 0  # torch forwards of the last search (one per rollout step across all positions)
        self.last_samples = 0  # deals searched at the last network-rollout search
        self._obs: Mapping[str, np.ndarray] | None = None

    def describe(self) -> dict[str, Any]:
        """Name, network and budget."""
        return {**super().describe(), "name": self.name, "policy": self.policy_path, "rollout": self.rollout_policy,
                "bids": self.bids, "chunk": self.chunk, "bag_cost": self.bag_cost_option}

    def act(self, observation: Mapping[str, np.ndarray]) -> int:
        """A legal action: searched card play, the chosen bid mode's bid, the heuristic's otherwise."""
        check_observation(observation)
        self._obs = observation  # the network bids on the observation itself
        return super().act(observation)

    def _resolve_bag_cost(self, rules: Rules) -> float:
        """The bag charge of this decision: the option, or the bag's game cost under these rules."""
        self.bag_cost = game_bag_cost(rules) if self.bag_cost_option is None else float(self.bag_cost_option)
        return self.bag_cost

    def search_bid(self, view, rules: Rules, legal: int) -> int:
        """The bid of the chosen mode: the network's, PIMC's bid search, or the heuristic's."""
        self._resolve_bag_cost(rules)
        if self.bids == "network":
            return self.net.act(self._obs)
        if self.bids == "search":
            return super().search_bid(view, rules, legal)
        return int(decide(view, rules, legal, None, self.bid_params))

    def search(self, view, rules: Rules, legal: int, voids: Sequence[int]) -> int:
        """The card with the best mean utility over sampled deals, each finished by the rollout policy."""
        cost = self._resolve_bag_cost(rules)
        if self.rollout_policy == "heuristic":
            return super().search(view, rules, legal, voids)
        unseen, choices = self._card_choices(view, rules, legal)
        self.last_values, self.forwards, self.last_samples = {}, 0, 0
        if len(choices) == 1:
            return choices[0]
        scores, bags, bags_by_seat = _side_context(view, rules)
        deals = self._position_deals(view, rules, unseen, voids, bags_by_seat)
        totals = np.zeros(len(choices))
        start = time.perf_counter()
        searched = 0
        for first in range(0, len(deals), self.chunk):
            if (self.time_limit is not None and searched >= self.min_samples
                    and time.perf_counter() - start > self.time_limit):
                break
            batch = deals[first:first + self.chunk]
            states, trackers, rollout_voids = [], [], []
            for hands in batch:
                hands[0] = view.hand
                sample = _play_position(rules, view, hands, scores)
                tracker = ObservationTracker()
                tracker.start_hand(sample, scores, bags, rules)
                for card in choices:
                    state, mine = sample.clone(), copy.copy(tracker)
                    mine.buf = tracker.buf.copy()
                    position_voids = list(voids)
                    _play(state, mine, position_voids, card)
                    states.append(state)
                    trackers.append(mine)
                    rollout_voids.append(position_voids)
            with one_torch_thread():
                self.forwards += network_rollouts(self.net, states, trackers, rollout_voids, bags_by_seat)
            utilities = [_utility(rules, s, bags, cost) for s in states]
            totals += np.asarray(utilities).reshape(len(batch), len(choices)).sum(axis=0)
            searched += len(batch)
        self.last_samples = searched
        means = totals / searched
        self.last_values = {c: float(v) for c, v in zip(choices, means)}
        return max(choices, key=lambda c: (self.last_values[c], -c))


register_agent("search", SearchAgent, "learned search: PIMC deals and rollouts (rollout=network|heuristic), "
               "the network's bids (policy=<file>)", overwrite=True)

__all__ = ["SearchAgent", "network_rollouts"]
