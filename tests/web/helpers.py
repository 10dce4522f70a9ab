"""A real server for the web tests: uvicorn in a thread on a free local port, and a WebSocket client."""

from __future__ import annotations

import contextlib
import json
import socket
import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest

uvicorn = pytest.importorskip("uvicorn")
sync_client = pytest.importorskip("websockets.sync.client")

from spades_env.web.server import create_app  # noqa: E402 - after the skips: the [web] extra may be absent


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextlib.contextmanager
def serving(**options: Any) -> Iterator[str]:
    """The app of ``create_app(**options)`` served on 127.0.0.1; yields its base URL, stops it after."""
    port = free_port()
    config = uvicorn.Config(create_app(**options), host="127.0.0.1", port=port, log_level="warning", lifespan="off")
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not server.started:
        if time.monotonic() > deadline or not thread.is_alive():
            raise RuntimeError("the test server did not start")
        time.sleep(0.02)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=10)


class Tab:
    """A WebSocket client as a page would be: sends messages, reads replies (the hello first)."""

    def __init__(self, base: str, origin: str | None = None):
        url = base.replace("http://", "ws://") + "/ws"
        self._stack = contextlib.ExitStack()
        self.ws = self._stack.enter_context(sync_client.connect(url, origin=origin, max_size=None, open_timeout=10))
        self.hello = self.receive()
        assert self.hello["type"] == "hello"

    def send(self, message: Any) -> None:
        self.ws.send(message if isinstance(message, (str, bytes)) else json.dumps(message))

    token: str | None = None  # the table's token, from the "table" message a new table starts with
    place: dict[str, Any] | None = None  # that "table" message: token, seat, host, invite
    view: dict[str, Any] | None = None  # the last state's view read (read past or returned)

    def receive(self, timeout: float = 30) -> dict[str, Any]:
        """The next message, the "table" message kept as the page keeps it (``token``) rather than returned."""
        while True:
            message = json.loads(self.ws.recv(timeout=timeout))
            if message.get("type") == "state":
                self.view = message["view"]
            if message.get("type") != "table":
                return message
            self.token, self.place = message["token"], message

    def ask(self, message: Any) -> dict[str, Any]:
        """Send and return the first reply that is not a state pushed by the agents' runner."""
        self.send(message)
        return self.receive()

    def until(self, test, timeout: float = 60) -> dict[str, Any]:
        """Read replies until one passes ``test`` (a state view or any message)."""
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError("no such message")
            message = self.receive(timeout=left)
            if test(message):
                return message

    def close(self) -> None:
        self._stack.close()

    def __enter__(self) -> Tab:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


def my_turn(message: dict[str, Any]) -> bool:
    """A state in which the person is to act (or the hand waits for them to continue, or it is over)."""
    if message["type"] != "state":
        return False
    view = message["view"]
    return view["over"] or view["holding"] or (view["actions"] is not None and bool(view["actions"]["legal"]))
