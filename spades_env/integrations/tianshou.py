"""Tianshou: the AEC env wrapped in Tianshou's ``PettingZooEnv``, with numeric infos.

``tianshou_env(**kwargs)`` is ``PettingZooEnv(spades_env.env(info_format="numeric", **kwargs))``.
Tianshou's collector stacks every step's info into its replay buffer, which
must hold the same keys on every step and numbers only (strings, ``None`` or
keys present on some steps only end training with ``MalformedBufferError``);
``info_format="numeric"`` gives exactly that. Tianshou reads the action mask
from the observation dict (``obs.mask``); only its DQN-family algorithms and
its random policy respect masks.
"""

from __future__ import annotations

from typing import Any

NUMERIC_INFOS = "numeric"


def tianshou_env(**kwargs: Any):
    """Tianshou's ``PettingZooEnv`` over ``spades_env.env(info_format="numeric", **kwargs)``."""
    from tianshou.env import PettingZooEnv

    from ..aec import env

    kwargs.setdefault("info_format", NUMERIC_INFOS)
    return PettingZooEnv(env(**kwargs))
