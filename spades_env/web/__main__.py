"""``python -m spades_env.web``: serve the browser table (see :mod:`spades_env.web`)."""

from .server import main

if __name__ == "__main__":
    raise SystemExit(main())
