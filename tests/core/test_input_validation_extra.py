"""Extra input validation: action types in HandState.apply, rule combinations, crazy round
trip, YAML files named after themselves."""

from __future__ import annotations

import numpy as np
import pytest

from spades_env.config_io import load_rules
from spades_env.core import IllegalActionError, Phase, Rules, RulesError, preset

from .helpers import ONE_SUIT_HANDS, snapshot, start_play


def clubs_lead():
    """Seat 0 (all clubs) to lead with dealer 3: 2C..AC are all legal, so 1 (3C) and 5 (7C) are."""
    state = start_play(preset("standard"), ONE_SUIT_HANDS, dealer=3)
    assert state.phase == Phase.PLAY and state.current == 0
    assert {1, 5} <= set(state.legal_actions())
    return state


@pytest.mark.parametrize("action", [True, 5.0, np.float64(5), np.float32(1), np.bool_(True), "5", None, 1 + 0j],
                         ids=repr)
def test_apply_rejects_non_integer_actions_even_when_their_value_is_legal(action):
    state = clubs_lead()
    before = snapshot(state)
    with pytest.raises(IllegalActionError):
        state.apply(action)
    assert snapshot(state) == before


@pytest.mark.parametrize("action", [np.int64(5), np.int32(5), np.int8(1), np.uint8(5)], ids=repr)
def test_apply_accepts_numpy_integer_legal_actions(action):
    state = clubs_lead()
    state.apply(action)
    assert state.trick_cards == [int(action)]
    assert state.history[-1] == (0, int(action))
    assert type(state.history[-1][1]) is int


def test_mirror_without_nil_raises_naming_mirror():
    with pytest.raises(RulesError, match="'mirror'"):
        Rules(mirror=True, nil=False, blind_nil=False)


def test_crazy_with_per_hand_option_raises_naming_crazy():
    with pytest.raises(RulesError, match="'crazy'"):
        Rules(crazy=("standard", "jokers"), jokers=True)


def test_crazy_preset_round_trips_through_dict():
    rules = preset("crazy")
    data = rules.to_dict()
    assert data["crazy"] == ["standard", "jokers", "mirror", "suicide"]
    assert Rules.from_dict(data) == rules


def test_yaml_file_is_named_after_itself(tmp_path):
    path = tmp_path / "my_rules.yaml"
    path.write_text("base: pagat\nnil_value: 60\n")
    rules = load_rules(path)
    assert rules.name == "my_rules"
    assert rules.nil_value == 60
    assert rules.blind_nil_exchange == 2 and rules.first_trick == "lowest_club"  # the rest of pagat
    assert rules == preset("pagat").replace(nil_value=60, name="my_rules")


def test_yaml_file_with_explicit_name_keeps_it(tmp_path):
    path = tmp_path / "my_rules.yaml"
    path.write_text("base: pagat\nnil_value: 60\nname: house\n")
    rules = load_rules(path)
    assert rules.name == "house"
    assert rules.nil_value == 60
