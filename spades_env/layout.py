"""Moved: the observation layout objects live in :mod:`spades_env.obs`.

``spades_env.layout`` still gives every name it gave, from its new home, with a
``DeprecationWarning`` (:mod:`spades_env.obs.moved`); import from :mod:`spades_env.obs` instead.
"""

from __future__ import annotations

from .obs.moved import moved_names

__getattr__ = moved_names(__name__)
