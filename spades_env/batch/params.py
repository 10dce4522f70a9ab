"""Per-rules arrays of every option the batch engine reads, and the list of options it handles.

A crazy rotation gives each table a rules id (the hand's preset); every array
here has one entry per rules id. ``HANDLED_RULES`` names each field of
:class:`~spades_env.core.rules.Rules` and where the engine implements it; a test
fails naming any field that is missing.
"""

from __future__ import annotations

import numpy as np

from ..core.cards import deck
from ..core.hand import blind_bids_mask, lowest_bid, ten_for_200_allowed
from ..core.rules import FIRST_TRICK_LOWEST_CLUB, Rules
from ..core.tricks import DEUCE_HIGH_CHOICES
from ..encoding import SCORE_SCALE_TARGET, rule_features
from .tables import split

# Each field of Rules, and the part of the engine that implements it.
HANDLED_BY: dict[str, str] = {
    "num_players": "state shapes, seat rotation, dealing (state, dealing)",
    "partnerships": "sides, partners' bids, exchange (state, legality, transitions)",
    "jokers": "the pack (params.packs, dealing)",
    "deuce_of_spades_high": "the core's trick keys (core.tricks.TRICK_KEYS)",
    "nil": "lowest bid (params.low_bid)",
    "nil_value": "core.scoring.score_hands",
    "blind_nil": "blind options (legality.blind_bits)",
    "blind_nil_value": "core.scoring.score_hands",
    "blind_nil_requires_deficit": "blind nil eligibility (dealing.blind_nil_eligibility)",
    "blind_nil_exchange": "exchange schedule (transitions.end_bidding)",
    "nil_tricks_count_for_partner": "core.scoring.score_hands",
    "max_team_bid": "bid ranges, 10 for 200, blind bids (legality.bid_bits, params)",
    "ten_for_200": "legality.bid_bits, transitions.bid, core scoring",
    "blind_bids": "legality.blind_bits, transitions.bid, core scoring",
    "blind_bid_min": "params.blind_bid_hi",
    "mirror": "legality.bid_bits",
    "suicide": "legality.bid_bits, legality.blind_bits",
    "bids_may_total_tricks": "legality.no_hook",
    "first_trick": "transitions.begin_play, legality.play_legal, history._voids_shown (voids shown)",
    "dealer_leads_any": "transitions.begin_play, legality.play_legal, history._voids_shown (voids shown)",
    "bag_value": "core.scoring.score_hands",
    "bag_limit": "core.scoring.score_hands",
    "bag_penalty": "core.scoring.score_hands",
    "boston_bonus": "core.scoring.score_hands",
    "target_score": "core.game.game_end, observation scale",
    "lose_score": "core.game.game_end",
    "max_hands": "core.game.game_end, deal log",
    "crazy": "a rules id per table (state.rid, params)",
    "name": "info['hand_rules']",
}
HANDLED_RULES: frozenset[str] = frozenset(HANDLED_BY)

# Options whose presence anywhere in a rotation switches a code path on (the rest skip it).
_SWITCHES = ("blind_nil", "blind_bids", "ten_ok", "mirror", "suicide", "no_hook", "exchange", "lowest_club",
             "dealer_leads_any")


def _arr(values, dtype=np.intp) -> np.ndarray:
    return np.array(list(values), dtype=dtype)


class RulesParams:
    """Per hand-rules arrays of every option the engine reads (one entry per rules id)."""

    def __init__(self, hand_rules: list[Rules], game_rules: Rules):
        hr = hand_rules
        self.hand_rules = hr
        self.low_bid = _arr(lowest_bid(r) for r in hr)
        self.blind_nil = _arr((r.blind_nil for r in hr), bool)
        self.deficit_none = _arr((r.blind_nil_requires_deficit is None for r in hr), bool)
        self.deficit = _arr(r.blind_nil_requires_deficit or 0 for r in hr)
        self.ten_ok = _arr((ten_for_200_allowed(r) for r in hr), bool)
        self.blind_bids = _arr((r.blind_bids for r in hr), bool)
        self.blind_bid_hi = np.array([split(blind_bids_mask(r))[1] for r in hr], np.uint64)
        self.mirror = _arr((r.mirror for r in hr), bool)
        self.suicide = _arr((r.suicide for r in hr), bool)
        self.mtb_none = _arr((r.max_team_bid is None for r in hr), bool)
        self.mtb = _arr(r.max_team_bid or 0 for r in hr)
        self.no_hook = _arr((not r.bids_may_total_tricks for r in hr), bool)
        self.exchange = _arr(r.blind_nil_exchange if r.partnerships else 0 for r in hr)
        self.lowest_club = _arr((r.first_trick == FIRST_TRICK_LOWEST_CLUB for r in hr), bool)
        self.dealer_leads_any = _arr((r.dealer_leads_any for r in hr), bool)
        self.key_row = _arr(DEUCE_HIGH_CHOICES.index(r.deuce_of_spades_high) for r in hr)
        self.packs = [np.array(deck(r.jokers), np.intp) for r in hr]
        features = np.stack([rule_features(r) for r in hr]).astype(np.float32)
        target = np.float32(game_rules.target_score / SCORE_SCALE_TARGET)
        self.tail = np.concatenate([np.full((len(hr), 1), target, np.float32), features], axis=1)
        self.names = [r.name for r in hr]
        self.any = self._switches()
        # Number bids without any option that depends on the state: one constant mask.
        self.simple_bids = not any(self.any[k] for k in ("ten_ok", "mirror", "suicide", "no_hook", "mtb"))

    def _switches(self) -> dict[str, bool]:
        """Whether any hand of the rotation has the option (skips whole code paths when none has)."""
        out = {name: bool(np.any(getattr(self, name))) for name in _SWITCHES}
        out["mtb"] = not bool(self.mtb_none.all())
        out["blind"] = out["blind_nil"] or out["blind_bids"]
        out["team"] = out["ten_ok"] or out["blind_bids"]
        return out
