"""The core's rule records for every rules id of a batch, and the list of options the engine handles.

A crazy rotation gives each table a rules id (the hand's preset). The bidding
and card-play options are the core's records (:class:`~spades_env.core.bidding.BidRules`,
:class:`~spades_env.core.card_play.PlayRules`) stacked with one entry per rules
id, plus *switches* (which options any rules id has: code paths the others
skip). ``HANDLED_RULES`` names each field of :class:`~spades_env.core.rules.Rules`
and how the engine reaches it (the core's homes, ``core.rules.RULE_HOMES``,
and the engine's own parts); a test fails naming any field that is missing.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..core import bidding, card_play
from ..core.cards import deck
from ..core.drawing import draw_rules, has_drawing
from ..core.rules import RULE_HOMES
from ..core.tricks import DEUCE_HIGH_CHOICES, key_start
from ..obs.features import SCORE_SCALE_TARGET, draw_rule_features, rule_features
from .tables import LOW_WORD, WORD_BITS

# Each field of Rules, and how the engine reaches it: through the core's functions that state it
# (core.rules.RULE_HOMES), plus what the engine itself does with a few (shapes, rules ids, infos).
_BATCH_PARTS = {
    "num_players": "state shapes",
    "partnerships": "state shapes (sides, partner seats)",
    "jokers": "the pools' packs (core.cards.deck)",
    "deuce_of_spades_high": "the core's trick keys (core.tricks.TRICK_KEYS) by rules id",
    "target_score": "the observation's score scale",
    "max_hands": "the deal log",
    "crazy": "a rules id per table (state.rid, params)",
    "name": "info['hand_rules']",
    "discards_face_up": "the drawing record (params.draw), read by the encoder",
}
HANDLED_BY: dict[str, str] = {
    field: ", ".join(([_BATCH_PARTS[field]] if field in _BATCH_PARTS else []) + [f"core.{home}" for home in homes])
    for field, homes in RULE_HOMES.items()
}
HANDLED_RULES: frozenset[str] = frozenset(HANDLED_BY)


class RulesParams:
    """The core's records of every rules id (stacked), their switches, and the per-rules constants."""

    def __init__(self, hand_rules: list, game_rules: Any):
        hr = hand_rules
        self.hand_rules = hr
        bid = [bidding.bid_rules(r) for r in hr]
        play = [card_play.play_rules(r) for r in hr]
        self.uniform = len(hr) == 1
        # With one rules id the records are plain values (numpy broadcasts them); else arrays by rules id.
        self.bid = bid[0] if self.uniform else bidding.stack(bid)
        self.play = play[0] if self.uniform else card_play.stack(play)
        self.bid_on = bidding.switches(bid)
        self.play_on = card_play.switches(play)
        self.key_row = np.array([DEUCE_HIGH_CHOICES.index(r.deuce_of_spades_high) for r in hr], np.intp)
        self.key_start = np.array([key_start(r.deuce_of_spades_high) for r in hr], np.intp)  # in TRICK_KEYS flat
        self.packs = [np.array(deck(r.jokers), np.intp) for r in hr]
        features = np.stack([rule_features(r) for r in hr]).astype(np.float32)
        target = np.float32(game_rules.target_score / SCORE_SCALE_TARGET)
        self.tail = np.concatenate([np.full((len(hr), 1), target, np.float32), features], axis=1)
        self.names = [r.name for r in hr]
        # Two players (a rotation cannot mix player counts, so every rules id agrees): the drawing record.
        self.drawing = has_drawing(hr[0])
        self.draw = draw_rules(hr[0])
        self.draw_tail = draw_rule_features(hr[0])  # the observation's drawing_rules block
        on = self.bid_on
        self.blind = bool(on.blind_nil or on.blind_bids)  # a seat may decide blind
        self.exchange = bool(on.exchange)
        # Number bids that read nothing of the state: one constant word for every table.
        self.constant_bids = None  # the legal-action words (low, high) of that word
        constant = bidding.constant_bids(hr[0]) if self.uniform else None
        if constant is not None:
            word = bidding.bid_word_mask(constant)
            self.constant_bids = (np.uint64(word & LOW_WORD), np.uint64(word >> WORD_BITS))

    def bid_at(self, rid: np.ndarray, tables: np.ndarray | None = None) -> Any:
        """The bidding record of the tables ``tables`` (None: every table) whose rules ids are ``rid[tables]``
        (plain values with one rules id, and no gather; else each field gathered when the core reads it)."""
        if self.uniform:
            return self.bid
        return Gathered(self.bid, rid if tables is None else rid.take(tables))

    def play_at(self, rid: Any) -> Any:
        """The card-play record of tables with rules ids ``rid`` (plain values with one rules id)."""
        if self.uniform:
            return self.play
        return card_play.PlayRules(*(field.take(rid) for field in self.play))


class Gathered:
    """A record's fields gathered at some entries (rules ids, or tables), each on first read (a rotation's
    bidding and play read a few of them per call)."""

    def __init__(self, record: Any, index: np.ndarray):
        self._record, self._index = record, index

    def __getattr__(self, name: str) -> Any:
        value = getattr(self._record, name).take(self._index)
        setattr(self, name, value)
        return value
