"""LoCoMo recall through `make run`'s HTTP API, sent as a client following the README sends it.

Each turn is one POST /v1/memories with exactly the body the in-process part builds
(`locomo_recall.turn_request`: the speaker as the message's `name`, `created_at` the time it was said,
infer=false, deduplicate=false), each question one POST /v1/memories/search (top_k=20), scored as the
in-process part scores. The same conversations through MemoryService in process must give the same
figures: `python -m bench.labs.locomo_http --conversations 2` runs both and reports the difference (the same
code and data, so any difference beyond embedding arithmetic is a bug; the goal is within 0.01).
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import httpx

from bench.data.locomo_data import Conversation, load
from bench.parts.locomo_recall import KS, _scores, turn_request
from bench.parts.locomo_recall import run as in_process
from bench.rig.procs import LocalStack


def _ingest(client: httpx.Client, conv: Conversation) -> dict[str, str]:
    """Every turn one add; returns memory id -> dia_id once every task has finished."""
    tasks: list[tuple[str, str]] = []
    for turn in conv.turns:
        response = client.post("/v1/memories", json=turn_request(conv, turn))
        response.raise_for_status()
        tasks.append((response.json()["task_id"], turn.dia_id))
    by_memory: dict[str, str] = {}
    for task_id, dia_id in tasks:  # one user's tasks finish in order (FIFO)
        while (task := client.get(f"/v1/tasks/{task_id}").json())["status"] not in ("completed", "failed"):
            time.sleep(0.05)
        results = task.get("results") or []
        if task["status"] != "completed" or len(results) != 1:
            raise RuntimeError(f"turn {dia_id} was not stored: {task['status']} {task.get('error')}")
        by_memory[results[0]["id"]] = dia_id
    return by_memory


def run(conversations: Sequence[Conversation], work: Path) -> dict[str, Any]:
    ranked: list[tuple[int, list[str], Sequence[str]]] = []
    with (
        LocalStack(work / "stack-locomo-http") as stack,
        httpx.Client(base_url=stack.url, headers=stack.headers, timeout=60) as client,
    ):
        for conv in conversations:
            by_memory = _ingest(client, conv)
            for q in conv.questions:
                if not q.evidence:
                    continue
                body = {"user_id": conv.user_id, "query": q.question, "top_k": max(KS)}
                hits = client.post("/v1/memories/search", json=body).raise_for_status().json()["results"]
                ranked.append((q.category, [by_memory.get(h["id"], "?") for h in hits], q.evidence))
    return {
        "method": {
            "request": "POST /v1/memories per turn with bench.parts.locomo_recall.turn_request's body",
            "search": "POST /v1/memories/search top_k=20",
        },
        "conversations": len(conversations),
        "questions_scored": len(ranked),
        "results": _scores(ranked),
    }


def compare(conversations: Sequence[Conversation], work: Path) -> dict[str, Any]:
    """The same conversations over HTTP and in process; the largest difference of any recall figure."""
    http = run(conversations, work)
    local = in_process(conversations, ablations=False)
    gaps = {
        block: max(abs(http["results"][block][key] - local["results"]["engram"][block][key]) for key in figures)
        for block, figures in http["results"].items()
    }
    return {
        "http": http["results"],
        "in_process": local["results"]["engram"],
        "largest_difference": max(gaps.values()),
        "within_0.01": max(gaps.values()) <= 0.01,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--conversations", type=int, default=2, help="the first N LoCoMo conversations")
    parser.add_argument("--http-only", action="store_true", help="skip the in-process run")
    args = parser.parse_args(argv)
    convs = load()[: args.conversations]
    with tempfile.TemporaryDirectory() as tmp:
        out = run(convs, Path(tmp)) if args.http_only else compare(convs, Path(tmp))
    print(json.dumps(out, indent=2))
    return 0 if args.http_only or out["within_0.01"] else 1


if __name__ == "__main__":
    raise SystemExit(main())
