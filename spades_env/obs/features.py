"""What the observation says of the rules (the ``rules`` block), and the scales of its numbers.

* the ``rules`` block: :func:`rule_features` (the options that change play, by
  ``layout.RULE_FEATURES``), the ``drawing_rules`` block of two players
  (``DRAW_RULE_FEATURES``, :func:`draw_rule_features`; a block of its own so that
  the ``rules`` block of older layouts is unchanged) and their inverse
  :func:`rules_fields_from_features`;
  ``ENCODER_HANDLED_RULES`` / ``DECODER_HANDLED_RULES`` name every ``Rules``
  field each side accounts for (a test names any missing);
* the scales: scores over ``target_score``, the target over
  ``SCORE_SCALE_TARGET``, bags over ``bag_limit`` (``DEFAULT_BAG_SCALE``
  without one), tricks over the hand size;
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from ..core.rules import FIRST_TRICK_LOWEST_CLUB, FIRST_TRICK_STANDARD, Rules, unobserved_options
from ..core.scoring import BidKind

# (name, divisor) of each entry of the ``rules`` block; booleans have divisor 1.
RULE_FEATURES: tuple[tuple[str, float], ...] = (
    ("partnerships", 1),
    ("three_players", 1),
    ("jokers", 1),
    ("deuce_of_spades_high", 1),
    ("nil", 1),
    ("blind_nil", 1),
    ("blind_nil_always", 1),
    ("nil_tricks_count_for_partner", 1),
    ("ten_for_200", 1),
    ("blind_bids", 1),
    ("mirror", 1),
    ("suicide", 1),
    ("no_hook", 1),
    ("first_trick_lowest_club", 1),
    ("dealer_leads_any", 1),
    ("nil_value", 100),
    ("blind_nil_points", 200),
    ("blind_nil_requires_deficit", 100),
    ("blind_nil_exchange", 3),
    ("max_team_bid", 13),
    ("blind_bid_min", 13),
    ("bag_value", 10),
    ("bag_limit", 10),
    ("bag_penalty", 100),
    ("boston_bonus", 100),
    ("lose_score", 1000),
)


# The ``drawing_rules`` block (layout spades_obs_v2): two players and their one option.
DRAW_RULE_FEATURES: tuple[tuple[str, float], ...] = (("two_players", 1), ("discards_face_up", 1))

SCORE_SCALE_TARGET = 1000.0
TWO_PLAYERS = 2
THREE_PLAYERS = 3  # three-player cutthroat
FOUR_PLAYERS = 4
NUM_BID_KINDS = len(BidKind)
DEFAULT_BAG_SCALE = 10.0


# Every field of ``Rules`` the encoder writes, and those it leaves out on purpose, marked where the core declares
# them (``core.rules.unobserved_options``: ``max_hands``, ``crazy``, ``name`` with their reasons); a test fails
# naming any field in neither.
ENCODED_RULES: frozenset[str] = frozenset(
    {
        "num_players",
        "partnerships",
        "jokers",
        "deuce_of_spades_high",
        "nil",
        "nil_value",
        "blind_nil",
        "blind_nil_value",
        "blind_nil_requires_deficit",
        "blind_nil_exchange",
        "nil_tricks_count_for_partner",
        "max_team_bid",
        "ten_for_200",
        "blind_bids",
        "blind_bid_min",
        "mirror",
        "suicide",
        "bids_may_total_tricks",
        "first_trick",
        "dealer_leads_any",
        "bag_value",
        "bag_limit",
        "bag_penalty",
        "boston_bonus",
        "target_score",
        "lose_score",
        "discards_face_up",
    }
)
ENCODER_HANDLED_RULES: frozenset[str] = ENCODED_RULES | frozenset(unobserved_options())
HANDLED_RULES = ENCODER_HANDLED_RULES


def rule_features(rules: Rules) -> np.ndarray:
    """The ``rules`` block for a hand's rules (float32, length ``len(RULE_FEATURES)``)."""
    return cached_rule_features(rules).copy()


_RULE_CACHE: dict[Rules, np.ndarray] = {}
CACHE_LIMIT = 256  # distinct rules seen in one process: presets and a crazy rotation fit many times over


def cached_rule_features(rules: Rules) -> np.ndarray:
    cached = _RULE_CACHE.get(rules)
    if cached is not None:
        return cached
    raw = {
        "partnerships": rules.partnerships,
        "three_players": rules.num_players == THREE_PLAYERS,
        "jokers": rules.jokers,
        "deuce_of_spades_high": rules.deuce_of_spades_high,
        "nil": rules.nil,
        "blind_nil": rules.blind_nil,
        "blind_nil_always": rules.blind_nil and rules.blind_nil_requires_deficit is None,
        "nil_tricks_count_for_partner": rules.nil_tricks_count_for_partner,
        "ten_for_200": rules.ten_for_200,
        "blind_bids": rules.blind_bids,
        "mirror": rules.mirror,
        "suicide": rules.suicide,
        "no_hook": not rules.bids_may_total_tricks,
        "first_trick_lowest_club": rules.first_trick == "lowest_club",
        "dealer_leads_any": rules.dealer_leads_any,
        "nil_value": rules.nil_value,
        "blind_nil_points": rules.blind_nil_points,
        "blind_nil_requires_deficit": rules.blind_nil_requires_deficit or 0,
        "blind_nil_exchange": rules.blind_nil_exchange,
        "max_team_bid": rules.max_team_bid or 0,
        "blind_bid_min": rules.blind_bid_min if rules.blind_bids else 0,
        "bag_value": rules.bag_value,
        "bag_limit": rules.bag_limit or 0,
        "bag_penalty": rules.bag_penalty,
        "boston_bonus": rules.boston_bonus,
        "lose_score": rules.lose_score or 0,
    }
    return _remember(_RULE_CACHE, rules, RULE_FEATURES, raw)


def _remember(cache: dict, rules: Rules, features: tuple[tuple[str, float], ...], raw: Mapping[str, Any]) -> np.ndarray:
    """The block of ``features`` (scaled values of ``raw``) as a read-only float32 array, kept in ``cache``."""
    vec = np.array([float(raw[name]) / div for name, div in features], dtype=np.float32)
    vec.setflags(write=False)
    if len(cache) > CACHE_LIMIT:
        cache.clear()
    cache[rules] = vec
    return vec


_DRAW_CACHE: dict[Rules, np.ndarray] = {}


def draw_rule_features(rules: Rules) -> np.ndarray:
    """The ``drawing_rules`` block of a hand's rules (float32, read-only; zero unless two players)."""
    cached = _DRAW_CACHE.get(rules)
    if cached is not None:
        return cached
    raw = {"two_players": rules.num_players == TWO_PLAYERS, "discards_face_up": rules.discards_face_up}
    return _remember(_DRAW_CACHE, rules, DRAW_RULE_FEATURES, raw)


def rules_fields_from_features(features: Mapping[str, float], target_score: int) -> dict[str, Any]:
    """The ``Rules`` fields (all but ``name``, ``max_hands`` and ``crazy``) that a decoded rules block and
    drawing-rules block (``ObservationView.rules``, unscaled) and target score describe: their inverse."""
    r = features
    nil_value = int(r["nil_value"])
    blind_points = int(r["blind_nil_points"])
    return dict(
        num_players=TWO_PLAYERS if r["two_players"] else THREE_PLAYERS if r["three_players"] else FOUR_PLAYERS,
        discards_face_up=bool(r["discards_face_up"]),
        partnerships=bool(r["partnerships"]),
        jokers=bool(r["jokers"]),
        deuce_of_spades_high=bool(r["deuce_of_spades_high"]),
        nil=bool(r["nil"]),
        nil_value=nil_value,
        blind_nil=bool(r["blind_nil"]),
        blind_nil_value=None if blind_points == 2 * nil_value else blind_points,
        blind_nil_requires_deficit=None if r["blind_nil_always"] else int(r["blind_nil_requires_deficit"]),
        blind_nil_exchange=int(r["blind_nil_exchange"]),
        nil_tricks_count_for_partner=bool(r["nil_tricks_count_for_partner"]),
        max_team_bid=int(r["max_team_bid"]) or None,
        ten_for_200=bool(r["ten_for_200"]),
        blind_bids=bool(r["blind_bids"]),
        blind_bid_min=int(r["blind_bid_min"]) or Rules.blind_bid_min,
        mirror=bool(r["mirror"]),
        suicide=bool(r["suicide"]),
        bids_may_total_tricks=not r["no_hook"],
        first_trick=FIRST_TRICK_LOWEST_CLUB if r["first_trick_lowest_club"] else FIRST_TRICK_STANDARD,
        dealer_leads_any=bool(r["dealer_leads_any"]),
        bag_value=int(r["bag_value"]),
        bag_limit=int(r["bag_limit"]) or None,
        bag_penalty=int(r["bag_penalty"]),
        boston_bonus=int(r["boston_bonus"]),
        target_score=int(target_score),
        lose_score=int(r["lose_score"]) or None,
    )


# Every field of ``Rules`` the decoder reads back: what ``rules_fields_from_features`` really
# returns (``three_players`` gives ``num_players``, ``no_hook`` gives ``bids_may_total_tricks``,
# ``first_trick_lowest_club`` gives ``first_trick``, ``blind_nil_points`` gives ``blind_nil_value``,
# ``target_score`` comes from the view), plus the unobserved options, deliberately not decoded because
# the encoder never writes them. A test fails naming any field missing.
DECODER_HANDLED_RULES: frozenset[str] = frozenset(
    rules_fields_from_features({name: 0.0 for name, _ in RULE_FEATURES + DRAW_RULE_FEATURES}, target_score=0)
) | frozenset(unobserved_options())


def bag_scale(rules: Rules) -> float:
    """Divisor of the bags block."""
    return float(rules.bag_limit) if rules.bag_limit else DEFAULT_BAG_SCALE


def bid_offset(kind: int, value: int) -> int | None:
    """Offset of the tricks-bid one-hot within a slot's bid features, or None."""
    if kind in (BidKind.NUMBER, BidKind.BLIND, BidKind.TEN_FOR_200, BidKind.CANCELLED):
        return NUM_BID_KINDS + value
    return None
