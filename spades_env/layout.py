"""Moved: the observation layout objects live in :mod:`spades_env.obs`.

``spades_env.layout`` still gives every name it gave, from its new home, with a
``DeprecationWarning``; import from :mod:`spades_env.obs` instead.
"""

from __future__ import annotations

import importlib
import warnings
from typing import Any

_HOMES = ("layout", "features", "bounds", "encode", "decode", "tracker")


def __getattr__(name: str) -> Any:
    for home in _HOMES:
        module = importlib.import_module(f"spades_env.obs.{home}")
        if hasattr(module, name) and not name.startswith("__"):
            warnings.warn(
                f"spades_env.layout.{name} moved to spades_env.obs.{home}.{name}", DeprecationWarning, stacklevel=2
            )
            return getattr(module, name)
    raise AttributeError(f"module 'spades_env.layout' has no attribute {name!r}")
