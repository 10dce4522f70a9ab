"""Every code example of the README and the docs runs (conventions in tests/docs/examples.py).

Python blocks run in one namespace per page, in order; shell commands run in a scratch folder that
sees the repository's ``configs``, ``docs``, ``tests`` and ``benchmarks`` (so the paths the docs
give work) and must exit 0; console transcripts must show their lines in order.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from .examples import (
    EXAMPLE_LANGUAGES,
    PAGES,
    ROOT,
    Example,
    console_steps,
    examples,
    shell_commands,
    shown_in_order,
)

ALL = [example for page in PAGES for example in examples(page)]
SHELL_TIMEOUT_S = 1_800
LINKED = ("configs", "docs", "tests", "benchmarks")


def _param(example: Example):
    marks = []
    if example.mark == "slow":
        marks.append(pytest.mark.slow)
    if example.mark == "skip":
        marks.append(pytest.mark.skip(reason=example.why or "no reason given"))
    return pytest.param(example, id=example.name, marks=marks)


@pytest.fixture
def scratch(tmp_path: Path) -> Path:
    """A working folder with the repository's data folders linked in, and the test's python first on PATH."""
    for name in LINKED:
        (tmp_path / name).symlink_to(ROOT / name)
    return tmp_path


def _environment() -> dict[str, str]:
    env = dict(os.environ)
    env["PATH"] = str(Path(sys.executable).parent) + os.pathsep + env.get("PATH", "")
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    env["MPLBACKEND"] = "Agg"
    return env


def _run(command: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        ["bash", "-o", "pipefail", "-c", command],
        cwd=cwd,
        env=_environment(),
        text=True,
        capture_output=True,
        timeout=SHELL_TIMEOUT_S,
        stdin=subprocess.DEVNULL,
    )


def test_every_skip_says_why():
    unexplained = [example.name for example in ALL if example.mark == "skip" and not example.why]
    assert not unexplained, f"examples skipped without a reason: {unexplained}"


def test_the_pages_hold_examples():
    """The collector finds the examples (a page of the docs without any would make this suite vacuous)."""
    assert {example.language for example in ALL} == set(EXAMPLE_LANGUAGES)
    assert sum(example.mark == "" for example in ALL) >= 20


@pytest.mark.parametrize("example", [_param(e) for e in ALL if e.language == "python"])
def test_python_example(example: Example, scratch: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.chdir(scratch)
    namespace: dict = {"__name__": "__docs__"}
    if example.mark != "fresh":
        # the page's earlier blocks first, as a reader runs them (those run in a fresh namespace start over)
        for earlier in examples(example.page):
            if earlier.line >= example.line:
                break
            if earlier.language == "python" and earlier.mark in ("", "fresh"):
                if earlier.mark == "fresh":
                    namespace = {"__name__": "__docs__"}
                exec(compile(earlier.code, earlier.name, "exec"), namespace)  # noqa: S102 - the docs' own code
    exec(compile(example.code, example.name, "exec"), namespace)  # noqa: S102


@pytest.mark.parametrize("example", [_param(e) for e in ALL if e.language == "bash"])
def test_shell_example(example: Example, scratch: Path):
    for command in shell_commands(example.code):
        result = _run(command, scratch)
        assert result.returncode == 0, (
            f"{example.name}: `{command}` exited {result.returncode}:\n{result.stdout[-2000:]}\n{result.stderr[-2000:]}"
        )


@pytest.mark.parametrize("example", [_param(e) for e in ALL if e.language == "console"])
def test_console_example(example: Example, scratch: Path):
    steps = console_steps(example.code)
    assert steps, f"{example.name}: a console block without a $ command"
    for command, shown in steps:
        result = _run(command, scratch)
        assert result.returncode == 0, (
            f"{example.name}: `{command}` exited {result.returncode}:\n{result.stderr[-2000:]}"
        )
        missing = shown_in_order(shown, result.stdout + result.stderr)
        assert missing is None, (
            f"{example.name}: `{command}` did not print {missing!r}; it printed:\n{result.stdout[-3000:]}"
        )


README_MAX_LINES = 250


def test_the_readme_stays_short():
    """The README tells a user how to use the project; measurement logs belong to the docs' results pages."""
    lines = (ROOT / "README.md").read_text(encoding="utf-8").count("\n")
    assert lines <= README_MAX_LINES, f"README.md has {lines} lines; at most {README_MAX_LINES}"
