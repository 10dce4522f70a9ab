"""The package version follows the environment version, and the changelog records it (docs/contributing.md)."""

from __future__ import annotations

import re

import spades_env

from .examples import ROOT


def test_pyproject_package_and_changelog_agree():
    # the [project] table's version line (tomllib is Python 3.11+; the package supports 3.10)
    version = re.search(r'^version = "([^"]+)"$', (ROOT / "pyproject.toml").read_text(encoding="utf-8"), re.MULTILINE)
    assert version and version[1] == spades_env.__version__
    released = re.findall(
        r"^## \[(\d+\.\d+\.\d+)\][^\n]*`(spades_v\d+)`",
        (ROOT / "CHANGELOG.md").read_text(encoding="utf-8"),
        flags=re.MULTILINE,
    )
    assert released, "no released version in CHANGELOG.md"
    newest, env_name = released[0]
    assert newest == spades_env.__version__, (
        f"the newest changelog entry is {newest}, the package {spades_env.__version__}"
    )
    assert env_name == spades_env.ENV_NAME
    assert spades_env.__version__.split(".")[1] == spades_env.ENV_NAME.removeprefix("spades_v")
    # every env version so far has its entry, newest first
    assert [name for _, name in released] == [f"spades_v{n}" for n in range(int(env_name[-1]), -1, -1)]
