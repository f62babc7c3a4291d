"""Part "bulk": the local stack (`make run`) under bulk work, through HTTP with infer=false.

- adds: `adds` POST /v1/memories from `clients` threads for `users` users (one message each, stored
  as given), timed until every one is accepted (accepts/s) and until every task completed
  (processed/s). Targets: >= 50 accepted/s and >= 20 processed/s.
- forget: one user with `memories` memories (seeded through HTTP in adds of 100 messages), then
  DELETE /v1/memories?user_id= and the task polled until it completes. Target: 10,000 in <= 30 s.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx

from bench.procs import LocalStack

SEED_MESSAGES_PER_ADD = 100
TARGETS = {"accepts_per_s": 50.0, "processed_per_s": 20.0, "forget_10k_s": 30.0}


@contextmanager
def _client(work: Path, name: str) -> Iterator[httpx.Client]:
    with (
        LocalStack(work / name) as stack,
        httpx.Client(base_url=stack.url, headers=stack.headers, timeout=120) as client,
    ):
        yield client


def _add(client: httpx.Client, user: str, texts: list[str]) -> str:
    body = {
        "user_id": user,
        "messages": [{"role": "user", "content": t} for t in texts],
        "infer": False,
        "deduplicate": False,
    }
    response = client.post("/v1/memories", json=body)
    response.raise_for_status()
    return str(response.json()["task_id"])


def _wait(client: httpx.Client, task_ids: list[str], poll_s: float = 0.05) -> dict[str, Any]:
    """Waits for each task in turn; returns the last one's view. Raises if any failed."""
    task: dict[str, Any] = {}
    for task_id in task_ids:
        while (task := client.get(f"/v1/tasks/{task_id}").json())["status"] not in ("completed", "failed"):
            time.sleep(poll_s)
        if task["status"] == "failed":
            raise RuntimeError(f"task {task_id} failed: {task.get('error')}")
    return task


def adds(work: Path, adds: int, users: int, clients: int) -> dict[str, Any]:
    with _client(work, "bulk-adds") as client, ThreadPoolExecutor(clients) as pool:
        began = time.perf_counter()
        jobs = [(f"user-{i % users}", [f"Fact {i} of the bulk bench"]) for i in range(adds)]
        task_ids = list(pool.map(lambda job: _add(client, *job), jobs))
        accepted = time.perf_counter() - began
        _wait(client, task_ids)
        processed = time.perf_counter() - began
    return {
        "adds": adds,
        "users": users,
        "clients": clients,
        "accepts_per_s": round(adds / accepted, 1),
        "processed_per_s": round(adds / processed, 1),
    }


def forget(work: Path, memories: int) -> dict[str, Any]:
    with _client(work, "bulk-forget") as client:
        began = time.perf_counter()
        seeded = []
        for start in range(0, memories, SEED_MESSAGES_PER_ADD):
            end = min(start + SEED_MESSAGES_PER_ADD, memories)
            texts = [f"Memory {i} of the user to forget" for i in range(start, end)]
            seeded.append(_add(client, "forgetful", texts))
        _wait(client, seeded, poll_s=0.5)
        seed_s = time.perf_counter() - began

        began = time.perf_counter()
        response = client.delete("/v1/memories", params={"user_id": "forgetful"})
        answered = time.perf_counter() - began
        response.raise_for_status()
        task = _wait(client, [response.json()["task_id"]], poll_s=0.1)
        forget_s = time.perf_counter() - began
        left = client.get("/v1/memories", params={"user_id": "forgetful", "limit": 1}).json()["results"]
    return {
        "memories": memories,
        "seed_s": round(seed_s, 1),
        "delete_status": response.status_code,
        "delete_answered_ms": round(answered * 1000, 1),
        "deleted": task["counts"].get("deleted"),
        "forget_s": round(forget_s, 2),
        "memories_left": len(left),
    }


def run(work: Path, adds_count: int = 300, users: int = 10, clients: int = 8, memories: int = 10_000) -> dict[str, Any]:
    out: dict[str, Any] = {"targets": TARGETS}
    out["adds"] = adds(work, adds_count, users, clients)
    print(f"  bulk adds: {out['adds']}", flush=True)
    out["forget"] = forget(work, memories)
    print(f"  bulk forget: {out['forget']}", flush=True)
    return out


if __name__ == "__main__":
    import argparse
    import tempfile

    parser = argparse.ArgumentParser(prog="python -m bench.bulk")
    parser.add_argument("--adds", type=int, default=300)
    parser.add_argument("--users", type=int, default=10)
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--memories", type=int, default=10_000)
    parser.add_argument("--skip", choices=("adds", "forget"), default=None)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="engram-bulk-") as tmp:
        if args.skip != "adds":
            print(adds(Path(tmp), args.adds, args.users, args.clients), flush=True)
        if args.skip != "forget":
            print(forget(Path(tmp), args.memories), flush=True)
