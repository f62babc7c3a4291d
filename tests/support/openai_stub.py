"""An OpenAI-compatible HTTP server on 127.0.0.1 for tests and benchmarks (stdlib only).

    with OpenAIStub() as stub:
        stub.script({"facts": [...]})                  # canned chat answers, in order
        client = openai.OpenAI(base_url=stub.base_url, api_key="x")
        ...
        stub.chat_requests[0]["response_format"]     # what the client sent
        stub.fail_next(2, status=429)                 # exercise retries

Chat answers come from ``responder(request_json) -> str``; the default one pops the script queue
and, when it is empty, answers ``{"facts": []}`` to extraction-looking requests and
``{"memory": []}`` to anything else. Embeddings are deterministic pseudo-random unit vectors
seeded by a hash of the text, so equal texts get equal vectors and different texts near-orthogonal
ones; pass ``embedder(texts, dimensions) -> vectors`` to serve a real model's vectors instead (the
benchmarks serve MiniLM this way). Token counts are approximations (one token per word).

A chat request with ``"stream": true`` is answered as server-sent events in OpenAI's chunk format
(the role, then the answer a word at a time, the finish reason, usage when ``stream_options``
asks for it, and ``data: [DONE]``).

For a stub in another process, ``GET /v1/stub/stats`` answers the counters and
``POST /v1/stub/reset`` zeroes them; ``record_requests=False`` keeps long runs from holding every
request body in memory.
"""

from __future__ import annotations

import base64
import hashlib
import json
import math
import random
import struct
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Any

# A responder answers the assistant's text, or a message dict {"content", "tool_calls"} to call tools.
Responder = Callable[[dict[str, Any]], str | dict[str, Any]]
EmbedFunction = Callable[[list[str], int], list[list[float]]]

EXTRACTION_DEFAULT = '{"facts": []}'
OTHER_DEFAULT = '{"memory": []}'


@dataclass
class RecordedRequest:
    method: str
    path: str
    body: dict[str, Any]
    headers: dict[str, str]
    status: int = 200


@dataclass
class _Failure:
    status: int
    message: str
    path: str | None


@dataclass
class _State:
    requests: list[RecordedRequest] = field(default_factory=list)
    script: deque[str] = field(default_factory=deque)
    failures: deque[_Failure] = field(default_factory=deque)
    chat_calls: int = 0
    embedding_calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0


def count_tokens(text: str) -> int:
    """The stub's token estimate: words."""
    return len(text.split())


def embedding_for(text: str, dimensions: int) -> list[float]:
    """The stub's vector for a text: unit length, a pure function of (text, dimensions)."""
    seed = int.from_bytes(hashlib.sha256(text.encode("utf-8")).digest()[:8], "big")
    rng = random.Random(seed)
    vector = [rng.gauss(0.0, 1.0) for _ in range(dimensions)]
    norm = math.sqrt(sum(x * x for x in vector)) or 1.0
    return [x / norm for x in vector]


def looks_like_extraction(request: dict[str, Any]) -> bool:
    """True when the schema asks for "facts", or (without one) the prompt talks of extracting."""
    response_format = request.get("response_format") or {}
    schema = (response_format.get("json_schema") or {}).get("schema") or {}
    properties = schema.get("properties") or {}
    if "facts" in properties or "memory" in properties:
        return "facts" in properties
    text = " ".join(str(m.get("content", "")) for m in request.get("messages", []) if isinstance(m, dict))
    return "extract" in text.lower()


class OpenAIStub:
    """POST /v1/chat/completions, POST /v1/embeddings and GET /v1/models, recorded and counted."""

    def __init__(
        self,
        responder: Responder | None = None,
        script: Iterable[str | dict[str, Any]] = (),
        *,
        embedding_dimensions: int = 1536,
        api_key: str | None = None,
        accept_json_schema: bool = True,
        include_usage: bool = True,
        embedder: EmbedFunction | None = None,
        record_requests: bool = True,
    ) -> None:
        self.responder: Responder = responder or self._scripted_answer
        self.embedder = embedder  # None: hash-seeded pseudo-random vectors
        self.record_requests = record_requests
        self.embedding_dimensions = embedding_dimensions  # when the request names none
        self.api_key = api_key  # when set, other bearer tokens get a 401
        self.accept_json_schema = accept_json_schema  # False: behave like a json_object-only server
        self.include_usage = include_usage
        self.embedding_scale = 1.0  # != 1 imitates servers whose vectors are not unit length
        self.responder_errors: list[Exception] = []
        self._state = _State()
        self._lock = threading.Lock()
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None
        self.script(*script)

    # --- lifecycle -------------------------------------------------------------------------

    def start(self) -> OpenAIStub:
        if self._server is not None:
            return self
        server = ThreadingHTTPServer(("127.0.0.1", 0), _make_handler(self))
        server.daemon_threads = True
        server.block_on_close = False  # idle keep-alive connections must not hold up stop()
        self._server = server
        # A short poll interval makes stop() quick (shutdown waits for the next poll).
        self._thread = threading.Thread(
            target=server.serve_forever, kwargs={"poll_interval": 0.02}, name="openai-stub", daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._server is None:
            return
        self._server.shutdown()
        self._server.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)
        self._server = None
        self._thread = None

    def __enter__(self) -> OpenAIStub:
        return self.start()

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.stop()

    @property
    def base_url(self) -> str:
        if self._server is None:
            raise RuntimeError("the stub is not running: use it as a context manager or call start()")
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}/v1"

    # --- steering ---------------------------------------------------------------------------

    def script(self, *answers: str | dict[str, Any]) -> None:
        """Queue chat answers (JSON text, or a dict to be serialised), used in order."""
        with self._lock:
            for answer in answers:
                self._state.script.append(answer if isinstance(answer, str) else json.dumps(answer))

    def fail_next(self, n: int = 1, status: int = 500, message: str | None = None, path: str | None = None) -> None:
        """Answer the next n requests (to `path`, e.g. "/v1/chat/completions", or any) with an error."""
        text = message or {400: "bad request", 401: "invalid api key", 429: "rate limit reached"}.get(
            status, "server error"
        )
        with self._lock:
            self._state.failures.extend(_Failure(status, text, path) for _ in range(n))

    def reset(self) -> None:
        """Forget requests, counters, scripted answers and pending failures."""
        with self._lock:
            self._state = _State()

    def stats(self) -> dict[str, int]:
        """The counters, as ``GET /v1/stub/stats`` answers them."""
        with self._lock:
            state = self._state
            return {
                "chat_calls": state.chat_calls,
                "embedding_calls": state.embedding_calls,
                "prompt_tokens": state.prompt_tokens,
                "completion_tokens": state.completion_tokens,
            }

    # --- what happened ------------------------------------------------------------------------

    @property
    def requests(self) -> list[RecordedRequest]:
        with self._lock:
            return list(self._state.requests)

    @property
    def chat_requests(self) -> list[dict[str, Any]]:
        """Bodies of every chat request, failed ones included."""
        return [r.body for r in self.requests if r.path.endswith("/chat/completions")]

    @property
    def embedding_requests(self) -> list[dict[str, Any]]:
        return [r.body for r in self.requests if r.path.endswith("/embeddings")]

    @property
    def chat_calls(self) -> int:
        """Chat requests answered successfully."""
        return self._state.chat_calls

    @property
    def embedding_calls(self) -> int:
        return self._state.embedding_calls

    @property
    def prompt_tokens(self) -> int:
        return self._state.prompt_tokens

    @property
    def completion_tokens(self) -> int:
        return self._state.completion_tokens

    # --- answering ----------------------------------------------------------------------------

    def _scripted_answer(self, request: dict[str, Any]) -> str:
        with self._lock:
            if self._state.script:
                return self._state.script.popleft()
        return EXTRACTION_DEFAULT if looks_like_extraction(request) else OTHER_DEFAULT

    def _handle(self, method: str, path: str, body: dict[str, Any], headers: dict[str, str]) -> tuple[int, Any]:
        record = RecordedRequest(method, path, body, headers)
        with self._lock:
            if self.record_requests:
                self._state.requests.append(record)
            failure = self._take_failure(path)
        status, payload = self._answer(method, path, body, headers, failure)
        record.status = status
        return status, payload

    def _take_failure(self, path: str) -> _Failure | None:
        failures = self._state.failures
        for i, failure in enumerate(failures):
            if failure.path is None or failure.path == path:
                del failures[i]
                return failure
        return None

    def _answer(
        self, method: str, path: str, body: dict[str, Any], headers: dict[str, str], failure: _Failure | None
    ) -> tuple[int, Any]:
        if failure is not None:
            return failure.status, _error(failure.message, failure.status)
        if self.api_key is not None and headers.get("authorization") != f"Bearer {self.api_key}":
            return 401, _error("Incorrect API key provided", 401)
        if method == "GET" and path == "/v1/stub/stats":
            return 200, self.stats()
        if method == "POST" and path == "/v1/stub/reset":
            self.reset()
            return 200, {"reset": True}
        if method == "GET" and path == "/v1/models":
            return 200, {"object": "list", "data": [{"id": "stub-model", "object": "model", "owned_by": "stub"}]}
        if method == "POST" and path == "/v1/chat/completions":
            return self._chat(body)
        if method == "POST" and path == "/v1/embeddings":
            return self._embeddings(body)
        return 404, _error(f"no route {method} {path}", 404)

    def _chat(self, body: dict[str, Any]) -> tuple[int, Any]:
        response_format = body.get("response_format") or {}
        if not self.accept_json_schema and response_format.get("type") == "json_schema":
            message = "response_format type 'json_schema' is not supported; use 'json_object'"
            return 400, _error(message, 400, param="response_format")
        try:
            reply = self.responder(body)
        except Exception as exc:  # a broken test responder: answer 500 and keep the reason
            self.responder_errors.append(exc)
            return 500, _error(f"stub responder failed: {exc!r}", 500)
        message = reply if isinstance(reply, dict) else {"content": reply}
        content, tool_calls = message.get("content") or "", message.get("tool_calls")
        prompt = " ".join(str(m.get("content", "")) for m in body.get("messages", []) if isinstance(m, dict))
        prompt_tokens, completion_tokens = count_tokens(prompt), count_tokens(content)
        with self._lock:
            self._state.chat_calls += 1
            self._state.prompt_tokens += prompt_tokens
            self._state.completion_tokens += completion_tokens
            number = self._state.chat_calls
        answer: dict[str, Any] = {
            "id": f"chatcmpl-stub-{number}",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": body.get("model", "stub-model"),
            "choices": [
                {
                    "index": 0,
                    "message": {
                        "role": "assistant",
                        "content": content if not tool_calls else message.get("content"),
                        "refusal": None,
                        **({"tool_calls": tool_calls} if tool_calls else {}),
                    },
                    "finish_reason": "tool_calls" if tool_calls else "stop",
                    "logprobs": None,
                }
            ],
        }
        if self.include_usage:
            answer["usage"] = _usage(prompt_tokens, completion_tokens)
        return 200, answer

    def _embeddings(self, body: dict[str, Any]) -> tuple[int, Any]:
        raw = body.get("input", [])
        texts = [raw] if isinstance(raw, str) else [str(t) for t in raw]
        dimensions = int(body.get("dimensions") or self.embedding_dimensions)
        as_base64 = body.get("encoding_format") == "base64"
        vectors = self.embedder(texts, dimensions) if self.embedder else [embedding_for(t, dimensions) for t in texts]
        data = []
        for index, raw_vector in enumerate(vectors):
            vector = [x * self.embedding_scale for x in raw_vector]
            encoded: Any = (
                base64.b64encode(struct.pack(f"<{dimensions}f", *vector)).decode("ascii") if as_base64 else vector
            )
            data.append({"object": "embedding", "index": index, "embedding": encoded})
        tokens = sum(count_tokens(t) for t in texts)
        with self._lock:
            self._state.embedding_calls += 1
            self._state.prompt_tokens += tokens
        answer = {"object": "list", "data": data, "model": body.get("model", "stub-embedding")}
        answer["usage"] = {"prompt_tokens": tokens, "total_tokens": tokens}
        return 200, answer


def stream_chunks(answer: dict[str, Any], include_usage: bool) -> list[dict[str, Any]]:
    """A chat completion as OpenAI streams it: chat.completion.chunk objects, the content a word at a time."""
    choice = answer["choices"][0]
    head = {key: answer[key] for key in ("id", "created", "model")} | {"object": "chat.completion.chunk"}

    def chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
        return head | {"choices": [{"index": 0, "delta": delta, "finish_reason": finish, "logprobs": None}]}

    content = choice["message"].get("content") or ""
    words = [w + " " for w in content.split(" ")]
    words[-1] = words[-1][:-1]
    chunks = [chunk({"role": "assistant", "content": ""})]
    chunks += [chunk({"content": w}) for w in words if w]
    chunks.append(chunk({}, choice["finish_reason"]))
    if include_usage and "usage" in answer:
        chunks.append(head | {"choices": [], "usage": answer["usage"]})
    return chunks


def _usage(prompt_tokens: int, completion_tokens: int) -> dict[str, int]:
    return {
        "prompt_tokens": prompt_tokens,
        "completion_tokens": completion_tokens,
        "total_tokens": prompt_tokens + completion_tokens,
    }


def _error(message: str, status: int, param: str | None = None) -> dict[str, Any]:
    kind = {400: "invalid_request_error", 401: "authentication_error", 429: "rate_limit_error"}
    return {"error": {"message": message, "type": kind.get(status, "server_error"), "param": param, "code": None}}


def _make_handler(stub: OpenAIStub) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"  # keep-alive: the openai client reuses its connection
        # Headers and body go out in two writes; with Nagle on, the body waits for the client's
        # delayed ACK of the headers: 40 ms added to every keep-alive request.
        disable_nagle_algorithm = True

        def do_GET(self) -> None:
            self._serve("GET")

        def do_POST(self) -> None:
            self._serve("POST")

        def _serve(self, method: str) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(length) if length else b""
            try:
                body = json.loads(raw) if raw else {}
            except json.JSONDecodeError:
                self._send(400, _error("body is not JSON", 400))
                return
            headers = {k.lower(): v for k, v in self.headers.items()}
            path = self.path.split("?", 1)[0]
            body = body if isinstance(body, dict) else {}
            status, payload = stub._handle(method, path, body, headers)
            if status == 200 and path == "/v1/chat/completions" and body.get("stream") is True:
                self._send_events(stream_chunks(payload, bool((body.get("stream_options") or {}).get("include_usage"))))
                return
            self._send(status, payload)

        def _send_events(self, chunks: list[dict[str, Any]]) -> None:
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Transfer-Encoding", "chunked")
            self.end_headers()
            for data in [*(json.dumps(c) for c in chunks), "[DONE]"]:
                event = f"data: {data}\n\n".encode()
                self.wfile.write(f"{len(event):x}\r\n".encode() + event + b"\r\n")
                self.wfile.flush()
            self.wfile.write(b"0\r\n\r\n")

        def _send(self, status: int, payload: Any) -> None:
            data = json.dumps(payload).encode("utf-8")
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            if status == 429 or status >= 500:
                self.send_header("retry-after-ms", "1")  # keeps client retries fast in tests
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, format: str, *args: Any) -> None:
            pass  # quiet: tests and benchmarks read the recorded requests instead

    return Handler
