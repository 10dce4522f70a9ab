"""Argument types shared by the command-line tools: argparse names the argument when a value is out of range.

``type=non_negative_int`` (seeds, deal and game counts) and ``type=positive_int`` (workers, counts that must
be at least one): a bad value exits with status 2 and one line, e.g. ``argument --seed: must be an integer >= 0,
got '-1'``, before any work starts.
"""

from __future__ import annotations

import argparse


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
