"""Every rules option has its home in the core (``core.rules.RULE_HOMES``), and each home reads it."""

from __future__ import annotations

import dataclasses
import importlib
import inspect

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
