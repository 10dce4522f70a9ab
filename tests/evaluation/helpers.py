"""Shared by the evaluation tests: a stand-in for a match that must not be played, a command line that must
exit with status 2 before any work, and a benchmark script loaded as a module."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

import pytest

BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"


def load_benchmark(name: str) -> ModuleType:
    """``benchmarks/<name>.py`` as a module (the scripts are not a package)."""
    spec = importlib.util.spec_from_file_location(name, BENCHMARKS / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


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
