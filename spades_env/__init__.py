"""spades_env: a Spades environment for reinforcement learning.

Public names: ``load_rules``, ``Rules``, ``card_action``, ``bid_action``,
``action_name``, ``NUM_ACTIONS``; the PettingZoo environment (``env``,
``raw_env``), the Gymnasium wrapper (``SingleAgentSpadesEnv``) and agents
(``make_agent``) are added by their modules.
"""

from .config_io import load_rules
from .core.actions import NUM_ACTIONS, action_name, bid_action, blind_bid_action, card_action, parse_action
from .core.cards import format_card, parse_card
from .core.rules import PRESETS, Rules, RulesError, preset

__version__ = "0.1.0"

__all__ = [
    "NUM_ACTIONS", "PRESETS", "Rules", "RulesError", "action_name", "bid_action", "blind_bid_action",
    "card_action", "format_card", "load_rules", "parse_action", "parse_card", "preset",
]

from .aec import ENV_NAME, env, raw_env  # noqa: E402
from .gym_env import GYM_ENV_ID, SingleAgentSpadesEnv  # noqa: E402
from .registration import register_envs  # noqa: E402

register_envs()

__all__ += ["ENV_NAME", "GYM_ENV_ID", "SingleAgentSpadesEnv", "env", "raw_env"]

from .agents import make_agent  # noqa: E402

__all__ += ["make_agent"]
