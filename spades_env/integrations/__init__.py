"""Small adapters where an RL library needs a convention of its own.

Each module imports its library only when used; ``import spades_env`` loads
none of them. The env itself already follows every library's documented
recipe (see the README, "Use with your library"); these adapters only bundle
the options a library needs.
"""
