"""Part "bulk": the local stack (`make run`) under bulk work, through HTTP with infer=false.

- adds: `adds` POST /v1/memories from `clients` threads for `users` users (one message each, stored
  as given), timed until every one is accepted (accepts/s) and until every task completed
  (processed/s). Targets: >= 50 accepted/s and >= 20 processed/s.
- forget: one user with `memories` memories (seeded through HTTP in adds of 100 messages), then
  DELETE /v1/memories?user_id= and the task polled until it completes. Target: 10,000 in <= 30 s.

Each is run `runs` times (adds: a fresh stack each; forget: one stack, a fresh user each) and the
median reported, with the machine's load average around each run: the figures are wall-clock rates of
a 2-core machine, which other work on it slows down.
"""

from __future__ import annotations

import os
import statistics
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx

from bench.rig.procs import LocalStack

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


def forget(work: Path, memories: int, runs: int = 1) -> list[dict[str, Any]]:
    """`runs` times on one stack: seed a fresh user with `memories` memories, then forget them."""
    results = []
    with _client(work, "bulk-forget") as client:
        for run in range(runs):
            user = f"forgetful-{run}"
            began = time.perf_counter()
            seeded = []
            for start in range(0, memories, SEED_MESSAGES_PER_ADD):
                end = min(start + SEED_MESSAGES_PER_ADD, memories)
                texts = [f"Memory {i} of the user to forget" for i in range(start, end)]
                seeded.append(_add(client, user, texts))
            _wait(client, seeded, poll_s=0.5)
            seed_s = time.perf_counter() - began

            load_before = os.getloadavg()[0]
            began = time.perf_counter()
            response = client.delete("/v1/memories", params={"user_id": user})
            answered = time.perf_counter() - began
            response.raise_for_status()
            task = _wait(client, [response.json()["task_id"]], poll_s=0.1)
            forget_s = time.perf_counter() - began
            left = client.get("/v1/memories", params={"user_id": user, "limit": 1}).json()["results"]
            results.append(
                {
                    "memories": memories,
                    "seed_s": round(seed_s, 1),
                    "delete_status": response.status_code,
                    "delete_answered_ms": round(answered * 1000, 1),
                    "deleted": task["counts"].get("deleted"),
                    "forget_s": round(forget_s, 2),
                    "memories_left": len(left),
                    "load_avg_1m": [round(load_before, 1), round(os.getloadavg()[0], 1)],
                }
            )
            print(f"  bulk forget run {run + 1}/{runs}: {results[-1]}", flush=True)
    return results


def _adds_runs(work: Path, runs: int, adds_count: int, users: int, clients: int) -> list[dict[str, Any]]:
    results = []
    for run in range(runs):
        load_before = os.getloadavg()[0]
        (work / f"adds-{run}").mkdir(parents=True, exist_ok=True)
        result = adds(work / f"adds-{run}", adds_count, users, clients)
        result["load_avg_1m"] = [round(load_before, 1), round(os.getloadavg()[0], 1)]
        results.append(result)
        print(f"  bulk adds run {run + 1}/{runs}: {result}", flush=True)
    return results


def _median(runs: list[dict[str, Any]], keys: tuple[str, ...]) -> dict[str, Any]:
    out: dict[str, Any] = {k: runs[0][k] for k in runs[0] if k not in keys and k != "load_avg_1m"}
    out.update({k: round(statistics.median(r[k] for r in runs), 2) for k in keys})
    out["runs"] = runs
    return out


def report(out: dict[str, Any]) -> str:
    """The three figures against their targets."""
    rows = [
        ("adds accepted/s (HTTP, infer=false)", out["adds"]["accepts_per_s"], ">=", TARGETS["accepts_per_s"]),
        ("adds processed/s (HTTP, infer=false)", out["adds"]["processed_per_s"], ">=", TARGETS["processed_per_s"]),
        (
            f"{out['forget']['memories']:,} memories forgotten, s",
            out["forget"]["forget_s"],
            "<=",
            TARGETS["forget_10k_s"],
        ),
    ]
    lines = [f"bulk (median of {len(out['adds']['runs'])} / {len(out['forget']['runs'])} runs; load {out['load']}):"]
    for name, value, op, target in rows:
        met = value >= target if op == ">=" else value <= target
        lines.append(f"  {name:<40} {value:>8}   target {op} {target:<6} {'met' if met else 'NOT met'}")
    return "\n".join(lines)


def run(
    work: Path,
    adds_count: int = 300,
    users: int = 10,
    clients: int = 8,
    memories: int = 10_000,
    runs: int = 3,
) -> dict[str, Any]:
    started = time.strftime("%Y-%m-%dT%H:%M:%S+00:00", time.gmtime())
    out: dict[str, Any] = {"targets": TARGETS, "cores": os.cpu_count(), "started": started}
    adds_runs = _adds_runs(work, runs, adds_count, users, clients)
    forget_runs = forget(work, memories, runs)
    out["adds"] = _median(adds_runs, ("accepts_per_s", "processed_per_s"))
    out["forget"] = _median(forget_runs, ("forget_s", "seed_s", "delete_answered_ms"))
    loads = [x for r in adds_runs + forget_runs for x in r["load_avg_1m"]]
    out["load"] = f"1-min load average {min(loads)}-{max(loads)} on {os.cpu_count()} cores"
    print(report(out), flush=True)
    return out


if __name__ == "__main__":
    import argparse
    import tempfile

    parser = argparse.ArgumentParser(prog="python -m bench.parts.bulk")
    parser.add_argument("--adds", type=int, default=300)
    parser.add_argument("--users", type=int, default=10)
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--memories", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=3, help="runs of each part; medians are reported")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="engram-bulk-") as tmp:
        run(Path(tmp), args.adds, args.users, args.clients, args.memories, args.runs)
