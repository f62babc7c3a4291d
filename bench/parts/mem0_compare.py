"""Part 4: Engram and mem0 side by side, on this machine, in this run, with the same inputs.

mem0 (PyPI `mem0ai`, pinned below) lives in its own virtual environment, bench/.mem0-venv, created
here on first use and never a dependency of Engram; bench/parts/mem0_runner.py drives it from inside.
Both embed with the same all-MiniLM-L6-v2 int8 model: Engram in-process, mem0 through its `openai`
embedder pointed at bench.doubles.model_server, which serves Engram's OnnxEmbedder vectors. Both use the
same stub LLM (another bench.doubles.model_server). mem0 runs its default local vector store (Qdrant,
local mode) and FAISS (cosine). MEM0_TELEMETRY=False; mem0's data lives in bench/.mem0-data.
Latency and ingest figures alternate Engram and mem0 runs and report the median of the runs.
"""

from __future__ import annotations

import json
import shutil
import statistics
import subprocess
import time
import uuid
from pathlib import Path
from types import TracebackType
from typing import Any

import numpy as np

from bench.data.corpus import Corpus
from bench.data.locomo_data import Conversation
from bench.parts import ingest_speed as engram_ingest
from bench.parts.locomo_recall import KS, _scores
from bench.parts.search_latency import cases_for, index_docs, measure
from bench.rig.bench_venv import PACKAGES, ensure_venv, venv_python
from bench.rig.engram_env import shared_embedder
from bench.rig.procs import ROOT, ModelServer, bench_env, cpu_seconds
from bench.rig.stats import latency_summary, ratio
from engram.adapters.embedded.index import EmbeddedIndex
from engram.search.hybrid import HybridSearcher

BENCH = ROOT / "bench"
DATA = BENCH / ".mem0-data"
STORES = ("qdrant", "faiss")


class Mem0:
    """One mem0_runner process."""

    def __init__(self, embed_url: str, llm_url: str) -> None:
        self.embed_url, self.llm_url = embed_url, llm_url
        env = bench_env(MEM0_TELEMETRY="False", MEM0_DIR=str(DATA))
        env.pop("PYTHONPATH", None)  # nothing of Engram's
        self.process = subprocess.Popen(
            [str(venv_python()), str(BENCH / "parts" / "mem0_runner.py")],
            cwd=DATA,
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )

    def call(self, cmd: str, **args: Any) -> dict[str, Any]:
        assert self.process.stdin is not None and self.process.stdout is not None
        self.process.stdin.write(json.dumps({"cmd": cmd, **args}) + "\n")
        self.process.stdin.flush()
        line = self.process.stdout.readline()
        if not line:
            raise RuntimeError(f"mem0 runner exited ({self.process.poll()}) during {cmd}")
        answer: dict[str, Any] = json.loads(line)
        if not answer.get("ok"):
            raise RuntimeError(f"mem0 {cmd} failed: {answer.get('error')}")
        return answer

    def init(self, store: str) -> None:
        name = f"{store}_{uuid.uuid4().hex[:10]}"
        self.call("init", store=store, dir=str(DATA), name=name, embed_url=self.embed_url, llm_url=self.llm_url)

    def __enter__(self) -> Mem0:
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        if self.process.poll() is None:
            assert self.process.stdin is not None
            self.process.stdin.write('{"cmd": "quit"}\n')
            self.process.stdin.close()
            try:
                self.process.wait(timeout=60)
            except subprocess.TimeoutExpired:
                self.process.kill()


def mem0_recall(mem0: Mem0, embed: ModelServer, convs: list[Conversation], store: str) -> dict[str, Any]:
    """mem0's add(infer=False) of every turn (same text and metadata as Engram's) and its search."""
    rows: list[tuple[int, list[str], Any]] = []
    adds, cpu, wall = 0, 0.0, 0.0
    for conv in convs:
        mem0.init(store)  # one store per conversation, as Engram gets its own tables
        items = [{"content": t.memory_text(), "name": t.speaker, "metadata": t.metadata()} for t in conv.turns]
        embed_cpu = embed.cpu()
        added = mem0.call("add", user_id=conv.user_id, items=items, infer=False)
        cpu += added["cpu_s"] + embed.cpu() - embed_cpu
        wall += added["wall_s"]
        adds += len(items)
        by_memory = {ids[0]: t.dia_id for ids, t in zip(added["ids"], conv.turns, strict=True) if ids}
        scored = [q for q in conv.questions if q.evidence]
        found = mem0.call(
            "search", user_id=conv.user_id, queries=[q.question for q in scored], top_k=max(KS), threshold=0.0
        )
        for q, ranked in zip(scored, found["ranked"], strict=True):
            rows.append((q.category, [by_memory.get(i, "?") for i in ranked], q.evidence))
    return {
        "conversations": len(convs),
        "results": _scores(rows),
        "ingest_cpu_ms_per_add": round(cpu * 1000 / adds, 2),
        "ingest_wall_ms_per_add": round(wall * 1000 / adds, 2),
    }


def _write_corpus(corpus: Corpus, size: int, folder: Path) -> tuple[Path, Path, list[Any]]:
    docs, _ = index_docs(corpus.memories(size, 1))
    vectors, items = folder / f"vectors-{size}.npy", folder / f"items-{size}.json"
    np.save(vectors, np.asarray([d.vector for d in docs], dtype=np.float32))
    items.write_text(json.dumps([{"user_id": d.user_id, "text": d.text, "metadata": d.metadata} for d in docs]))
    return vectors, items, docs


def latency(mem0: Mem0, corpus: Corpus, sizes: tuple[int, ...], queries: int, runs: int) -> list[dict[str, Any]]:
    """Search latency of one user at each size: Engram (HybridSearcher + MiniLM, and the service
    level with the DynamoDB read measured in part 2) against mem0's default search (default
    threshold, query embedded through the MiniLM server), alternating, `runs` times."""
    out = []
    for size in sizes:
        vectors, items, docs = _write_corpus(corpus, size, DATA)
        index = EmbeddedIndex(None, 384)
        index.upsert(docs)
        searcher = HybridSearcher(index, shared_embedder())
        cases = cases_for(corpus, 1, queries)
        for store in STORES:
            mem0.init(store)
            mem0.call("bulk", vectors_path=str(vectors), items_path=str(items))
            engram_runs, mem0_runs = [], []
            for _ in range(runs):
                engram_runs.append(
                    latency_summary(measure(lambda u, q, s=searcher: s.search("bench", u, q, 10), cases))
                )
                answer = mem0.call("latency", cases=cases, top_k=10, warmup=20)
                mem0_runs.append(latency_summary(answer["samples_ms"]))
            engram_row = _median_summary(engram_runs)
            mem0_row = _median_summary(mem0_runs)
            out.append(
                {
                    "memories": size,
                    "mem0_store": store,
                    "engram rank+embed": engram_row,
                    "mem0 search": mem0_row,
                    "ratio_p50": ratio(engram_row["p50_ms"], mem0_row["p50_ms"]),
                    "ratio_p95": ratio(engram_row["p95_ms"], mem0_row["p95_ms"]),
                    "speedup_p50": round(mem0_row["p50_ms"] / engram_row["p50_ms"], 1),
                }
            )
            print(f"  mem0 latency {size} {store}: {out[-1]}", flush=True)
    return out


def _median_summary(runs: list[dict[str, float]]) -> dict[str, float]:
    return {k: round(statistics.median(r[k] for r in runs), 3) for k in runs[0]}


def ingest(
    moto_endpoint: str,
    embed: ModelServer,
    llm: ModelServer,
    conv: Conversation,
    turns: int,
    runs: int,
) -> list[dict[str, Any]]:
    """CPU per add and LLM calls per add: Engram's replay modes against mem0's add(), alternating,
    each side in a fresh process of its own (bench/parts/ingest_speed_child.py; a new mem0 runner per run), each
    warmed up with a few adds of another user first. `conv` is the first of locomo_data.load()."""
    pairs = [
        (0, False),  # raw turns vs mem0 add(infer=False)
        (3, True),  # live: one add at a time, as mem0 always works
        (2, True),  # backlog: the same adds batched by the worker
    ]
    warm_up = [
        {"content": engram_ingest.add_body(conv, t, True, True)["messages"][0]["content"], "name": t.speaker}
        for t in conv.turns[-engram_ingest.WARM_UP_TURNS :]
    ]
    out = []
    for mode_index, infer in pairs:
        mode = engram_ingest.MODES[mode_index]
        engram_runs, mem0_runs = [], []
        for _ in range(runs):
            row = engram_ingest.run_child(moto_endpoint, llm.base_url, [0], mode_index, turns)
            engram_runs.append(
                {
                    "cpu_ms_per_add": row["submit_cpu_ms_per_add"] + row["worker_cpu_ms_per_add"],
                    "llm_calls_per_add": row["llm_calls_per_message"],
                }
            )
            items = [
                {"content": engram_ingest.add_body(conv, t, infer, infer)["messages"][0]["content"], "name": t.speaker}
                for t in conv.turns[:turns]
            ]
            with Mem0(embed.base_url, llm.base_url) as mem0:
                mem0.init("qdrant")
                mem0.call("add", user_id="warm-up", items=warm_up, infer=infer)
                llm.reset()
                embed_cpu = embed.cpu()
                added = mem0.call("add", user_id=conv.user_id, items=items, infer=infer)
                cpu = added["cpu_s"] + embed.cpu() - embed_cpu
                calls = llm.stats()["chat_calls"]
            mem0_runs.append({"cpu_ms_per_add": cpu * 1000 / len(items), "llm_calls_per_add": calls / len(items)})
        engram_row, mem0_row = _median_summary(engram_runs), _median_summary(mem0_runs)
        out.append(
            {
                "engram_mode": mode.name,
                "mem0_mode": f"add(infer={infer}), Qdrant",
                "adds": turns,
                "engram": engram_row,
                "mem0": mem0_row,
                "ratio_cpu": ratio(engram_row["cpu_ms_per_add"], mem0_row["cpu_ms_per_add"]),
                "ratio_llm_calls": ratio(engram_row["llm_calls_per_add"], mem0_row["llm_calls_per_add"]),
            }
        )
        print(f"  mem0 ingest {mode.name}: {out[-1]}", flush=True)
    return out


def run(
    moto_endpoint: str,
    llm: ModelServer,
    corpus: Corpus,
    convs: list[Conversation],
    sizes: tuple[int, ...] = (1_000, 10_000),
    queries: int = 300,
    runs: int = 3,
    ingest_turns: int = 120,
    faiss_conversations: int = 2,
) -> dict[str, Any]:
    ensure_venv()
    if DATA.exists():
        shutil.rmtree(DATA)
    DATA.mkdir(parents=True)
    began = time.perf_counter()
    result: dict[str, Any] = {"mem0_packages": PACKAGES, "runs": runs}
    with ModelServer(minilm=True) as embed, Mem0(f"{embed.base_url}", llm.base_url) as mem0:
        # FAISS ranks by the same cosine as Qdrant: a couple of conversations confirm it.
        subsets = {"qdrant": convs, "faiss": convs[:faiss_conversations]}
        result["recall"] = {store: mem0_recall(mem0, embed, subsets[store], store) for store in STORES}
        for store, row in result["recall"].items():
            print(f"  mem0 recall {store}: {row['results']['overall']}", flush=True)
        result["latency"] = latency(mem0, corpus, sizes, queries, runs)
        result["mem0_cpu_s_total"] = round(cpu_seconds(mem0.process.pid), 1)
        result["ingest"] = ingest(moto_endpoint, embed, llm, convs[0], ingest_turns, runs)
    result["wall_s"] = round(time.perf_counter() - began, 1)
    return result
