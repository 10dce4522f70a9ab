"""Who may use the web server, and what every response carries (an ASGI middleware around the app).

**Host names (DNS rebinding).** A page of another site can make its own host
name resolve to this machine; the browser then sends that name in the
``Host`` header and treats the server as the other site's. So the server
answers only the host names it was started for: ``LOCAL_HOSTS``
(127.0.0.1, localhost, [::1]), the address it listens on (``--host``), and
the names of ``--allowed-host``. Any other (or a missing or malformed)
``Host`` header gets 400 on every route, the WebSocket included, before the
app sees the request.

**Origin.** A browser sends ``Origin`` with every WebSocket it opens. A
socket is served when its Origin is an ``http``/``https`` page whose host
name is allowed and whose port is the one the socket was addressed to (a
page of this server); any other Origin (another site, ``null``, another
local port) gets 403. A socket with no ``Origin`` is a program, not a page,
and is served (no browser page can omit it).

**Headers.** Every response, refusals and a socket's upgrade included, carries ``SECURITY_HEADERS``:
a Content-Security-Policy that allows only the server's own scripts, styles
and sockets and forbids framing (``frame-ancestors 'none'``, and
``X-Frame-Options: DENY`` for older browsers), ``nosniff``, no referrer, and
same-origin resource and opener policies.
"""

from __future__ import annotations

import ipaddress
import logging
import re
from collections.abc import Iterable
from typing import Any
from urllib.parse import urlsplit

from starlette.responses import PlainTextResponse

LOCAL_HOSTS = ("127.0.0.1", "localhost", "::1")
SECURITY_HEADERS = {
    "Content-Security-Policy": (
        "default-src 'self'; img-src 'self' data:; object-src 'none'; base-uri 'none'; "
        "form-action 'none'; frame-ancestors 'none'"
    ),
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "X-Frame-Options": "DENY",
    "Cross-Origin-Opener-Policy": "same-origin",
    "Cross-Origin-Resource-Policy": "same-origin",
}
DEFAULT_PORTS = {"http": 80, "https": 443}
_NAME = re.compile(r"[a-z0-9._-]+")  # a DNS name or an IPv4 address (after lower-casing)
_PORT = re.compile(r"[0-9]{1,5}")
log = logging.getLogger("spades_env.web")


def host_name(text: str) -> str:
    """The host name of ``text`` (``name``, ``name:port``, ``[v6]``, ``[v6]:port`` or a bare IPv6 address),
    lower case, IP literals in their canonical form; ValueError naming the problem when it is none."""
    name, _ = split_host(text)
    return name


def split_host(text: str) -> tuple[str, int | None]:
    """``(host name, port or None)`` of a Host header value (see :func:`host_name`); ValueError when malformed."""
    if not isinstance(text, str) or not text or len(text) > 300:
        raise ValueError(f"not a host name: {str(text)[:40]!r}")
    value, port = text.lower(), None
    if value.startswith("["):  # [v6] or [v6]:port
        close = value.find("]")
        rest = value[close + 1 :] if close > 0 else "?"
        if rest and not (rest.startswith(":") and _PORT.fullmatch(rest[1:])):
            raise ValueError(f"not a host name: {text[:40]!r}")
        value, port = value[1:close], int(rest[1:]) if rest else None
        name = _ip(value)
    elif value.count(":") > 1:  # a bare IPv6 address (an allowed-host entry; never a valid Host header)
        name = _ip(value)
    else:
        value, sep, digits = value.partition(":")
        if sep and not _PORT.fullmatch(digits):
            raise ValueError(f"not a host name: {text[:40]!r} (bad port)")
        if not _NAME.fullmatch(value) or value.startswith(("-", ".")) or ".." in value:
            raise ValueError(f"not a host name: {text[:40]!r}")
        port = int(digits) if sep else None
        name = _ip(value) if _looks_ipv4(value) else value
    if port is not None and not 0 < port <= 65535:
        raise ValueError(f"not a host name: {text[:40]!r} (port out of 1..65535)")
    return name, port


def _looks_ipv4(value: str) -> bool:
    return all(part.isdigit() for part in value.split("."))


def _ip(value: str) -> str:
    try:
        return ipaddress.ip_address(value).compressed
    except ValueError:
        raise ValueError(f"not an IP address: {value[:40]!r}") from None


def allowed_hosts(host: str, extra: Iterable[str] = ()) -> frozenset[str]:
    """The host names a server listening on ``host`` answers: LOCAL_HOSTS, ``host``, and ``extra``
    (ValueError naming an entry that is not a host name; entries carry no port)."""
    names = {host_name(h) for h in LOCAL_HOSTS}
    for entry in (host, *extra):
        if isinstance(entry, str) and "/" in entry:
            raise ValueError(
                f"allowed host {entry[:60]!r} is not a host name (no scheme, no path): give the name alone"
            )
        if isinstance(entry, str) and (entry.startswith("[") and "]:" in entry or entry.count(":") == 1):
            raise ValueError(f"allowed host {entry!r} has a port: give the host name alone")
        names.add(host_name(entry))
    return frozenset(names)


class Guard:
    """ASGI middleware: refuses other host names and origins, and adds SECURITY_HEADERS to every response."""

    def __init__(self, app: Any, hosts: Iterable[str]):
        self.app = app
        self.hosts = frozenset(hosts)

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return

        denial = scope["type"] == "websocket" and "websocket.http.response" in scope.get("extensions", {})
        opened = False  # a socket accepted (or refused with a response) by the app

        async def send_with_headers(message: dict[str, Any]) -> None:
            nonlocal opened
            kind = message["type"]
            if kind == "websocket.close" and not opened and denial:
                # a socket closed before it opened (no route, say): the server would answer a bare 403, so the
                # refusal is a response, which carries the headers
                opened = True
                await PlainTextResponse("no socket here", status_code=403)(scope, receive, send_with_headers)
                return
            if kind in ("http.response.start", "websocket.http.response.start", "websocket.accept"):
                opened = True
                present = {bytes(k).lower() for k, _ in message.get("headers", [])}
                extra = [
                    (k.lower().encode(), v.encode())
                    for k, v in SECURITY_HEADERS.items()
                    if k.lower().encode() not in present
                ]
                message = {**message, "headers": [*message.get("headers", []), *extra]}
            await send(message)

        refusal = self.refusal(scope)
        if refusal is None:
            await self.app(scope, receive, send_with_headers)
            return
        status, reason = refusal
        log.warning("refused %s %s: %s", scope["type"], scope.get("path", ""), reason)
        if scope["type"] == "websocket" and "websocket.http.response" not in scope.get("extensions", {}):
            await send({"type": "websocket.close", "code": 1008})  # the server answers 403 without a body
            return
        await PlainTextResponse(reason, status_code=status)(scope, receive, send_with_headers)

    def refusal(self, scope: dict[str, Any]) -> tuple[int, str] | None:
        """``(status, reason)`` when the request's Host (or a socket's Origin) is not allowed, else None."""
        headers = _headers(scope)
        host = headers.get("host")
        try:
            name, port = split_host(host) if host is not None else ("", None)
        except ValueError:
            return 400, "malformed Host header"
        if name not in self.hosts:
            return 400, f"this server answers only the host names {sorted(self.hosts)} (start it with --allowed-host)"
        origin = headers.get("origin")
        if scope["type"] != "websocket" or origin is None:
            return None
        parts = urlsplit(origin)
        try:
            origin_name, origin_port = split_host(parts.netloc) if parts.netloc else ("", None)
        except ValueError:
            return 403, "a socket from a page of another site"
        scheme = parts.scheme.lower()
        default = DEFAULT_PORTS.get(scheme)
        if default is None or origin_name not in self.hosts or (origin_port or default) != (port or default):
            return 403, "a socket from a page of another site"
        return None


def _headers(scope: dict[str, Any]) -> dict[str, str]:
    """The request's headers by lower-case name (a repeated Host is malformed: refused as missing)."""
    out: dict[str, str] = {}
    for key, value in scope.get("headers", []):
        name = key.decode("latin-1").lower()
        if name in out and name == "host":
            out[name] = "\x00"  # two Host headers: ambiguous, refused by split_host
            continue
        out[name] = value.decode("latin-1")
    return out
