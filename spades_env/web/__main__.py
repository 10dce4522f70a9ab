"""``python -m spades_env.web`` and ``spades-web``: serve the browser table (see :mod:`spades_env.web`)."""

from __future__ import annotations

import sys

WEB_EXTRA = "pip install 'spades_env[web]'"


def main(argv: list[str] | None = None) -> int:
    """Serve the table (:func:`spades_env.web.server.main`), or say which extra is missing."""
    try:
        from .server import main as serve
    except ImportError as exc:  # starlette, uvicorn or websockets absent: the [web] extra is not installed
        print(f"spades-web needs the [web] extra ({WEB_EXTRA}): {exc}", file=sys.stderr)
        return 2
    return serve(argv)


if __name__ == "__main__":
    raise SystemExit(main())
