"""Runs INSIDE mem0's own virtual environment (bench/.mem0-venv): never imported by Engram.

A line-oriented command server: one JSON command per line on stdin, one JSON answer per line on
the protocol channel (the original stdout; anything mem0 prints goes to stderr). Only the
standard library, numpy (a mem0 dependency) and mem0 are imported.

Commands: init, add, bulk, search, latency, cpu, quit. See bench/parts/mem0_compare.py for their use.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import sys
import time
import uuid
from datetime import UTC, datetime
from typing import Any

os.environ.setdefault("MEM0_TELEMETRY", "False")

_protocol = os.fdopen(os.dup(sys.stdout.fileno()), "w", buffering=1)
sys.stdout = sys.stderr  # mem0's notices must not corrupt the protocol
# mem0 warns on every init that spaCy and fastembed are missing (no BM25, no entities); the bench
# README says so once. Errors still show.
logging.basicConfig(level=logging.ERROR, stream=sys.stderr)

STATE: dict[str, Any] = {}


def cpu() -> float:
    times = os.times()
    return times.user + times.system


def init(cmd: dict[str, Any]) -> dict[str, Any]:
    from mem0 import Memory

    data_dir = cmd["dir"]
    os.makedirs(data_dir, exist_ok=True)
    name = cmd["name"]
    if cmd["store"] == "faiss":
        store = {
            "provider": "faiss",
            "config": {
                "collection_name": name,
                "path": os.path.join(data_dir, f"faiss-{name}"),
                "embedding_model_dims": 384,
                "distance_strategy": "cosine",
            },
        }
    else:  # mem0's default: local Qdrant
        store = {
            "provider": "qdrant",
            "config": {
                "collection_name": name,
                "path": os.path.join(data_dir, f"qdrant-{name}"),
                "embedding_model_dims": 384,
            },
        }
    config = {
        "vector_store": store,
        "embedder": {
            "provider": "openai",
            "config": {
                "model": "all-MiniLM-L6-v2",
                "openai_base_url": cmd["embed_url"],
                "api_key": "stub",
                "embedding_dims": 384,
            },
        },
        "llm": {
            "provider": "openai",
            "config": {"model": "gpt-4o-mini", "openai_base_url": cmd["llm_url"], "api_key": "stub"},
        },
        "history_db_path": os.path.join(data_dir, f"history-{name}.db"),
    }
    began = time.perf_counter()
    STATE["memory"] = Memory.from_config(config)
    return {"init_s": time.perf_counter() - began}


def add(cmd: dict[str, Any]) -> dict[str, Any]:
    memory = STATE["memory"]
    ids: list[list[str]] = []
    cpu0, wall0 = cpu(), time.perf_counter()
    for item in cmd["items"]:
        message = {"role": "user", "content": item["content"], "name": item.get("name")}
        result = memory.add([message], user_id=cmd["user_id"], metadata=item.get("metadata"), infer=cmd["infer"])
        ids.append([r["id"] for r in result.get("results", [])])
    return {"ids": ids, "cpu_s": cpu() - cpu0, "wall_s": time.perf_counter() - wall0}


def bulk(cmd: dict[str, Any]) -> dict[str, Any]:
    """Loads memories with known vectors straight into the vector store, in the payload shape of
    mem0's own add(infer=False), for the latency runs (embedding 10k texts one HTTP call at a time
    would only measure the embedding server)."""
    import numpy as np

    memory = STATE["memory"]
    vectors = np.load(cmd["vectors_path"])
    with open(cmd["items_path"], encoding="utf-8") as fh:
        items = json.load(fh)
    now = datetime.now(UTC).isoformat()
    for start in range(0, len(items), 500):
        chunk = items[start : start + 500]
        payloads = [
            {
                **item.get("metadata", {}),
                "user_id": item["user_id"],
                "role": "user",
                "data": item["text"],
                "hash": hashlib.md5(item["text"].encode()).hexdigest(),
                "text_lemmatized": item["text"],
                "created_at": now,
                "updated_at": now,
            }
            for item in chunk
        ]
        memory.vector_store.insert(
            vectors=vectors[start : start + len(chunk)].tolist(),
            ids=[str(uuid.uuid4()) for _ in chunk],
            payloads=payloads,
        )
    return {"loaded": len(items)}


def search(cmd: dict[str, Any]) -> dict[str, Any]:
    memory = STATE["memory"]
    ranked = []
    for query in cmd["queries"]:
        found = memory.search(
            query, filters={"user_id": cmd["user_id"]}, top_k=cmd["top_k"], threshold=cmd["threshold"]
        )
        ranked.append([r["id"] for r in found.get("results", [])])
    return {"ranked": ranked}


def latency(cmd: dict[str, Any]) -> dict[str, Any]:
    memory = STATE["memory"]
    kwargs: dict[str, Any] = {"top_k": cmd["top_k"]}
    if cmd.get("threshold") is not None:
        kwargs["threshold"] = cmd["threshold"]
    cases = cmd["cases"]
    for user, query in cases[: cmd.get("warmup", 20)]:
        memory.search(query, filters={"user_id": user}, **kwargs)
    samples = []
    for user, query in cases:
        began = time.perf_counter()
        memory.search(query, filters={"user_id": user}, **kwargs)
        samples.append((time.perf_counter() - began) * 1000.0)
    return {"samples_ms": samples}


COMMANDS = {"init": init, "add": add, "bulk": bulk, "search": search, "latency": latency}


def main() -> None:
    for line in sys.stdin:
        cmd = json.loads(line)
        if cmd["cmd"] == "quit":
            break
        try:
            answer = {"cpu_s": cpu()} if cmd["cmd"] == "cpu" else COMMANDS[cmd["cmd"]](cmd)
            answer["ok"] = True
        except Exception as exc:  # reported to the bench, which stops with the reason
            answer = {"ok": False, "error": f"{type(exc).__name__}: {exc}"}
        _protocol.write(json.dumps(answer) + "\n")
    _protocol.flush()
    # Skip interpreter teardown: Qdrant's local client complains from __del__ when torn down late.
    os._exit(0)


if __name__ == "__main__":
    main()
