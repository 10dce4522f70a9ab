"""
The policy is an MLP over the flat observation (layout in
:mod:`spades_env.obs`); illegal actions are masked out of its logits. The
same network plays every seat, since observations are relative to the seat.
With ``card_scorer`` > 0 it also has a card-centred scorer
(:mod:`spades_env.card_scorer`): per-card features of the observation and the
MLP's last hidden layer go through one small network shared by all cards,
whose score is added to each card's logit. Given the rows' legal-action masks
(``legal``), it scores only the cards that can change the masked policy (the
legal cards of rows with a choice: :func:`spades_env.card_scorer.scored_cards`);
the masked logits are the same, at about a quarter of the cards.

A policy may be *residual over the heuristic* (``prior_weight`` > 0): its
logits get ``prior_weight`` added at the action the heuristic agent would
take (on card decisions only, or on bids too with ``prior_on_bids``), so it
starts as the heuristic's play and learns where to depart from it. The
weight travels in the policy file; agents compute the prior themselves
(:func:`spades_env.agents.policy.heuristic_prior`).
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

import torch
from torch import nn

from ..card_scorer import CardScorer
from ..core.actions import NUM_ACTIONS
from ..core.cards import NUM_CARDS
from ..obs.encode import OBS_SIZE
from ..obs.layout import OBSERVATION
from .sparse import SparseRows, mlp_forward

MASKED_LOGIT = -1e9
HAND_CARD_CHUNK = 8192  # rows made dense at a time for the card scorer's features of a whole batch


@contextmanager
def one_torch_thread() -> Iterator[None]:
    """Run torch on one thread inside (the count restored after): small batched forwards are slower on
    more, and on a shared machine the other processes already fill the cores."""
    threads = torch.get_num_threads()
    if threads != 1:
        torch.set_num_threads(1)
    try:
        yield
    finally:
        if threads != 1:
            torch.set_num_threads(threads)


def mlp(sizes: Sequence[int]) -> nn.Sequential:
    """Linear layers with ReLU between them (none after the last)."""
    layers: list[nn.Module] = []
    for i in range(len(sizes) - 1):
        layers.append(nn.Linear(sizes[i], sizes[i + 1]))
        if i < len(sizes) - 2:
            layers.append(nn.ReLU())
    return nn.Sequential(*layers)


def is_card_scorer_width(value: Any) -> bool:
    """Whether ``value`` is a card scorer width: an int >= 0 (0: no scorer), not a bool."""
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


class PolicyNet(nn.Module):
    """Observation -> action logits (unmasked)."""

    def __init__(
        self,
        hidden: Sequence[int] = (512, 512, 256),
        obs_size: int = OBS_SIZE,
        num_actions: int = NUM_ACTIONS,
        prior_weight: float = 0.0,
        prior_on_bids: bool = False,
        card_scorer: int = 0,
    ):
        super().__init__()
        if not 0 <= prior_weight < math.inf:
            raise ValueError(f"prior_weight must be >= 0 and finite, got {prior_weight}")
        if not hidden:
            raise ValueError("hidden must name at least one hidden layer size")
        self.hidden = tuple(int(h) for h in hidden)
        self.prior_weight = float(prior_weight)  # logit bonus at the heuristic's action (0 = no prior)
        self.prior_on_bids = bool(prior_on_bids)
        self.obs_size = obs_size
        self.num_actions = num_actions
        self.body = mlp((obs_size, *self.hidden))
        self.head = nn.Linear(self.hidden[-1], num_actions)
        if not is_card_scorer_width(card_scorer):
            raise ValueError(f"card_scorer must be a width >= 0 (0: none), got {card_scorer!r}")
        self.card_scorer = card_scorer  # width of the card-centred scorer added to the card logits (0: none)
        self.cards = CardScorer(self.hidden[-1], card_scorer) if card_scorer else None
        # The layout the network reads; for a policy of an older layout, load_policy sets the columns of the
        # observation that make it up (a buffer, so that it moves with the network, but not saved).
        self.input_layout: dict[str, Any] = OBSERVATION.describe()
        self.register_buffer("input_columns", None, persistent=False)
        self.weight_grad_dtype = torch.float32  # of a sparse first layer's weight gradient (training sets it)
        with torch.no_grad():  # small initial logits: a near-uniform first policy
            self.head.weight.mul_(0.01)
            self.head.bias.zero_()

    def forward(
        self, obs: torch.Tensor | SparseRows, hand_cards: SparseRows | None = None, legal: torch.Tensor | None = None
    ) -> torch.Tensor:
        """Logits for every action (dense observations or :class:`SparseRows`); ``hand_cards``: the card scorer's
        features of these rows (:meth:`hand_card_features`), computed once for a batch read many times; ``legal``:
        the rows' legal-action masks, with which the scorer scores only the cards that can change the masked
        policy (:func:`spades_env.card_scorer.scored_cards`: the masked logits are the same, at less cost)."""
        if self.input_columns is not None:  # a policy of an older layout reads its own columns
            if isinstance(obs, SparseRows):
                raise TypeError("a policy of an older observation layout takes dense observations, not SparseRows")
            obs = obs.index_select(-1, self.input_columns)
        hidden = torch.relu(mlp_forward(self.body, obs, self.weight_grad_dtype))
        logits = self.head(hidden)
        if self.num_actions < NUM_ACTIONS:  # a policy of an older action space: no logit for the newer actions
            logits = torch.nn.functional.pad(logits, (0, NUM_ACTIONS - self.num_actions), value=MASKED_LOGIT)
        if self.cards is None:
            return logits
        if hand_cards is not None:
            if len(hand_cards) != hidden.shape[0]:
                raise ValueError(f"hand_cards holds {len(hand_cards)} rows for {hidden.shape[0]} observations")
            scored = self.cards(None, hidden, (hand_cards.row_of_each(), hand_cards.indices, hand_cards.values))
        else:  # the card scorer reads named blocks of the observation: it needs the dense rows
            scored = self.cards(obs if isinstance(obs, torch.Tensor) else obs.dense(), hidden, legal=legal)
        return add_card_scores(logits, *scored)

    def hand_card_features(
        self, obs: torch.Tensor | SparseRows, legal: torch.Tensor | None = None, chunk: int = HAND_CARD_CHUNK
    ) -> SparseRows | None:
        """The card scorer's features of the scored cards of each row (those of
        :func:`~spades_env.card_scorer.scored_cards` given the ``legal`` masks, else every card in the hand), as
        SparseRows (card ids, one feature row per card) to pass to :meth:`forward` for any selection of these rows;
        None without a card scorer. Made ``chunk`` rows at a time (a dense copy of the whole batch would be large)."""
        if self.cards is None:
            return None
        if legal is not None and len(legal) != len(obs):
            raise ValueError(f"{len(legal)} legal-action masks for {len(obs)} observations")
        parts = []
        for start in range(0, max(len(obs), 1), chunk):  # an empty batch gives one empty part
            rows = obs[start : start + chunk]
            scored = self.cards.features(
                rows.dense() if isinstance(rows, SparseRows) else rows,
                None if legal is None else legal[start : start + chunk],
            )
            parts.append(card_feature_rows(*scored, len(rows)))
        return SparseRows.cat(parts)


def card_feature_rows(row: torch.Tensor, card: torch.Tensor, features: torch.Tensor, rows: int) -> SparseRows:
    """The card scorer's features of scored cards (``row``, in order, ``card`` and ``features``: as
    :class:`~spades_env.card_scorer.CardFeatures` gives them) as SparseRows of ``rows`` rows (card ids, one feature
    row per card), which :meth:`PolicyNet.forward` reads as ``hand_cards``."""
    offsets = torch.zeros(rows + 1, dtype=torch.int64, device=row.device)
    torch.cumsum(torch.bincount(row, minlength=rows), 0, out=offsets[1:])
    return SparseRows(card, features, offsets, NUM_CARDS)


class ValueNet(nn.Module):
    """Observation (or full state) -> expected return of the seat."""

    def __init__(self, input_size: int, hidden: Sequence[int] = (512, 512, 256)):
        super().__init__()
        self.input_size = input_size
        self.hidden = tuple(int(h) for h in hidden)
        self.net = mlp((input_size, *self.hidden, 1))
        self.weight_grad_dtype = torch.float32  # of a sparse first layer's weight gradient (training sets it)

    def forward(self, x: torch.Tensor | SparseRows) -> torch.Tensor:
        """Value per row (dense input or :class:`SparseRows`)."""
        return mlp_forward(self.net, x, self.weight_grad_dtype).squeeze(-1)


def add_card_scores(logits: torch.Tensor, row: torch.Tensor, card: torch.Tensor, scores: torch.Tensor) -> torch.Tensor:
    """The head's logits with a card scorer's scores of cards (``row``, ``card``) added to those cards' actions (card
    actions are the card ids)."""
    return logits.index_put((row, card), scores, accumulate=True)


def masked_logits(logits: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """Logits with illegal actions pushed to a huge negative value."""
    return logits.masked_fill(mask == 0, MASKED_LOGIT)


def apply_prior(logits: torch.Tensor, prior: torch.Tensor | None, weight: float) -> torch.Tensor:
    """Logits plus ``weight`` at each row's prior action (rows with prior -1 unchanged)."""
    if prior is None or weight == 0:
        return logits
    rows = prior >= 0
    bonus = torch.zeros_like(logits)
    bonus[rows, prior[rows]] = weight
    return logits + bonus
