"""Registration with PettingZoo's and Gymnasium's registries.

* ``pettingzoo.make("aec", "spades_env/spades-v3", rules=..., episode=...)``: the wrapped AEC env.
* ``gymnasium.make("spades_env/Spades-v3", rules=..., seat=...)``: the single-agent wrapper
  (also ``gymnasium.make("spades_env:spades_env/Spades-v3")`` with no import of ours).
  It is registered without Gymnasium's order-enforcing and passive-checker
  wrappers: ``make`` returns the env itself, whose own methods
  (``action_masks``, ``clone``) Gymnasium 1.x wrappers would hide; the env
  checks the call order itself.
* Version 3 (``spades_v3``) adds two-player Spades: 90 actions (``keep`` and
  ``discard`` appended to version 2's 88) and layout ``spades_obs_v2`` (1207
  floats: version 2's ``spades_obs_v1`` with the drawing blocks appended).
  Version 2 observed ``spades_obs_v1`` (879 floats: version 1's observation
  plus the trick history and the public voids); like version 1, both play one
  hand per episode by default. Only the newest version is registered: the
  spaces of the older ids no longer exist, so ``-v0``, ``-v1`` and ``-v2`` are
  refused with each library's own error naming the version to use
  (Gymnasium's ``DeprecatedEnv``, PettingZoo's ``VersionNotFound``). Version
  0's whole-game episodes are ``episode="game"``; policies trained on older
  versions (``spades_obs_v0``, ``spades_obs_v1``, 88 actions) still load and
  play as they did (``layout.OBSERVATION.projection``; ``nn.policy_file``).

``import spades_env`` must not load gymnasium or pettingzoo (the rules core is
used without them), so each id is registered when its library is imported:
at once if it already is, otherwise by a one-shot import hook that runs right
after the library's own module has finished loading.
"""

from __future__ import annotations

import importlib.abc
import importlib.util
import sys
from collections.abc import Callable
from types import ModuleType
from typing import Any

PETTINGZOO_ENV_ID = "spades_env/spades-v3"
GYM_ENV_ID = "spades_env/Spades-v3"
# Ids of older versions, no longer registered (their spaces are gone); the libraries refuse them.
RETIRED_IDS = {
    "pettingzoo": ("spades_env/spades-v0", "spades_env/spades-v1", "spades_env/spades-v2"),
    "gymnasium": ("spades_env/Spades-v0", "spades_env/Spades-v1", "spades_env/Spades-v2"),
}


def register_gymnasium() -> None:
    """Register the Gymnasium id (idempotent)."""
    import gymnasium

    if GYM_ENV_ID not in gymnasium.registry:
        gymnasium.register(
            id=GYM_ENV_ID,
            entry_point="spades_env.gym_env:SingleAgentSpadesEnv",
            order_enforce=False,
            disable_env_checker=True,
        )


def register_pettingzoo() -> None:
    """Register the PettingZoo id (idempotent)."""
    from pettingzoo.env_registry.registration import aec_registry, register

    if PETTINGZOO_ENV_ID not in aec_registry:
        register("aec", PETTINGZOO_ENV_ID, entry_point="spades_env.aec:env")


def register_envs() -> None:
    """Register both ids now (imports both libraries)."""
    register_gymnasium()
    register_pettingzoo()


_REGISTRARS: dict[str, Callable[[], None]] = {"gymnasium": register_gymnasium, "pettingzoo": register_pettingzoo}


class _Loader(importlib.abc.Loader):
    """Runs the library's own loader, then our registration."""

    def __init__(self, inner: importlib.abc.Loader, after: Callable[[], None]):
        self.inner, self.after = inner, after

    def create_module(self, spec: Any) -> ModuleType | None:
        return self.inner.create_module(spec)

    def exec_module(self, module: ModuleType) -> None:
        self.inner.exec_module(module)
        self.after()


class _RegisterOnImport(importlib.abc.MetaPathFinder):
    """A one-shot finder: wraps the loader of gymnasium / pettingzoo the first time each is imported."""

    def __init__(self, pending: dict[str, Callable[[], None]]):
        self.pending = pending

    def find_spec(self, name: str, path: Any = None, target: Any = None) -> Any:
        after = self.pending.get(name)
        if after is None:
            return None
        del self.pending[name]
        if not self.pending:
            sys.meta_path.remove(self)
        spec = importlib.util.find_spec(name)  # the real spec, found by the finders after this one
        if spec is not None and spec.loader is not None:
            spec.loader = _Loader(spec.loader, after)
        return spec


def register_when_imported() -> None:
    """Register each id now if its library is loaded, else as soon as it is."""
    pending = {}
    for name, register in _REGISTRARS.items():
        if name in sys.modules:
            register()
        else:
            pending[name] = register
    if pending and not any(isinstance(f, _RegisterOnImport) for f in sys.meta_path):
        sys.meta_path.insert(0, _RegisterOnImport(pending))
