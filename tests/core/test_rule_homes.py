"""Every rules option has its home in the core (``core.rules.RULE_HOMES``), and each home reads it; a rule that
reads no option but that several engines apply (who wins a trick) has one home too, which each engine calls."""

from __future__ import annotations

import ast
import dataclasses
import importlib
import inspect
from pathlib import Path

import pytest

from spades_env.core.rules import RULE_HOMES, Rules

FIELDS = [f.name for f in dataclasses.fields(Rules)]


def resolve(path: str):
    module, *attrs = path.split(".")
    obj = importlib.import_module(f"spades_env.core.{module}")
    for attr in attrs:
        obj = getattr(obj, attr)
    return obj.fget if isinstance(obj, property) else obj


def test_every_rules_field_has_a_home():
    missing = sorted(set(FIELDS) - set(RULE_HOMES))
    assert not missing, f"rules option(s) {missing} have no home in core.rules.RULE_HOMES"
    unknown = sorted(set(RULE_HOMES) - set(FIELDS))
    assert not unknown, f"RULE_HOMES names {unknown}, which are not fields of Rules"


@pytest.mark.parametrize("field", [f for f in FIELDS if f != "name"])
def test_each_home_reads_its_option(field):
    homes = RULE_HOMES[field]
    assert homes, f"{field} names no core function"
    for path in homes:
        source = inspect.getsource(resolve(path))
        assert f".{field}" in source, f"core.{path} does not read rules.{field}"


# Rules that read no option but that several engines apply: each has one home, which every engine calls
# (``module:function`` below spades_env).
DECIDED_ONCE = {
    "core.tricks:winning_place": (  # who wins a trick
        "core.tricks:winning_index",
        "core.hand:trick_winner",
        "core.hand:HandState._complete_trick",
        "batch.masked.hands:MaskedHands._play",
        "batch.transitions:end_tricks",
    ),
    "core.visibility:face_up": (  # whose cards a viewer sees
        "core.visibility:cards_seen",
        "core.visibility:faces_up",
        "obs.tracker:ObservationTracker.observe",
        "batch.encoding:observe_actors",
        "batch.encoding:observe_seats",
    ),
    "core.visibility:cards_seen": (
        "core.visibility:visible_hands",
        "obs.encode:encode_observation",
        "batch.masked.observe:observe",
    ),
    "core.visibility:faces_up": (
        "play:table_text",
        "render_image:table_image",
        "replay:table_view",
        "web.view:table_view",
    ),
}
# Restatements: the highest trick key taken again, an argmax over keys outside the home (the home's operations
# are the forms': core.ops and batch.torch_ops).
HOME_FILES = {"core/tricks.py", "core/ops.py", "batch/torch_ops.py"}


def function(path: str):
    module, name = path.split(":")
    obj = importlib.import_module(f"spades_env.{module}")
    for attr in name.split("."):
        obj = getattr(obj, attr)
    return obj


@pytest.mark.parametrize("home", sorted(DECIDED_ONCE))
def test_every_engine_calls_the_one_home(home):
    name = home.rsplit(":", 1)[1]
    assert callable(function(home))
    for caller in DECIDED_ONCE[home]:
        source = inspect.getsource(function(caller))
        assert f"{name}(" in source, f"spades_env.{caller} does not call {home}: a restatement of its rule?"


def trick_key_maxima(source: str) -> list[str]:
    """The argmax calls of ``source`` that read trick keys (the call, its receiver and its arguments)."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Call):
            func = node.func
            name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
            if not name.startswith("argmax"):  # the segment only for argmax calls: reading it is the slow part
                continue
            text = ast.get_source_segment(source, node) or ""
            if "key" in text.lower():
                found.append(text)
    return found


def test_no_module_takes_the_highest_trick_key_itself():
    package = Path(importlib.import_module("spades_env").__file__).parent
    restated = {}
    for path in sorted(package.rglob("*.py")):
        if path.relative_to(package).as_posix() in HOME_FILES:
            continue
        found = trick_key_maxima(path.read_text())
        if found:
            restated[str(path.relative_to(package))] = found
    assert not restated, f"the trick's winner restated outside core.tricks.winning_place: {restated}"


@pytest.mark.parametrize(
    "restatement",
    [
        "winner = t._keys.take(key).argmax(axis=1)",  # the numpy engine's, before it had a home
        "winner = ops.at(self.trick_seats, self.form.argmax1(keys))",  # the masked engine's
        "best = np.argmax(TRICK_KEYS[row, cards * 4 + led[:, None]], axis=1)",
    ],
)
def test_the_restatement_check_finds_the_old_restatements(restatement):
    assert trick_key_maxima(restatement)
