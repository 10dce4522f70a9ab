"""The code examples of the README and the docs pages, as the test suite runs them.

A fenced block is an example by its language:

* ``python``: run; the blocks of one page run in order in one namespace, as a reader types them;
* ``bash``: each line (a trailing ``\\`` continues it; ``#`` starts a comment) is run by the shell and
  must exit 0;
* ``console``: each ``$ command`` is run and must exit 0, and the lines after it, down to the next
  ``$``, must appear in its output in that order (``...`` stands for any lines).

A comment on the line before a block changes how it is run: ``<!-- test: slow -->`` runs it only in
the slow suite (examples that take minutes), ``<!-- test: skip REASON -->`` never runs it and says
why (an install, a cluster), ``<!-- test: fresh -->`` runs a python block in a fresh namespace
(the page's earlier blocks not run first). Any other fence (plain text, YAML) is not an example.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
EXAMPLE_LANGUAGES = ("python", "bash", "console")
_FENCE = re.compile(r"^(?P<indent> *)```(?P<info>[^`]*)$")
_MARK = re.compile(r"^\s*<!--\s*test:\s*(?P<mark>slow|skip|fresh)\b\s*(?P<why>.*?)\s*-->\s*$")


@dataclass(frozen=True)
class Example:
    """One fenced block of a page: where it is, its language, its code, and how it is run."""

    page: Path
    line: int  # 1-based line of the opening fence
    language: str
    code: str
    mark: str  # "", "slow", "skip" or "fresh"
    why: str

    @property
    def name(self) -> str:
        """``page:line``, relative to the repository."""
        return f"{self.page.relative_to(ROOT)}:{self.line}"


def examples(page: Path) -> list[Example]:
    """Every fenced block of ``page`` in an example language, in order."""
    found: list[Example] = []
    lines = page.read_text(encoding="utf-8").splitlines()
    i = 0
    while i < len(lines):
        fence = _FENCE.match(lines[i])
        if not fence:
            i += 1
            continue
        indent, language = len(fence["indent"]), fence["info"].strip().split(" ")[0]
        end = i + 1
        while end < len(lines) and lines[end].strip() != "```":
            end += 1
        if end == len(lines):
            raise ValueError(f"{page}:{i + 1}: a code fence is not closed")
        if language in EXAMPLE_LANGUAGES:
            mark = _MARK.match(lines[i - 1]) if i > 0 else None
            code = "\n".join(line[indent:] for line in lines[i + 1 : end]) + "\n"
            found.append(
                Example(page, i + 1, language, code, mark["mark"] if mark else "", mark["why"] if mark else "")
            )
        i = end + 1
    return found


def shell_commands(code: str) -> list[str]:
    """The commands of a bash block: continued lines joined, comments and blank lines dropped."""
    commands, current = [], ""
    for raw in code.splitlines():
        line = raw.rstrip()
        if line.endswith("\\"):
            current += line[:-1] + " "
            continue
        current += line
        if current.strip() and not current.lstrip().startswith("#"):
            commands.append(current.strip())
        current = ""
    return commands


def console_steps(code: str) -> list[tuple[str, list[str]]]:
    """The ``$ command`` lines of a console block, each with the output lines shown after it."""
    steps: list[tuple[str, list[str]]] = []
    for line in code.splitlines():
        if line.startswith("$ "):
            steps.append((line[2:], []))
        elif steps:
            steps[-1][1].append(line)
    return steps


def shown_in_order(shown: list[str], output: str) -> str | None:
    """None when every shown line appears in ``output`` in order (``...`` skips any lines); else the first missing."""
    lines = [line.rstrip() for line in output.splitlines()]
    at = 0
    for expected in shown:
        if expected.strip() in ("", "..."):
            continue
        while at < len(lines) and lines[at] != expected.rstrip():
            at += 1
        if at == len(lines):
            return expected
        at += 1
    return None
