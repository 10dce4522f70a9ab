"""Registration with PettingZoo's and Gymnasium's registries (done on ``import spades_env``).

* ``pettingzoo.make("aec", "spades_env/spades-v0", rules=..., episode=...)``: the wrapped AEC env.
* ``gymnasium.make("spades_env/Spades-v0", rules=..., seat=...)``: the single-agent wrapper.
"""

from __future__ import annotations

import gymnasium
import pettingzoo

PETTINGZOO_ENV_ID = "spades_env/spades-v0"


def register_envs() -> None:
    """Register both ids (idempotent)."""
    from .gym_env import GYM_ENV_ID

    if PETTINGZOO_ENV_ID not in pettingzoo.aec_registry:
        pettingzoo.register("aec", PETTINGZOO_ENV_ID, entry_point="spades_env.aec:env")
    if GYM_ENV_ID not in gymnasium.registry:
        gymnasium.register(id=GYM_ENV_ID, entry_point="spades_env.gym_env:SingleAgentSpadesEnv")
