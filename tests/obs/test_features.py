"""Observation features on custom rules (the ``rules`` block, hand-computed) and the bids block
when a 10 for 200 cancels or skips the partner's bid (the bid keeps its value)."""

from __future__ import annotations

import numpy as np
import pytest

import spades_env
from spades_env.batch import BatchEnv
from spades_env.core.actions import TEN_FOR_200, bid_action
from spades_env.core.scoring import BidKind
from spades_env.obs.encode import OBS_SLICES, encode_observation
from spades_env.obs.layout import BID_FEATURES, NUM_BID_KINDS, RULE_FEATURES
from tests.env.helpers import MIXED_DEAL

DIVISOR = dict(RULE_FEATURES)

# The standard rules' features, unscaled, worked out from RULES.md and the rules table by hand.
STANDARD_FEATURES = {
    "partnerships": 1,
    "three_players": 0,
    "jokers": 0,
    "deuce_of_spades_high": 0,
    "nil": 1,
    "blind_nil": 1,
    "blind_nil_always": 0,
    "nil_tricks_count_for_partner": 0,
    "ten_for_200": 0,
    "blind_bids": 0,
    "mirror": 0,
    "suicide": 0,
    "no_hook": 0,
    "first_trick_lowest_club": 0,
    "dealer_leads_any": 0,
    "nil_value": 100,
    "blind_nil_points": 200,
    "blind_nil_requires_deficit": 100,
    "blind_nil_exchange": 0,
    "max_team_bid": 0,
    "blind_bid_min": 0,
    "bag_value": 1,
    "bag_limit": 10,
    "bag_penalty": 100,
    "boston_bonus": 0,
    "lose_score": 0,
}

# (custom options, features that differ from the standard ones), each value by hand.
CUSTOM_RULES = [
    # blind nil off: "always allowed" cannot hold, whatever the deficit option says
    (
        {"blind_nil": False, "blind_nil_requires_deficit": None},
        {"blind_nil": 0, "blind_nil_always": 0, "blind_nil_requires_deficit": 0},
    ),
    ({"blind_nil": False}, {"blind_nil": 0}),
    ({"blind_nil_requires_deficit": None}, {"blind_nil_always": 1, "blind_nil_requires_deficit": 0}),
    ({"blind_nil_requires_deficit": 250}, {"blind_nil_requires_deficit": 250}),
    # blind nil is worth twice nil unless given
    ({"nil_value": 60}, {"nil_value": 60, "blind_nil_points": 120}),
    ({"nil_value": 70, "blind_nil_value": 150}, {"nil_value": 70, "blind_nil_points": 150}),
    # no nil at all
    ({"nil": False, "blind_nil": False}, {"nil": 0, "blind_nil": 0}),
    # blind_bid_min only counts when blind bids are on
    ({"blind_bid_min": 5}, {}),
    ({"blind_bids": True, "blind_bid_min": 5}, {"blind_bids": 1, "blind_bid_min": 5}),
    ({"ten_for_200": True, "max_team_bid": 11}, {"ten_for_200": 1, "max_team_bid": 11}),
    (
        {"bag_value": -2, "bag_limit": None, "bag_penalty": 50, "boston_bonus": 250, "lose_score": -400},
        {"bag_value": -2, "bag_limit": 0, "bag_penalty": 50, "boston_bonus": 250, "lose_score": -400},
    ),
    (
        {
            "jokers": True,
            "deuce_of_spades_high": True,
            "first_trick": "lowest_club",
            "blind_nil_exchange": 3,
            "nil_tricks_count_for_partner": True,
        },
        {
            "jokers": 1,
            "deuce_of_spades_high": 1,
            "first_trick_lowest_club": 1,
            "blind_nil_exchange": 3,
            "nil_tricks_count_for_partner": 1,
        },
    ),
    (
        {"partnerships": False, "num_players": 3, "bids_may_total_tricks": False},
        {"partnerships": 0, "three_players": 1, "no_hook": 1},
    ),
    ({"partnerships": False, "dealer_leads_any": True}, {"partnerships": 0, "dealer_leads_any": 1}),
    ({"suicide": True}, {"suicide": 1}),
    ({"mirror": True, "blind_nil": False}, {"mirror": 1, "blind_nil": 0}),
]

CUSTOM_IDS = ["-".join(f"{k}={v}" for k, v in options.items()) for options, _ in CUSTOM_RULES]


def expected_block(changes: dict) -> np.ndarray:
    raw = {**STANDARD_FEATURES, **changes}
    assert raw.keys() == DIVISOR.keys()
    return np.array([raw[name] / DIVISOR[name] for name, _ in RULE_FEATURES], dtype=np.float32)


def rules_block(obs: np.ndarray) -> np.ndarray:
    return obs[OBS_SLICES["rules"]]


def check_rules_block(obs: np.ndarray, changes: dict) -> None:
    expected = expected_block(changes)
    got = rules_block(obs)
    wrong = {
        name: (float(g) * DIVISOR[name], float(e) * DIVISOR[name])
        for (name, _), g, e in zip(RULE_FEATURES, got, expected)
        if not np.isclose(g, e)
    }
    assert not wrong, f"feature: (observed, expected) {wrong}"


def test_standard_features_are_the_hand_computed_ones():
    env = spades_env.raw_env(rules="standard")
    env.reset(seed=0)
    check_rules_block(env.observe("player_0")["observation"], {})


@pytest.mark.parametrize("options, changes", CUSTOM_RULES, ids=CUSTOM_IDS)
def test_rules_features_of_custom_rules_in_the_aec_env(options, changes):
    env = spades_env.raw_env(rules=spades_env.Rules(**options))
    env.reset(seed=1)
    for agent in env.possible_agents:
        check_rules_block(env.observe(agent)["observation"], changes)


@pytest.mark.parametrize("options, changes", CUSTOM_RULES, ids=CUSTOM_IDS)
def test_rules_features_of_custom_rules_in_the_batch_engine(options, changes):
    obs, _, _ = BatchEnv(2, rules=spades_env.Rules(**options), seed=1).reset()
    for row in obs:
        check_rules_block(row, changes)


# ------------------------------------------------------------- cancelled and skipped bids
# Standard rules with 10 for 200; dealer 0, so seats 1, 2, 3, 0 bid in that order.
TEN_RULES = spades_env.Rules(ten_for_200=True)


def bid_row(obs: np.ndarray, slot: int) -> tuple[list[int], list[int]]:
    """(kinds set, values set) of a slot's bid features."""
    row = obs[OBS_SLICES["bids"]].reshape(4, BID_FEATURES)[slot]
    return np.flatnonzero(row[:NUM_BID_KINDS]).tolist(), np.flatnonzero(row[NUM_BID_KINDS:]).tolist()


def env_after(bids):
    env = spades_env.raw_env(rules=TEN_RULES)
    env.reset(options={"deal": MIXED_DEAL, "dealer": 0})
    for action in bids:
        env.step(action)
    return env


def check_bids(env, expected: dict[int, tuple[list[int], list[int]]]) -> None:
    """Every observer (and the reference encoder) sees each seat's bid as expected, in its slot."""
    for observer in range(4):
        obs = env.observe(f"player_{observer}")["observation"]
        reference = encode_observation(env.hand, env.game.scores, env.game.bags, env.rules, observer)
        np.testing.assert_array_equal(obs, reference)
        for seat, bid in expected.items():
            assert bid_row(obs, (seat - observer) % 4) == bid, f"observer {observer} seat {seat}"


@pytest.mark.parametrize("first_bid, value", [(4, 4), (1, 1), (0, 0)])
def test_ten_for_200_cancels_the_partners_bid_which_keeps_its_value(first_bid, value):
    # seat 1 bids, seat 2 bids 2, seat 3 (seat 1's partner) bids 10 for 200
    env = after = env_after([bid_action(first_bid), bid_action(2), TEN_FOR_200])
    check_bids(
        after,
        {
            1: ([BidKind.CANCELLED], [value]),
            2: ([BidKind.NUMBER], [2]),
            3: ([BidKind.TEN_FOR_200], [10]),
            0: ([BidKind.NONE], []),
        },
    )
    env.step(bid_action(3))  # seat 0 bids; bidding ends and the cancelled bid still shows its value
    check_bids(env, {1: ([BidKind.CANCELLED], [value]), 3: ([BidKind.TEN_FOR_200], [10]), 0: ([BidKind.NUMBER], [3])})


def test_ten_for_200_before_the_partner_bids_skips_it_without_a_value():
    env = env_after([TEN_FOR_200])  # seat 1: seat 3's turn is skipped
    check_bids(env, {1: ([BidKind.TEN_FOR_200], [10]), 3: ([BidKind.SKIPPED], []), 2: ([BidKind.NONE], [])})
