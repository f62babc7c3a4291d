"""A llama.cpp server (the xllamacpp wheel) in a child process on a free loopback port.

It answers OpenAI's API at ``{base_url}`` (/v1/chat/completions, /v1/models), with json_schema
response formats enforced by a grammar. The child runs ``python -m engram_tools.local.llm_server MODEL
PORT CTX THREADS MAX_TOKENS PARALLEL ALIAS`` and exits when its parent does (its stdin closes), so a killed stack
leaves no model holding 2 GB behind.
"""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

READY_POLL_S = 0.25


def free_port(host: str = "127.0.0.1") -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((host, 0))
        return int(sock.getsockname()[1])


@dataclass
class Speed:
    """One short completion's figures, as the server timed them."""

    seconds: float
    prompt_per_s: float
    generated_per_s: float

    def describe(self) -> str:
        return (
            f"a test call took {self.seconds:.1f} s (prompt {self.prompt_per_s:.0f} tokens/s, "
            f"generation {self.generated_per_s:.1f} tokens/s)"
        )


@dataclass
class LlamaServer:
    model_path: Path
    alias: str
    context: int = 4096
    threads: int = 2
    # A weak model held to a grammar can write one JSON string forever: the server stops it here
    # (the truncated answer is then asked again, reconcile/llm_json.py).
    max_tokens: int = 2048
    # Requests served at once (the context is shared among them). On a CPU, answering several together
    # costs little more than one (each step reads the weights once): a batch job's throughput.
    parallel: int = 1
    host: str = "127.0.0.1"
    port: int = 0  # 0: a free one
    log_path: Path | None = None  # the server's own output (else discarded)
    load_seconds: float = 0.0
    _process: subprocess.Popen[bytes] | None = field(default=None, repr=False)

    @property
    def base_url(self) -> str:
        return f"http://{self.host}:{self.port}/v1"

    def start(self, timeout_s: float = 600.0) -> LlamaServer:
        """Starts the child and waits until it answers /v1/models (loading a model takes seconds)."""
        if not self.model_path.is_file():
            raise FileNotFoundError(f"no model file at {self.model_path}")
        self.port = self.port or free_port(self.host)
        began = time.monotonic()
        log = self.log_path.open("ab") if self.log_path else subprocess.DEVNULL
        command = [sys.executable, "-m", "engram_tools.local.llm_server", str(self.model_path), str(self.port)]
        command += [str(self.context), str(self.threads), str(self.max_tokens), str(self.parallel), self.alias]
        self._process = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=log, stderr=log)  # noqa: S603
        try:
            while not self._answers():
                if self._process.poll() is not None:
                    raise RuntimeError(f"the llama.cpp server exited ({self._process.returncode}) while loading")
                if time.monotonic() - began > timeout_s:
                    raise TimeoutError(f"the llama.cpp server did not answer within {timeout_s:.0f} s")
                time.sleep(READY_POLL_S)
        except BaseException:
            self.stop()
            raise
        self.load_seconds = time.monotonic() - began
        return self

    def _answers(self) -> bool:
        try:
            with urllib.request.urlopen(f"{self.base_url}/models", timeout=2) as response:  # noqa: S310 - loopback
                return bool(response.status == 200)
        except (urllib.error.URLError, OSError):
            return False

    def measure(self, timeout_s: float = 300.0) -> Speed:
        """One short chat completion, with the speeds llama.cpp reports for it."""
        body = {
            "model": self.alias,
            "messages": [{"role": "user", "content": "Say the word ready."}],
            "max_tokens": 8,
            "temperature": 0,
        }
        request = urllib.request.Request(  # noqa: S310 - loopback
            f"{self.base_url}/chat/completions",
            data=json.dumps(body).encode(),
            headers={"content-type": "application/json"},
        )
        began = time.monotonic()
        with urllib.request.urlopen(request, timeout=timeout_s) as response:  # noqa: S310 - loopback
            answer = json.loads(response.read())
        timings = answer.get("timings") or {}
        return Speed(
            seconds=time.monotonic() - began,
            prompt_per_s=float(timings.get("prompt_per_second") or 0.0),
            generated_per_s=float(timings.get("predicted_per_second") or 0.0),
        )

    def stop(self) -> None:
        process, self._process = self._process, None
        if process is None:
            return
        if process.stdin is not None:
            process.stdin.close()  # the child's signal to leave
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()

    def __enter__(self) -> LlamaServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


def _serve(model: str, port: int, context: int, threads: int, max_tokens: int, parallel: int, alias: str) -> None:
    import xllamacpp

    params = xllamacpp.CommonParams()
    params.model.path = model
    params.model_alias = {alias}
    params.n_ctx = context
    params.n_predict = max_tokens
    params.n_parallel = parallel
    params.cpuparams.n_threads = threads
    params.cpuparams_batch.n_threads = threads
    params.port = port
    server = xllamacpp.Server(params)
    done = threading.Event()

    def watch_parent() -> None:
        sys.stdin.buffer.read()  # returns when the parent closes the pipe or dies
        done.set()

    threading.Thread(target=watch_parent, daemon=True).start()
    done.wait()
    del server


if __name__ == "__main__":
    port, context, threads, max_tokens, parallel = (int(a) for a in sys.argv[2:7])
    _serve(sys.argv[1], port, context, threads, max_tokens, parallel, sys.argv[7])
    sys.stdout.flush()
    import os

    os._exit(0)  # the server's threads need no orderly shutdown
