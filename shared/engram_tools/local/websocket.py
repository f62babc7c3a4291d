"""Task events over WebSocket on the local front's own port (`ws://127.0.0.1:<port>/v1/events`).

The minimum of RFC 6455 a server needs: the upgrade handshake, unmasked text frames out, masked
frames in (text for `{"action": "subscribe", "user_id": ...}`, ping, close). Each connection is
served on the HTTP front's thread for it; events are written from whichever thread publishes them,
one lock per connection. The API key is checked like the REST authorizer does (header `x-api-key`
or query `api_key`); a connection only ever receives its own tenant's events.
"""

from __future__ import annotations

import base64
import hashlib
import json
import logging
import struct
import threading
from collections.abc import Callable
from io import BufferedIOBase
from typing import Any
from urllib.parse import parse_qs, urlsplit

log = logging.getLogger("engram_tools.local")

PATH = "/v1/events"
_GUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"
_TEXT, _CLOSE, _PING, _PONG = 0x1, 0x8, 0x9, 0xA
MAX_CLIENT_FRAME = 64 * 1024  # clients only send small subscribe messages

# An API key to its tenant id, or None when the key is not valid.
ResolveTenant = Callable[[str | None], str | None]


def accept_key(client_key: str) -> str:
    return base64.b64encode(hashlib.sha1((client_key + _GUID).encode()).digest()).decode()  # noqa: S324 - RFC 6455 fixes SHA-1 here


def encode_frame(opcode: int, payload: bytes) -> bytes:
    head = bytes([0x80 | opcode])
    n = len(payload)
    if n < 126:
        return head + bytes([n]) + payload
    if n < 1 << 16:
        return head + bytes([126]) + struct.pack("!H", n) + payload
    return head + bytes([127]) + struct.pack("!Q", n) + payload


def read_frame(stream: BufferedIOBase) -> tuple[int, bytes]:
    """One frame from a client (fin, opcode, unmasked payload); EOFError when the peer is gone."""
    head = stream.read(2)
    if len(head) < 2:
        raise EOFError
    opcode, masked, n = head[0] & 0x0F, head[1] & 0x80, head[1] & 0x7F
    if n == 126:
        n = struct.unpack("!H", _exact(stream, 2))[0]
    elif n == 127:
        n = struct.unpack("!Q", _exact(stream, 8))[0]
    if n > MAX_CLIENT_FRAME:
        raise ValueError("frame too large")
    mask = _exact(stream, 4) if masked else b"\0\0\0\0"
    data = _exact(stream, n)
    return opcode, bytes(b ^ mask[i % 4] for i, b in enumerate(data))


def _exact(stream: BufferedIOBase, n: int) -> bytes:
    data = stream.read(n)
    if len(data) < n:
        raise EOFError
    return data


class Connection:
    def __init__(self, tenant_id: str, user_id: str | None, out: BufferedIOBase) -> None:
        self.tenant_id = tenant_id
        self.user_id = user_id
        self._out = out
        self._lock = threading.Lock()

    def wants(self, tenant_id: str, user_id: str) -> bool:
        return self.tenant_id == tenant_id and self.user_id in (None, user_id)

    def send(self, opcode: int, payload: bytes) -> None:
        with self._lock:
            self._out.write(encode_frame(opcode, payload))
            self._out.flush()


class EventHub:
    """The local EventPublisher: fans each task event out to the tenant's open connections."""

    def __init__(self, resolve_tenant: ResolveTenant) -> None:
        self._resolve = resolve_tenant
        self._connections: set[Connection] = set()
        self._lock = threading.Lock()

    def publish(self, tenant_id: str, user_id: str, event: dict[str, Any]) -> None:
        payload = json.dumps(event).encode()
        with self._lock:
            targets = [c for c in self._connections if c.wants(tenant_id, user_id)]
        for connection in targets:
            try:
                connection.send(_TEXT, payload)
            except OSError:  # the client went away; its reader thread removes it
                self._drop(connection)

    def close(self) -> None:
        with self._lock:
            connections, self._connections = list(self._connections), set()
        for connection in connections:
            try:
                connection.send(_CLOSE, struct.pack("!H", 1001))  # going away
            except OSError:
                pass

    def serve(self, path: str, headers: dict[str, str], rfile: BufferedIOBase, wfile: BufferedIOBase) -> None:
        """Handshake, then read client frames until the connection ends. `headers` lower-cased."""
        query = parse_qs(urlsplit(path).query)
        api_key = headers.get("x-api-key") or _first(query, "api_key")
        client_key = headers.get("sec-websocket-key")
        if not client_key or headers.get("sec-websocket-version") != "13":
            _refuse(wfile, 400, "a WebSocket upgrade (version 13, Sec-WebSocket-Key) is required")
            return
        tenant_id = self._resolve(api_key)
        if tenant_id is None:
            _refuse(wfile, 401, "Unauthorized")
            return
        wfile.write(
            (
                "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                f"Sec-WebSocket-Accept: {accept_key(client_key)}\r\n\r\n"
            ).encode()
        )
        wfile.flush()
        connection = Connection(tenant_id, _first(query, "user_id"), wfile)
        with self._lock:
            self._connections.add(connection)
        try:
            self._read(connection, rfile)
        except (EOFError, OSError, ValueError):
            pass  # the client went away or broke the protocol: drop it
        finally:
            self._drop(connection)

    def _read(self, connection: Connection, rfile: BufferedIOBase) -> None:
        while True:
            opcode, payload = read_frame(rfile)
            if opcode == _CLOSE:
                connection.send(_CLOSE, payload[:2])
                return
            if opcode == _PING:
                connection.send(_PONG, payload)
            elif opcode == _TEXT:
                _subscribe(connection, payload)

    def _drop(self, connection: Connection) -> None:
        with self._lock:
            self._connections.discard(connection)


def _first(query: dict[str, list[str]], name: str) -> str | None:
    values = query.get(name)
    return values[0] if values else None


def _subscribe(connection: Connection, payload: bytes) -> None:
    try:
        message = json.loads(payload)
    except ValueError:
        message = None
    if isinstance(message, dict) and message.get("action") == "subscribe":
        user_id = message.get("user_id")
        connection.user_id = user_id if isinstance(user_id, str) and user_id else None
        reply: dict[str, Any] = {"type": "subscribed", "user_id": connection.user_id}
    else:
        reply = {"type": "error", "message": 'expected {"action": "subscribe", "user_id": "..."}'}
    connection.send(_TEXT, json.dumps(reply).encode())


def _refuse(wfile: BufferedIOBase, status: int, message: str) -> None:
    body = json.dumps({"message": message}).encode()
    reason = {400: "Bad Request", 401: "Unauthorized"}[status]
    wfile.write(
        f"HTTP/1.1 {status} {reason}\r\nContent-Type: application/json\r\nContent-Length: {len(body)}\r\n"
        "Connection: close\r\n\r\n".encode()
        + body
    )
    wfile.flush()
