"""The web server: one page, its assets, and a WebSocket per browser tab (Starlette on uvicorn).

``create_app(...)`` builds the Starlette app; ``main()`` is the command line
(``spades-web``, ``python -m spades_env.web``). The protocol is in
:mod:`spades_env.web`; the tables are :mod:`spades_env.web.session`.

Safety, by default: the server listens on 127.0.0.1; a WebSocket whose
``Origin`` is another site is refused (a page elsewhere cannot drive a local
table); every message is bounded (``MAX_MESSAGE_BYTES``), must be a JSON
object of a known type with known fields, and a bad one gets an error message
(the table and every other table unchanged, the server up); agents are chosen
from the names the server offers; files are never opened by a name from the
page (a record is uploaded as JSON); at most ``max_tables`` tables are open
at once. The page's Content-Security-Policy allows only the server's own
scripts and styles.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import numpy as np
from starlette.applications import Starlette
from starlette.responses import FileResponse
from starlette.routing import Mount, Route, WebSocketRoute
from starlette.staticfiles import StaticFiles
from starlette.websockets import WebSocket, WebSocketDisconnect

from ..core.actions import action_name
from ..core.rules import PRESETS, preset
from .session import LiveTable, ReplayTable, TableError

STATIC = Path(__file__).parent / "static"
MAX_MESSAGE_BYTES = 1_000_000  # a record of a 100-hand game is about 100 kB
MAX_TABLES = 8
MAX_PACE_MS = 5000
DEFAULT_PACE_MS = 600
SECURITY_HEADERS = {
    "Content-Security-Policy": "default-src 'self'; img-src 'self' data:; object-src 'none'; base-uri 'none'",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
}
log = logging.getLogger("spades_env.web")

# Each message type: (required fields, optional fields).
MESSAGES: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "new": (("rules", "seats"), ("episode", "seed", "pace_ms")),
    "act": (("action",), ()),
    "hint": ((), ()),
    "continue": ((), ()),
    "pace": (("ms",), ()),
    "save": ((), ()),
    "replay": (("record",), ()),
    "seek": (("index",), ()),
    "viewer": (("seat",), ()),
}


class MessageError(ValueError):
    """A message the server refuses before any table sees it."""


def parse_message(text: Any) -> dict[str, Any]:
    """A page message as a dict of a known type with known fields; MessageError naming the problem otherwise."""
    if not isinstance(text, str):
        raise MessageError("messages are JSON text, not binary")
    if len(text) > MAX_MESSAGE_BYTES or len(text.encode("utf-8", "replace")) > MAX_MESSAGE_BYTES:
        raise MessageError(f"message too large (more than {MAX_MESSAGE_BYTES} bytes)")
    try:
        message = json.loads(text)
    except (ValueError, RecursionError) as exc:
        raise MessageError(f"not JSON: {str(exc)[:120]}") from None
    if not isinstance(message, dict):
        raise MessageError("a message is a JSON object with a 'type'")
    kind = message.get("type")
    if "type" not in message:
        raise MessageError(f"a message needs a 'type', one of {sorted(MESSAGES)}")
    if not isinstance(kind, str) or kind not in MESSAGES:
        raise MessageError(f"unknown message type {str(kind)[:40]!r}; known: {sorted(MESSAGES)}")
    required, optional = MESSAGES[kind]
    missing = [f for f in required if f not in message]
    if missing:
        raise MessageError(f"'{kind}' needs {missing}")
    unknown = sorted(set(message) - set(required) - set(optional) - {"type"})
    if unknown:
        raise MessageError(f"unknown field(s) {[u[:40] for u in unknown][:5]} in '{kind}'")
    return message


def pace_of(value: Any) -> int:
    """A pace in milliseconds, 0..MAX_PACE_MS."""
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= MAX_PACE_MS:
        raise MessageError(f"pace must be an integer number of milliseconds in 0..{MAX_PACE_MS}")
    return value


class Agents:
    """The agents a page may seat: registered names, released policies, policy files given to the server."""

    def __init__(self, policies: dict[str, str] | None = None, hint_agent: str = "heuristic"):
        from ..agents.registry import available_agents, released_policies

        self.files = dict(policies or {})
        names = set(available_agents()) | set(released_policies()) | set(self.files)
        self.names = sorted(names)
        if hint_agent not in names:
            raise ValueError(f"unknown hint agent {hint_agent!r}; known: {self.names}")
        self.hint_agent = hint_agent

    def make(self, name: str, seed: int, seat: int) -> Any:
        """A fresh agent for a seat, its generator drawn from the table's seed and the seat."""
        from ..agents import make_agent

        if name not in self.names:
            raise TableError(f"unknown agent {str(name)[:40]!r}; this server offers {self.names}")
        agent = make_agent(self.files.get(name, name))
        hook = getattr(agent, "reseed", None)
        if callable(hook):
            hook(np.random.default_rng([seed, seat]))
        return agent


class Connection:
    """One browser tab: its table, pace and agent runner."""

    def __init__(self, app: Starlette, websocket: WebSocket):
        self.app = app
        self.ws = websocket
        self.table: LiveTable | ReplayTable | None = None
        self.pace = DEFAULT_PACE_MS
        self.lock = asyncio.Lock()
        self.wake = asyncio.Event()
        self.hinter: Any = None

    async def send(self, message: dict[str, Any]) -> None:
        await self.ws.send_text(json.dumps(message))

    async def send_state(self) -> None:
        if self.table is not None:
            await self.send({"type": "state", "view": self.table.view()})

    async def serve(self) -> None:
        """Answer the tab's messages until it goes away; the table's slot is freed then."""
        state = self.app.state
        await self.send(
            {
                "type": "hello",
                "presets": sorted(PRESETS),
                "players": {name: preset(name).num_players for name in sorted(PRESETS)},
                "agents": state.agents.names,
                "hint_agent": state.agents.hint_agent,
                "max_pace_ms": MAX_PACE_MS,
                "pace_ms": self.pace,
                "max_message_bytes": MAX_MESSAGE_BYTES,
            }
        )
        runner = asyncio.create_task(self.run_agents())
        try:
            while True:
                event = await self.ws.receive()
                if event["type"] == "websocket.disconnect":
                    break
                await self.handle(event.get("text") if event.get("text") is not None else event.get("bytes"))
        except WebSocketDisconnect:
            pass
        finally:
            runner.cancel()
            if self.table is not None:
                self.table = None
                state.open_tables -= 1

    async def handle(self, text: Any) -> None:
        """One message: answered with a state, a hint, a record or an error; never an exception."""
        try:
            message = parse_message(text)
            async with self.lock:
                await HANDLERS[message["type"]](self, message)
        except (MessageError, TableError) as exc:
            await self.send({"type": "error", "message": str(exc)})
        except Exception as exc:  # a bug must not end the tab's connection, nor the server
            log.exception("message failed")
            await self.send(
                {"type": "error", "message": f"internal error ({type(exc).__name__}); the table is as it was"}
            )
        self.wake.set()

    def _room(self) -> None:
        """TableError unless this tab may hold a table (it keeps its slot when it replaces its table)."""
        state = self.app.state
        if self.table is None and state.open_tables >= state.max_tables:
            raise TableError(f"this server holds its limit of {state.max_tables} open tables; close one and retry")

    def _claim(self) -> None:
        """Take this tab's table slot (checked by ``_room`` before the table was built, and again here)."""
        self._room()
        if self.table is None:
            self.app.state.open_tables += 1

    def _live(self) -> LiveTable:
        if not isinstance(self.table, LiveTable):
            raise TableError("start a game first" if self.table is None else "this is a replay: start a game to play")
        return self.table

    def _replay(self) -> ReplayTable:
        if not isinstance(self.table, ReplayTable):
            raise TableError("open a record to replay first")
        return self.table

    async def on_new(self, m: dict[str, Any]) -> None:
        pace = pace_of(m.get("pace_ms", self.pace))
        self._room()  # before the agents are loaded
        agents = self.app.state.agents
        table = await asyncio.to_thread(
            LiveTable, m["rules"], m["seats"], agents.make, m.get("episode", "game"), m.get("seed")
        )
        self._claim()
        self.table, self.pace = table, pace
        await self.send_state()

    async def on_act(self, m: dict[str, Any]) -> None:
        self._live().act(m["action"])
        await self.send_state()

    async def on_hint(self, m: dict[str, Any]) -> None:
        table = self._live()
        if self.hinter is None:
            self.hinter = await asyncio.to_thread(self.app.state.agents.make, self.app.state.agents.hint_agent, 0, 0)
        action = await asyncio.to_thread(table.hint, self.hinter)
        await self.send(
            {"type": "hint", "action": action, "name": action_name(action), "agent": self.app.state.agents.hint_agent}
        )

    async def on_continue(self, m: dict[str, Any]) -> None:
        self._live().resume()
        await self.send_state()

    async def on_pace(self, m: dict[str, Any]) -> None:
        self.pace = pace_of(m["ms"])

    async def on_save(self, m: dict[str, Any]) -> None:
        await self.send({"type": "record", "record": self._live().record()})

    async def on_replay(self, m: dict[str, Any]) -> None:
        self._room()  # before the record is replayed
        table = await asyncio.to_thread(ReplayTable, m["record"])
        self._claim()
        self.table = table
        await self.send_state()

    async def on_seek(self, m: dict[str, Any]) -> None:
        table = self._replay()
        await asyncio.to_thread(table.seek, m["index"])
        await self.send_state()

    async def on_viewer(self, m: dict[str, Any]) -> None:
        self._replay().set_viewer(m["seat"])
        await self.send_state()

    async def run_agents(self) -> None:
        """Move the agents of the tab's live table, one decision per pace, whenever it is their turn."""
        while True:
            await self.wake.wait()
            self.wake.clear()
            while isinstance(self.table, LiveTable) and self.table.agent_turn():
                table = self.table
                await asyncio.sleep(self.pace / 1000)
                async with self.lock:
                    if self.table is not table or not table.agent_turn():
                        break  # replaced, or the turn changed while waiting
                    try:
                        await asyncio.to_thread(table.agent_move)
                    except Exception as exc:  # an agent's failure stops its table's agents, not the server
                        log.exception("agent move failed")
                        await self.send({"type": "error", "message": f"the agent failed ({type(exc).__name__})"})
                        break
                    await self.send_state()


HANDLERS: dict[str, Callable[[Connection, dict[str, Any]], Awaitable[None]]] = {
    kind: getattr(Connection, f"on_{kind}") for kind in MESSAGES
}


def same_origin(websocket: WebSocket) -> bool:
    """Whether the socket was opened by a page of this server (or by a client that sends no Origin)."""
    origin = websocket.headers.get("origin")
    if origin is None:
        return True
    host = websocket.headers.get("host", "")
    return urlsplit(origin).netloc.lower() == host.lower()


def create_app(
    max_tables: int = MAX_TABLES, policies: dict[str, str] | None = None, hint_agent: str = "heuristic"
) -> Starlette:
    """The Starlette app: the page at ``/``, its assets at ``/static``, tables at ``/ws``."""
    if isinstance(max_tables, bool) or not isinstance(max_tables, int) or max_tables < 1:
        raise ValueError(f"max_tables must be a positive integer, got {max_tables!r}")

    async def page(request: Any) -> FileResponse:
        return FileResponse(STATIC / "index.html", headers=SECURITY_HEADERS)

    async def tables(websocket: WebSocket) -> None:
        if not same_origin(websocket):
            await websocket.close(code=1008)  # policy violation: a page of another site
            return
        await websocket.accept()
        await Connection(app, websocket).serve()

    app = Starlette(
        routes=[
            Route("/", page),
            Mount("/static", app=StaticFiles(directory=STATIC), name="static"),
            WebSocketRoute("/ws", tables),
        ]
    )
    app.state.agents = Agents(policies, hint_agent)
    app.state.max_tables = max_tables
    app.state.open_tables = 0
    return app


def policy_option(text: str) -> tuple[str, str]:
    """``NAME=PATH`` of ``--policy``: a policy file offered to the page under NAME."""
    name, sep, path = text.partition("=")
    if not sep or not name or not path:
        raise argparse.ArgumentTypeError(f"--policy takes NAME=PATH, got {text!r}")
    if not Path(path).is_file():
        raise argparse.ArgumentTypeError(f"--policy {name}: no file {path!r}")
    return name, path


def build_parser() -> argparse.ArgumentParser:
    """The command line of ``spades-web``."""
    parser = argparse.ArgumentParser(prog="spades-web", description="A Spades table in the browser.")
    parser.add_argument("--host", default="127.0.0.1", help="address to listen on (default: this machine only)")
    parser.add_argument("--port", type=int, default=8000, help="port (default 8000)")
    parser.add_argument("--max-tables", type=int, default=MAX_TABLES, help="tables open at once (default 8)")
    parser.add_argument(
        "--policy", type=policy_option, action="append", default=[], metavar="NAME=PATH",
        help="offer a policy file as the agent NAME (repeatable)",
    )  # fmt: skip
    parser.add_argument("--hint-agent", default="heuristic", help="the agent whose move a hint shows")
    return parser


def main(argv: list[str] | None = None) -> int:
    """Serve the table until interrupted."""
    import uvicorn

    args = build_parser().parse_args(argv)
    try:
        app = create_app(args.max_tables, dict(args.policy), args.hint_agent)
    except ValueError as exc:
        print(f"spades-web: {exc}", file=sys.stderr)
        return 2
    if args.host not in ("127.0.0.1", "localhost", "::1"):
        print(f"spades-web: listening on {args.host}: anyone who can reach it can open tables", file=sys.stderr)
    print(f"spades-web: open http://{'localhost' if args.host == '127.0.0.1' else args.host}:{args.port}/")
    uvicorn.run(app, host=args.host, port=args.port, log_level="warning", ws_max_size=2 * MAX_MESSAGE_BYTES)
    return 0
