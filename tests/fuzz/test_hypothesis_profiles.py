"""The suite's hypothesis profiles (tests/conftest.py): reproducible in CI, random on a workstation."""

import pathlib

import pytest
from hypothesis import settings

from tests.conftest import CI_MAX_EXAMPLES, hypothesis_profile

CI_SCRIPT = pathlib.Path(__file__).resolve().parents[2] / ".ci" / "run"


def test_ci_profile_is_derandomized_with_fixed_examples_and_prints_the_blob():
    ci = settings.get_profile("ci")
    assert (ci.derandomize, ci.max_examples, ci.print_blob) == (True, CI_MAX_EXAMPLES, True)


def test_dev_profile_is_random():
    dev = settings.get_profile("dev")
    assert (dev.derandomize, dev.print_blob) == (False, False)


@pytest.mark.parametrize(
    "environ, profile",
    [
        ({}, "dev"),
        ({"CI": "true"}, "ci"),
        ({"CI": "1"}, "ci"),
        ({"CI": "false"}, "dev"),
        ({"CI": "true", "HYPOTHESIS_PROFILE": "dev"}, "dev"),
        ({"HYPOTHESIS_PROFILE": "ci"}, "ci"),
    ],
)
def test_profile_follows_the_environment(environ, profile):
    assert hypothesis_profile(environ) == profile


def test_ci_script_selects_the_ci_profile():
    assert "HYPOTHESIS_PROFILE=ci" in CI_SCRIPT.read_text()


def test_the_selected_profile_is_the_loaded_one():
    loaded, selected = settings.default, settings.get_profile(hypothesis_profile())
    assert (loaded.derandomize, loaded.max_examples, loaded.print_blob) == (
        selected.derandomize,
        selected.max_examples,
        selected.print_blob,
    )
