"""Loading rules configs from YAML (spades_env.config_io) and the preset files."""

import pathlib

import pytest

from spades_env.config_io import (
    dump_rules,
    load_rules,
    rules_from_mapping,
    write_presets,
)
from spades_env.core import (
    PRESETS,
    Rules,
    RulesError,
    preset,
)

CONFIG_DIR = pathlib.Path(__file__).resolve().parents[2] / "configs" / "rules"


@pytest.mark.parametrize("name", sorted(PRESETS))
def test_every_preset_has_a_yaml_file_that_loads_to_exactly_the_preset(name):
    path = CONFIG_DIR / f"{name}.yaml"
    assert path.is_file(), f"configs/rules/{name}.yaml is missing"
    assert load_rules(path) == preset(name)
    assert load_rules(str(path)) == preset(name)


def test_every_yaml_file_is_a_preset():
    files = {p.stem for p in CONFIG_DIR.glob("*.yaml")} | {p.stem for p in CONFIG_DIR.glob("*.yml")}
    assert files == set(PRESETS)


@pytest.mark.parametrize("name", sorted(PRESETS))
def test_preset_name_loads_the_preset(name):
    assert load_rules(name) is preset(name)


def test_load_rules_passes_rules_through_and_defaults_to_standard():
    rules = preset("pagat").replace(nil_value=70)
    assert load_rules(rules) is rules
    assert load_rules(None) == preset("standard")
    assert load_rules() == preset("standard")


@pytest.mark.parametrize("name", sorted(PRESETS))
def test_dump_rules_round_trips(name, tmp_path):
    path = tmp_path / f"{name}.yaml"
    path.write_text(dump_rules(preset(name)))
    assert load_rules(path) == preset(name)


def test_write_presets_writes_loadable_files(tmp_path):
    paths = write_presets(tmp_path / "out")
    assert {p.stem for p in paths} == set(PRESETS)
    for p in paths:
        assert load_rules(p) == preset(p.stem)


def test_unknown_preset_name_raises_naming_it():
    with pytest.raises(RulesError, match="nosuch"):
        load_rules("nosuch")


def test_missing_file_raises(tmp_path):
    missing = tmp_path / "missing.yaml"
    with pytest.raises(RulesError, match="not found"):
        load_rules(missing)
    with pytest.raises(RulesError, match="missing.yaml"):
        load_rules(str(missing))


@pytest.mark.parametrize(
    "text, key",
    [
        ("nil: [true\nnil_value: 50\n", "YAML"),  # malformed YAML
        ("nill: true\n", "nill"),  # unknown key
        ("base: nosuch\n", "nosuch"),  # unknown base preset
        ("- nil\n- jokers\n", "mapping"),  # not a mapping
        ('nil: "yes"\n', "nil"),
        ("target_score: 1.5\n", "target_score"),
        ("target_score: true\n", "target_score"),
        ("bag_limit: ten\n", "bag_limit"),
        ("num_players: 5\n", "num_players"),
        ("partnerships: false\nten_for_200: true\n", "ten_for_200"),
        ("mirror: true\n", "blind_nil"),
        ("first_trick: lowest_club\ndealer_leads_any: true\n", "dealer_leads_any"),
        ("crazy: [standard, jokers]\njokers: true\n", "jokers"),
        ("crazy: [standard, cutthroat]\n", "crazy"),
    ],
)
def test_bad_yaml_raises_naming_the_problem(tmp_path, text, key):
    path = tmp_path / "bad.yaml"
    path.write_text(text)
    with pytest.raises(RulesError, match=key):
        load_rules(path)


def test_yaml_base_preset_with_overrides(tmp_path):
    path = tmp_path / "my_pagat.yaml"
    path.write_text("base: pagat\nnil_value: 100\ntarget_score: 300\n")
    rules = load_rules(path)
    # compared option by option: which label such a file gets is not a rule
    assert rules.replace(name="x") == preset("pagat").replace(nil_value=100, target_score=300, name="x")
    assert rules.first_trick == "lowest_club"


def test_yaml_without_base_overrides_standard(tmp_path):
    path = tmp_path / "quick.yml"
    path.write_text("target_score: 200\n")
    rules = load_rules(path)
    assert rules.replace(name="x") == preset("standard").replace(target_score=200, name="x")


def test_empty_yaml_is_the_standard_rules(tmp_path):
    path = tmp_path / "empty.yaml"
    path.write_text("# nothing\n")
    assert load_rules(path).replace(name="x") == Rules(name="x")


def test_yaml_crazy_rotation_with_game_level_settings(tmp_path):
    path = tmp_path / "rot.yaml"
    path.write_text("crazy: [jokers, standard]\ntarget_score: 250\n")
    rules = load_rules(path)
    assert rules.crazy == ("jokers", "standard")
    assert rules.hand_rules(0).jokers and rules.hand_rules(0).target_score == 250


def test_base_crazy_with_game_level_override(tmp_path):
    path = tmp_path / "c.yaml"
    path.write_text("base: crazy\nmax_hands: 8\n")
    assert load_rules(path).replace(name="x") == preset("crazy").replace(max_hands=8, name="x")


def test_load_rules_rejects_other_types():
    with pytest.raises(RulesError):
        load_rules(42)


def test_rules_from_mapping_reports_its_source():
    with pytest.raises(RulesError, match="mysource"):
        rules_from_mapping({"nill": 1}, source="mysource")


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
