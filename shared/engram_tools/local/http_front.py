"""The HTTP front of the local stack: a threaded HTTP/1.1 server handing each request to ApiGateway."""

from __future__ import annotations

import json
import logging
import re
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import urlsplit

from engram_tools.local import chat_stream, websocket
from engram_tools.local.api_gateway import MAX_BODY_BYTES, ApiGateway, Reply, Request

log = logging.getLogger("engram_tools.local")


# Query parameters that may carry a credential (the events socket accepts ?api_key=): never logged.
# The local front's own answer, before any function runs (docs/errors.md): a body that did not arrive in time.
LOCAL_ANSWERS = {"RequestTimeoutError": 408}
_SECRET_PARAM = re.compile(r"(?i)((?:^|[?&])(?:api_key|x-api-key|apikey|key|token)=)[^&]*")


def redacted(target: str) -> str:
    """The request target as logged: credentials in the query replaced by ***."""
    return _SECRET_PARAM.sub(r"\1***", target)


class _BodyTooLarge(Exception):
    pass


class _BodyTimedOut(Exception):
    """The body did not arrive in full within the front's body timeout."""

    def __init__(self, expected: int | None, received: int) -> None:
        super().__init__(expected, received)
        self.expected = expected  # Content-Length (None: chunked)
        self.received = received


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    block_on_close = False  # idle keep-alive connections must not hold up shutdown
    # socketserver listens with a backlog of 5: twenty clients connecting at once overflowed it
    # and some saw their connection reset.
    request_queue_size = 128

    gateway: ApiGateway  # set by HttpFront.start; connections wait in the backlog until then
    body_timeout_s: float = 30.0  # set by HttpFront
    events: websocket.EventHub | None = None  # task events on /v1/events, on the same port


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive for clients that reuse connections
    # TCP_NODELAY: the headers and the body are two writes; with Nagle the body waited for the
    # client's delayed ACK of the headers, ~40 ms on every keep-alive request (GET /health p50
    # 52 ms before, 7 ms after, on the loaded 2-core bench machine).
    disable_nagle_algorithm = True
    server: _Server

    def do_GET(self) -> None:
        self._serve()

    do_POST = do_PUT = do_PATCH = do_DELETE = do_HEAD = do_OPTIONS = do_GET

    def __getattr__(self, name: str) -> Any:
        # Any other method (TRACE, CONNECT, made-up ones) goes to the gateway too, which answers
        # 405 with Allow like API Gateway, instead of http.server's 501 HTML page.
        if name.startswith("do_"):
            return self._serve
        raise AttributeError(name)

    def _serve(self) -> None:
        if self._upgraded():
            return
        started = time.monotonic()
        try:
            body = self._read_body()
        except _BodyTooLarge:
            self.close_connection = True  # the unread body cannot be skipped safely
            reply = self.server.gateway.gateway_reply("REQUEST_TOO_LARGE", self.command, urlsplit(self.path).path)
        except _BodyTimedOut as late:
            reply = self._timed_out(late)
        except ValueError:
            self.close_connection = True
            path = urlsplit(self.path).path
            framing = "malformed request body framing (Content-Length or chunked encoding)"
            reply = self.server.gateway.gateway_reply("DEFAULT_4XX", self.command, path, status=400, message=framing)
        else:
            request = Request(self.command, self.path, list(self.headers.items()), body, self.client_address[0])
            if chat_stream.wants_stream(request):
                opened = chat_stream.open_stream(self.server.gateway, request)
                if not isinstance(opened, Reply):
                    self._stream(opened, started)
                    return
                reply = opened
            else:
                reply = self.server.gateway.handle(request)
        try:
            self._write(reply)
        except (BrokenPipeError, ConnectionResetError):
            self.close_connection = True  # the client gave up (e.g. timed out while the stack started)
            return
        elapsed_ms = (time.monotonic() - started) * 1000
        log.info("%s %s %d %.0f ms", self.command, redacted(self.path), reply.status, elapsed_ms)

    def _stream(self, events: Iterator[bytes], started: float) -> None:
        """Server-sent events, each written (and flushed) as the model server sends it, chunked."""
        try:
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Cache-Control", "no-cache")
            self.send_header("Transfer-Encoding", "chunked")
            self.end_headers()
            for event in events:
                self.wfile.write(b"%x\r\n%s\r\n" % (len(event), event))
                self.wfile.flush()
            self.server.gateway.settle(self.command, 200)  # the exchange's add, saved before the end
            self.wfile.write(b"0\r\n\r\n")
        except (BrokenPipeError, ConnectionResetError):
            self.close_connection = True  # the client stopped reading: the answer is not remembered
        finally:
            getattr(events, "close", lambda: None)()  # closes the model server's connection too
        log.info("%s %s 200 (stream) %.0f ms", self.command, redacted(self.path), (time.monotonic() - started) * 1000)

    def _upgraded(self) -> bool:
        """Hands a WebSocket upgrade on the events path to the hub, which keeps the connection."""
        hub = self.server.events
        if hub is None or self.headers.get("Upgrade", "").lower() != "websocket":
            return False
        if urlsplit(self.path).path != websocket.PATH:
            return False
        self.close_connection = True
        hub.serve(self.path, {k.lower(): v for k, v in self.headers.items()}, self.rfile, self.wfile)
        return True

    def _read_body(self) -> bytes:
        """The whole body within the body timeout (counted from the end of the headers, not per read:
        a client trickling a byte at a time cannot hold the connection either)."""
        deadline = time.monotonic() + self.server.body_timeout_s
        chunked = "chunked" in self.headers.get("Transfer-Encoding", "").lower()
        length = None if chunked else int(self.headers.get("Content-Length") or 0)
        if length is not None and length < 0:
            raise ValueError("negative Content-Length")
        if length is not None and length > MAX_BODY_BYTES:
            raise _BodyTooLarge
        parts: list[bytes] = []
        try:
            if length is None:
                self._read_chunked(parts, deadline)
            else:
                self._read_exactly(length, parts, deadline)
        except TimeoutError:
            raise _BodyTimedOut(length, sum(len(p) for p in parts)) from None
        finally:
            self.connection.settimeout(self.timeout)  # waits between keep-alive requests are not bounded
        return b"".join(parts)

    def _within(self, deadline: float) -> None:
        """The socket's timeout for the next read: what is left of the body's time."""
        left = deadline - time.monotonic()
        if left <= 0:
            raise TimeoutError
        self.connection.settimeout(left)

    def _read_exactly(self, length: int, parts: list[bytes], deadline: float) -> None:
        while length > 0:
            self._within(deadline)
            part = self.rfile.read1(length)
            if not part:
                raise ValueError("the body ended before its declared length")
            parts.append(part)
            length -= len(part)

    def _line(self, deadline: float) -> bytes:
        self._within(deadline)
        return self.rfile.readline(1024)

    def _read_chunked(self, chunks: list[bytes], deadline: float) -> None:
        total = 0
        while True:
            size = int(self._line(deadline).split(b";")[0].strip() or b"0", 16)
            if size == 0:
                while self._line(deadline) not in (b"\r\n", b"\n", b""):  # trailers
                    pass
                return
            total += size
            if total > MAX_BODY_BYTES:
                raise _BodyTooLarge
            self._read_exactly(size, chunks, deadline)
            self._line(deadline)  # CRLF after each chunk

    def _timed_out(self, late: _BodyTimedOut) -> Reply:
        """408 in the error shape, and the connection closed: the rest of the body may still come,
        and must not be read as the next request."""
        declared = f"{late.expected} declared, " if late.expected is not None else ""
        message = (
            f"the request body did not arrive within {self.server.body_timeout_s:g} s ({declared}{late.received} "
            "bytes received); send the whole body, or raise ENGRAM_LOCAL_BODY_TIMEOUT_S"
        )
        body = json.dumps({"error": "RequestTimeoutError", "message": message}).encode()
        headers = [("Content-Type", "application/json"), ("Connection", "close")]
        return Reply(LOCAL_ANSWERS["RequestTimeoutError"], headers, body)

    def _write(self, reply: Reply) -> None:
        self.send_response(reply.status)
        for name, value in reply.headers:
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(reply.body)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(reply.body)

    def log_message(self, format: str, *args: Any) -> None:
        pass  # _serve logs one line per request instead


class HttpFront:
    def __init__(self, host: str = "127.0.0.1", port: int = 3000, body_timeout_s: float = 30.0) -> None:
        self._server = _Server((host, port), _Handler)  # bound now: a taken port fails at once
        self._server.body_timeout_s = body_timeout_s
        self._thread: threading.Thread | None = None

    @property
    def url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}"

    def start(self, gateway: ApiGateway, events: websocket.EventHub | None = None) -> None:
        self._server.gateway = gateway
        self._server.events = events
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.1}, name="http-front", daemon=True
        )
        self._thread.start()

    def stop(self) -> None:
        if self._server.events is not None:
            self._server.events.close()
        if self._thread is not None:  # shutdown() would wait forever for a loop never started
            self._server.shutdown()
            self._thread.join(timeout=5)
        self._server.server_close()
