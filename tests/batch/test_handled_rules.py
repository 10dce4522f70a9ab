"""Every option of Rules is implemented by the batch engine (``HANDLED_RULES``)."""

from __future__ import annotations

import dataclasses

from spades_env.batch import HANDLED_RULES
from spades_env.core.rules import Rules


def test_every_rules_field_is_handled_by_the_batch_engine():
    missing = sorted(f.name for f in dataclasses.fields(Rules) if f.name not in HANDLED_RULES)
    assert not missing, f"rules option(s) {missing} are not in spades_env.batch.HANDLED_RULES"


def test_handled_rules_names_only_fields_of_rules():
    fields = {f.name for f in dataclasses.fields(Rules)}
    unknown = sorted(HANDLED_RULES - fields)
    assert not unknown, f"HANDLED_RULES names {unknown}, which are not fields of Rules"
