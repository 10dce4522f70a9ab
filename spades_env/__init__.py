"""spades_env: a Spades environment for reinforcement learning.

Public names are imported lazily (PEP 562), so that ``import spades_env.core``
(the rules core) loads neither gymnasium, pettingzoo nor yaml:

======================================  ==========================================
name                                    home
======================================  ==========================================
``Rules``, ``RulesError``, ``preset``,  ``spades_env.core.rules``
``PRESETS``
``card_action``, ``bid_action``,        ``spades_env.core.actions``
``blind_bid_action``, ``action_name``,
``parse_action``, ``NUM_ACTIONS``
``format_card``, ``parse_card``         ``spades_env.core.cards``
``load_rules``                          ``spades_env.config_io`` (loads yaml)
``env``, ``raw_env``, ``ENV_NAME``      ``spades_env.aec`` (PettingZoo AEC env)
``SingleAgentSpadesEnv``                ``spades_env.gym_env`` (Gymnasium wrapper)
``GYM_ENV_ID``, ``PETTINGZOO_ENV_ID``   ``spades_env.registration`` (the env ids)
``make_agent``                          ``spades_env.agents``
``register_envs``                       ``spades_env.registration``
======================================  ==========================================

The environment ids are registered with Gymnasium and PettingZoo as soon as
either library is imported, before or after ``spades_env`` (see
:mod:`spades_env.registration`).
"""

from __future__ import annotations

import importlib
from typing import Any

from .registration import register_when_imported

__version__ = "0.3.0"  # 0.N.x is spades_vN (docs/contributing.md); pyproject.toml and CHANGELOG.md agree

_HOMES: dict[str, str] = {
    "NUM_ACTIONS": "core.actions",
    "action_name": "core.actions",
    "bid_action": "core.actions",
    "blind_bid_action": "core.actions",
    "card_action": "core.actions",
    "parse_action": "core.actions",
    "format_card": "core.cards",
    "parse_card": "core.cards",
    "PRESETS": "core.rules",
    "Rules": "core.rules",
    "RulesError": "core.rules",
    "preset": "core.rules",
    "load_rules": "config_io",
    "ENV_NAME": "aec",
    "env": "aec",
    "raw_env": "aec",
    "GYM_ENV_ID": "registration",
    "PETTINGZOO_ENV_ID": "registration",
    "SingleAgentSpadesEnv": "gym_env",
    "make_agent": "agents",
    "register_envs": "registration",
}

__all__ = sorted(_HOMES)


def __getattr__(name: str) -> Any:
    """Import a public name from its home module on first use."""
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module 'spades_env' has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{home}", __name__), name)
    globals()[name] = value  # later look-ups skip __getattr__
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_HOMES))


register_when_imported()
