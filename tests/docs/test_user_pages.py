"""The user pages speak to users: no working words of the people who wrote them (issue numbers, "of mine", work
sessions). The dated logs (docs/benchmarks.md, docs/training_results.md, the changelog) record how results came
about and are not read."""

from __future__ import annotations

import re

import pytest

from .examples import ROOT

DATED_LOGS = {"docs/benchmarks.md", "docs/training_results.md"}
USER_PAGES = sorted(
    page
    for page in [ROOT / "README.md", *(ROOT / "docs").rglob("*.md")]
    if page.relative_to(ROOT).as_posix() not in DATED_LOGS and "_build" not in page.parts
)
WORKING_WORDS = re.compile(
    r"\bissue \d+|\bissue's\b|\bof mine\b|\bwork session|\bthis session\b|\bsame session\b", re.IGNORECASE
)


def working_words(text: str) -> list[tuple[int, str]]:
    """(line, words) of every working word in ``text``."""
    return [(n, m[0]) for n, line in enumerate(text.splitlines(), 1) for m in WORKING_WORDS.finditer(line)]


def test_the_check_finds_working_words():
    text = "measured (issue 51; other work of mine on the machine)\nstopped by the end of a work session"
    assert [w for _, w in working_words(text)] == ["issue 51", "of mine", "work session"]
    assert working_words("a session of the web table; the issues page") == []


@pytest.mark.parametrize("page", USER_PAGES, ids=lambda page: page.relative_to(ROOT).as_posix())
def test_user_pages_carry_no_working_words(page):
    found = working_words(page.read_text(encoding="utf-8"))
    assert not found, "\n".join(f"{page.relative_to(ROOT)}:{n}: {w!r}" for n, w in found)
