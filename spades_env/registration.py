"""Registration with PettingZoo's and Gymnasium's registries.

* ``pettingzoo.make("aec", "spades_env/spades-v1", rules=..., episode=...)``: the wrapped AEC env.
* ``gymnasium.make("spades_env/Spades-v1", rules=..., seat=...)``: the single-agent wrapper
  (also ``gymnasium.make("spades_env:spades_env/Spades-v1")`` with no import of ours).
  It is registered without Gymnasium's order-enforcing and passive-checker
  wrappers: ``make`` returns the env itself, whose own methods
  (``action_masks``, ``clone``) Gymnasium 1.x wrappers would hide; the env
  checks the call order itself.
* Version 1 plays one hand per episode by default. The ``-v0`` ids stay
  registered with the version 0 default (``episode="game"``) for existing
  users; Gymnasium warns that they are out of date.

``import spades_env`` must not load gymnasium or pettingzoo (the rules core is
used without them), so each id is registered when its library is imported:
at once if it already is, otherwise by a one-shot import hook that runs right
after the library's own module has finished loading.
"""

from __future__ import annotations

import importlib.abc
import importlib.util
import sys
from types import ModuleType
from typing import Any, Callable

PETTINGZOO_ENV_ID = "spades_env/spades-v1"
GYM_ENV_ID = "spades_env/Spades-v1"
LEGACY_IDS = {"pettingzoo": "spades_env/spades-v0", "gymnasium": "spades_env/Spades-v0"}
LEGACY_KWARGS = {"episode": "game"}  # the version 0 default


def register_gymnasium() -> None:
    """Register the Gymnasium id (idempotent)."""
    import gymnasium

    entry_point = "spades_env.gym_env:SingleAgentSpadesEnv"
    for env_id, kwargs in ((GYM_ENV_ID, {}), (LEGACY_IDS["gymnasium"], LEGACY_KWARGS)):
        if env_id not in gymnasium.registry:
            gymnasium.register(id=env_id, entry_point=entry_point, kwargs=dict(kwargs),
                               order_enforce=False, disable_env_checker=True)


def register_pettingzoo() -> None:
    """Register the PettingZoo id (idempotent)."""
    from pettingzoo.env_registry.registration import aec_registry, register

    for env_id, kwargs in ((PETTINGZOO_ENV_ID, {}), (LEGACY_IDS["pettingzoo"], LEGACY_KWARGS)):
        if env_id not in aec_registry:
            register("aec", env_id, entry_point="spades_env.aec:env", kwargs=dict(kwargs))


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
