"""The observation's old homes (``spades_env.layout``, ``spades_env.encoding``) still give their names, with a
DeprecationWarning naming the new home; an unknown name is an AttributeError."""

from __future__ import annotations

import importlib

import pytest

from spades_env.obs import encode, layout, tracker


@pytest.mark.parametrize("old", ["spades_env.layout", "spades_env.encoding"])
@pytest.mark.parametrize(
    "name, home",
    [("OBSERVATION", layout), ("encode_observation", encode), ("ObservationTracker", tracker)],
)
def test_an_old_home_gives_the_name_from_its_new_home_with_a_warning(old, name, home):
    module = importlib.import_module(old)
    with pytest.warns(DeprecationWarning, match=rf"{old}\.{name} moved to spades_env\.obs\.\w+\.{name}"):
        value = getattr(module, name)
    assert value is getattr(home, name)


@pytest.mark.parametrize("old", ["spades_env.layout", "spades_env.encoding"])
def test_an_old_home_refuses_a_name_it_never_had(old):
    module = importlib.import_module(old)
    with pytest.raises(AttributeError, match=f"module '{old}' has no attribute 'nope'"):
        module.nope  # noqa: B018
