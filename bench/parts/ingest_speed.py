"""Part 3: what an add costs. CPU per add, LLM calls and tokens per message, adds per second.

In-process runs use the real Container against a moto server and the stub LLM, each in its own
process, so this process's CPU time (all threads: boto3, MiniLM, the index, pydantic) is the
pipeline's own cost with neither LLM time nor DynamoDB's server side in it.

LoCoMo replay: one add per turn (the speaker as the message name), session number and date as
the add's metadata. "backlog" runs the queued adds in FIFO batches of ten, as the extraction
function receives them when it is behind (consecutive adds of one user are then extracted
together); "live" runs each add alone, as when adds arrive slower than they are processed.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx

from bench.data.locomo_data import Conversation, Turn
from bench.rig.engram_env import EngramEnv
from bench.rig.procs import ROOT, LocalStack, ModelServer, MotoProcess, StubCounters, bench_env, cpu_seconds

WORKER_BATCH = 10


@dataclass
class Mode:
    name: str
    infer: bool
    deduplicate: bool
    batch: int  # tasks handed to the worker at once


MODES = (
    Mode("infer=false, deduplicate=false (raw turns)", False, False, WORKER_BATCH),
    Mode("infer=false, deduplicate=true (default dedup)", False, True, WORKER_BATCH),
    Mode("infer=true, backlog (batches of 10)", True, True, WORKER_BATCH),
    Mode("infer=true, live (one add at a time)", True, True, 1),
)


WARM_UP_TURNS = 20  # the last turns of the last conversation: some reach the LLM in every mode


def run_child(
    moto_endpoint: str, llm_url: str, conversations: list[int], mode: int, turns: int, profile: Path | None = None
) -> dict[str, Any]:
    """bench.parts.ingest_speed.replay of LoCoMo conversations (indexes into locomo_data.load()) in mode
    ingest.MODES[mode], in a fresh process; its result row. With `profile`, the measured adds' cProfile
    statistics are written there."""
    arg: dict[str, Any] = {
        "moto": moto_endpoint,
        "llm_url": llm_url,
        "conversations": conversations,
        "mode": mode,
        "turns": turns,
        "profile": str(profile) if profile else None,
    }
    command = [sys.executable, "-m", "bench.parts.ingest_speed_child", json.dumps(arg)]
    done = subprocess.run(command, cwd=ROOT, env=bench_env(), capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"ingest replay failed: {done.stderr[-2000:]}")
    row: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return row


def add_body(conv: Conversation, turn: Turn, infer: bool, deduplicate: bool) -> dict[str, Any]:
    metadata: dict[str, Any] = {"session": turn.session}
    if turn.session_date:
        metadata["session_date"] = turn.session_date.isoformat()
    content = turn.text + (f" [shares a photo: {turn.caption}]" if turn.caption else "")
    return {
        "user_id": conv.user_id,
        "messages": [{"role": "user", "content": content, "name": turn.speaker}],
        "metadata": metadata,
        "infer": infer,
        "deduplicate": deduplicate,
    }


def replay(env: EngramEnv, llm: StubCounters, convs: Sequence[Conversation], mode: Mode, turns: int) -> dict[str, Any]:
    """Submits up to `turns` turns per conversation, then runs the worker; CPU and LLM use per add."""
    from engram.domain.models import AddRequest

    memories, worker = env.container.memories, env.container.worker
    llm.reset()
    submitted: list[str] = []
    cpu0, wall0 = cpu_seconds(), time.perf_counter()
    for conv in convs:
        for turn in conv.turns[:turns]:
            request = AddRequest.model_validate(add_body(conv, turn, mode.infer, mode.deduplicate))
            submitted.append(memories.submit(env.tenant_id, request).task_id)
    cpu1, wall1 = cpu_seconds(), time.perf_counter()
    stored: set[str] = set()  # tasks extracted together share their results
    for start in range(0, len(submitted), mode.batch):
        for task in worker.process_many(env.tenant_id, submitted[start : start + mode.batch]):
            if task.status.value != "completed":
                raise RuntimeError(f"task {task.task_id} ended {task.status.value}: {task.error}")
            stored.update(f"{r.id}#{r.memory}" for r in task.results if r.event.value in ("ADD", "UPDATE"))
    cpu2, wall2 = cpu_seconds(), time.perf_counter()
    stats = llm.stats()
    n = len(submitted)
    return {
        "mode": mode.name,
        "adds": n,
        "submit_cpu_ms_per_add": round((cpu1 - cpu0) * 1000 / n, 2),
        "worker_cpu_ms_per_add": round((cpu2 - cpu1) * 1000 / n, 2),
        "worker_wall_ms_per_add": round((wall2 - wall1) * 1000 / n, 2),
        "llm_calls_per_message": round(stats["chat_calls"] / n, 3),
        "prompt_tokens_per_message": round(stats["prompt_tokens"] / n, 1),
        "completion_tokens_per_message": round(stats["completion_tokens"] / n, 1),
        "memories_written_per_add": round(len(stored) / n, 2),
        "wall_s": round(wall2 - wall0, 2),
    }


def in_process(llm: ModelServer, convs: Sequence[Conversation], turns: int) -> list[dict[str, Any]]:
    """Each mode's replay in a fresh process (bench/parts/ingest_speed_child.py) against a fresh moto: moto's
    transaction cost grows with all it holds. `convs` are the first of locomo_data.load()."""
    rows = []
    for index, mode in enumerate(MODES):
        with MotoProcess() as moto:
            rows.append(run_child(moto.endpoint, llm.base_url, list(range(len(convs))), index, turns))
        print(f"  ingest {mode.name}: {rows[-1]}", flush=True)
    return rows


def through_stack(work: Path, llm: ModelServer, conv: Conversation, turns: int, infer: bool) -> dict[str, Any]:
    """POST /v1/memories for each turn as fast as the API takes them, then wait for every task."""
    data_dir = work / f"stack-ingest-{'infer' if infer else 'raw'}"
    with (
        LocalStack(data_dir, llm.base_url) as stack,
        httpx.Client(base_url=stack.url, headers=stack.headers, timeout=60) as client,
    ):
        llm.reset()
        began = time.perf_counter()
        task_ids = []
        for turn in conv.turns[:turns]:
            response = client.post("/v1/memories", json=add_body(conv, turn, infer, deduplicate=infer))
            response.raise_for_status()
            task_ids.append(response.json()["task_id"])
        accepted = time.perf_counter() - began
        failed = 0
        for task_id in task_ids:  # one user's tasks finish in order (FIFO), so wait for each in turn
            while (status := client.get(f"/v1/tasks/{task_id}").json()["status"]) not in ("completed", "failed"):
                time.sleep(0.05)
            failed += status == "failed"
        done = time.perf_counter() - began
        stats = llm.stats()
    return {
        "mode": "infer=true (stub LLM)" if infer else "infer=false, deduplicate=false",
        "adds": len(task_ids),
        "api_accepts_per_s": round(len(task_ids) / accepted, 1),
        "end_to_end_adds_per_s": round(len(task_ids) / done, 1),
        "llm_calls_per_message": round(stats["chat_calls"] / len(task_ids), 3),
        "failed": failed,
    }
