"""One stack per data folder: a second `make run` on a folder in use is refused, naming the folder and
the process that holds it, and the first one goes on serving with nothing lost; the folder of a
killed stack is taken over by the next start."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import httpx

from tests.e2e.stack_process import ROOT, Api, StackProcess, free_port

KEY = "key-lock-1"


def second_start(data_dir: Path, stack: StackProcess) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "engram_tools.local", "--port", str(free_port()), "--data-dir", str(data_dir)]
    env = {**stack._env, "ENGRAM_MOTO_PORT": str(free_port())}
    return subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=120, check=False)


def texts(api: Api, user_id: str) -> set[str]:
    return {m["memory"] for m in api.memories(user_id)}


def test_a_second_stack_on_a_folder_in_use_is_refused_and_nothing_is_lost(tmp_path: Path) -> None:
    data_dir = tmp_path / "data"
    stack = StackProcess(data_dir, f"acme:{KEY}").start()
    try:
        api = Api(stack, KEY)
        api.wait(api.add("lock", "Bob keeps bees in Lyon", infer=False))

        refused = second_start(data_dir, stack)

        output = refused.stdout + refused.stderr
        assert refused.returncode != 0, output
        assert str(data_dir.resolve()) in output and f"process {stack.pid}" in output, output
        assert httpx.get(stack.url + "/health", timeout=30).status_code == 200  # the first still serves
        late = api.add("lock", "Bob sells honey on Saturdays", infer=False)  # answered 202 after the refusal
        api.wait(late)
        stack.restart()
        assert texts(api, "lock") == {"Bob keeps bees in Lyon", "Bob sells honey on Saturdays"}

        stack.kill()  # kill -9: the lock goes with the process
        stack.start()
        assert texts(api, "lock") == {"Bob keeps bees in Lyon", "Bob sells honey on Saturdays"}
    finally:
        stack.stop()
