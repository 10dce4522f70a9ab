"""The observation's old homes, ``spades_env.layout`` and ``spades_env.encoding``, as one helper.

Each old module still gives every name it gave, now read from its home under
:mod:`spades_env.obs`, with a ``DeprecationWarning`` naming that home (so old
imports and old policy tooling keep working); a name no home has is an
``AttributeError``, as for any module.
"""

from __future__ import annotations

import importlib
import warnings
from collections.abc import Callable
from typing import Any

HOMES = ("layout", "features", "bounds", "encode", "decode", "tracker")  # spades_env.obs modules, searched in order


def moved_names(old: str) -> Callable[[str], Any]:
    """The module ``__getattr__`` of the old module ``old``: a name from its home, with a DeprecationWarning."""

    def __getattr__(name: str) -> Any:
        for home in HOMES:
            module = importlib.import_module(f"spades_env.obs.{home}")
            if hasattr(module, name) and not name.startswith("__"):
                warnings.warn(f"{old}.{name} moved to spades_env.obs.{home}.{name}", DeprecationWarning, stacklevel=2)
                return getattr(module, name)
        raise AttributeError(f"module {old!r} has no attribute {name!r}")

    return __getattr__
