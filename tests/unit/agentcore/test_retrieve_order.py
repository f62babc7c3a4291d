"""RetrieveMemoryRecords ranks a namespace's records as Engram's search ranks the actor's memories for the
same topK (its ranking depends on top_k: the candidate pool and the context step grow with it), and when
the namespace holds fewer of them than topK, the next ones of a wider search follow, scored below them, so
retrievals of several namespaces merged by score give Engram's own top K."""

from __future__ import annotations

from datetime import timedelta

from engram.agentcore.ids import memory_id_of, parse_namespace
from engram.agentcore.service import AgentCoreService
from engram.domain.models import Fact, SearchQuery

MEMORY = memory_id_of("acme")


def fact(name: str, kind: str) -> Fact:
    return Fact(
        id=f"00000000-0000-4000-8000-00000000000{name}", tenant_id="acme", user_id="alice", text=name, kind=kind
    )  # type: ignore[arg-type]


EPISODES = [fact(str(n), "episode") for n in range(4)]
FACTS = [fact(str(n), "fact") for n in range(4, 8)]


class _Search:
    """Stands in for MemoryService.search: a ranking that changes with top_k, as Engram's does."""

    def __init__(self) -> None:
        self.asked: list[int] = []

    def search(self, tenant_id: str, q: SearchQuery) -> list[tuple[Fact, float]]:
        self.asked.append(q.top_k)
        if q.top_k <= 4:  # Engram's top 4: e0, f4, e1, f5
            ranked = [EPISODES[0], FACTS[0], EPISODES[1], FACTS[1]]
        else:  # a wider search orders them otherwise
            ranked = [FACTS[1], EPISODES[1], EPISODES[0], FACTS[0], EPISODES[3], EPISODES[2], FACTS[2], FACTS[3]]
        scores = [0.9, 0.8, 0.7, 0.6, 0.5, 0.4, 0.3, 0.2]
        return list(zip(ranked, scores, strict=False))[: q.top_k]


def retrieve(search: _Search, strategy: str, top_k: int = 4) -> list[tuple[Fact, float]]:
    service = AgentCoreService(search, None, None, None, timedelta(days=90))  # type: ignore[arg-type]
    namespace = parse_namespace(f"/strategies/{strategy}/actors/alice/", exact=False)
    return service.retrieve("acme", MEMORY, namespace, "what happened", top_k, [])


def test_a_namespace_is_ranked_as_engrams_search_for_the_same_top_k_then_the_wider_one_below() -> None:
    search = _Search()

    hits = retrieve(search, "episodic")

    assert [f.text for f, _ in hits] == ["0", "1", "3", "2"]  # Engram's top 4 first, in its order
    scores = [s for _, s in hits]
    assert scores[:2] == [0.9, 0.7]  # Engram's own scores
    assert scores == sorted(scores, reverse=True) and scores[2] < 0.6  # the wider ones below its top 4


def test_retrievals_of_every_strategy_merged_by_score_are_engrams_top_k() -> None:
    hits = [hit for strategy in ("semantic", "episodic") for hit in retrieve(_Search(), strategy)]

    merged = sorted(hits, key=lambda hit: -hit[1])[:4]

    assert [f.text for f, _ in merged] == ["0", "4", "1", "5"]


def test_a_wider_search_only_when_the_namespace_cuts_engrams_top_k_short() -> None:
    short, whole = _Search(), _Search()

    assert [f.text for f, _ in retrieve(short, "episodic", top_k=2)] == ["0", "1"]  # its top 2 holds one episode
    assert [f.text for f, _ in retrieve(whole, "episodic", top_k=1)] == ["0"]

    assert short.asked == [2, 100] and whole.asked == [1]
