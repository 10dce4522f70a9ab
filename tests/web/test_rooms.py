"""Tables of several tabs under races the network can bring about: messages handled in the same turns of the
event loop, on the real ``Room`` and ``Connection`` with stand-in sockets (no server, no network)."""

from __future__ import annotations

import asyncio
import json
import types

import pytest

pytest.importorskip("starlette")  # the [web] extra

from starlette.websockets import WebSocketDisconnect, WebSocketState  # noqa: E402

from spades_env.web.server import MAX_MEMBERS, Agents, Connection  # noqa: E402
from spades_env.web.session import LiveTable  # noqa: E402

AGENTS = Agents()


class Socket:
    """A tab's socket that takes every message (and yields, as a real send does)."""

    application_state = WebSocketState.CONNECTED
    client = None

    async def send_text(self, text: str) -> None:
        await asyncio.sleep(0)


def server(max_tables: int = 8, reconnect_s: float = 0) -> types.SimpleNamespace:
    state = types.SimpleNamespace(
        reconnect_s=reconnect_s, tokens={}, invites={}, rooms=set(), record_dir=None, agents=AGENTS,
        max_tables=max_tables,
    )  # fmt: skip
    return types.SimpleNamespace(state=state)


def tab(app) -> Connection:
    return Connection(app, Socket())


def table(seats: list[str], seed: int = 1) -> LiveTable:
    return LiveTable("standard", seats, AGENTS.make, "hand", seed)


def test_a_seat_whose_person_did_not_come_back_is_never_open_to_a_join_before_the_agent_takes_it():
    async def run():
        app = server(reconnect_s=30)
        host = tab(app)
        await host._open(table(["human", "random", "human", "random"]), 5000, "off", "random", 0)
        room = host.room
        guest = tab(app)
        await guest.on_join({"invite": room.invite})
        room.leave(guest, park=True)
        token = next(iter(room.parked))
        room._expire(token)  # the minute is up, and in the same turn of the loop a join comes for that seat
        late = tab(app)
        with pytest.raises(Exception, match="seat 2 is taken"):
            await late.on_join({"invite": room.invite, "seat": 2})
        await asyncio.sleep(0.01)
        assert room.table.names[2] == "random (seat 2)" and room.table.people == {0}
        room.close()

    asyncio.run(run())


def test_tabs_joining_at_once_stay_within_the_table_s_limit():
    async def run():
        app = server()
        opened = []
        for seed in range(3):
            host = tab(app)
            await host._open(table(["human", "random", "random", "random"], seed), 5000, "public", "random", 0)
            opened.append(host.room)
        first, *others = opened
        watchers = [tab(app) for _ in range(30)]  # 30 spectators of the other tables, each joining the first
        for i, watcher in enumerate(watchers):
            await watcher.on_join({"invite": others[i % 2].invite, "seat": None})
        message = json.dumps({"type": "join", "invite": first.invite, "seat": None})
        await asyncio.gather(*(watcher.handle(message) for watcher in watchers))
        assert first.tabs() == MAX_MEMBERS
        for room in list(app.state.rooms):
            room.close()

    asyncio.run(run())


def test_tables_opened_at_once_stay_within_the_server_s_limit():
    async def run():
        app = server(max_tables=2)
        host = tab(app)
        await host._open(table(["human", "random", "random", "random"]), 5000, "public", "random", 0)
        watcher, newcomer = tab(app), tab(app)
        await watcher.on_join({"invite": host.room.invite, "seat": None})
        seats = ["human", "random", "random", "random"]
        results = await asyncio.gather(
            watcher._open(table(seats, 2), 5000, "off", "random", 0),
            newcomer._open(table(seats, 3), 5000, "off", "random", 0),
            return_exceptions=True,
        )
        assert len(app.state.rooms) == 2
        assert sum(isinstance(r, Exception) and "limit of 2 open tables" in str(r) for r in results) == 1
        for room in list(app.state.rooms):
            room.close()

    asyncio.run(run())


class GoneSocket(Socket):
    """A socket whose tab has gone: every send fails as a closed one does."""

    application_state = WebSocketState.DISCONNECTED


def test_a_seat_on_its_way_in_is_not_filled_and_the_join_lands_in_it():
    async def run():
        app = server()
        host = tab(app)
        await host._open(table(["human", "random", "human", "random"]), 5000, "off", "random", 0)
        room = host.room
        elsewhere, guest = tab(app), tab(app)  # the guest sits at a table of its own first
        await elsewhere._open(table(["human", "random", "random", "random"], 2), 5000, "public", "random", 0)
        await guest.on_join({"invite": elsewhere.room.invite, "seat": None})
        async with elsewhere.room.lock:  # the guest's leaving waits here: its join is on its way
            joining = asyncio.create_task(guest.on_join({"invite": room.invite}))
            await asyncio.sleep(0.01)
            assert room.coming == {guest: 2}
            with pytest.raises(Exception, match="every person's seat has its person here"):
                await host.on_fill({"seat": None})
            with pytest.raises(Exception, match="here or on the way"):
                await host.on_fill({"seat": 2})
        await joining
        assert room.members[guest].seat == 2 and room.table.people == {0, 2} and not room.coming
        for open_room in list(app.state.rooms):
            open_room.close()

    asyncio.run(run())


async def guest_away():
    """A table of two people whose guest (seat 2) has gone away: the app, the host, the table, the guest's token."""
    app = server(reconnect_s=30)
    host, guest = tab(app), tab(app)
    await host._open(table(["human", "random", "human", "random"]), 5000, "off", "random", 0)
    room = host.room
    await guest.on_join({"invite": room.invite})
    room.leave(guest, park=True)
    return app, host, room, next(iter(room.parked))


def test_a_person_who_comes_back_to_a_table_whose_host_left_becomes_its_host():
    async def run():
        app, host, room, token = await guest_away()
        await host._leave()  # and the host goes for good
        back = tab(app)
        await back.on_resume({"token": token})
        assert room.members[back].host and room.members[back].seat == 2
        room.close()

    asyncio.run(run())


def test_a_return_whose_token_does_not_reach_the_tab_keeps_the_seat_parked():
    async def run():
        app, host, room, token = await guest_away()
        flaky = Connection(app, GoneSocket())
        with pytest.raises(WebSocketDisconnect):
            await flaky.on_resume({"token": token})
        assert token in room.parked and app.state.tokens[token] is room and 2 in room.table.empty
        again = tab(app)
        await again.on_resume({"token": token})  # the same token still brings the person back
        assert room.members[again].seat == 2
        room.close()

    asyncio.run(run())
