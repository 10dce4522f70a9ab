"""The true bounds of every entry of the observation and the state under an env's rules.

True float32 (:func:`observation_bounds`) ``low``/``high`` of
every entry under the rules of an env: 0..1 for one-hots, cards, tricks
taken and bags with a bag limit; the ``scores`` block within
+-(``START_SCORE_TARGETS`` x max(target, |lose score|) + ``max_hands`` x
:func:`spades_env.core.scoring.hand_points_bound`) / target, since scores go
below zero and past the target (ties at the target play on); bags without a
limit up to twice ``max_hands`` x tricks per hand, over ``DEFAULT_BAG_SCALE``;
the ``target_score``, ``rules`` and ``drawing_rules`` blocks exactly the values
of the rules (of each hand of a crazy rotation); the other blocks of two-player
Spades (``DRAWING_BLOCKS``) are always 0 under rules without a drawing phase.

:func:`space_bounds` gives the envs' spaces: the same, except that an entry
constant under the rules (value ``v``: the rules blocks, the target score, the
drawing blocks without a drawing phase) spans ``[min(v, 0), max(v, 1)]``, the
range such an entry takes across variants: still true bounds, and never equal
ones (Gymnasium's ``check_env`` warns about a Box whose low and high are equal).
"""

from __future__ import annotations

import numpy as np

from ..core.drawing import has_drawing
from ..core.rules import Rules
from ..core.scoring import hand_points_bound
from .features import DEFAULT_BAG_SCALE, SCORE_SCALE_TARGET, bag_scale, draw_rule_features, rule_features
from .layout import OBSERVATION

DRAWING_BLOCKS = ("drawing", "stock_size", "offered", "kept", "discarded")  # zero unless there is a drawing phase

START_SCORE_TARGETS = 10  # a starting score may be at most this many targets (or lose scores) from zero


def score_bound(rules: Rules) -> int:
    """The largest |score| a side can have in an env with ``rules`` (starting scores included)."""
    start = START_SCORE_TARGETS * max(rules.target_score, abs(rules.lose_score or 0))
    return start + rules.max_hands * hand_points_bound(rules)


def bags_bound(rules: Rules) -> int:
    """The most bags a side can carry in an env with ``rules`` (starting bags included)."""
    if rules.bag_limit:
        return rules.bag_limit - 1  # the penalty removes the bags as soon as they reach the limit
    return 2 * rules.max_hands * rules.num_tricks  # starting bags plus one per trick of every hand


def observation_bounds(rules: Rules, layout=OBSERVATION) -> tuple[np.ndarray, np.ndarray]:
    """True float32 ``(low, high)`` of every entry of the observation (or ``STATE``) under ``rules``."""
    low = np.zeros(layout.size, np.float32)
    high = np.ones(layout.size, np.float32)
    scores = np.float32(score_bound(rules) / float(rules.target_score))
    low[layout["scores"]], high[layout["scores"]] = -scores, scores
    high[layout["bags"]] = np.float32(bags_bound(rules) / bag_scale(rules))
    low[layout["target_score"]] = high[layout["target_score"]] = np.float32(rules.target_score / SCORE_SCALE_TARGET)
    features = np.stack([rule_features(hand) for hand in rules.distinct_hand_rules()])
    low[layout["rules"]], high[layout["rules"]] = features.min(axis=0), features.max(axis=0)
    drawing = np.stack([draw_rule_features(hand) for hand in rules.distinct_hand_rules()])
    low[layout["drawing_rules"]], high[layout["drawing_rules"]] = drawing.min(axis=0), drawing.max(axis=0)
    if not any(has_drawing(hand) for hand in rules.distinct_hand_rules()):
        for name in DRAWING_BLOCKS:
            high[layout[name]] = 0.0
    return low, high


assert DEFAULT_BAG_SCALE > 0  # bags_bound / bag_scale is finite


def space_bounds(rules: Rules, layout=OBSERVATION) -> tuple[np.ndarray, np.ndarray]:
    """The ``(low, high)`` of an env's observation (or state) space: :func:`observation_bounds`, each entry that is
    constant under ``rules`` widened to ``[min(v, 0), max(v, 1)]``."""
    low, high = observation_bounds(rules, layout)
    constant = low == high
    low[constant] = np.minimum(low[constant], 0.0)
    high[constant] = np.maximum(high[constant], 1.0)
    return low, high
