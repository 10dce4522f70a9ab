"""The heuristic as an agent: a decision from an observation, or from a core hand state.

:func:`decide` takes a decoded observation (seat numbers are slots, the
agent is slot 0); :func:`act_from_state` takes a core
:class:`~spades_env.core.hand.HandState` for fast rollouts (used by the PIMC
agent). Both dispatch by phase to the drawing (two players), the bidding, the
blind decision, the exchange or the card play; :class:`HeuristicAgent` wraps :func:`decide` with
a :class:`~spades_env.agents.knowledge.VoidTracker`.

Every function takes a :class:`~.table.Style` (default :data:`~.table.CLASSIC`,
today's play, which the PIMC agent's rollouts and the trained policy's prior
use); :class:`HeuristicAgent` (``heuristic``) plays :data:`~.table.STRONG`,
:class:`ClassicHeuristicAgent` (``heuristic_classic``) plays the classic style.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

import numpy as np

from ...core import actions as A
from ...core.hand import HandState, Phase
from ...core.rules import Rules
from ...core.scoring import BidKind
from ...obs.decode import ObservationView, decode_observation, decode_observations
from ..base import Agent, check_batch, check_observation, mask_bits
from ..knowledge import AGENT_SLOT, VoidTracker, in_play_phase, rules_from_observation, seen_discards, trick_slots
from .bidding import DEFAULT_BID_PARAMS, BidParams, choose_bid, choose_blind, choose_exchange
from .drawing import choose_draw
from .play import choose_card
from .table import CLASSIC, STRONG, Style, Table


def _seen_discards(view, rules: Rules, style: Style) -> int:
    """The discards the agent has seen (two players, with the ``seen_discards`` style; 0 otherwise)."""
    return seen_discards(view) if style.seen_discards and not rules.deuce_of_spades_high else 0


def table_from_view(view, rules: Rules, legal: int, voids: Sequence[int], style: Style = CLASSIC) -> Table:
    """A :class:`Table` from an observation view: seats are slots, the agent is slot 0."""
    n = view.num_players
    seats = trick_slots(view)
    cards = [view.trick[s] for s in seats]
    gone = _seen_discards(view, rules, style)  # out of play, as the cards played are
    for m in view.played[:n]:
        gone |= m
    return Table(
        rules,
        AGENT_SLOT,
        view.hand,
        legal,
        seats,
        cards,
        list(view.bid_kinds[:n]),
        list(view.bid_values[:n]),
        list(view.tricks_won[:n]),
        gone,
        voids,
        list(view.bags[:n]),
        style,
        list(view.scores[:n]),
    )


def table_from_state(
    state: HandState, voids: Sequence[int], bags_by_seat: Sequence[int], style: Style = CLASSIC
) -> Table:
    """A :class:`Table` for the seat to act in a core hand state (what that seat may know)."""
    gone = 0
    for m in state.played:
        gone |= m
    seat = state.current
    scores = [state.scores[state.rules.side_of(s)] for s in range(state.num_players)]
    return Table(
        state.rules,
        seat,
        state.hands[seat],
        state.legal_mask(),
        state.trick_seats,
        state.trick_cards,
        state.bid_kinds,
        state.bid_values,
        state.tricks_won,
        gone,
        voids,
        bags_by_seat,
        style,
        scores,
    )


def act_from_state(
    state: HandState,
    voids: Sequence[int],
    bags_by_seat: Sequence[int],
    params: BidParams = DEFAULT_BID_PARAMS,
    style: Style = CLASSIC,
) -> int:
    """The heuristic's action for the seat to act in a core hand state, in any phase (for rollouts)."""
    legal = state.legal_mask()
    if not legal & (legal - 1):
        return legal.bit_length() - 1
    phase = state.phase
    if phase == Phase.PLAY:
        return choose_card(table_from_state(state, voids, bags_by_seat, style))
    rules = state.rules
    seat = state.current
    kinds = state.bid_kinds
    if phase == Phase.EXCHANGE:
        return choose_exchange(rules, state.hands[seat], legal, kinds[seat] == BidKind.BLIND_NIL)
    if phase == Phase.DRAW:
        return choose_draw(rules, state.hands[seat], state.offered, state.discards[seat], legal)
    scores = [state.scores[rules.side_of(s)] for s in range(state.num_players)]
    if phase == Phase.BLIND:
        return choose_blind(rules, legal, seat, kinds, scores, rules.target_score, style)
    return choose_bid(
        rules, state.hands[seat], legal, seat, kinds, state.bid_values, scores, bags_by_seat, params, style
    )


def decide(
    view,
    rules: Rules,
    legal: int,
    voids: Sequence[int] | None = None,
    params: BidParams = DEFAULT_BID_PARAMS,
    style: Style = CLASSIC,
) -> int:
    """The heuristic's action for a decoded observation and its legal-action bitmask."""
    n = view.num_players
    phase = view.phase
    kinds, values = list(view.bid_kinds[:n]), list(view.bid_values[:n])
    if phase == Phase.PLAY:
        return choose_card(table_from_view(view, rules, legal, voids if voids is not None else [0] * n, style))
    if phase == Phase.BID:
        gone = seen_discards(view) if style.two_player_bids and not rules.deuce_of_spades_high else 0
        return choose_bid(
            rules, view.hand, legal, AGENT_SLOT, kinds, values, view.scores[:n], view.bags[:n], params, style, gone
        )
    if phase == Phase.BLIND:
        return choose_blind(rules, legal, AGENT_SLOT, kinds, view.scores[:n], view.target_score, style)
    if phase == Phase.EXCHANGE:
        return choose_exchange(rules, view.hand, legal, kinds[AGENT_SLOT] == BidKind.BLIND_NIL)
    if phase == Phase.DRAW:
        return choose_draw(rules, view.hand, view.offered, seen_discards(view), legal, style.seen_discards)
    raise ValueError(f"no decision to take in phase {phase!r}")


def _forced(legal: int) -> bool:
    """Whether a legal bitmask leaves one action."""
    return not legal & (legal - 1)


class HeuristicAgent(Agent):
    """The rule-based player of this package, every improvement on; deterministic (the generator is unused)."""

    name = "heuristic"
    default_style = STRONG

    def __init__(
        self,
        seed: int | None = None,
        rng: np.random.Generator | None = None,
        track_voids: bool = True,
        style: Style | None = None,
        **options: Any,
    ):
        super().__init__(seed, rng)
        style = self.default_style if style is None else style
        if not isinstance(style, Style):
            raise TypeError(f"HeuristicAgent's style must be a Style, got {type(style).__name__}")
        style_fields, bid_fields = set(Style.__dataclass_fields__), set(BidParams.__dataclass_fields__)
        unknown = sorted(set(options) - style_fields - bid_fields)
        if unknown:
            raise TypeError(
                f"HeuristicAgent got unknown option(s) {unknown}; its options are seed, rng, "
                f"track_voids, style, the bid parameters {sorted(bid_fields)} "
                f"and the style switches {sorted(style_fields)}"
            )
        self.style = replace(style, **{k: v for k, v in options.items() if k in style_fields})
        self.track_voids = track_voids
        self.tracker = VoidTracker()
        self.params = replace(DEFAULT_BID_PARAMS, **{k: v for k, v in options.items() if k in bid_fields})

    def act(self, observation: Mapping[str, np.ndarray]) -> int:
        """The heuristic's action (legal under the mask)."""
        obs, mask = check_observation(observation)
        legal = mask_bits(mask)
        return self._choose(obs, legal, None if _forced(legal) else decode_observation(obs))

    def act_batch(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """:meth:`act` of each row, in order, with the rows that have a choice decoded together (faster a row)."""
        obs, mask = check_batch(obs, mask)
        legal = [mask_bits(row) for row in mask]
        choosing = [i for i, bits in enumerate(legal) if not _forced(bits)]
        views = dict(zip(choosing, decode_observations(obs[choosing]))) if choosing else {}
        return np.array([self._choose(obs[i], bits, views.get(i)) for i, bits in enumerate(legal)], dtype=np.int64)

    def _choose(self, obs: np.ndarray, legal: int, view: ObservationView | None) -> int:
        """The action for an observation array with legal bitmask ``legal`` (and its decoded view unless forced)."""
        if view is None:  # forced
            if self.track_voids and in_play_phase(obs):  # seen by the tracker, so that no trick is missed
                self.tracker.see(obs)
            return legal.bit_length() - 1
        rules = rules_from_observation(obs, view)
        voids = self.tracker.voids(view, rules) if self.track_voids else None
        action = decide(view, rules, legal, voids, self.params, self.style)
        if not (action >= 0 and legal >> action & 1):  # pragma: no cover - a bug guard
            raise RuntimeError(f"heuristic chose illegal action {action} (legal: {A.action_names(legal)})")
        return int(action)

    def describe(self) -> dict:
        """Name and options."""
        out = {"name": self.name, "track_voids": self.track_voids}
        out.update({k: v for k, v in vars(self.params).items() if getattr(DEFAULT_BID_PARAMS, k) != v})
        if self.style != self.default_style:
            out["style"] = {k: v for k, v in vars(self.style).items() if getattr(self.default_style, k) != v}
        return out


class ClassicHeuristicAgent(HeuristicAgent):
    """The heuristic as it played before the bag-aware improvements (``heuristic_classic``), kept for comparison."""

    name = "heuristic_classic"
    default_style = CLASSIC
