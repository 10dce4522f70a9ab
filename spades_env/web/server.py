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
one line; its place waits ``reconnect_s`` (60 s) for a tab that brings its
token (``resume``: a reload, a dropped connection), and its table keeps its
slot meanwhile.

Several people at one table (:class:`Room`): the tab that opens a table is
its host and sits in one person's seat; the others are claimed by the
table's invite (``join``), one tab per seat; spectators come only when the
host allows them (``SPECTATORS``), at most ``MAX_MEMBERS`` tabs a table.
Each tab gets its own view (its seat's knowledge; a spectator's as allowed).
A person's seat whose tab has been gone ``reconnect_s`` is played by the
host's substitute agent to the end; a table with nobody left closes.

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
import contextlib
import json
import logging
import secrets
import socket
import sys
import time
import uuid
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass
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
from .session import PUBLIC, LiveTable, ReplayTable, TableError

STATIC = Path(__file__).parent / "static"
MAX_MESSAGE_BYTES = 1_000_000  # a record of a 100-hand game is about 100 kB
MAX_TABLES = 8
MAX_PACE_MS = 5000
DEFAULT_PACE_MS = 600
MAX_PORT = 65535
TOKEN_BYTES = 18  # a table's token: 144 random bits
RECONNECT_S = 60.0  # how long a table waits for its tab to come back (a reload, a dropped connection)
MAX_MEMBERS = 16  # tabs at one table: its people and its spectators
SEND_TIMEOUT_S = 10.0  # a tab that takes longer to accept a message is closed: it must not hold up its table
# Who may watch a table by its invite: nobody; spectators who see what is played; spectators who see every hand.
SPECTATORS = ("off", "public", "hands")
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
    "new": (
        {"rules": TEXT, "seats": TEXTS},
        {
            "episode": TEXT,
            "seed": INTEGER_OR_NULL,
            "pace_ms": INTEGER,
            "seat": INTEGER_OR_NULL,
            "spectators": TEXT,
            "substitute": TEXT,
        },
    ),
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
    "join": ({"invite": TEXT}, {"seat": INTEGER_OR_NULL}),
    "fill": ({"seat": INTEGER_OR_NULL}, {}),
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
        # the page leaves these out of its choices; a seat or substitute among them is refused
        self.unplayable = self._unplayable()

    def _unplayable(self) -> dict[str, dict[str, str]]:
        """Per preset, the offered agents that cannot play it and why (``check_plays``; no server path in the
        reasons): each agent built once, at start-up, so that one that fails to build is refused by name then."""
        from ..agents import check_plays

        out: dict[str, dict[str, str]] = {name: {} for name in sorted(PRESETS)}
        for agent_name in self.names:
            try:
                agent = self.make(agent_name, 0, 0)
            except Exception as exc:  # a plugin agent that needs options, a file that went away: named at start
                raise ValueError(f"agent {agent_name!r} cannot be built: {type(exc).__name__}: {exc}") from None
            for rules_name in out:
                try:
                    check_plays(agent, preset(rules_name))
                except ValueError as exc:
                    out[rules_name][agent_name] = str(exc)
        return out

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


@dataclass(eq=False)
class Member:
    """A tab's place at a table: its seat (None: watching), whether it opened the table, its token."""

    seat: int | None
    host: bool
    token: str


class Room:
    """One table and the tabs at it: its people (one tab per seat), spectators, its agents' runner, its invite.

    A tab that goes away keeps its place for ``reconnect_s`` (parked under its token); then a person's seat goes
    to the host's substitute agent, and when nobody is left at the table (no tab, none parked) it closes and its
    slot is freed. The agents move only while a tab is at the table. ``lock`` guards the table: every change and
    every view is taken under it.
    """

    def __init__(self, state: Any, table: LiveTable | ReplayTable, pace: int, spectators: str, substitute: str):
        self.state = state
        self.table = table
        self.pace = pace
        self.spectators = spectators
        self.substitute = substitute
        self.lock = asyncio.Lock()
        self.wake = asyncio.Event()
        self.members: dict[Connection, Member] = {}
        self.coming: dict[Connection, int | None] = {}  # tabs let in by an invite, on their way (their seat held)
        self.parked: dict[str, tuple[Member, asyncio.TimerHandle]] = {}  # token -> the tab gone away, its timer
        self.closed = False
        self.expiring: set[asyncio.Task] = set()  # the tasks that give up the places of tabs that did not come back
        live = isinstance(table, LiveTable)
        shared = live and (len(table.people) > 1 or spectators != SPECTATORS[0])
        self.invite = secrets.token_urlsafe(TOKEN_BYTES) if shared else None
        if self.invite:
            state.invites[self.invite] = self
        state.rooms.add(self)
        self.runner = asyncio.create_task(self.run_agents())

    # ------------------------------------------------------------------ who sits
    def places(self) -> list[Member]:
        """The members at the table and those parked (away, may come back)."""
        return [*self.members.values(), *(member for member, _ in self.parked.values())]

    def holder(self, seat: int) -> Member | None:
        """The member, at the table or parked, who holds ``seat``."""
        return next((member for member in self.places() if member.seat == seat), None)

    def deserted(self) -> bool:
        """Whether nobody is at the table, away from it or on the way to it (it closes then)."""
        return not (self.members or self.parked or self.coming)

    def open_seats(self) -> list[int]:
        """The people's seats nobody holds nor is coming to (claimable by the invite)."""
        people = self.table.people if isinstance(self.table, LiveTable) else set()
        coming = set(self.coming.values())
        return sorted(s for s in people if self.holder(s) is None and s not in coming)

    def tabs(self) -> int:
        """The tabs this table counts against MAX_MEMBERS: here, away (parked) and on their way."""
        return len(self.members) + len(self.parked) + len(self.coming)

    def alone(self, connection: Connection) -> bool:
        """Whether ``connection`` is all there is at this table (it closes when that tab leaves)."""
        return set(self.members) == {connection} and not self.parked and not self.coming

    async def enter(
        self, connection: Connection, seat: int | None, host: bool, returning: Member | None = None
    ) -> None:
        """``connection`` takes its place (``seat``, None to watch) under a new token, sent before its first
        state; the others see it. A person becomes the host of a table that has none. When the token does not
        reach the tab, the place is not kept for it: a ``returning`` member (a resume) goes back to the park
        under its old token, a new place is open again."""
        if seat is not None:
            self.table.sit(seat)  # TableError (nothing changed) for a seat that is no person's
        host = host or (seat is not None and not any(member.host for member in self.places()))
        token = secrets.token_urlsafe(TOKEN_BYTES)
        member = Member(seat, host, token)
        self.members[connection] = member
        connection.room = self
        message = {
            "type": "table", "token": token, "pace_ms": self.pace, "seat": seat, "host": host, "invite": self.invite,
        }  # fmt: skip
        try:
            await asyncio.wait_for(connection.send(message), SEND_TIMEOUT_S)
        except (*DISCONNECTS, asyncio.TimeoutError) as exc:  # the token never reached the tab
            if isinstance(exc, asyncio.TimeoutError):
                connection.drop()
            self.members.pop(connection)
            connection.room = None
            if returning is not None:
                self.park(returning)
            else:
                self.withdraw(member)
            await self.broadcast()
            raise WebSocketDisconnect(code=1006) from None
        await self.broadcast()
        self.wake.set()

    def leave(self, connection: Connection, park: bool) -> None:
        """``connection`` leaves: parked for ``reconnect_s`` when ``park`` (a reload, a dropped connection),
        its place given up at once otherwise (a new table, a join elsewhere)."""
        member = self.members.pop(connection)
        connection.room = None
        self.wake.set()  # the hand-end hold may have waited for this tab alone
        if park and self.state.reconnect_s:
            self.park(member)
        else:
            self.vacate(member)

    def park(self, member: Member) -> None:
        """``member`` is away: its place is kept under its token for ``reconnect_s``."""
        timer = asyncio.get_running_loop().call_later(self.state.reconnect_s, self._expire, member.token)
        self.parked[member.token] = (member, timer)
        self.state.tokens[member.token] = self
        if member.seat is not None:
            self.table.stand(member.seat)

    def come_back(self, token: str) -> Member | None:
        """The parked member of ``token``, taken out of the park (None when it is not here)."""
        parked = self.parked.pop(token, None)
        self.state.tokens.pop(token, None)
        if parked is None:
            return None
        parked[1].cancel()
        return parked[0]

    def _expire(self, token: str) -> None:
        if not self.closed and token in self.parked:
            task = asyncio.get_running_loop().create_task(self._gone(token))
            self.expiring.add(task)
            task.add_done_callback(self.expiring.discard)

    async def _gone(self, token: str) -> None:
        """The tab of ``token`` did not come back in time (taken out of the park under the lock, so that its seat
        is never open to a join before it goes to the substitute)."""
        async with self.lock:
            member = None if self.closed else self.come_back(token)
            if member is not None:
                self.vacate(member)
                if not self.closed:
                    await self.broadcast()

    def vacate(self, member: Member) -> None:
        """A member's place is given up for good: its seat goes to the substitute agent while others are at the
        table; a host's part passes to the first person here (or, with none here, the seats nobody is in go to
        the substitute); the table closes when nobody is left."""
        if self.deserted():
            self.close()
            return
        table = self.table
        if member.seat is not None and isinstance(table, LiveTable) and member.seat in table.people:
            if table.over:
                table.stand(member.seat)
            else:
                table.replace(member.seat, self.substitute)
        if member.host and isinstance(table, LiveTable) and not self.pass_host() and not table.over:
            for seat in self.open_seats():  # nobody here to seat an agent where nobody is: done now
                table.replace(seat, self.substitute)
        self.wake.set()

    def pass_host(self) -> bool:
        """The host's part goes to the first person here (by seat); False when no person is here (the next
        person who comes takes it)."""
        people = sorted((m.seat, id(m), m) for m in self.members.values() if m.seat is not None)
        if people:
            people[0][2].host = True
        return bool(people)

    def withdraw(self, member: Member) -> None:
        """A place that was never taken (its token did not reach the tab): its seat is open again, a host's part
        passes on; the table closes when nobody is left."""
        if self.deserted():
            self.close()
            return
        if member.seat is not None and isinstance(self.table, LiveTable) and member.seat in self.table.people:
            self.table.stand(member.seat)
        if member.host:
            self.pass_host()

    def close(self) -> None:
        """The table is closed: its runner stops, its tokens and invite are spent, its slot is freed."""
        self.closed = True
        self.runner.cancel()
        for task in self.expiring:
            task.cancel()
        for token, (_, timer) in self.parked.items():
            timer.cancel()
            self.state.tokens.pop(token, None)
        self.parked.clear()
        if self.invite:
            self.state.invites.pop(self.invite, None)
        self.state.rooms.discard(self)

    # ------------------------------------------------------------------ what they see
    def view_for(self, member: Member) -> dict[str, Any]:
        """The table as ``member`` sees it: its seat's view; every hand for the host of agents alone or a
        spectator when the host allows it; only what is played for other spectators."""
        table = self.table
        if isinstance(table, ReplayTable):
            return table.view()
        if member.seat is not None:
            viewer: int | None = member.seat
        elif not table.people or self.spectators == "hands":
            viewer = None
        else:
            viewer = PUBLIC
        view = table.view(viewer)
        view["host"] = member.host
        view["people"] = [
            {"seat": s, "state": "open" if h is None else "here" if h in self.members.values() else "away"}
            for s in sorted(table.people)
            for h in [self.holder(s)]
        ]
        view["spectators"] = sum(m.seat is None and not m.host for m in self.members.values())
        return view

    async def broadcast(self) -> None:
        """Every tab at the table gets its view, all at once (a slow tab costs one SEND_TIMEOUT_S at most)."""
        views = [(connection, {"type": "state", "view": self.view_for(m)}) for connection, m in self.members.items()]
        await asyncio.gather(*(connection.deliver(view) for connection, view in views))

    async def tell_all(self, message: dict[str, Any]) -> None:
        await asyncio.gather(*(connection.deliver(message) for connection in list(self.members)))

    # ------------------------------------------------------------------ agents
    async def run_agents(self) -> None:
        """Move the table's agents, one decision per pace, whenever it is their turn and a tab is here."""
        while True:
            await self.wake.wait()
            self.wake.clear()
            table = self.table
            while isinstance(table, LiveTable) and self.members and table.agent_turn():
                await asyncio.sleep(self.pace / 1000)
                async with self.lock:
                    if self.closed or not self.members or not table.agent_turn():
                        break  # closed, left, or the turn changed while waiting
                    try:
                        await asyncio.to_thread(table.agent_move)
                        await asyncio.to_thread(keep_record, self.state, table)
                    except Exception as exc:  # an agent's failure stops its table's agents, not the server
                        log.exception("agent move failed")
                        await self.tell_all({"type": "error", "message": f"the agent failed ({type(exc).__name__})"})
                        break
                    await self.broadcast()


def keep_record(state: Any, table: LiveTable) -> None:
    """Save the table's game once it is over, when the server keeps records (``record_dir``); once per game,
    under a name of its own. A failure to write is logged, and the table plays on."""
    folder = state.record_dir
    if folder is None or not table.over or table.recorded:
        return
    table.recorded = True
    name = f"{time.strftime('%Y%m%dT%H%M%SZ', time.gmtime())}-{uuid.uuid4().hex[:12]}.json"
    try:
        save_record(table.record(), folder / name)
    except OSError as exc:
        log.error("record not saved in %s: %s", folder, exc)


class Connection:
    """One browser tab: its place at a table (a seat, or watching), its hint agent."""

    def __init__(self, app: Starlette, websocket: WebSocket):
        self.app = app
        self.ws = websocket
        self.room: Room | None = None
        self.lock = asyncio.Lock()  # one message of this tab at a time
        self.sending = asyncio.Lock()  # one frame at a time: the table's runner and other tabs send here too
        self.hinter: Any = None
        self.dropping: asyncio.Task | None = None  # the closing of a tab that did not keep up (held: not collected)

    async def send(self, message: dict[str, Any]) -> None:
        async with self.sending:
            if self.ws.application_state != WebSocketState.CONNECTED:  # closed by a failed send: a disconnect
                raise WebSocketDisconnect(code=1006)
            await self.ws.send_text(json.dumps(message))

    async def deliver(self, message: dict[str, Any]) -> None:
        """Send a message of the table's (a move, another tab's doing): a tab gone away is left to its own
        connection to notice, and a tab that does not take it within SEND_TIMEOUT_S is closed, so that no tab
        holds up its table."""
        try:
            await asyncio.wait_for(self.send(message), SEND_TIMEOUT_S)
        except DISCONNECTS:
            pass
        except asyncio.TimeoutError:
            log.warning("a tab took more than %g s to take a message: closed", SEND_TIMEOUT_S)
            self.drop()

    def drop(self) -> None:
        """Close a tab that does not keep up (its connection then ends as a tab gone away)."""
        if self.dropping is None:
            self.dropping = asyncio.get_running_loop().create_task(self._close(1008))

    async def _close(self, code: int) -> None:
        with contextlib.suppress(Exception):
            await self.ws.close(code=code)

    async def serve(self) -> None:
        """Answer the tab's messages until it goes away; its place at a table is parked then."""
        state = self.app.state
        hello = {
            "type": "hello",
            "presets": sorted(PRESETS),
            "players": {name: preset(name).num_players for name in sorted(PRESETS)},
            "agents": state.agents.names,
            "unplayable": state.agents.unplayable,
            "hint_agent": state.agents.hint_agent,
            "spectators": list(SPECTATORS),
            "max_pace_ms": MAX_PACE_MS,
            "pace_ms": DEFAULT_PACE_MS,
            "max_message_bytes": MAX_MESSAGE_BYTES,
        }
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
            room = self.room
            if room is not None:
                async with room.lock:  # an agent's move in a thread ends before the place is parked
                    if self.room is room:
                        room.leave(self, park=True)
                        await room.broadcast()

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
        if self.room is not None:
            self.room.wake.set()

    # ------------------------------------------------------------------ places
    def _check_room(self) -> None:
        """TableError unless this tab may open a table (it keeps its slot when its table closes as it goes)."""
        state = self.app.state
        frees = self.room is not None and self.room.alone(self)
        if not frees and len(state.rooms) >= state.max_tables:
            raise TableError(f"this server holds its limit of {state.max_tables} open tables; close one and retry")

    async def _leave(self) -> None:
        """Give up this tab's place at its table (a new table, a join or a return elsewhere)."""
        room = self.room
        if room is not None:
            async with room.lock:
                room.leave(self, park=False)
                if not room.closed:
                    await room.broadcast()

    async def _open(
        self, table: LiveTable | ReplayTable, pace: int, spectators: str, substitute: str, seat: int | None = None
    ) -> None:
        """This tab opens ``table`` as its host, in the person's ``seat`` (by default the first; watching when the
        table has none); the other people's seats are open for the invite."""
        self._check_room()  # again: the table was built in a thread
        await self._leave()
        self._check_room()  # and once this tab has left: another tab may have taken the slot meanwhile
        room = Room(self.app.state, table, pace, spectators, substitute)
        people = sorted(table.people) if isinstance(table, LiveTable) else []
        mine = seat if seat is not None else people[0] if people else None
        for other in people:
            if other != mine:
                table.stand(other)
        async with room.lock:
            await room.enter(self, mine, host=True)

    def _place(self) -> tuple[Room, Member]:
        if self.room is None:
            raise TableError("start a game first")
        return self.room, self.room.members[self]

    def _live(self) -> tuple[Room, Member, LiveTable]:
        room, member = self._place()
        if not isinstance(room.table, LiveTable):
            raise TableError("this is a replay: start a game to play")
        return room, member, room.table

    def _person(self) -> tuple[Room, int, LiveTable]:
        """The tab's table and seat, for a move: TableError for a spectator."""
        room, member, table = self._live()
        if member.seat is None:
            raise TableError("you are watching this table: its people play" if table.people else
                             "no person sits at this table: it is watched, not played")  # fmt: skip
        return room, member.seat, table

    def _host(self, what: str) -> tuple[Room, Member]:
        room, member = self._place()
        if not member.host:
            raise TableError(f"only the table's host {what}")
        return room, member

    # ------------------------------------------------------------------ messages
    async def on_new(self, m: dict[str, Any]) -> None:
        state = self.app.state
        pace = pace_of(m.get("pace_ms", self.room.pace if self.room else DEFAULT_PACE_MS))
        spectators = m.get("spectators", SPECTATORS[0])
        if spectators not in SPECTATORS:
            raise TableError(f"spectators must be one of {list(SPECTATORS)}, got {spectators[:40]!r}")
        if spectators == "hands" and m["seats"].count(HUMAN) > 1:
            raise TableError(
                "spectators who see every hand come only to a table of one person: the people could watch each other"
            )
        substitute = m.get("substitute", state.agents.hint_agent)
        if substitute not in state.agents.names or substitute == HUMAN:
            raise TableError(f"unknown substitute agent {substitute[:40]!r}; this server offers {state.agents.names}")
        why = state.agents.unplayable.get(m["rules"], {}).get(substitute)
        if why is not None and HUMAN in m["seats"]:  # refused now: a person who leaves would have nobody to play on
            raise TableError(f"the substitute {substitute} cannot play {m['rules']}: {why}")
        self._check_room()  # before the agents are loaded
        seat = m.get("seat")
        if seat is not None and (seat < 0 or seat >= len(m["seats"]) or m["seats"][seat] != HUMAN):
            raise TableError(f"seat {seat} is not a person's seat: the host sits in one of the 'human' seats")
        table = await asyncio.to_thread(
            LiveTable, m["rules"], m["seats"], state.agents.make, m.get("episode", "game"), m.get("seed")
        )
        await self._open(table, pace, spectators, substitute, seat)

    async def on_replay(self, m: dict[str, Any]) -> None:
        self._check_room()  # before the record is replayed
        table = await asyncio.to_thread(ReplayTable, m["record"])
        await self._open(table, self.room.pace if self.room else DEFAULT_PACE_MS, SPECTATORS[0], "")

    async def on_join(self, m: dict[str, Any]) -> None:
        """Take a seat at a table by its invite (``seat``: that seat; null: watch; absent: the first open seat,
        else watch when the table allows it). The place is held while this tab leaves its own table."""
        room = self.app.state.invites.get(m["invite"])
        if room is None:
            raise TableError("no table has that invite: it may have closed")
        if room is self.room or self in room.coming:
            raise TableError("you are at this table already")
        async with room.lock:
            if room.tabs() >= MAX_MEMBERS:
                raise TableError(f"this table is full ({MAX_MEMBERS} tabs)")
            open_seats = room.open_seats()
            seat = m["seat"] if "seat" in m else (open_seats[0] if open_seats else None)
            if seat is None and room.spectators == SPECTATORS[0]:
                raise TableError("no seat is open at this table, and it takes no spectators")
            if seat is not None and seat not in open_seats:
                people = room.table.people
                raise TableError(
                    f"seat {seat} is taken" if seat in people else f"seat {seat} is not a person's seat at this table"
                )
            room.coming[self] = seat  # held: no other join takes it, and the table counts this tab
        try:
            await self._leave()
            async with room.lock:
                room.coming.pop(self, None)
                if room.closed:
                    raise TableError("that table has closed")
                await room.enter(self, seat, host=False)
        finally:
            if room.coming.pop(self, None) is not None and room.deserted():
                room.close()  # cancelled on its way in, and nobody else is at the table

    async def on_resume(self, m: dict[str, Any]) -> None:
        """Come back to a table whose tab went away less than ``reconnect_s`` ago (its token, from the "table"
        message), to the same place; this tab's own place, if any, is given up. A token used once is spent."""
        state = self.app.state
        room = state.tokens.get(m["token"])
        if room is None or room.closed:
            raise TableError(
                f"that table is gone: a table waits {state.reconnect_s:g} s for its tab to come back, then closes"
            )
        if room is self.room:
            raise TableError("this tab is at that table already")
        await self._leave()
        async with room.lock:
            member = room.come_back(m["token"])
            if member is None or room.closed:
                raise TableError("that table is gone")
            await room.enter(self, member.seat, member.host, returning=member)

    async def on_act(self, m: dict[str, Any]) -> None:
        await self._play(m["action"])

    async def on_move(self, m: dict[str, Any]) -> None:
        """A move typed as at the terminal (``AS``, ``10h``, ``bid 4``, ``4`` while bidding, ``nil``): read by
        the terminal's parser (:func:`spades_env.play.parse_move`), then played as a click on it is."""
        _, _, table = self._person()
        text = m["text"]
        if table.over:
            raise TableError("the game is over")
        try:
            action = parse_move(text, table.env.hand.phase)
        except ValueError as exc:
            raise TableError(f"{text[:40]!r} is not a move: {exc}") from None
        await self._play(action)

    async def _play(self, action: Any) -> None:
        room, seat, table = self._person()
        async with room.lock:
            table.act(action, seat)
            await asyncio.to_thread(keep_record, self.app.state, table)
            await room.broadcast()

    async def on_hint(self, m: dict[str, Any]) -> None:
        room, seat, table = self._person()
        agents = self.app.state.agents
        if self.hinter is None:
            self.hinter = await asyncio.to_thread(agents.make, agents.hint_agent, 0, 0)
        async with room.lock:
            action = await asyncio.to_thread(table.hint, self.hinter, seat, agents.hint_agent)
        await self.send({"type": "hint", "action": action, "name": action_name(action), "agent": agents.hint_agent})

    async def on_continue(self, m: dict[str, Any]) -> None:
        room, seat, table = self._person()
        async with room.lock:
            table.resume(seat)
            await room.broadcast()

    async def on_pace(self, m: dict[str, Any]) -> None:
        pace = pace_of(m["ms"])
        if self.room is not None:
            self._host("sets the agents' pace")[0].pace = pace

    async def on_fill(self, m: dict[str, Any]) -> None:
        """The host seats the substitute agent in a person's seat nobody is in (open, or its person away); in every
        such seat when ``seat`` is null."""
        room, _ = self._host("seats an agent for a person")
        _, _, table = self._live()
        async with room.lock:
            here = [member.seat for member in room.members.values()] + list(room.coming.values())  # or on the way
            if m["seat"] is None:
                seats = [s for s in sorted(table.people) if s not in here]
                if not seats:
                    raise TableError("every person's seat has its person here")
            elif m["seat"] not in table.people:
                raise TableError(f"seat {m['seat']} is not a person's seat at this table")
            elif m["seat"] in here:
                raise TableError(f"seat {m['seat']} is played by a person who is here or on the way")
            else:
                seats = [m["seat"]]
            for seat in seats:
                holder = room.holder(seat)
                if holder is not None:
                    room.come_back(holder.token)  # the person away loses the seat
                table.replace(seat, room.substitute)
            await room.broadcast()

    async def on_save(self, m: dict[str, Any]) -> None:
        """The record (every hand as dealt): once the game is over, or meanwhile to whoever sees every hand
        already or is the one person at the table."""
        room, member, table = self._live()
        async with room.lock:  # not in the middle of an agent's move
            if not table.over:
                people = table.specs.count(HUMAN)
                sees_all = member.seat is None and room.view_for(member)["viewer"] is None
                if not (sees_all or (member.seat is not None and people == 1)):
                    raise TableError("the record shows every hand: it is saved once the game is over")
            record = table.record()
        await self.send({"type": "record", "record": record})

    def _replay(self) -> tuple[Room, ReplayTable]:
        if self.room is None or not isinstance(self.room.table, ReplayTable):
            raise TableError("open a record to replay first")
        return self.room, self.room.table

    async def on_seek(self, m: dict[str, Any]) -> None:
        room, _ = self._replay()
        async with room.lock:
            await asyncio.to_thread(room.table.seek, m["index"])
            await room.broadcast()

    async def on_viewer(self, m: dict[str, Any]) -> None:
        room, _ = self._replay()
        async with room.lock:
            room.table.set_viewer(m["seat"])
            await room.broadcast()


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
    app.state.rooms = set()  # the open tables (Room), each held by its tabs or waiting for one to come back
    app.state.reconnect_s = float(reconnect_s)
    app.state.tokens = {}  # token of a tab gone away -> its Room (where it is parked)
    app.state.invites = {}  # invite -> the Room it opens to others
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
