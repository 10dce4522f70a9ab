"""One observation layout: the encoder and the decoder account for every rules option, and they read and
write the blocks the layout object names."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

import spades_env
from spades_env.core.rules import Rules, unobserved_options
from spades_env.obs import decode, encode, features, tracker
from spades_env.obs.layout import OBSERVATION, STATE

RULES_FIELDS = frozenset(f.name for f in dataclasses.fields(Rules))


@pytest.mark.parametrize(
    "side, handled",
    [
        ("encoder", features.ENCODER_HANDLED_RULES),
        ("decoder", features.DECODER_HANDLED_RULES),
    ],
)
def test_every_rules_option_is_handled_by_the_encoder_and_the_decoder(side, handled):
    missing = sorted(RULES_FIELDS - handled)
    assert not missing, f"Rules fields the {side} does not account for (add them to its HANDLED_RULES): {missing}"
    unknown = sorted(handled - RULES_FIELDS)
    assert not unknown, f"the {side}'s HANDLED_RULES names fields Rules does not have: {unknown}"


NO_BLIND_NIL = {"blind_nil": False}  # nil off and mirror both require blind nil off


@pytest.mark.parametrize(
    "field, value, base_changes",
    [
        ("nil", False, NO_BLIND_NIL),
        ("mirror", True, NO_BLIND_NIL),
    ]
    + [
        (field, value, {})
        for field, value in [
            ("jokers", True),
            ("nil_value", 50),
            ("blind_nil_value", 150),
            ("blind_nil_requires_deficit", 200),
            ("nil_tricks_count_for_partner", True),
            ("max_team_bid", 12),
            ("ten_for_200", True),
            ("blind_bids", True),
            ("suicide", True),
            ("bids_may_total_tricks", False),
            ("first_trick", "lowest_club"),
            ("dealer_leads_any", True),
            ("bag_value", 5),
            ("bag_limit", 5),
            ("bag_penalty", 50),
            ("boston_bonus", 200),
            ("lose_score", -500),
            ("deuce_of_spades_high", True),
        ]
    ],
)
def test_an_encoded_rules_option_changes_the_rules_block(field, value, base_changes):
    assert field in features.ENCODER_HANDLED_RULES
    base = spades_env.load_rules("standard").replace(**base_changes)
    other = base.replace(**{field: value})
    assert not np.array_equal(features.rule_features(base), features.rule_features(other)), field


def test_compatibility_names_are_views_of_the_layout_object():
    assert encode.OBS_SIZE == OBSERVATION.size and encode.STATE_SIZE == STATE.size
    assert encode.OBS_SLICES == dict(OBSERVATION) and encode.STATE_SLICES == dict(STATE)


def test_tracker_buffer_starts_with_the_observation_layout():
    blocks = list(tracker.TRACKER_BUFFER.blocks.values())
    assert [(b.name, b.start, b.size) for b in blocks[: len(OBSERVATION)]] == [
        (b.name, b.start, b.size) for b in OBSERVATION.blocks.values()
    ]


@pytest.mark.parametrize("rules_name", ["standard", "cutthroat3", "pagat"])
def test_decoder_reads_back_what_the_encoder_wrote(rules_name):
    env = spades_env.raw_env(rules=rules_name, episode="hand")
    env.reset(seed=9, options={"scores": [40] + [-30] * (env.rules.num_sides - 1)})
    for _ in range(20):
        env.step(env.legal_actions()[0])
    hand = env.hand
    for seat in range(hand.num_players):
        view = decode.decode_observation(env.observe(f"player_{seat}")["observation"])
        n = hand.num_players
        assert view.num_players == n and view.hand_size == env.rules.hand_size
        assert view.hand == (hand.hands[seat] if hand.looked[seat] else 0)
        assert view.played[:n] == tuple(hand.played[(seat + k) % n] for k in range(n))
        assert view.tricks_won[:n] == tuple(hand.tricks_won[(seat + k) % n] for k in range(n))
        assert view.scores[0] == env.game.scores[env.rules.side_of(seat)]
        assert view.target_score == env.rules.target_score


def test_an_option_is_written_to_the_observation_or_marked_unobserved_where_the_core_declares_it():
    marked = unobserved_options()
    assert set(marked) == {"max_hands", "crazy", "name"} and all(marked.values())  # each with its reason
    assert not set(marked) & features.ENCODED_RULES  # written or marked, never both
    assert features.ENCODER_HANDLED_RULES == features.ENCODED_RULES | set(marked)
