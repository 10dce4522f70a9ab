"""Hardening, third round, of the web server (issue 49, items 1, 2, 8, 9, 10, 11 and 20's port): other host
names and origins refused on every route (DNS rebinding), security headers on every response, every message
field type-checked by name, policy files loaded at start-up, a tab closing mid-message logged as one line,
ports checked, the real port printed."""

from __future__ import annotations

import asyncio
import contextlib
import http.client
import json
import logging
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path
from urllib.parse import urlsplit

import pytest

import spades_env

pytest.importorskip("starlette")  # the [web] extra

from spades_env.web.guard import SECURITY_HEADERS, allowed_hosts, split_host  # noqa: E402
from spades_env.web.server import MESSAGES, Connection, create_app, main  # noqa: E402

from .helpers import Tab, serving  # noqa: E402

UPGRADE = {
    "Connection": "Upgrade",
    "Upgrade": "websocket",
    "Sec-WebSocket-Version": "13",
    "Sec-WebSocket-Key": "dGhlIHNhbXBsZSBub25jZQ==",
}
PPO = Path(spades_env.__file__).parent / "policies" / "ppo.pt"


def request(base: str, path: str, host: str | None, headers: dict[str, str] | None = None) -> http.client.HTTPResponse:
    """A GET of ``path`` with exactly the Host header ``host`` (None: no Host header at all)."""
    address = urlsplit(base)
    connection = http.client.HTTPConnection(address.hostname, address.port, timeout=10)
    connection.putrequest("GET", path, skip_host=True, skip_accept_encoding=True)
    if host is not None:
        connection.putheader("Host", host)
    for name, value in (headers or {}).items():
        connection.putheader(name, value)
    connection.endheaders()
    response = connection.getresponse()
    response.body = response.read() if response.status != 101 else b""
    connection.close()
    return response


@pytest.fixture(scope="module")
def server():
    with serving(max_tables=4, hosts=["table.example"], reconnect_s=0) as base:
        yield base


def port_of(base: str) -> int:
    return urlsplit(base).port


# ---------------------------------------------------------------- 1. DNS rebinding
@pytest.mark.parametrize("path", ["/", "/static/index.html", "/static/table.js", "/no-such-page", "/ws"])
@pytest.mark.parametrize("host", ["evil.example:{port}", "evil.example", "127.0.0.1.evil.example:{port}", "localhost."])
def test_item01_dns_rebinding_other_host_names_are_refused_on_every_route(server, path, host):
    headers = {**UPGRADE, "Origin": f"http://{host.format(port=port_of(server))}"} if path == "/ws" else {}
    response = request(server, path, host.format(port=port_of(server)), headers)
    assert response.status == 400, (path, host, response.status)
    assert b"host names" in response.body


def test_item01_the_audit_repro_no_longer_gets_a_socket(server):
    port = port_of(server)
    response = request(server, "/ws", f"evil.example:{port}", {**UPGRADE, "Origin": f"http://evil.example:{port}"})
    assert response.status == 400  # was 101


@pytest.mark.parametrize(
    "host", ["127.0.0.1:{port}", "localhost:{port}", "LocalHost:{port}", "[::1]:{port}", "table.example:{port}"]
)
def test_item01_the_host_names_the_server_was_started_for_are_served(server, host):
    host = host.format(port=port_of(server))
    assert request(server, "/", host).status == 200
    assert request(server, "/", host.rsplit(":", 1)[0]).status == 200  # no port: the default port
    assert request(server, "/ws", host, {**UPGRADE, "Origin": f"http://{host}"}).status == 101


@pytest.mark.parametrize(
    "host", [None, "", "a b", "localhost:99999", "localhost:x", "[::1", "[zz]:80", "user@localhost"]
)
def test_item01_a_missing_or_malformed_host_header_is_refused(server, host):
    assert request(server, "/", host).status == 400


@pytest.mark.parametrize(
    "origin",
    [
        "http://evil.example:{port}",
        "http://localhost:{other}",  # another local server's page
        "null",  # a sandboxed frame or a file
        "file://",
        "ftp://localhost:{port}",
        "http://localhost.evil.example:{port}",
        "http://localhost:{port}@evil.example",
    ],
)
def test_item01_a_socket_from_a_page_of_another_origin_is_refused(server, origin):
    port = port_of(server)
    origin = origin.format(port=port, other=port + 1)
    response = request(server, "/ws", f"localhost:{port}", {**UPGRADE, "Origin": origin})
    assert response.status == 403, (origin, response.status)
    with pytest.raises(Exception):
        Tab(server, origin=origin)


def test_item01_a_page_of_this_server_and_a_program_without_origin_get_a_socket(server):
    for origin in (None, server, server.replace("127.0.0.1", "localhost")):
        with Tab(server, origin=origin) as tab:
            assert tab.hello["type"] == "hello"


def test_item01_allowed_host_names_are_checked_when_the_server_is_built():
    assert allowed_hosts("127.0.0.1", ["Box.Lan", "::1", "[fe80::1]", "0:0:0:0:0:0:0:1"]) == {
        "127.0.0.1", "localhost", "::1", "box.lan", "fe80::1",
    }  # fmt: skip
    assert split_host("[::1]:8000") == ("::1", 8000) and split_host("LOCALHOST:80") == ("localhost", 80)
    for bad, reason in [("", "not a host name"), ("http://box.lan", "no scheme"), ("box.lan:8000", "has a port"),
                        ("[::1]:80", "has a port"), ("a/b", "no scheme, no path"), ("*", "not a host name"),
                        ("box lan", "not a host name"), ("-x", "not a host name"), ("a..b", "not a host name")]:  # fmt: skip
        with pytest.raises(ValueError, match=re.escape(reason)):
            create_app(hosts=[bad])
    with pytest.raises(SystemExit) as stop:
        main(["--allowed-host", "http://box.lan"])
    assert stop.value.code == 2


# ---------------------------------------------------------------- 2. security headers
def check_headers(response: http.client.HTTPResponse) -> None:
    for name, value in SECURITY_HEADERS.items():
        assert response.getheader(name) == value, (name, response.getheader(name))
    policy = response.getheader("Content-Security-Policy")
    assert "frame-ancestors 'none'" in policy and "default-src 'self'" in policy
    assert response.getheader("X-Frame-Options") == "DENY"
    assert response.getheader("X-Content-Type-Options") == "nosniff"
    assert response.getheader("Referrer-Policy") == "no-referrer"


@pytest.mark.parametrize(
    "path, host, headers, status",
    [
        ("/", "localhost:{port}", {}, 200),
        ("/static/index.html", "localhost:{port}", {}, 200),
        ("/static/table.js", "localhost:{port}", {}, 200),
        ("/static/table.css", "127.0.0.1:{port}", {}, 200),
        ("/static/../server.py", "localhost:{port}", {}, 404),
        ("/nothing", "localhost:{port}", {}, 404),
        ("/", "evil.example:{port}", {}, 400),
        ("/ws", "localhost:{port}", {**UPGRADE, "Origin": "http://evil.example"}, 403),
        ("/ws", "localhost:{port}", {}, 404),  # a plain GET of the socket's path
        ("/nows", "localhost:{port}", UPGRADE, 403),  # a socket where there is none: refused before it opens
        ("/static/table.js", "localhost:{port}", UPGRADE, 403),
        ("/ws", "localhost:{port}", {**UPGRADE, "Origin": "http://localhost:{port}"}, 101),  # the socket's upgrade
    ],
)
def test_item02_every_response_carries_the_security_headers(server, path, host, headers, status):
    headers = {name: value.format(port=port_of(server)) for name, value in headers.items()}
    response = request(server, path, host.format(port=port_of(server)), headers)
    assert response.status == status
    check_headers(response)


def test_item02_the_headers_are_sent_once_each(server):
    response = request(server, "/", f"localhost:{port_of(server)}")
    names = [name.lower() for name, _ in response.getheaders()]
    for name in SECURITY_HEADERS:
        assert names.count(name.lower()) == 1, name


# ---------------------------------------------------------------- 8. message fields
VALID = {"rules": "standard", "seats": ["human", "random", "random", "random"], "episode": "hand", "seed": 1,
         "pace_ms": 0, "action": 57, "ms": 10, "record": {"actions": []}, "index": 0, "seat": None,
         "text": "bid 4", "token": "a-token", "invite": "an-invite", "spectators": "public",
         "substitute": "random"}  # fmt: skip
WRONG = [["standard"], {"a": 1}, "7", 7, 1.5, True, None, ["human", 3, "random", "random"]]


def wrong_values(field: str) -> list:
    """Values of ``field`` of other JSON types than its own (an int field refuses floats and booleans too)."""
    kinds = {kind: fields for kind, (req, opt) in MESSAGES.items() for fields in [{**req, **opt}]}
    check = next(fields[field][1] for fields in kinds.values() if field in fields)
    return [v for v in WRONG if not check(v)]


CASES = [
    (kind, field, value)
    for kind, (required, optional) in MESSAGES.items()
    for field in {**required, **optional}
    for value in wrong_values(field)
]


def test_item08_the_audit_case_names_the_field(server):
    with Tab(server) as tab:
        reply = tab.ask({"type": "new", "rules": ["standard"], "seats": ["human", "random", "random", "random"]})
        assert reply == {"type": "error", "message": "'new' field rules must be a string, got [\"standard\"]"}


@pytest.mark.parametrize("kind, field, value", CASES, ids=[f"{k}.{f}={json.dumps(v)}" for k, f, v in CASES])
def test_item08_every_field_of_every_message_is_type_checked(server, kind, field, value):
    required, _ = MESSAGES[kind]
    message = {"type": kind, **{f: VALID[f] for f in required}, field: value}
    with Tab(server) as tab:
        reply = tab.ask(message)
        assert reply["type"] == "error" and f"'{kind}' field {field} must be" in reply["message"], reply
        assert "internal error" not in reply["message"]
        assert tab.ask({"type": "new", **{f: VALID[f] for f in ("rules", "seats", "seed")}})["type"] == "state"


def test_item08_every_field_has_a_type():
    for kind, (required, optional) in MESSAGES.items():
        for field, (expected, check) in {**required, **optional}.items():
            assert callable(check) and expected, (kind, field)
            assert check(VALID[field]), (kind, field)  # the valid sample passes its own check


# ---------------------------------------------------------------- 9. policy files
@pytest.fixture
def no_serving(monkeypatch):
    """main() must refuse before it serves: a server that starts fails the test at once instead of serving."""
    import uvicorn

    def serve(*args, **kwargs):
        raise AssertionError("the server started")

    monkeypatch.setattr(uvicorn.Server, "run", serve)
    monkeypatch.setattr(uvicorn, "run", serve)


def test_item09_a_file_that_is_not_a_policy_is_refused_at_start_up(tmp_path, capsys, no_serving):
    junk = tmp_path / "junk.pt"
    junk.write_bytes(b"not a policy")
    assert main(["--policy", f"mine={junk}", "--port", "0"]) == 2
    err = capsys.readouterr().err
    assert "--policy mine" in err and str(junk) in err and "not a policy file" in err and "Traceback" not in err


@pytest.mark.parametrize("name", ["random", "heuristic", "ppo", "ppo_standard", "search", "human"])
def test_item09_a_policy_name_may_not_shadow_a_built_in_agent(capsys, no_serving, name):
    assert main(["--policy", f"{name}={PPO}", "--port", "0"]) == 2
    err = capsys.readouterr().err
    assert f"--policy {name}" in err and "another name" in err


def test_item09_a_policy_name_given_twice_is_refused(capsys, no_serving):
    assert main(["--policy", f"mine={PPO}", "--policy", f"mine={PPO}", "--port", "0"]) == 2
    assert "['mine'] more than once" in capsys.readouterr().err


def test_item09_a_real_policy_file_is_offered_and_seats(server, tmp_path):
    mine = tmp_path / "mine.pt"
    shutil.copy(PPO, mine)
    with serving(policies={"mine": str(mine)}) as base, Tab(base) as tab:
        assert "mine" in tab.hello["agents"]
        reply = tab.ask({"type": "new", "rules": "standard", "seats": ["mine"] * 4, "seed": 2, "pace_ms": 5000})
        assert reply["type"] == "state"


# ---------------------------------------------------------------- 10. a tab closing mid-message
class GoneSocket:
    """The ASGI side of a tab that sends one message and closes before the answer: every send after the
    hello fails as a closed socket does under uvicorn (an OSError)."""

    def __init__(self, message: dict):
        self.incoming = [{"type": "websocket.connect"}, {"type": "websocket.receive", "text": json.dumps(message)}]
        self.sent: list[dict] = []

    async def receive(self) -> dict:
        return self.incoming.pop(0) if self.incoming else {"type": "websocket.disconnect", "code": 1006}

    async def send(self, message: dict) -> None:
        if message["type"] == "websocket.send" and any(m["type"] == "websocket.send" for m in self.sent):
            raise OSError("the tab is gone")
        self.sent.append(message)


@pytest.mark.parametrize(
    "message",
    [
        {"type": "new", "rules": "standard", "seats": ["random"] * 4, "seed": 1, "pace_ms": 0},
        {"type": "act", "action": 0},  # answered with an error: the error's send fails too
        {"type": "pace", "ms": 0},  # answered with nothing
    ],
)
def test_item10_a_tab_closing_mid_message_is_one_log_line(caplog, message):
    from starlette.websockets import WebSocket

    app = create_app()
    gone = GoneSocket(message)
    scope = {"type": "websocket", "path": "/ws", "headers": [], "client": ("127.0.0.1", 5555)}

    async def tab() -> None:
        websocket = WebSocket(scope, gone.receive, gone.send)
        await websocket.accept()
        await Connection(app, websocket).serve()

    with caplog.at_level(logging.INFO, logger="spades_env.web"):
        asyncio.run(tab())  # no exception escapes
    records = [r for r in caplog.records if r.name == "spades_env.web"]
    assert all(r.exc_info is None for r in records), [r.getMessage() for r in records]
    if message["type"] != "pace":
        assert [r.getMessage() for r in records] == [
            "disconnect: 127.0.0.1:5555 closed while the server was answering it"
        ]
    assert not app.state.rooms  # the table's slot is freed


# ---------------------------------------------------------------- 11. ports
@pytest.mark.parametrize("port, reason", [("-1", "must be in 0..65535"), ("99999", "must be in 0..65535"),
                                          ("65536", "must be in 0..65535"), ("x", "takes an integer")])  # fmt: skip
def test_item11_a_port_out_of_range_is_a_usage_error(capsys, no_serving, port, reason):
    with pytest.raises(SystemExit) as stop:
        main(["--port", port])
    assert stop.value.code == 2
    err = capsys.readouterr().err
    assert reason in err and "Traceback" not in err


def test_item11_a_port_in_use_is_a_message(capsys, no_serving):
    import socket

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        assert main(["--port", str(taken.getsockname()[1])]) == 2
    assert "cannot listen on 127.0.0.1 port" in capsys.readouterr().err


# ---------------------------------------------------------------- 20 (first), and 10 end to end
def test_item20_port_0_prints_the_real_port_and_churn_leaves_no_traceback(tmp_path):
    """``spades-web --port 0`` prints the port it got; tabs that close right after a message leave one-line
    disconnects in its log, never a traceback."""
    from websockets.sync.client import connect

    log_file = tmp_path / "server.log"
    with log_file.open("w") as log:
        process = subprocess.Popen(
            [sys.executable, "-m", "spades_env.web", "--port", "0"], stdout=subprocess.PIPE, stderr=log, text=True
        )
        try:
            line = process.stdout.readline()
            match = re.fullmatch(r"spades-web: open http://localhost:(\d+)/\n", line)
            assert match, line
            port = int(match.group(1))
            assert port != 0
            base = f"http://127.0.0.1:{port}"
            deadline = time.monotonic() + 30
            while True:
                try:
                    assert request(base, "/", f"localhost:{port}").status == 200
                    break
                except ConnectionError:
                    assert time.monotonic() < deadline
                    time.sleep(0.1)
            new = {"type": "new", "rules": "standard", "seats": ["random"] * 4, "seed": 3, "pace_ms": 0}
            for cycle in range(12):
                with contextlib.suppress(OSError, ConnectionError), connect(f"ws://127.0.0.1:{port}/ws") as ws:
                    ws.recv()  # the hello
                    for _ in range(3):
                        ws.send(json.dumps({**new, "seed": cycle}))
                    ws.socket.close()  # gone without a closing handshake, answers still to come
            time.sleep(1)
            assert request(base, "/", f"localhost:{port}").status == 200  # still serving
        finally:
            process.terminate()
            process.wait(timeout=20)
    text = log_file.read_text()
    assert "Traceback" not in text and "Exception in ASGI application" not in text, text
