"""The processes a benchmark talks to: the stub model server, a moto server, the local stack.

Each runs in its own process so the measured process's CPU time holds only the code under test
(on AWS, DynamoDB and the LLM are other machines too). Their own CPU is read from /proc when asked.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from types import TracebackType
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parents[2]
FAKE_AWS = {"AWS_ACCESS_KEY_ID": "testing", "AWS_SECRET_ACCESS_KEY": "testing", "AWS_SESSION_TOKEN": "testing"}


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def cpu_seconds(pid: int | None = None) -> float:
    """User + system CPU seconds of a process (this one by default), all its threads included."""
    if pid is None:
        times = os.times()
        return times.user + times.system
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    ticks = os.sysconf("SC_CLK_TCK")
    return (int(fields[11]) + int(fields[12])) / ticks  # utime, stime


def bench_env(**extra: str) -> dict[str, str]:
    """The environment for child processes: no ENGRAM_* or real AWS settings leak in."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ENGRAM_", "AWS_"))}
    env.update(FAKE_AWS)
    env.update({"AWS_REGION": "us-east-1", "AWS_DEFAULT_REGION": "us-east-1", "PYTHONUNBUFFERED": "1"})
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT), env.get("PYTHONPATH", "")) if p)
    env.update(extra)
    return env


class Child:
    """A child process stopped with SIGTERM (then SIGKILL) on exit."""

    process: subprocess.Popen[bytes] | None = None

    @property
    def pid(self) -> int:
        if self.process is None:
            raise RuntimeError("not started")
        return self.process.pid

    def cpu(self) -> float:
        return cpu_seconds(self.pid)

    def stop(self) -> None:
        process, self.process = self.process, None
        if process is None or process.poll() is not None:
            return
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()

    def __enter__(self) -> Any:
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        self.stop()


class StubCounters:
    """The stub model server's call and token counters, by its URL (from any process)."""

    def __init__(self, base_url: str) -> None:
        self.base_url = base_url

    def stats(self) -> dict[str, int]:
        return dict(httpx.get(f"{self.base_url}/stub/stats", timeout=10).json())

    def reset(self) -> None:
        httpx.post(f"{self.base_url}/stub/reset", timeout=10)


class ModelServer(Child, StubCounters):
    """bench.doubles.model_server: stub chat answers, and MiniLM embeddings when `minilm`."""

    def __init__(self, minilm: bool = False) -> None:
        command = [sys.executable, "-m", "bench.doubles.model_server"] + (["--minilm"] if minilm else [])
        self.process = subprocess.Popen(
            command, cwd=ROOT, env=bench_env(), stdin=subprocess.PIPE, stdout=subprocess.PIPE
        )
        assert self.process.stdout is not None
        line = self.process.stdout.readline()
        if not line:
            raise RuntimeError("bench.doubles.model_server exited before it was ready")
        StubCounters.__init__(self, str(json.loads(line)["base_url"]))


class MotoProcess(Child):
    """The local stack's moto server (bench/doubles/fake_aws.py) on a free port: DynamoDB, SQS and S3 as
    remote services."""

    def __init__(self) -> None:
        port = free_port()
        self.endpoint = f"http://127.0.0.1:{port}"
        command = [sys.executable, "-m", "bench.doubles.fake_aws", "--port", str(port)]
        self.process = subprocess.Popen(
            command, cwd=ROOT, env=bench_env(), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )
        _wait_for(f"{self.endpoint}/moto-api/", self.process, 60)


class LocalStack(Child):
    """`python -m engram_tools.local` (what `make run` starts) on free ports with a fresh data folder."""

    API_KEY = "bench-key-0123456789abcdef"

    def __init__(
        self,
        data_dir: Path,
        llm_base_url: str | None = None,
        timeout_s: float = 180,
        env: dict[str, str] | None = None,
    ) -> None:
        """`env`: more ENGRAM_* settings for the stack (ENGRAM_AGENTCORE_KEYS, say)."""
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.log_path = data_dir.with_suffix(".log")
        moto_port = free_port()
        self.moto_endpoint = f"http://127.0.0.1:{moto_port}"
        settings = bench_env(ENGRAM_LOCAL_API_KEYS=f"bench:{self.API_KEY}", ENGRAM_MOTO_PORT=str(moto_port))
        # The template's stage throttle (100 requests a second, burst 200) limits what a deployment serves,
        # not what a request costs: one client searching a quiet stack back to back passes it (~230 a
        # second at 1,000 memories) and would time 429s. The bench's stacks take every request.
        settings.update(ENGRAM_RATE_LIMIT_RPS="1000000", ENGRAM_RATE_LIMIT_BURST="1000000")
        settings.update(env or {})
        if llm_base_url:
            settings.update({"ENGRAM_OPENAI_BASE_URL": llm_base_url, "ENGRAM_OPENAI_API_KEY": "stub"})
        command = [sys.executable, "-m", "engram_tools.local", "--port", str(self.port), "--data-dir", str(data_dir)]
        began = time.monotonic()
        with self.log_path.open("ab") as log:
            self.process = subprocess.Popen(command, cwd=ROOT, env=settings, stdout=log, stderr=subprocess.STDOUT)
        try:
            _wait_for(f"{self.url}/health", self.process, timeout_s)
        except RuntimeError as err:
            self.stop()
            tail = self.log_path.read_text(errors="replace")[-2000:]
            raise RuntimeError(f"{err}\n{tail}") from err
        self.started_in_s = time.monotonic() - began

    @property
    def headers(self) -> dict[str, str]:
        return {"x-api-key": self.API_KEY, "content-type": "application/json"}


def _wait_for(url: str, process: subprocess.Popen[bytes], timeout_s: float) -> None:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"{process.args!r} exited with {process.returncode}")
        try:
            if httpx.get(url, timeout=2).status_code < 500:
                return
        except httpx.TransportError:
            pass
        time.sleep(0.1)
    raise RuntimeError(f"{url} did not answer within {timeout_s} s")


def git_commit(root: Path) -> str:
    done = subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"], cwd=root, capture_output=True, text=True, check=False
    )
    return done.stdout.strip() or "unknown"
