"""A reranker's second look in MemoryService.search: it may move a memory up within the top few it
reads, blended with the first ranking rather than replacing it, and it is never asked about more."""

from __future__ import annotations

from collections.abc import Sequence

from engram.domain.models import Event, Fact, SearchQuery
from engram.search.hybrid import HybridSearcher
from engram.search.pipeline import DEFAULT, SearchPipeline, with_model
from engram.services.memory import MemoryService
from engram.writes.unit_of_work import history_event, index_doc
from tests.fakes import HashEmbedder, MemoryFactStore, MemoryIndex, MemoryQueue, MemoryTaskStore

# Every memory shares "guitar" with the question, the first ones more of its words.
TEXTS = [
    "I play guitar and guitar lessons on Sunday",  # the first ranking's best
    "Guitar strings from the shop",
    "My guitar teacher moved to Lyon",  # what the fake model likes
    "A guitar",
]


class FakeReranker:
    """Scores 1.0 for texts holding `liked`, else 0.0; records what it was asked."""

    model_id = "fake"

    def __init__(self, liked: str) -> None:
        self.liked = liked
        self.asked: list[list[str]] = []

    def score(self, query: str, texts: Sequence[str]) -> list[float]:
        self.asked.append(list(texts))
        return [1.0 if self.liked in t else 0.0 for t in texts]


def service(reranker: FakeReranker | None, candidates: int = 30, weight: float = 0.5) -> MemoryService:
    facts, index, embedder = MemoryFactStore(), MemoryIndex(), HashEmbedder()
    for text in TEXTS:
        fact = Fact(tenant_id="acme", user_id="alice", text=text)
        facts.add(fact, history_event(fact, Event.ADD, None, text, "test"))
        index.upsert([index_doc(fact, embedder.embed([text])[0])])
    return MemoryService(
        facts,
        index,
        embedder,
        MemoryTaskStore(),
        MemoryQueue(),
        search_pipeline=SearchPipeline(
            HybridSearcher(index, embedder), with_model(reranker, candidates, weight) if reranker else DEFAULT
        ),
    )


def ranking(memories: MemoryService, top_k: int = 4) -> list[str]:
    query = SearchQuery(user_id="alice", query="guitar lessons on Sunday", top_k=top_k)
    return [fact.text for fact, _ in memories.search("acme", query)]


def test_without_a_reranker_the_first_ranking_stands() -> None:
    first = ranking(service(None))
    assert first[0] == TEXTS[0]
    assert first.index(TEXTS[2]) > 0


def test_the_memory_the_reranker_prefers_moves_to_the_top() -> None:
    reranker = FakeReranker("teacher")
    assert ranking(service(reranker))[0] == TEXTS[2]
    assert len(reranker.asked) == 1
    assert sorted(reranker.asked[0]) == sorted(TEXTS)  # all four are within the 30 candidates


def test_a_small_weight_blends_rather_than_replaces() -> None:
    # The fake gives 1.0 to the teacher turn and 0 to the best one; with a tenth of the score the
    # first ranking's clear winner stays first.
    ranked = ranking(service(FakeReranker("teacher"), weight=0.1))
    assert ranked[0] == TEXTS[0]


def test_weight_zero_never_asks_the_model() -> None:
    reranker = FakeReranker("teacher")
    assert ranking(service(reranker, weight=0.0)) == ranking(service(None))
    assert reranker.asked == []


def test_only_the_top_candidates_are_read() -> None:
    reranker = FakeReranker("teacher")
    plain = ranking(service(None))
    ranking(service(reranker, candidates=2))
    assert reranker.asked == [plain[:2]]


def test_memories_past_the_candidates_keep_their_order_below() -> None:
    plain = ranking(service(None))
    reranked = ranking(service(FakeReranker(plain[1]), candidates=2, weight=0.5))
    assert reranked[:2] == [plain[1], plain[0]]
    assert reranked[2:] == plain[2:]
