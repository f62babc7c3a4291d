"""Run `python -m engram_tools.local` in a subprocess on free ports and talk to it over HTTP."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parents[2]
START_TIMEOUT_S = 120.0  # generous: the first start on a busy 2-core machine loads the ONNX model
POLL_S = 0.1


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class StackProcess:
    """One local stack process; `restart()` keeps its ports and data folder."""

    def __init__(self, data_dir: Path, api_keys: str, env: dict[str, str] | None = None) -> None:
        self.data_dir = data_dir
        self.port = free_port()
        self.moto_port = free_port()
        self.log_path = data_dir.parent / f"{data_dir.name}-stack.log"
        self._env = {k: v for k, v in os.environ.items() if not k.startswith("ENGRAM_")}
        self._env.update(
            {"ENGRAM_LOCAL_API_KEYS": api_keys, "ENGRAM_MOTO_PORT": str(self.moto_port), "PYTHONUNBUFFERED": "1"}
        )
        self._env.update(env or {})
        self._process: subprocess.Popen[bytes] | None = None
        self.started_in_s: float | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def pid(self) -> int | None:
        return self._process.pid if self._process is not None else None

    @property
    def moto_endpoint(self) -> str:
        return f"http://127.0.0.1:{self.moto_port}"

    def start(self) -> StackProcess:
        command = [sys.executable, "-m", "engram_tools.local"]
        command += ["--port", str(self.port), "--data-dir", str(self.data_dir)]
        began = time.monotonic()
        with self.log_path.open("ab") as log:
            self._process = subprocess.Popen(command, cwd=ROOT, env=self._env, stdout=log, stderr=subprocess.STDOUT)
        deadline = began + START_TIMEOUT_S
        while time.monotonic() < deadline:
            if self._process.poll() is not None:
                raise RuntimeError(f"the local stack exited with {self._process.returncode}:\n{self.log_tail()}")
            try:
                if httpx.get(f"{self.url}/health", timeout=2).status_code == 200:
                    self.started_in_s = time.monotonic() - began
                    return self
            except httpx.TransportError:
                pass
            time.sleep(POLL_S)
        self.stop()
        raise RuntimeError(f"the local stack did not answer /health in {START_TIMEOUT_S} s:\n{self.log_tail()}")

    def stop(self) -> int | None:
        """SIGTERM, as Ctrl-C or a process manager would; returns the exit code."""
        process, self._process = self._process, None
        if process is None or process.poll() is not None:
            return None if process is None else process.returncode
        process.send_signal(signal.SIGTERM)
        try:
            return process.wait(timeout=60)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
            raise RuntimeError(f"the local stack ignored SIGTERM:\n{self.log_tail()}") from None

    def kill(self) -> None:
        """SIGKILL (kill -9): no signal handler, no final snapshot; what is on disk is all there is."""
        process, self._process = self._process, None
        if process is not None and process.poll() is None:
            process.kill()
            process.wait()

    def restart(self) -> StackProcess:
        code = self.stop()
        if code not in (0, None):
            raise RuntimeError(f"the local stack stopped with {code}:\n{self.log_tail()}")
        return self.start()

    def log_tail(self, lines: int = 60) -> str:
        if not self.log_path.exists():
            return ""
        return "\n".join(self.log_path.read_text(errors="replace").splitlines()[-lines:])


class Api:
    """A tenant's view of the API: one API key, JSON in and out."""

    def __init__(self, stack: StackProcess, key: str | None) -> None:
        self._stack = stack
        self._key = key

    def request(self, method: str, path: str, json: Any = None, params: dict[str, Any] | None = None) -> httpx.Response:
        headers = {"x-api-key": self._key} if self._key else {}
        return httpx.request(method, self._stack.url + path, json=json, params=params, headers=headers, timeout=30)

    def add(self, user_id: str, text: str, **options: Any) -> str:
        body = {"user_id": user_id, "messages": [{"role": "user", "content": text}], **options}
        resp = self.request("POST", "/v1/memories", json=body)
        assert resp.status_code == 202, resp.text
        task_id: str = resp.json()["task_id"]
        return task_id

    def wait(self, task_id: str, until: tuple[str, ...] = ("completed", "failed"), timeout_s: float = 60) -> Any:
        """The task once its status is one of `until` (polling; fails with the last status seen)."""
        deadline = time.monotonic() + timeout_s
        task: Any = None
        while time.monotonic() < deadline:
            resp = self.request("GET", f"/v1/tasks/{task_id}")
            assert resp.status_code == 200, resp.text
            task = resp.json()
            if task["status"] in until:
                return task
            time.sleep(POLL_S)
        raise AssertionError(f"task {task_id} still {task and task['status']} after {timeout_s} s")

    def remember(self, user_id: str, text: str) -> Any:
        """Add, and wait until it completed."""
        task = self.wait(self.add(user_id, text))
        assert task["status"] == "completed", task
        return task

    def memories(self, user_id: str) -> list[Any]:
        resp = self.request("GET", "/v1/memories", params={"user_id": user_id})
        assert resp.status_code == 200, resp.text
        results: list[Any] = resp.json()["results"]
        return results

    def search(self, user_id: str, query: str) -> list[Any]:
        resp = self.request("POST", "/v1/memories/search", json={"user_id": user_id, "query": query})
        assert resp.status_code == 200, resp.text
        results: list[Any] = resp.json()["results"]
        return results

    def history(self, memory_id: str) -> list[Any]:
        resp = self.request("GET", f"/v1/memories/{memory_id}/history")
        assert resp.status_code == 200, resp.text
        results: list[Any] = resp.json()["results"]
        return results
