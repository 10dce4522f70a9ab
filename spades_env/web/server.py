"""The web server: one page, its assets, and a WebSocket per browser tab (Starlette on uvicorn).

``create_app(...)`` builds the Starlette app; ``main()`` is the command line
(``spades-web``, ``python -m spades_env.web``). The protocol is in
:mod:`spades_env.web`; the tables are :mod:`spades_env.web.session`.

Safety, by default: the server listens on 127.0.0.1; it answers only the
host names it was started for, and a WebSocket only from a page of its own
(:mod:`spades_env.web.guard`: DNS rebinding, other sites); every response
carries a strict Content-Security-Policy that forbids framing. Every message
is bounded (``MAX_MESSAGE_BYTES``), must be a JSON object of a known type
whose every field has its type (``MESSAGES``), and a bad one gets an error
naming the field (the table and every other table unchanged, the server up);
agents are chosen from the names the server offers, and every policy file
named on the command line is loaded at start-up; files are never opened by a
name from the page (a record is uploaded as JSON); at most ``max_tables``
tables are open at once. A tab that goes away, even mid-message, is logged as
one line; its table waits ``reconnect_s`` (60 s) for a tab that brings its
token (``resume``: a reload, a dropped connection), keeping its slot, and
is closed after that.

Human games as data: with ``record_dir`` (``--record-dir DIR``) every live
game is saved when it ends, as the record ``spades-replay`` reads (who sat
where in ``seats``), one new file per game (``<UTC time>-<random>.json``,
written whole or not at all: :func:`spades_env.records.save_record`); a
table writes only its own game, once. ``python -m training.imitate_records
DIR`` trains a policy from them.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import secrets
import socket
import sys
import time
import uuid
from collections.abc import Awaitable, Callable, Iterable
from pathlib import Path
from typing import Any

import numpy as np
from starlette import websockets
from starlette.applications import Starlette
from starlette.responses import FileResponse
from starlette.routing import Mount, Route, WebSocketRoute
from starlette.staticfiles import StaticFiles
from starlette.websockets import WebSocket, WebSocketDisconnect, WebSocketState

from ..core.actions import action_name
from ..core.rules import PRESETS, preset
from ..play import HUMAN, parse_move
from ..records import save_record
from .guard import LOCAL_HOSTS, SECURITY_HEADERS, Guard, allowed_hosts
from .session import LiveTable, ReplayTable, TableError

STATIC = Path(__file__).parent / "static"
MAX_MESSAGE_BYTES = 1_000_000  # a record of a 100-hand game is about 100 kB
MAX_TABLES = 8
MAX_PACE_MS = 5000
DEFAULT_PACE_MS = 600
MAX_PORT = 65535
TOKEN_BYTES = 18  # a table's token: 144 random bits
RECONNECT_S = 60.0  # how long a table waits for its tab to come back (a reload, a dropped connection)
# The tab went away (before or while the server answered); starlette >= 1.0 names a send after it.
DISCONNECTS = (WebSocketDisconnect, *[c for c in [getattr(websockets, "WebSocketDisconnected", None)] if c])
log = logging.getLogger("spades_env.web")

# The JSON types of message fields: (name shown in errors, check).
TEXT = ("a string", lambda v: isinstance(v, str))
INTEGER = ("an integer", lambda v: isinstance(v, int) and not isinstance(v, bool))
INTEGER_OR_NULL = ("an integer or null", lambda v: v is None or INTEGER[1](v))
OBJECT = ("a JSON object", lambda v: isinstance(v, dict))
TEXTS = ("a list of strings", lambda v: isinstance(v, list) and all(isinstance(x, str) for x in v))
# Each message type: its required fields and its optional fields, each with its type.
MESSAGES: dict[
    str, tuple[dict[str, tuple[str, Callable[[Any], bool]]], dict[str, tuple[str, Callable[[Any], bool]]]]
] = {
    "new": ({"rules": TEXT, "seats": TEXTS}, {"episode": TEXT, "seed": INTEGER_OR_NULL, "pace_ms": INTEGER}),
    "act": ({"action": INTEGER}, {}),
    "move": ({"text": TEXT}, {}),
    "hint": ({}, {}),
    "continue": ({}, {}),
    "pace": ({"ms": INTEGER}, {}),
    "save": ({}, {}),
    "replay": ({"record": OBJECT}, {}),
    "seek": ({"index": INTEGER}, {}),
    "viewer": ({"seat": INTEGER_OR_NULL}, {}),
    "resume": ({"token": TEXT}, {}),
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
    for field, (expected, check) in {**required, **optional}.items():
        if field in message and not check(message[field]):
            got = json.dumps(message[field])
            raise MessageError(f"'{kind}' field {field} must be {expected}, got {got[:40]}{'...' * (len(got) > 40)}")
    return message


def pace_of(value: Any) -> int:
    """A pace in milliseconds, 0..MAX_PACE_MS."""
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= MAX_PACE_MS:
        raise MessageError(f"pace must be an integer number of milliseconds in 0..{MAX_PACE_MS}")
    return value


class Agents:
    """The agents a page may seat: registered names, released policies, policy files given to the server.

    Every policy file is loaded here, once, so a file that is not a policy is
    refused when the server starts (ValueError naming it), not when a page
    seats it; a file's name may not shadow a built-in agent, a released
    policy or ``human``.
    """

    def __init__(self, policies: dict[str, str] | None = None, hint_agent: str = "heuristic"):
        from ..agents.registry import available_agents, load_checkpoint, released_policies

        built_in = set(available_agents()) | set(released_policies())
        self.files: dict[str, Path] = {}
        for name, path in (policies or {}).items():
            if not isinstance(name, str) or not name.strip() or name != name.strip():
                raise ValueError(
                    f"--policy: a policy's name must be non-empty text without surrounding spaces, got {name!r}"
                )
            if name in built_in or name == HUMAN:
                what = "the person's seat" if name == HUMAN else "a built-in agent"
                raise ValueError(f"--policy {name}: {name!r} is {what}; give the policy file another name")
            try:
                load_checkpoint(Path(path))
            except Exception as exc:  # any failure to load is the file's fault: refused by name, not at seating
                raise ValueError(f"--policy {name}: {path} is not a policy file this server can load: {exc}") from None
            self.files[name] = Path(path)
        names = built_in | set(self.files)
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
        self.token: str | None = None  # the table's secret for coming back to it (sent to the page alone)

    async def send(self, message: dict[str, Any]) -> None:
        if self.ws.application_state != WebSocketState.CONNECTED:  # closed by a failed send: a disconnect
            raise WebSocketDisconnect(code=1006)
        await self.ws.send_text(json.dumps(message))

    async def send_state(self) -> None:
        if self.table is not None:
            await self.send({"type": "state", "view": self.table.view()})

    async def serve(self) -> None:
        """Answer the tab's messages until it goes away; the table's slot is freed then."""
        state = self.app.state
        hello = {
            "type": "hello",
            "presets": sorted(PRESETS),
            "players": {name: preset(name).num_players for name in sorted(PRESETS)},
            "agents": state.agents.names,
            "hint_agent": state.agents.hint_agent,
            "max_pace_ms": MAX_PACE_MS,
            "pace_ms": self.pace,
            "max_message_bytes": MAX_MESSAGE_BYTES,
        }
        runner = asyncio.create_task(self.run_agents())
        try:
            await self.send(hello)
            while True:
                event = await self.ws.receive()
                if event["type"] == "websocket.disconnect":
                    break
                await self.handle(event.get("text") if event.get("text") is not None else event.get("bytes"))
        except DISCONNECTS:
            client = self.ws.client
            who = f"{client.host}:{client.port}" if client else "a tab"
            log.warning("disconnect: %s closed while the server was answering it", who)
        finally:
            async with self.lock:  # an agent's move in a thread ends before its table is parked for another tab
                runner.cancel()
                if self.table is not None:
                    self.park()

    def park(self) -> None:
        """The tab went away: its table waits ``reconnect_s`` for a tab that brings its token (a reload, a new
        connection), keeping its slot; then it is closed and the slot freed."""
        state = self.app.state
        table, token, self.table = self.table, self.token, None
        if not state.reconnect_s or token is None:
            state.open_tables -= 1
            return

        def expire() -> None:
            if state.parked.pop(token, None) is not None:
                state.open_tables -= 1

        timer = asyncio.get_running_loop().call_later(state.reconnect_s, expire)
        state.parked[token] = (table, self.pace, timer)

    async def _opened(self, table: LiveTable | ReplayTable) -> None:
        """This tab now holds ``table``, under a new token (sent before its first state; a table whose token never
        reached its tab is not kept for it)."""
        self.table, self.token = table, None
        token = secrets.token_urlsafe(TOKEN_BYTES)
        await self.send({"type": "table", "token": token, "pace_ms": self.pace})
        self.token = token
        await self.send_state()

    async def handle(self, text: Any) -> None:
        """One message: answered with a state, a hint, a record or an error; never an exception."""
        try:
            message = parse_message(text)
            async with self.lock:
                await HANDLERS[message["type"]](self, message)
        except DISCONNECTS:
            raise  # the tab went away: serve() ends the connection
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
        self.pace = pace
        await self._opened(table)

    async def on_act(self, m: dict[str, Any]) -> None:
        await self._play(m["action"])

    async def on_move(self, m: dict[str, Any]) -> None:
        """A move typed as at the terminal (``AS``, ``10h``, ``bid 4``, ``4`` while bidding, ``nil``): read by
        the terminal's parser (:func:`spades_env.play.parse_move`), then played as a click on it is."""
        table = self._live()
        text = m["text"]
        if table.over:
            raise TableError("the game is over")
        try:
            action = parse_move(text, table.env.hand.phase)
        except ValueError as exc:
            raise TableError(f"{text[:40]!r} is not a move: {exc}") from None
        await self._play(action)

    async def _play(self, action: int) -> None:
        table = self._live()
        table.act(action)
        await asyncio.to_thread(self.keep_record, table)
        await self.send_state()

    def keep_record(self, table: LiveTable) -> None:
        """Save the table's game once it is over, when the server keeps records (``record_dir``); once per game,
        under a name of its own. A failure to write is logged, and the table plays on."""
        folder = self.app.state.record_dir
        if folder is None or not table.over or table.recorded:
            return
        table.recorded = True
        name = f"{time.strftime('%Y%m%dT%H%M%SZ', time.gmtime())}-{uuid.uuid4().hex[:12]}.json"
        try:
            save_record(table.record(), folder / name)
        except OSError as exc:
            log.error("record not saved in %s: %s", folder, exc)

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
        await self._opened(table)

    async def on_resume(self, m: dict[str, Any]) -> None:
        """Come back to a table whose tab went away less than ``reconnect_s`` ago (its token, from the "table"
        message); this tab's own table, if any, is closed. A token used once is spent: a new one comes."""
        state = self.app.state
        parked = state.parked.pop(m["token"], None)
        if parked is None:
            raise TableError(
                f"that table is gone: a table waits {state.reconnect_s:g} s for its tab to come back, then closes"
            )
        table, pace, timer = parked
        timer.cancel()
        if self.table is not None:  # this tab's table gives way (its slot with it)
            state.open_tables -= 1
        self.pace = pace
        await self._opened(table)

    async def on_seek(self, m: dict[str, Any]) -> None:
        table = self._replay()
        await asyncio.to_thread(table.seek, m["index"])
        await self.send_state()

    async def on_viewer(self, m: dict[str, Any]) -> None:
        self._replay().set_viewer(m["seat"])
        await self.send_state()

    async def run_agents(self) -> None:
        """Move the agents of the tab's live table, one decision per pace, whenever it is their turn."""
        try:
            await self._run_agents()
        except DISCONNECTS:
            pass  # the tab went away: serve() sees it and frees the table

    async def _run_agents(self) -> None:
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
                        await asyncio.to_thread(self.keep_record, table)
                    except Exception as exc:  # an agent's failure stops its table's agents, not the server
                        log.exception("agent move failed")
                        await self.send({"type": "error", "message": f"the agent failed ({type(exc).__name__})"})
                        break
                    await self.send_state()


HANDLERS: dict[str, Callable[[Connection, dict[str, Any]], Awaitable[None]]] = {
    kind: getattr(Connection, f"on_{kind}") for kind in MESSAGES
}


class App(Starlette):
    """The Starlette app inside its :class:`~spades_env.web.guard.Guard`, so that every response, an
    error page included, carries the security headers and no request of another host name reaches a route."""

    def build_middleware_stack(self) -> Any:
        return Guard(super().build_middleware_stack(), self.state.hosts)


def create_app(
    max_tables: int = MAX_TABLES,
    policies: dict[str, str] | None = None,
    hint_agent: str = "heuristic",
    hosts: Iterable[str] = LOCAL_HOSTS,
    record_dir: str | Path | None = None,
    reconnect_s: float = RECONNECT_S,
) -> Starlette:
    """The app: the page at ``/``, its assets at ``/static``, tables at ``/ws``, answering the host names
    ``hosts`` (and LOCAL_HOSTS) only, saving every finished live game in ``record_dir`` when given, a table
    waiting ``reconnect_s`` for its tab to come back (0: closed at once); ValueError naming a bad argument or
    policy file."""
    if isinstance(reconnect_s, bool) or not isinstance(reconnect_s, (int, float)) or not 0 <= reconnect_s <= 3600:
        raise ValueError(f"reconnect_s must be a number of seconds from 0 to 3600, got {reconnect_s!r}")
    if isinstance(max_tables, bool) or not isinstance(max_tables, int) or max_tables < 1:
        raise ValueError(f"max_tables must be a positive integer, got {max_tables!r}")
    records = None if record_dir is None else usable_folder(record_dir)
    hosts = [hosts] if isinstance(hosts, str) else list(hosts)
    names = allowed_hosts(LOCAL_HOSTS[0], hosts)

    async def page(request: Any) -> FileResponse:
        return FileResponse(STATIC / "index.html", headers=SECURITY_HEADERS)

    async def tables(websocket: WebSocket) -> None:
        await websocket.accept()  # the guard has checked the Host and the Origin
        await Connection(app, websocket).serve()

    app = App(
        routes=[
            Route("/", page),
            Mount("/static", app=StaticFiles(directory=STATIC), name="static"),
            WebSocketRoute("/ws", tables),
        ]
    )
    app.state.hosts = names
    app.state.agents = Agents(policies, hint_agent)
    app.state.max_tables = max_tables
    app.state.open_tables = 0  # tables held by a tab or waiting for one to come back (parked)
    app.state.reconnect_s = float(reconnect_s)
    app.state.parked = {}  # token -> (table, pace, the timer that closes it)
    app.state.record_dir = records
    return app


def usable_folder(path: str | Path) -> Path:
    """The records' folder, made when missing; ValueError unless it is a folder this server can write in."""
    folder = Path(path)
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:  # a file in the way, a parent that cannot be made
        raise ValueError(f"--record-dir {path}: cannot make the folder ({exc.strerror or exc})") from None
    if not folder.is_dir():
        raise ValueError(f"--record-dir {path}: not a folder")
    probe = folder / f".probe-{uuid.uuid4().hex}"
    try:
        probe.write_bytes(b"")
        probe.unlink()
    except OSError as exc:
        raise ValueError(f"--record-dir {path}: this server cannot write there ({exc.strerror or exc})") from None
    return folder


def policy_option(text: str) -> tuple[str, str]:
    """``NAME=PATH`` of ``--policy``: a policy file offered to the page under NAME."""
    name, sep, path = text.partition("=")
    if not sep or not name or not path:
        raise argparse.ArgumentTypeError(f"--policy takes NAME=PATH, got {text!r}")
    if not Path(path).is_file():
        raise argparse.ArgumentTypeError(f"--policy {name}: no file {path!r}")
    return name, path


def port_option(text: str) -> int:
    """A TCP port of ``--port``: 0 (any free port) to MAX_PORT."""
    try:
        port = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"--port takes an integer, got {text[:40]!r}") from None
    if not 0 <= port <= MAX_PORT:
        raise argparse.ArgumentTypeError(f"--port must be in 0..{MAX_PORT} (0: any free port), got {port}")
    return port


def host_option(text: str) -> str:
    """A host name of ``--allowed-host`` (no scheme, no port)."""
    try:
        allowed_hosts(LOCAL_HOSTS[0], [text])
    except ValueError as exc:
        raise argparse.ArgumentTypeError(f"--allowed-host: {exc}") from None
    return text


def build_parser() -> argparse.ArgumentParser:
    """The command line of ``spades-web``."""
    parser = argparse.ArgumentParser(prog="spades-web", description="A Spades table in the browser.")
    parser.add_argument("--host", default="127.0.0.1", help="address to listen on (default: this machine only)")
    parser.add_argument("--port", type=port_option, default=8000, help="port (default 8000; 0: any free port)")
    parser.add_argument(
        "--allowed-host", type=host_option, action="append", default=[], metavar="NAME",
        help="a host name the pages may be opened with, besides 127.0.0.1, localhost, [::1] and --host "
        "(repeatable; needed with --host 0.0.0.0: the machine's name or address)",
    )  # fmt: skip
    parser.add_argument("--max-tables", type=int, default=MAX_TABLES, help="tables open at once (default 8)")
    parser.add_argument(
        "--policy", type=policy_option, action="append", default=[], metavar="NAME=PATH",
        help="offer a policy file as the agent NAME (repeatable; loaded at start-up)",
    )  # fmt: skip
    parser.add_argument("--hint-agent", default="heuristic", help="the agent whose move a hint shows")
    parser.add_argument(
        "--record-dir", default=None, metavar="DIR",
        help="save every finished game here as a record (spades-replay reads it; training.imitate_records learns from it)",
    )  # fmt: skip
    return parser


def listen(host: str, port: int) -> socket.socket:
    """A socket bound to ``host:port`` (port 0: a free one); OSError when the address cannot be had."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((host.strip("[]"), port))
    except BaseException:
        sock.close()
        raise
    return sock


def page_url(host: str, port: int) -> str:
    """The address to open for a server listening on ``host:port``."""
    shown = "localhost" if host == "127.0.0.1" else f"[{host.strip('[]')}]" if ":" in host else host
    return f"http://{shown}:{port}/"


def main(argv: list[str] | None = None) -> int:
    """Serve the table until interrupted."""
    import uvicorn

    args = build_parser().parse_args(argv)
    policies = dict(args.policy)
    if len(policies) < len(args.policy):
        twice = sorted({n for n, _ in args.policy if [m for m, _ in args.policy].count(n) > 1})
        print(f"spades-web: --policy names {twice} more than once", file=sys.stderr)
        return 2
    try:
        app = create_app(
            args.max_tables, policies, args.hint_agent, [args.host, *args.allowed_host], record_dir=args.record_dir
        )
    except ValueError as exc:
        print(f"spades-web: {exc}", file=sys.stderr)
        return 2
    try:
        sock = listen(args.host, args.port)
    except OSError as exc:
        print(f"spades-web: cannot listen on {args.host} port {args.port}: {exc.strerror or exc}", file=sys.stderr)
        return 2
    port = sock.getsockname()[1]
    if args.host not in LOCAL_HOSTS:
        print(f"spades-web: listening on {args.host}: anyone who can reach it can open tables", file=sys.stderr)
    print(f"spades-web: open {page_url(args.host, port)}", flush=True)
    config = uvicorn.Config(app, log_level="warning", ws_max_size=2 * MAX_MESSAGE_BYTES)
    uvicorn.Server(config).run(sockets=[sock])
    return 0
