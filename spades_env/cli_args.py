"""What the command-line tools share: argument types, and SIGTERM handled as Ctrl-C.

``type=non_negative_int`` (seeds, deal and game counts) and ``type=positive_int`` (workers, counts that must
be at least one): a bad value exits with status 2 and one line, e.g. ``argument --seed: must be an integer >= 0,
got '-1'``, before any work starts. :func:`max_workers` is the most worker processes a tool starts (this
machine's cores): ``spades-evaluate`` uses no more, training refuses more. ``with sigterm_interrupts():`` turns
SIGTERM (a job scheduler, ``timeout``) into ``KeyboardInterrupt`` for the block, so that a tool stopped either way
saves its record or stops its worker processes.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import signal
from collections.abc import Iterator
from typing import Any


def _int_at_least(text: str, least: int) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be an integer >= {least}, got {text!r}") from None
    if value < least:
        raise argparse.ArgumentTypeError(f"must be an integer >= {least}, got {text!r}")
    return value


def non_negative_int(text: str) -> int:
    """An integer >= 0 (argparse ``type``)."""
    return _int_at_least(text, 0)


def positive_int(text: str) -> int:
    """An integer >= 1 (argparse ``type``)."""
    return _int_at_least(text, 1)


def max_workers() -> int:
    """The most worker processes a tool starts: this machine's cores (``os.cpu_count()``); more only cost memory."""
    return os.cpu_count() or 1


@contextlib.contextmanager
def sigterm_interrupts() -> Iterator[None]:
    """SIGTERM raises ``KeyboardInterrupt`` inside the block (the previous handler is put back after it)."""

    def interrupt(signum: int, frame: Any) -> None:
        raise KeyboardInterrupt

    try:
        previous = signal.signal(signal.SIGTERM, interrupt)
    except ValueError:  # not the main thread: signals stay as they are
        yield
        return
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)
