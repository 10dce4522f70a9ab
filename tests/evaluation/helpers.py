"""Shared by the evaluation tests: a stand-in for a match that must not be played, and a command line that must
exit with status 2 before any work."""

from __future__ import annotations

import pytest


def no_match(*args, **kwargs):
    pytest.fail("a match was played")


def exits_2(main, argv, capsys) -> str:
    """Run a command line that must exit with status 2 before any work; its stderr (no traceback in it)."""
    with pytest.raises(SystemExit) as exited:
        main(argv)
    assert exited.value.code == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err
    return err
