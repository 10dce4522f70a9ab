"""Small adapters where an RL library needs a convention of its own.

Each module imports its library only when used and names the extra that
installs it; ``import spades_env`` loads none of them. The env itself already
follows every library's documented recipe (see docs/libraries/); these adapters only bundle the options a library needs:
``tianshou`` (numeric infos) and ``rllib`` (the ``observations`` key, the
policy mapping, a PPO module whose network is the project's ``PolicyNet``).
"""
