"""Every size of a space written in the package's docstrings and comments, the training code and the user pages
matches the code: a space's shape (``Discrete(n)``, ``int8[n]``, ``float32[n]``, ``(B, n)``) is today's
``NUM_ACTIONS``, ``OBS_SIZE`` or ``STATE_SIZE``; ``n floats`` is the size of a layout that exists (today's or
an older one that policy files still load); ``n actions`` is today's action space or the older one of 88.

The dated logs (docs/benchmarks.md, the changelog) record the sizes of their time and are not read.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from spades_env.core.actions import NUM_ACTIONS, NUM_ACTIONS_V2
from spades_env.obs import OBS_SIZE, OBSERVATION, POSITION, STATE
from spades_env.obs.encode import STATE_SIZE
from spades_env.obs.layout import OBSERVATION_V0, OBSERVATION_V1

from .examples import ROOT

DATED_LOGS = {ROOT / "docs" / "benchmarks.md", ROOT / "CHANGELOG.md"}
SOURCES = sorted(
    [
        ROOT / "README.md",
        *(page for page in (ROOT / "docs").rglob("*.md") if page not in DATED_LOGS and "_build" not in page.parts),
        *(ROOT / "spades_env").rglob("*.py"),
        *(ROOT / "training").rglob("*.py"),
    ]
)
SPACE_SIZES = {NUM_ACTIONS, OBS_SIZE, STATE_SIZE}
LAYOUT_SIZES = {layout.size for layout in (OBSERVATION, STATE, POSITION, OBSERVATION_V0, OBSERVATION_V1)}
ACTION_SPACES = {NUM_ACTIONS, NUM_ACTIONS_V2}
_NUMBER = r"(\d[\d,]*)"
SMALLEST_SPACE = 80  # a smaller number names a block or a count (a card block's 54 floats, "1 action"), not a space
# (pattern, the sizes it may name, what it names)
CLAIMS = [
    (re.compile(rf"Discrete\({_NUMBER}\)"), {NUM_ACTIONS}, "the action space"),
    (re.compile(rf"\bint8\[{_NUMBER}\]"), {NUM_ACTIONS}, "the action mask"),
    (re.compile(rf"\bfloat32\[{_NUMBER}\]"), {OBS_SIZE, STATE_SIZE}, "an observation or a state"),
    (re.compile(rf"\((?:B|N|num_envs|batch), {_NUMBER}\)"), SPACE_SIZES, "a batch of observations or masks"),
    (re.compile(rf"\b{_NUMBER} floats"), LAYOUT_SIZES, "a layout"),
    (re.compile(rf"\b{_NUMBER} actions\b"), ACTION_SPACES, "an action space"),
]


def stated_sizes(text: str) -> list[tuple[int, int, set[int], str]]:
    """(line, size, the sizes allowed, what it names) for every size ``text`` states."""
    found = []
    for number, line in enumerate(text.splitlines(), start=1):
        for pattern, allowed, what in CLAIMS:
            for match in pattern.finditer(line):
                size = int(match[1].replace(",", ""))
                if size >= SMALLEST_SPACE:
                    found.append((number, size, allowed, what))
    return found


def test_the_claims_catch_stale_sizes():
    stale = 'observe() gives {"observation": float32[879], "action_mask": int8[88]}; Discrete(88), 1,045 floats'
    assert [size for _, size, allowed, _ in stated_sizes(stale) if size not in allowed] == [
        88,
        88,
        879,
        1045,
    ]  # in the order of CLAIMS
    current = f"float32[{OBS_SIZE}], int8[{NUM_ACTIONS}], (B, {OBS_SIZE:,}), {STATE_SIZE} floats, 88 actions"
    assert all(size in allowed for _, size, allowed, _ in stated_sizes(current))
    assert len(stated_sizes(current)) == 5
    assert stated_sizes("a card block of 54 floats; a batch (B, 2); 1 actions") == []


def test_the_sources_are_found():
    names = {path.relative_to(ROOT).as_posix() for path in SOURCES}
    assert {"README.md", "docs/environment.md", "spades_env/aec.py", "spades_env/batch/__init__.py"} <= names


@pytest.mark.parametrize("path", SOURCES, ids=lambda path: path.relative_to(ROOT).as_posix())
def test_every_stated_size_matches_the_code(path: Path):
    wrong = [
        f"{path.relative_to(ROOT)}:{line}: {size} is not {what} ({', '.join(map(str, sorted(allowed)))})"
        for line, size, allowed, what in stated_sizes(path.read_text(encoding="utf-8"))
        if size not in allowed
    ]
    assert not wrong, "\n".join(wrong)
