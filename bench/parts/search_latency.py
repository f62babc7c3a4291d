"""Part 2: search latency p50/p95/p99 at 1k / 10k / 100k memories, one user or spread over 1,000 users.

Levels, each a superset of the one before:
- "rank": HybridSearcher over the embedded index with the query vector already known;
- "rank+embed": the same with the query embedded by MiniLM (the figure the target is about);
- "service": MemoryService.search, i.e. plus reading the top_k facts from DynamoDB (a moto server in
  another process; the read is also timed alone as "fact read");
- "http": POST /v1/memories/search on the local stack (`python -m engram_tools.local`): API Gateway
  emulation, authorizer, API handler, service (at every size: issue 43 asks p50 <= 20 ms at 100k).
Beside the sizes, a LongMemEval user (`longmemeval_user`: every turn of one haystack's ~50 sessions, ~500 long
memories, asked the set's questions; issue 43 asks HTTP p50 <= 15 ms).
Collections are loaded straight into the index (and DynamoDB with BatchWriteItem, in the fact
store's own item shape): the content is what the pipeline would have written, without spending
an hour embedding 100k texts through it. Every query is a LoCoMo question; top_k=10.
"""

from __future__ import annotations

import itertools
import random
import tempfile
import uuid
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import boto3
import httpx

from bench.data.corpus import Corpus, Memory
from bench.rig.engram_env import EngramEnv, VectorCache, engram_env, shared_embedder
from bench.rig.procs import LocalStack
from bench.rig.stats import latency_summary, timed_ms
from engram.adapters.dynamo.fact_store import DynamoFactStore
from engram.adapters.embedded.index import EmbeddedIndex
from engram.domain.models import Fact, IndexDoc, SearchQuery
from engram.search.hybrid import HybridSearcher

TENANT = "bench"
TOP_K = 10
LAYOUTS = {"one user": 1, "1,000 users": 1000}


def measure(fn: Callable[[str, str], object], cases: list[tuple[str, str]], warmup: int = 20) -> list[float]:
    """Latency samples (ms) of fn(user_id, query) over `cases`, after `warmup` untimed calls."""
    for user, query in cases[:warmup]:
        fn(user, query)
    return [timed_ms(lambda u=user, q=query: fn(u, q))[1] for user, query in cases]  # type: ignore[misc]


def cases_for(corpus: Corpus, users: int, count: int, seed: int = 3) -> list[tuple[str, str]]:
    rng = random.Random(seed)
    return [(f"bench-user-{rng.randrange(users)}", q) for q in corpus.queries(count, seed)]


def index_docs(memories: Iterable[Memory], tenant: str = TENANT) -> tuple[list[IndexDoc], list[Fact]]:
    docs, facts = [], []
    for m in memories:
        fact = Fact(id=str(uuid.uuid4()), tenant_id=tenant, user_id=m.user_id, text=m.text, metadata=m.metadata)
        facts.append(fact)
        docs.append(
            IndexDoc(
                id=fact.id,
                tenant_id=tenant,
                user_id=m.user_id,
                text=m.text,
                vector=m.vector,
                metadata=m.metadata,
                created_at=fact.created_at,
                fact=fact,  # as the lifecycle indexes it: searches answer from the index
            )
        )
    return docs, facts


def bulk_write_facts(client: Any, table: str, facts: list[Fact]) -> None:
    """BatchWriteItem in the fact store's item shape (moto's TransactWriteItems, which FactStore.add
    uses, slows down in proportion to the table size, so 10k+ adds that way would take hours)."""
    store = DynamoFactStore(client, table)
    for start in range(0, len(facts), 25):
        items = [{"PutRequest": {"Item": store._fact_item(f)}} for f in facts[start : start + 25]]
        request: dict[str, Any] = {table: items}
        while request:
            request = client.batch_write_item(RequestItems=request).get("UnprocessedItems") or {}


def in_process(env: EngramEnv, cache: VectorCache, cases: list[tuple[str, str]], with_service: bool) -> dict[str, Any]:
    index = env.container.index
    levels: dict[str, Callable[[str, str], object]] = {
        "rank": lambda u, q: HybridSearcher(index, cache).search(TENANT, u, q, TOP_K),
        "rank+embed": lambda u, q: HybridSearcher(index, shared_embedder()).search(TENANT, u, q, TOP_K),
        # ENGRAM_SEARCH_MIN_CANDIDATES=100: what the recall part's "100 candidates" variant saves
        "rank+embed, 100 candidates": lambda u, q: HybridSearcher(index, shared_embedder(), min_candidates=100).search(
            TENANT, u, q, TOP_K
        ),
    }
    if with_service:
        levels["service"] = lambda u, q: env.container.memories.search(
            TENANT, SearchQuery(user_id=u, query=q, top_k=TOP_K)
        )
    out = {name: latency_summary(measure(fn, cases)) for name, fn in levels.items()}
    if with_service:
        ids = {u: [h.id for h in HybridSearcher(index, cache).search(TENANT, u, q, TOP_K)] for u, q in cases[:50]}
        facts = env.container.facts
        out["fact read"] = latency_summary(measure(lambda u, q: facts.get_many(TENANT, ids[u]), cases[:50], 5))
    return out


def stack_index(work: Path) -> tuple[Path, EmbeddedIndex]:
    """A data folder for the local stack with its index open, to be filled as the stack would have persisted it."""
    data_dir = work / f"stack-{uuid.uuid4().hex[:8]}"
    data_dir.mkdir(parents=True)
    return data_dir, EmbeddedIndex(data_dir / "index.sqlite3", 384)


def over_http(data_dir: Path, facts: list[Fact], cases: list[tuple[str, str]]) -> dict[str, Any]:
    """Starts the stack on a data folder whose index holds the collection, writes its facts, queries it."""
    from engram_tools.local.names import physical_name

    with LocalStack(data_dir) as stack:
        db = boto3.session.Session(region_name="us-east-1").client("dynamodb", endpoint_url=stack.moto_endpoint)
        bulk_write_facts(db, physical_name("MemoryTable"), facts)
        with httpx.Client(base_url=stack.url, headers=stack.headers, timeout=60) as client:

            def search(user: str, query: str) -> object:
                response = client.post("/v1/memories/search", json={"user_id": user, "query": query, "top_k": TOP_K})
                response.raise_for_status()
                return response

            return {"http": latency_summary(measure(search, cases))}


def longmemeval_user(cache: VectorCache, path: Path | None = None) -> tuple[list[Memory], list[str]]:
    """A LongMemEval user as a user of Engram would hold them: every turn of the first question's ~50 sessions
    a memory as said (long texts: ~500 of them), and the set's questions to ask."""
    from bench.data.longmemeval_data import load as load_longmemeval

    questions = load_longmemeval(path) if path is not None else load_longmemeval()
    turns = [t.content for s in questions[0].sessions for t in s.turns if t.content.strip()]
    vectors = cache.embed(turns)
    user = "bench-user-0"
    memories = [Memory(user, text, list(v), {}) for text, v in zip(turns, vectors, strict=True)]
    return memories, [q.question for q in questions]


def longmemeval_case(
    moto_endpoint: str, cache: VectorCache, work: Path, queries: int, path: Path | None = None
) -> dict[str, Any]:
    """Search at the size of a LongMemEval user (issue 43: HTTP p50 <= 15 ms), in process and over HTTP."""
    memories, questions = longmemeval_user(cache, path)
    env = engram_env(moto_endpoint)
    docs, facts = index_docs(memories)
    env.container.index.upsert(docs)
    bulk_write_facts(env.container.aws.dynamodb, env.settings.memory_table, facts)
    rng = random.Random(5)
    cache.embed(sorted(set(questions)))
    cases = [("bench-user-0", rng.choice(questions)) for _ in range(queries)]
    row: dict[str, Any] = {"memories": len(memories), "layout": "a LongMemEval user (its haystack's turns)"}
    row.update(in_process(env, cache, cases, True))
    data_dir, index = stack_index(work)
    index.upsert(docs)
    index.close()
    row.update(over_http(data_dir, facts, cases))
    return row


def run(
    moto_endpoint: str,
    corpus: Corpus,
    sizes: tuple[int, ...] = (1_000, 10_000, 100_000),
    queries: int = 300,
    service_max: int = 10_000,
    http_max: int = 100_000,
    http: bool = True,
    longmemeval: bool = True,
) -> dict[str, Any]:
    results: dict[str, Any] = {
        "top_k": TOP_K,
        "queries_per_case": queries,
        "levels": ["rank", "rank+embed", "rank+embed, 100 candidates", "service", "fact read", "http"],
        "cases": [],
    }
    with tempfile.TemporaryDirectory(prefix="engram-bench-") as tmp:
        for size in sizes:
            for layout, users in LAYOUTS.items():
                env = engram_env(moto_endpoint)
                with_service, with_http = size <= service_max, http and size <= http_max
                # The stack's index is filled chunk by chunk (100k docs at once: gigabytes); its facts are
                # written once it runs (its moto is its own).
                stack = stack_index(Path(tmp)) if with_http else None
                kept: list[Fact] = []
                memories = iter(corpus.memories(size, users))
                while chunk := list(itertools.islice(memories, 5_000)):
                    docs, facts = index_docs(chunk)
                    env.container.index.upsert(docs)
                    if with_service:
                        bulk_write_facts(env.container.aws.dynamodb, env.settings.memory_table, facts)
                    if stack is not None:
                        stack[1].upsert(docs)
                        kept.extend(facts)
                cases = cases_for(corpus, users, queries)
                row: dict[str, Any] = {"memories": size, "layout": layout}
                row.update(in_process(env, corpus.cache, cases, with_service))
                if stack is not None:
                    stack[1].close()
                    try:
                        row.update(over_http(stack[0], kept, cases))
                    except RuntimeError as err:  # the stack did not start: say so, keep the rest
                        row["http_error"] = str(err)[:500]
                results["cases"].append(row)
                print(f"  search latency {size:>7} memories, {layout}: {_brief(row)}", flush=True)
        if longmemeval:
            try:
                row = longmemeval_case(moto_endpoint, corpus.cache, Path(tmp), queries)
            except FileNotFoundError as err:  # the set is not on this machine: say so, keep the rest
                row = {"layout": "a LongMemEval user", "error": str(err)[:300]}
            results["longmemeval_user"] = row
            print(f"  search latency, {row['layout']}: {_brief(row)}", flush=True)
    return results


def _brief(row: dict[str, Any]) -> str:
    return ", ".join(f"{k} p50 {v['p50_ms']:.1f} ms" for k, v in row.items() if isinstance(v, dict))
