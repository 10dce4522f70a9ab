"""The docs-example collector itself: what it finds, how it splits commands, how it matches transcripts."""

from __future__ import annotations

from pathlib import Path

from .examples import console_steps, examples, shell_commands, shown_in_order


def test_examples_by_language_and_mark(tmp_path: Path):
    page = tmp_path / "page.md"
    page.write_text(
        "intro\n```python\nx = 1\n```\n<!-- test: slow -->\n```bash\necho a\n```\n"
        "```yaml\nk: v\n```\n<!-- test: skip needs a cluster -->\n```console\n$ true\n```\n"
        "  ```python\n  y = 2\n  ```\n",
        encoding="utf-8",
    )
    found = examples(page)
    assert [(e.language, e.mark, e.why, e.line) for e in found] == [
        ("python", "", "", 2),
        ("bash", "slow", "", 6),
        ("console", "skip", "needs a cluster", 13),
        ("python", "", "", 16),
    ]
    assert found[-1].code == "y = 2\n"  # an indented fence (in a list) is dedented


def test_shell_commands_join_continuations_and_drop_comments():
    code = "# a comment\npython -m x \\\n    --flag 1   # says what\n\necho done\n"
    assert shell_commands(code) == ["python -m x      --flag 1   # says what", "echo done"]


def test_console_transcripts():
    steps = console_steps("$ cmd one\nline a\n...\nline c\n$ cmd two\n")
    assert steps == [("cmd one", ["line a", "...", "line c"]), ("cmd two", [])]
    assert shown_in_order(["line a", "...", "line c"], "line a\nline b\nline c\n") is None
    assert shown_in_order(["line c", "line a"], "line a\nline b\nline c\n") == "line a"
    assert shown_in_order(["nowhere"], "line a\n") == "nowhere"
