"""Hostile or sloppy rules files (spades_env.config_io): bounded errors naming the file and the key."""

import pytest

from spades_env.config_io import MAX_CONFIG_BYTES, load_rules, rules_from_mapping
from spades_env.core import RulesError

# Far above any honest message (a few hundred characters), far below a runaway repr (megabytes).
MESSAGE_BOUND = 2000
STRING = '"' + "x" * 10 + '"'
FANOUT = 10


def billion_laughs(levels: int) -> str:
    """YAML text whose value under ``name:`` expands to FANOUT ** levels strings through nested aliases."""
    lines = ["name:", "  - &a0 [" + ", ".join([STRING] * FANOUT) + "]"]
    for level in range(1, levels):
        lines.append(f"  - &a{level} [" + ", ".join([f"*a{level - 1}"] * FANOUT) + "]")
    return "\n".join(lines) + "\n"


def write(tmp_path, text, name="bad.yaml"):
    path = tmp_path / name
    path.write_text(text) if isinstance(text, str) else path.write_bytes(text)
    return path


def load_error(path) -> str:
    with pytest.raises(RulesError) as info:
        load_rules(path)
    return str(info.value)


@pytest.mark.parametrize("levels", [1, 3, 5])
def test_nested_aliases_are_refused_with_a_short_message(tmp_path, levels):
    message = load_error(write(tmp_path, billion_laughs(levels)))
    assert len(message) < MESSAGE_BOUND
    assert "bad.yaml" in message
    if levels > 1:
        assert "alias" in message


@pytest.mark.parametrize(
    "text, words",
    [
        ("nil: &yes true\nblind_nil: *yes\n", ["alias", "line 2"]),
        ("<<: {nil: false}\n", ["merge key"]),
    ],
)
def test_aliases_and_merge_keys_are_refused(tmp_path, text, words):
    message = load_error(write(tmp_path, text))
    assert "bad.yaml" in message
    for word in words:
        assert word in message


def test_a_shared_nested_value_given_as_a_mapping_gives_a_short_message():
    value = ["x" * 10] * FANOUT
    for _ in range(5):  # 10 ** 6 strings, megabytes of repr if expanded: a bounded repr quotes a few
        value = [value] * FANOUT
    with pytest.raises(RulesError, match="'name'") as info:
        rules_from_mapping({"name": value}, source="shared.yaml")
    assert len(str(info.value)) < MESSAGE_BOUND and "shared.yaml" in str(info.value)


HUGE = "y" * (MAX_CONFIG_BYTES // 2)


@pytest.mark.parametrize(
    "key, text",
    [
        ("name", f"name: [{HUGE}]\n"),  # a wrong type, quoted
        ("first_trick", f"first_trick: {HUGE}\n"),  # a wrong choice, quoted
        ("crazy", f"crazy: [{HUGE}]\n"),  # an unknown preset, quoted
        ("base", f"base: {HUGE}\n"),  # an unknown base preset, quoted
    ],
)
def test_a_huge_value_is_cut_in_the_message(tmp_path, key, text):
    message = load_error(write(tmp_path, text))
    assert len(message) < MESSAGE_BOUND
    assert f"'{key}'" in message and "bad.yaml" in message


def test_many_unknown_keys_give_a_short_message(tmp_path):
    text = "".join(f"{'k' * 100}{i}: 1\n" for i in range(300))
    message = load_error(write(tmp_path, text))
    assert len(message) < MESSAGE_BOUND and "more" in message


def test_an_oversized_file_is_refused_naming_the_file(tmp_path):
    text = "# padding\n" * (MAX_CONFIG_BYTES // 10 + 1) + "nil: true\n"
    message = load_error(write(tmp_path, text))
    assert "bad.yaml" in message and "too large" in message


def test_deep_nesting_is_refused_naming_the_file(tmp_path):
    depth = 2000  # far past PyYAML's recursion limit
    message = load_error(write(tmp_path, "name: " + "[" * depth + "]" * depth + "\n"))
    assert "bad.yaml" in message and "nested" in message and len(message) < MESSAGE_BOUND


def test_non_utf8_text_is_refused_naming_the_file(tmp_path):
    message = load_error(write(tmp_path, b"name: caf\xe9\n"))
    assert "bad.yaml" in message and "UTF-8" in message


@pytest.mark.parametrize(
    "text, shown",
    [
        ("base: [standard]\n", "['standard']"),
        ("base: 3\n", "3"),
        ("base: {name: standard}\n", "{'name': 'standard'}"),
        ("base: null\n", "None"),
    ],
)
def test_a_base_that_is_not_a_name_is_an_error_naming_file_and_key(tmp_path, text, shown):
    message = load_error(write(tmp_path, text))
    assert "bad.yaml" in message and "'base'" in message and shown in message


@pytest.mark.parametrize(
    "text, shown",
    [
        ("1: 2\nfoo: 3\n", "1 (int)"),
        ("nil: true\n2: 3\n", "2 (int)"),
        ("true: 1\n", "True (bool)"),
        ("null: 1\n", "None (NoneType)"),
        ("1.5: 1\nzz: 2\n", "1.5 (float)"),
    ],
)
def test_keys_that_are_not_option_names_are_errors_naming_file_and_key(tmp_path, text, shown):
    message = load_error(write(tmp_path, text))
    assert "bad.yaml" in message and "must be strings" in message and shown in message


def test_an_unhashable_key_is_an_error_naming_the_file(tmp_path):
    message = load_error(write(tmp_path, "? [1, 2]\n: 3\n"))
    assert "bad.yaml" in message and "[1, 2]" in message


@pytest.mark.parametrize(
    "text, key, line",
    [
        ("nil: true\nnil: false\n", "'nil'", "line 2"),
        ("target_score: 300\nnil: true\ntarget_score: 200\n", "'target_score'", "line 3"),
        ("base: pagat\nbase: standard\n", "'base'", "line 2"),
        ("crazy: [standard]\nname: a\nname: b\n", "'name'", "line 3"),
    ],
)
def test_duplicate_keys_are_rejected_naming_file_key_and_line(tmp_path, text, key, line):
    message = load_error(write(tmp_path, text))
    assert "bad.yaml" in message and f"duplicate key {key}" in message and line in message


def test_rules_from_mapping_names_non_string_keys_and_its_source():
    with pytest.raises(RulesError, match="mysource.*must be strings.*7 \\(int\\)"):
        rules_from_mapping({7: 1, "nil": True}, source="mysource")


@pytest.mark.parametrize(
    "text, key, line",
    [
        ("target_score: " + "9" * 5000 + "\n", "'target_score'", "line 1"),
        ("nil: true\ncrazy:\n  - standard\n  - " + "7" * 5000 + "\n", "'crazy[1]'", "line 4"),
        ("bag_limit: -" + "1" * 4400 + "\n", "'bag_limit'", "line 1"),
    ],
)
def test_item19_an_integer_too_long_to_read_is_refused_naming_file_key_and_line(tmp_path, text, key, line):
    """Issue 49, item 19: Python reads at most 4300 digits; the bare ValueError named neither the file nor the key."""
    message = load_error(write(tmp_path, text))
    assert "bad.yaml" in message and key in message and line in message and "too long" in message
    assert len(message) < MESSAGE_BOUND
