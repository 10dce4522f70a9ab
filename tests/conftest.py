"""Hypothesis profiles for the whole suite.

* ``ci``: derandomized (the same examples on every run, so a red CI run is
  reproducible and a green one does not flake), a fixed number of examples,
  and ``print_blob`` so a failure prints the line that replays it.
* ``dev`` (the default on a workstation): random examples, so repeated local
  runs explore new ground.

The profile is ``$HYPOTHESIS_PROFILE`` if set, else ``ci`` when ``$CI`` is
true (set by CI services and by ``.ci/run``), else ``dev``. A test's own
``@settings`` still overrides the profile's values it names.
"""

import os

import pytest
from hypothesis import HealthCheck, settings

CI_MAX_EXAMPLES = 100  # hypothesis' own default, fixed here so that CI never depends on it
TRUE_WORDS = ("1", "true", "yes")

settings.register_profile(
    "ci",
    derandomize=True,
    max_examples=CI_MAX_EXAMPLES,
    print_blob=True,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],  # a loaded CI machine is slow, not the test
)
settings.register_profile("dev", derandomize=False, print_blob=False, deadline=None)


def hypothesis_profile(environ=os.environ) -> str:
    """The profile to load: $HYPOTHESIS_PROFILE, else ci when $CI is true, else dev."""
    if environ.get("HYPOTHESIS_PROFILE"):
        return environ["HYPOTHESIS_PROFILE"]
    return "ci" if environ.get("CI", "").strip().lower() in TRUE_WORDS else "dev"


settings.load_profile(hypothesis_profile())


@pytest.fixture
def one_torch_thread():
    """Torch on one thread during the test (small models train and infer faster so on a shared machine)."""
    from spades_env.nn import one_torch_thread as single_thread  # torch imported only by tests that ask

    with single_thread():
        yield
