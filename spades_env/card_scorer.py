"""A card-centred scorer: per-card features of the observation, one small network shared by every card.

A plain MLP over the flat observation must learn from examples that the ace of
hearts outranks the king, which cards of a suit are still out, and what beats
the trick on the table, once for every card. The card scorer computes such
facts for every card in the hand from the observation (fixed arithmetic, no
weights: :class:`CardFeatures`) and scores each card with **one** network
shared by all 54 cards (:class:`CardScorer`), fed the card's features and the
policy body's last hidden layer (the rest of the game: bids, tricks, scores).
Its score is added to that card's logit of the policy head, so what makes a
card good is learned once for all cards. Measured on the heuristic's own
decisions (docs/training.md), a 256x256 MLP imitating the heuristic
agreed with its card choices 73.5% of the time, the same MLP with the scorer
86.4%.

Only the cards that can change the policy's choice are scored. Given the
legal-action mask, those are the legal cards of rows with more than one legal
action (:func:`scored_cards`): an illegal card's logit is masked out, and a
lone legal action has probability 1 whatever its logit, so the masked policy,
its log-probabilities and their gradients are those of scoring every card in
the hand, at about a quarter of the cards in training play (3.3 scored
against 7.8 in the hand per decision of heuristic play; none while bidding).
Without the mask, every card in the observer's hand is scored (no other card
action is ever legal). A card not scored scores 0. Per-card features
(``CARD_FEATURES`` = 25 per card; counts are divided by the 13 cards of a suit;
*out*: in the pack of these rules, not mine and not played, so held by
another player or set aside):

=====================  ====  =====================================================
name                   size  content
=====================  ====  =====================================================
higher_out             1     cards of its suit above it that are out
lower_out              1     cards of its suit below it that are out
higher_mine            1     my cards of its suit above it
lower_mine             1     my cards of its suit below it
suit_out               1     cards of its suit out
suit_mine              1     my cards of its suit (itself included)
master                 1     no card of its suit above it is out
follows                1     of the suit led (zero when no trick is on the table)
wins_now               1     it would win the trick on the table (zero when leading)
suit                   4     one-hot suit (jokers are spades)
power                  1     its power in its suit (``core.cards.card_power``) / 15
void                   3     slots 1..3 (left, across, right): the table has seen
                             the slot lack the card's suit (``voids`` block)
trick_size             4     one-hot cards on the table (0..3), the same for all cards
winning_slot           4     one-hot slot winning the trick so far (zero if none)
=====================  ====  =====================================================

The features read the observation by the names of :data:`spades_env.obs.layout.OBSERVATION`
(``hand``, ``trick``, ``played``, ``trick_leader``, ``voids``, the ``jokers`` and
``deuce_of_spades_high`` entries of ``rules``); trick order comes from the core's
:data:`spades_env.core.tricks.TRICK_KEYS`, so every rule variant is ranked as it plays.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import torch
from torch import nn

from .core.cards import (
    BIG_JOKER,
    CARD_SUIT,
    LITTLE_JOKER,
    NUM_CARDS,
    NUM_RANKS,
    NUM_SUITS,
    TWO_OF_CLUBS,
    TWO_OF_HEARTS,
    card_power,
)
from .core.tricks import CANNOT_WIN, DEUCE_HIGH_CHOICES, TRICK_KEYS
from .obs.layout import NUM_SLOTS, OBSERVATION, RULE_FEATURES

CARD_FEATURES = 25
MAX_POWER = NUM_RANKS + 2  # the big joker's power
TRICK_SIZES = 4  # cards on the table when a card is chosen: 0 (leading) .. 3
_RULE_INDEX = {name: i for i, (name, _) in enumerate(RULE_FEATURES)}


def _tables() -> dict[str, np.ndarray]:
    """The constant per-card tables, for the rows of ``DEUCE_HIGH_CHOICES`` (False, True)."""
    suit = np.zeros((NUM_CARDS, NUM_SUITS), np.float32)
    suit[np.arange(NUM_CARDS), CARD_SUIT] = 1
    same_suit = suit @ suit.T
    power = np.array(
        [[card_power(c, deuce_high) for c in range(NUM_CARDS)] for deuce_high in DEUCE_HIGH_CHOICES], np.float32
    )
    # above[h, d, c] = 1 when card d is of c's suit and stronger (rules row h): out @ above[h] counts, per card,
    # the cards above it that are out
    above = same_suit[None] * (power[:, :, None] > power[:, None, :])
    keys = TRICK_KEYS.reshape(len(DEUCE_HIGH_CHOICES), NUM_CARDS, NUM_SUITS).astype(np.float32)
    card_suit = np.array(CARD_SUIT, np.int64)
    standard = np.ones(NUM_CARDS, np.float32)
    standard[[LITTLE_JOKER, BIG_JOKER]] = 0
    jokers = np.ones(NUM_CARDS, np.float32)
    jokers[[TWO_OF_CLUBS, TWO_OF_HEARTS]] = 0
    below = above.transpose(0, 2, 1)
    # per (rule row, card c): the cards d above, below and of the suit of c, as (d, 3) columns; row h * 54 + c.
    # (out, mine) @ count_table[h * 54 + c] counts, for one card, the cards above it, below it and of its suit that
    # are out and that are mine: a product per scored card (a whole-hand product would count 54 cards per row)
    count_table = np.stack([above, below, np.broadcast_to(same_suit, above.shape)], axis=-1)  # (h, d, c, 3)
    count_table = count_table.transpose(0, 2, 1, 3).reshape(len(DEUCE_HIGH_CHOICES) * NUM_CARDS, NUM_CARDS, 3)
    # the products come out [out above, out below, out same suit, mine above, mine below, mine same suit];
    # the features are ordered higher_out, lower_out, higher_mine, lower_mine, suit_out, suit_mine
    count_order = np.array([0, 1, 3, 4, 2, 5], np.int64)
    return {
        "suit": suit,
        "power": power / MAX_POWER,
        "count_table": np.ascontiguousarray(count_table, np.float32),
        "count_order": count_order,
        "keys": keys,
        "card_suit": card_suit,
        "pack": np.stack([standard, jokers]),
    }


_TABLES = _tables()


class CardFeatures(nn.Module):
    """Observation rows (dense, ``OBSERVATION`` layout) -> the features of every card in each row's hand."""

    def __init__(self) -> None:
        super().__init__()
        for name, table in _TABLES.items():  # buffers: they follow the network to its device, not saved
            self.register_buffer(name, torch.from_numpy(table), persistent=False)

    @torch.no_grad()
    def forward(
        self, obs: torch.Tensor, legal: torch.Tensor | None = None
    ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        """(row, card, features) of every scored card (:func:`scored_cards`; every hand card without ``legal``): two
        index vectors and a (cards x ``CARD_FEATURES``) matrix."""
        # Few, whole-batch operations: a policy playing one observation at a time pays per operation, not per row.
        rows = obs.shape[0]
        hand = obs[:, OBSERVATION["hand"]]
        trick = obs[:, OBSERVATION["trick"]].view(rows, NUM_SLOTS, NUM_CARDS)
        rules = obs[:, OBSERVATION["rules"]]
        jokers = rules[:, _RULE_INDEX["jokers"]] > 0.5
        rules_row = (rules[:, _RULE_INDEX["deuce_of_spades_high"]] > 0.5).long()  # DEUCE_HIGH_CHOICES = (False, True)
        played = obs[:, OBSERVATION["played"]].view(rows, NUM_SLOTS, NUM_CARDS).sum(1)
        out = (self.pack[jokers.long()] - hand - played).clamp(0, 1)
        row, card = (hand if legal is None else scored_cards(hand, legal)).nonzero(as_tuple=True)
        card_rules = rules_row.index_select(0, row)
        # each scored card's counts: its row's (out, mine) times its own table, (cards, [out, mine], 3)
        out_and_mine = torch.stack([out, hand], dim=1).index_select(0, row)
        counts = torch.bmm(out_and_mine, self.count_table.index_select(0, card_rules * NUM_CARDS + card))
        counts = counts.view(-1, 6).index_select(1, self.count_order) * (1.0 / NUM_RANKS)
        # the trick on the table: each slot's card (if any), the suit led, each card's key given that suit
        present = trick.sum(2) > 0
        slot_card = trick.argmax(2)
        led = self.card_suit[slot_card.gather(1, obs[:, OBSERVATION["trick_leader"]].argmax(1, keepdim=True))].squeeze(
            1
        )
        key_rows = self.keys[rules_row, :, led]  # any suit when leading: the keys are then unused
        best_key, best_slot = torch.where(present, key_rows.gather(1, slot_card), float(CANNOT_WIN - 1)).max(1)
        on_table = present.sum(1)
        playing = (on_table > 0).float()
        per_row = torch.cat(
            [
                _one_hot(on_table.clamp(max=TRICK_SIZES - 1), TRICK_SIZES),
                _one_hot(best_slot, NUM_SLOTS) * playing[:, None],
                playing[:, None],
                best_key[:, None],
                led[:, None].float(),
            ],
            dim=1,
        ).index_select(0, row)
        card_suit = self.card_suit[card]
        follows = (card_suit == per_row[:, -1].long()).float() * per_row[:, -3]
        wins_now = (key_rows[row, card] > per_row[:, -2]).float() * per_row[:, -3]
        voids = obs[:, OBSERVATION["voids"]].view(rows, NUM_SLOTS, NUM_SUITS)[row, 1:, card_suit]  # slots 1..3
        features = torch.cat(
            [
                counts,
                (counts[:, :1] == 0).float(),
                follows[:, None],
                wins_now[:, None],
                self.suit[card],
                self.power[card_rules, card][:, None],
                voids,
                per_row[:, : TRICK_SIZES + NUM_SLOTS],
            ],
            dim=1,
        )
        return row, card, features


def scored_cards(hand: torch.Tensor, legal: torch.Tensor) -> torch.Tensor:
    """Bool (rows x 54): the cards worth scoring, the legal cards in the hand of rows with more than one legal
    action (``legal``: the legal-action mask, rows x actions, cards first)."""
    if legal.shape[0] != hand.shape[0] or legal.shape[1] < NUM_CARDS:
        raise ValueError(f"a legal-action mask of shape {tuple(legal.shape)} for {hand.shape[0]} observations")
    legal = legal != 0
    return legal[:, :NUM_CARDS] & (hand > 0) & (legal.sum(1, keepdim=True) > 1)


def _one_hot(index: torch.Tensor, classes: int) -> torch.Tensor:
    """Float one-hot rows of ``index``."""
    return nn.functional.one_hot(index, classes).float()


class CardScorer(nn.Module):
    """Per-card features and the body's hidden vector -> one score per card (rows x 54: zero for cards not in the
    hand, whose actions are never legal), weights shared by all cards."""

    def __init__(self, context_size: int, width: int):
        super().__init__()
        if width < 1:
            raise ValueError(f"card scorer width must be positive, got {width}")
        self.features = CardFeatures()
        self.card = nn.Linear(CARD_FEATURES, width)
        self.context = nn.Linear(context_size, width, bias=False)
        self.hidden = nn.Linear(width, width)
        self.score = nn.Linear(width, 1)
        with torch.no_grad():  # start near zero: the head's logits decide at first
            self.score.weight.mul_(0.01)
            self.score.bias.zero_()

    def forward(
        self,
        obs: torch.Tensor | None,
        context: torch.Tensor,
        hand_cards: tuple[torch.Tensor, torch.Tensor, torch.Tensor] | None = None,
        legal: torch.Tensor | None = None,
    ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        """(row, card, score) of the scored cards of each row of dense observations (those of :func:`scored_cards`
        given the ``legal`` mask, else every hand card), given the body's output ``context``; ``hand_cards``, when
        given, is :class:`CardFeatures`' output for those rows (then ``obs`` and ``legal`` are not read)."""
        row, card, features = self.features(obs, legal) if hand_cards is None else hand_cards
        layers = (self.card, lambda x, _rows: self.context(x), self.hidden, self.score)
        return row, card, score_cards(layers, row, features, context)


Layer = Callable[[torch.Tensor], torch.Tensor]
RowsLayer = Callable[[torch.Tensor, torch.Tensor], torch.Tensor]  # (inputs, the rows they are) -> outputs


def score_cards(
    layers: tuple[Layer, RowsLayer, Layer, Layer], row: torch.Tensor, features: torch.Tensor, context: torch.Tensor
) -> torch.Tensor:
    """One score per card (``row``: its row, in order; ``features``: its features) through the scorer's ``card``,
    ``context``, ``hidden`` and ``score`` layers, given as functions (a :class:`CardScorer`'s own, or a pool's
    stacked layers, each applying its own snapshot's: ``training.learner.SnapshotNets``). The ``context`` layer
    reads the body's output ``context`` of the rows with a scored card only, given with those rows' indices."""
    card, context_layer, hidden, score = layers
    used, position = torch.unique_consecutive(row, return_inverse=True)
    card_context = context_layer(context.index_select(0, used), used).index_select(0, position)
    out = torch.relu(card(features) + card_context)
    return score(torch.relu(hidden(out))).squeeze(-1)
