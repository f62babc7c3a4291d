"""A fast loop for ranking experiments on LoCoMo raw turns (seconds instead of the recall part's minutes).

The turns and questions are embedded once with the product's embedder and cached in
bench/.cache/ (gitignored); every turn then goes straight into an EmbeddedIndex, one user per
conversation, recorded one second apart in conversation order (the real ingestion records them in
that order within minutes, so the context step sees the same neighbours), and each question is
ranked by MemoryService.search (bench/rig/lab_service.py; or HybridSearcher alone with --searcher).
Scores are recall@k over categories 1-4, as in bench/parts/locomo_recall.py.

    .venv/bin/python -m bench.labs.recall_lab                        # MemoryService.search (settings from env)
    .venv/bin/python -m bench.labs.recall_lab --searcher             # HybridSearcher alone
    .venv/bin/python -m bench.labs.recall_lab semantic_weight=0.5    # HybridSearcher fields as key=value
    .venv/bin/python -m bench.labs.recall_lab --latency              # 10k memories of one user, A/B p50
    .venv/bin/python -m bench.labs.recall_lab rerank_candidates=30 rerank_weight=0.2   # + the MaxSim reranker
    .venv/bin/python -m bench.labs.recall_lab --latency --rerank     # 10k memories, without and with it
    BENCH_EMBEDDER=multilingual .venv/bin/python -m bench.labs.recall_lab   # on multilingual-e5-small

--latency: the search latency part's one-user 10,000-memory collection (bench/data/corpus.py), searched
by this searcher and by the round-1 ranking (semantic 0.6, no speaker step, no vectors in context),
interleaved per query; p50 and p95 with the query embedding ("rank+embed") and without ("rank").
With --rerank: the default searcher without and with the MaxSim reranker's step (search/model_rerank.py,
the function MemoryService.search calls) over its top 20, and that step alone.
"""

from __future__ import annotations

import json
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from bench.data.corpus import Corpus
from bench.data.locomo_data import CATEGORIES, Conversation, load
from bench.parts.search_latency import cases_for, index_docs
from bench.rig.engram_env import MINILM_ID, VectorCache, shared_embedder, shared_model_id
from bench.rig.lab_service import lab_service
from bench.rig.stats import percentile, recall_at
from engram.adapters.embedded.index import EmbeddedIndex
from engram.adapters.onnx.maxsim_reranker import MaxSimReranker
from engram.domain.models import SPEAKER_KEY, Fact, IndexDoc, MemorySource, SearchQuery
from engram.domain.ports import Reranker
from engram.search.hybrid import HybridSearcher
from engram.search.model_rerank import rescore
from engram.services.memory import MemoryService

CACHE_DIR = Path(__file__).resolve().parents[1] / ".cache"
TENANT = "lab"
RECORDED = datetime(2026, 1, 1, tzinfo=UTC)  # the turns are recorded a second apart from here
K = 10


def cached_vectors() -> VectorCache:
    """Every turn's memory text and every question, embedded once per machine and model."""
    path = cache_file(shared_model_id())
    vectors: dict[str, list[float]] = json.loads(path.read_text()) if path.is_file() else {}
    cache = VectorCache(vectors)
    convs = load()
    texts = [t.memory_text() for c in convs for t in c.turns] + [q.question for c in convs for q in c.questions]
    if any(t not in vectors for t in texts):
        cache.embed(texts)
        path.parent.mkdir(exist_ok=True)
        path.write_text(json.dumps(cache.vectors))
    return cache


def cache_file(model_id: str) -> Path:
    # MiniLM's file keeps its first name, so caches made before there was a choice stay valid.
    return CACHE_DIR / ("locomo_vectors.json" if model_id == MINILM_ID else f"locomo_vectors-{model_id}.json")


@dataclass
class Lab:
    convs: list[Conversation]
    cache: VectorCache
    index: EmbeddedIndex
    by_id: dict[str, str]  # memory id -> dia_id

    @classmethod
    def build(cls, convs: list[Conversation] | None = None) -> Lab:
        convs = convs if convs is not None else load()
        cache = cached_vectors()
        index = EmbeddedIndex(None, 384)
        start = RECORDED
        by_id: dict[str, str] = {}
        for conv in convs:
            docs = []
            for i, turn in enumerate(conv.turns):
                memory_id = f"{conv.sample_id}/{turn.dia_id}"
                by_id[memory_id] = turn.dia_id
                text = turn.memory_text()
                docs.append(
                    IndexDoc(
                        id=memory_id,
                        tenant_id=TENANT,
                        user_id=conv.user_id,
                        text=text,
                        vector=cache.vectors[text],
                        metadata={**turn.metadata(), SPEAKER_KEY: turn.speaker},  # as index_doc writes it
                        created_at=start + timedelta(seconds=i),
                    )
                )
            index.upsert(docs)
        return cls(convs, cache, index, by_id)

    def evaluate(self, rank: Callable[[str, str], Sequence[str]], k: int = K) -> dict[str, float]:
        """recall@k overall and per category; `rank(user_id, question)` returns memory ids."""
        rows: list[tuple[int, float]] = []
        for conv in self.convs:
            for q in conv.questions:
                if not q.evidence:
                    continue
                ranked = [self.by_id[i] for i in rank(conv.user_id, q.question)]
                rows.append((q.category, recall_at(ranked, q.evidence, k)))
        out = {"overall": round(statistics.fmean(r for _, r in rows), 4)}
        for category in CATEGORIES:
            out[str(category)] = round(statistics.fmean(r for c, r in rows if c == category), 4)
        return out

    def searcher(self, **fields: Any) -> HybridSearcher:
        return HybridSearcher(self.index, self.cache, **fields)

    def service(self, **fields: Any) -> MemoryService:
        """A MemoryService over the same turns (bench/rig/lab_service.py): the search settings of the
        environment (the reranker ...) and the steps after HybridSearcher apply. Memories are valid from
        when they were said (the session's time + 1 s per turn), as the recall part stores them."""
        facts: list[Fact] = []
        vectors: list[list[float]] = []
        for conv in self.convs:
            for i, turn in enumerate(conv.turns):
                text = turn.memory_text()
                recorded = RECORDED + timedelta(seconds=len(facts))
                said = turn.said_at + timedelta(seconds=i) if turn.said_at else recorded
                facts.append(
                    Fact(
                        id=f"{conv.sample_id}/{turn.dia_id}",
                        tenant_id=TENANT,
                        user_id=conv.user_id,
                        text=text,
                        metadata=turn.metadata(),
                        source=MemorySource(task_id=f"{conv.sample_id}/{turn.dia_id}", name=turn.speaker),
                        valid_from=said,
                        created_at=recorded,
                    )
                )
                vectors.append(self.cache.vectors[text])
        return lab_service(facts, vectors, self.cache, **fields)

    def evaluate_service(self, service: MemoryService, k: int = K) -> dict[str, float]:
        def rank(user: str, question: str) -> list[str]:
            return [f.id for f, _ in service.search(TENANT, SearchQuery(user_id=user, query=question, top_k=20))]

        return self.evaluate(rank, k)

    def evaluate_searcher(
        self,
        searcher: HybridSearcher,
        k: int = K,
        reranker: Reranker | None = None,
        candidates: int = 30,
        weight: float = 0.2,
    ) -> dict[str, float]:
        # top_k=20 as the recall part asks (the context step looks at 2 x top_k sources), read to k.
        texts = self.texts()

        def rank(user: str, question: str) -> list[str]:
            hits = searcher.search(TENANT, user, question, max(20, candidates if reranker else 0))
            if reranker is None:
                return [h.id for h in hits]
            facts = [(Fact(id=h.id, tenant_id=TENANT, user_id=user, text=texts[h.id]), h.score) for h in hits]
            return [f.id for f, _ in rescore(reranker, question, facts, candidates, weight)]

        return self.evaluate(rank, k)

    def texts(self) -> dict[str, str]:
        return {f"{c.sample_id}/{t.dia_id}": t.memory_text() for c in self.convs for t in c.turns}


ROUND_1 = {"semantic_weight": 0.6, "speaker_lift": 0.0, "vector_context": 0.0}


def latency(size: int = 10_000, queries: int = 300, repeats: int = 2) -> dict[str, dict[str, float]]:
    """p50/p95 (ms) of this searcher and the round-1 ranking, interleaved per query so that both meet
    the same machine load."""
    cache = cached_vectors()
    corpus = Corpus(cache)
    index = EmbeddedIndex(None, 384)
    index.upsert(index_docs(corpus.memories(size, 1))[0])
    cases = cases_for(corpus, 1, queries)
    out: dict[str, dict[str, float]] = {}
    for level, embedder in {"rank": cache, "rank+embed": shared_embedder()}.items():
        searchers = {
            name: HybridSearcher(index, embedder, **fields)  # type: ignore[arg-type]
            for name, fields in {"round 2": {}, "round 1": ROUND_1}.items()
        }
        samples: dict[str, list[float]] = {name: [] for name in searchers}
        for user, query in cases[:20]:  # warm-up
            for searcher in searchers.values():
                searcher.search("bench", user, query, 10)
        for _ in range(repeats):
            for user, query in cases:
                for name, searcher in searchers.items():
                    began = time.perf_counter()
                    searcher.search("bench", user, query, 10)
                    samples[name].append((time.perf_counter() - began) * 1000)
        for name, ms in samples.items():
            out[f"{name} {level}"] = {"p50_ms": round(percentile(ms, 50), 2), "p95_ms": round(percentile(ms, 95), 2)}
    return out


def rerank_latency(size: int = 10_000, queries: int = 300, candidates: int = 20) -> dict[str, dict[str, float]]:
    """p50/p95 (ms) of the default search with the query embedding, without and with the MaxSim step
    over its top `candidates`, interleaved per query, and of that step alone. The first pass meets
    every memory's token vectors for the first time ("cold"); the second finds the ones its LRU
    table still holds ("warm"), as repeated searches of one user in a warm container would."""
    cache = cached_vectors()
    corpus = Corpus(cache)
    docs = index_docs(corpus.memories(size, 1))[0]
    index = EmbeddedIndex(None, 384)
    index.upsert(docs)
    texts = {d.id: d.text for d in docs}
    cases = cases_for(corpus, 1, queries)
    embedder = shared_embedder()
    reranker = MaxSimReranker(embedder)  # type: ignore[arg-type]
    searcher = HybridSearcher(index, embedder)
    for user, query in cases[:20]:  # warm-up of the search alone: the rerank table starts empty
        searcher.search("bench", user, query, 10)
    out: dict[str, dict[str, float]] = {}
    for run in ("cold", "warm"):
        samples: dict[str, list[float]] = {"search": [], "search+rerank": [], "rerank step": []}
        for user, query in cases:
            began = time.perf_counter()
            searcher.search("bench", user, query, 10)
            samples["search"].append((time.perf_counter() - began) * 1000)
            began = time.perf_counter()
            hits = searcher.search("bench", user, query, candidates)
            searched = time.perf_counter()
            facts = [(Fact(id=h.id, tenant_id="bench", user_id=user, text=texts[h.id]), h.score) for h in hits]
            rescore(reranker, query, facts, candidates, 0.2)
            done = time.perf_counter()
            samples["search+rerank"].append((done - began) * 1000)
            samples["rerank step"].append((done - searched) * 1000)
        for name, ms in samples.items():
            out[f"{name} ({run})"] = {"p50_ms": round(percentile(ms, 50), 2), "p95_ms": round(percentile(ms, 95), 2)}
    return out


def _value(text: str) -> Any:
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        return text


def main(argv: list[str]) -> None:
    if argv[:1] == ["--latency"]:
        for key, row in (rerank_latency() if "--rerank" in argv else latency()).items():
            print(key, row)
        return
    lab = Lab.build()
    fields = {key: _value(value) for key, _, value in (arg.partition("=") for arg in argv if arg != "--searcher")}
    rerank = {key: fields.pop(key) for key in ("rerank_candidates", "rerank_weight") if key in fields}
    if rerank:  # HybridSearcher then the MaxSim reranker (search/model_rerank.py)
        reranker = MaxSimReranker(shared_embedder(), cache_texts=len(lab.texts()))  # type: ignore[arg-type]
        candidates, weight = int(rerank.get("rerank_candidates", 30)), float(rerank.get("rerank_weight", 0.2))
        for k in (5, K):
            row = lab.evaluate_searcher(lab.searcher(**fields), k, reranker, candidates, weight)
            print(fields or "default", rerank, f"recall@{k}", row)
    elif "--searcher" in argv:  # HybridSearcher alone, as before the lab went through MemoryService
        print(fields or "default", "searcher", lab.evaluate_searcher(lab.searcher(**fields)))
    else:
        print(fields or "default", "service", lab.evaluate_service(lab.service(**fields)))


if __name__ == "__main__":
    main(sys.argv[1:])
