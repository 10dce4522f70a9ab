"""Agents by name: ``make_agent(name, **options)``.

Three ways an agent is found, in this order:

1. A registered name (``random``, ``heuristic``, ``heuristic_classic``, ``pimc``, and whatever
   :func:`register_agent` adds): the factory is called with the options.
2. A checkpoint path (an existing file, or a name ending in a checkpoint
   suffix such as ``.pt``): each registered checkpoint loader
   (:func:`register_checkpoint_loader`) is asked in turn; the first that
   accepts the path builds the agent.
3. The name of a released policy: a file ``<name>.pt`` under
   ``spades_env/policies/`` (package data), loaded as in 2.

The trained-policy module registers its loader when imported. So that
``make_agent("path/to/ckpt.pt")`` works without importing it by hand, the
modules listed in :data:`PLUGIN_MODULES` are imported lazily (a missing module
is skipped) before checkpoints are resolved, as are the entry points of the
group ``spades_env.agents`` (each one a callable run once to register agents
or loaders).
"""

from __future__ import annotations

import importlib
import importlib.metadata
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

from .base import AgentProtocol

AgentFactory = Callable[..., AgentProtocol]
# A checkpoint loader: (path, **options) -> agent, or None when the file is not its format.
CheckpointLoader = Callable[..., "AgentProtocol | None"]

CHECKPOINT_SUFFIXES = (".pt", ".pth", ".ckpt", ".zip")
POLICY_DIR = Path(__file__).resolve().parent.parent / "policies"
# Modules imported lazily to let them register checkpoint loaders or agents.
PLUGIN_MODULES: list[str] = ["spades_env.agents.policy", "spades_env.agents.search"]
ENTRY_POINT_GROUP = "spades_env.agents"

_FACTORIES: dict[str, AgentFactory] = {}
_DESCRIPTIONS: dict[str, str] = {}
_LOADERS: list[tuple[str, CheckpointLoader]] = []
_plugins_loaded = False


class UnknownAgentError(ValueError):
    """``make_agent`` was given a name that is neither registered nor a loadable checkpoint."""


def register_agent(name: str, factory: AgentFactory, description: str = "", *, overwrite: bool = False) -> None:
    """Make ``make_agent(name, **options)`` call ``factory(**options)``."""
    if not isinstance(name, str) or not name:
        raise ValueError(f"an agent name must be a non-empty string, got {name!r}")
    if name in _FACTORIES and not overwrite and _FACTORIES[name] is not factory:
        raise ValueError(f"agent {name!r} is already registered; pass overwrite=True to replace it")
    _FACTORIES[name] = factory
    _DESCRIPTIONS[name] = description or (factory.__doc__ or "").strip().split("\n")[0]


def register_checkpoint_loader(name: str, loader: CheckpointLoader) -> None:
    """Add a hook that builds an agent from a checkpoint path.

    ``loader(path, **options)`` returns an agent, or None when the file is not
    in its format (the next loader is then tried). Registering the same name
    again replaces the hook.
    """
    for i, (existing, _) in enumerate(_LOADERS):
        if existing == name:
            _LOADERS[i] = (name, loader)
            return
    _LOADERS.append((name, loader))


def available_agents() -> dict[str, str]:
    """Registered agent names and one-line descriptions (plugins included)."""
    _load_plugins()
    return dict(sorted(_DESCRIPTIONS.items()))


def released_policies() -> list[str]:
    """Names of the policies shipped under ``spades_env/policies/``."""
    if not POLICY_DIR.is_dir():
        return []
    return sorted(p.stem for p in POLICY_DIR.iterdir() if p.suffix in CHECKPOINT_SUFFIXES)


def _load_plugins() -> None:
    global _plugins_loaded
    if _plugins_loaded:
        return
    _plugins_loaded = True
    for module in PLUGIN_MODULES:
        try:
            importlib.import_module(module)
        except ModuleNotFoundError as exc:
            if exc.name != module:  # the plugin exists but one of its imports is missing
                raise
    try:
        entry_points = importlib.metadata.entry_points(group=ENTRY_POINT_GROUP)
    except TypeError:  # pragma: no cover - Python < 3.10 API
        entry_points = []
    for ep in entry_points:
        ep.load()()


def _looks_like_checkpoint(name: str) -> bool:
    return os.path.isfile(name) or name.lower().endswith(CHECKPOINT_SUFFIXES) or os.sep in name


def load_checkpoint(path: str | os.PathLike, **options: Any) -> AgentProtocol:
    """An agent from a checkpoint file, through the registered loaders."""
    _load_plugins()
    path = os.fspath(path)
    if not os.path.isfile(path):
        raise FileNotFoundError(f"checkpoint not found: {path}")
    if not _LOADERS:
        raise UnknownAgentError(
            f"cannot load checkpoint {path!r}: no checkpoint loader is registered "
            f"(the trained-policy module registers one with register_checkpoint_loader; "
            f"looked for plugin modules {PLUGIN_MODULES})"
        )
    for _, loader in _LOADERS:
        agent = loader(path, **options)
        if agent is not None:
            return agent
    raise UnknownAgentError(f"no registered checkpoint loader ({[n for n, _ in _LOADERS]}) accepts {path!r}")


def make_agent(name: str, **options: Any) -> AgentProtocol:
    """An agent by registered name, checkpoint path or released policy name (see the module docstring)."""
    if isinstance(name, os.PathLike):
        return load_checkpoint(name, **options)
    if not isinstance(name, str):
        raise TypeError(f"make_agent needs an agent name or a checkpoint path, got {type(name).__name__}")
    if name not in _FACTORIES:
        _load_plugins()
    if name in _FACTORIES:
        return _FACTORIES[name](**options)
    if _looks_like_checkpoint(name):
        return load_checkpoint(name, **options)
    for suffix in CHECKPOINT_SUFFIXES:
        released = POLICY_DIR / f"{name}{suffix}"
        if released.is_file():
            return load_checkpoint(released, **options)
    known = sorted(_FACTORIES)
    policies = released_policies()
    extra = f"; released policies: {policies}" if policies else ""
    raise UnknownAgentError(
        f"unknown agent {name!r}; known agents: {known}{extra}; "
        f"or give the path of a checkpoint file ({', '.join(CHECKPOINT_SUFFIXES)})"
    )
