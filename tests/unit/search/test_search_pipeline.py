"""A search as stages: the first ranking is asked for as many hits as the most demanding stage needs, the
stages run in their order over the user's current memories, and the answer is cut to top_k."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime, timedelta

from engram.domain.models import Fact, ScoredId, SearchFilters, SearchQuery
from engram.search.pipeline import (
    DEFAULT,
    INTENT_POOL,
    IntentRanking,
    ModelRescore,
    SearchPipeline,
    SearchRun,
    StatementRanking,
    TimeRanking,
    stages_from_settings,
    with_model,
)
from engram.search.time_ranking import RANGE_POOL, TIME_POOL
from engram.settings import Settings

NOW = datetime(2024, 6, 1, tzinfo=UTC)


def fact(text: str, user_id: str = "alice", **fields: object) -> Fact:
    return Fact(tenant_id="acme", user_id=user_id, text=text, **fields)  # type: ignore[arg-type]


class ListedSearcher:
    """The first ranking: the given memories in order, scores 1.0, 0.9, ...; records the pools asked for."""

    def __init__(self, facts: Sequence[Fact]) -> None:
        self.facts = list(facts)
        self.asked: list[int] = []

    def search(
        self,
        tenant_id: str,
        user_id: str,
        query: str,
        top_k: int,
        filters: SearchFilters | None = None,
        threshold: float | None = None,
    ) -> list[ScoredId]:
        self.asked.append(top_k)
        return [ScoredId(f.id, 1.0 - 0.1 * i) for i, f in enumerate(self.facts[:top_k])]


class Recorder:
    """A stage that notes its turn and reverses the hits."""

    def __init__(self, name: str, turns: list[str], pool: int = 0) -> None:
        self.name, self.turns, self.wanted = name, turns, pool

    def pool(self, run: SearchRun) -> int:
        return self.wanted

    def __call__(self, run: SearchRun, hits: list[tuple[Fact, float]]) -> list[tuple[Fact, float]]:
        self.turns.append(self.name)
        return hits[::-1]


class FixedReranker:
    def score(self, query: str, texts: Sequence[str]) -> list[float]:
        return [1.0 if "guitar" in t else 0.0 for t in texts]


def read(facts: Sequence[Fact]):  # type: ignore[no-untyped-def]
    by_id = {f.id: f for f in facts}
    return lambda tenant_id, user_id, ids: {i: by_id[i] for i in ids if i in by_id}


def test_the_first_ranking_is_asked_for_what_the_most_demanding_stage_needs() -> None:
    searcher = ListedSearcher([])
    pipeline = SearchPipeline(searcher)
    pipeline.run("acme", SearchQuery(user_id="alice", query="Where do I live?", now=NOW), read([]))
    pipeline.run("acme", SearchQuery(user_id="alice", query="What did I do last week?", now=NOW), read([]))
    span = (NOW - timedelta(days=7), NOW)
    pipeline.run("acme", SearchQuery(user_id="alice", query="anything", time_range=span, now=NOW), read([]))
    pipeline.run("acme", SearchQuery(user_id="alice", query="Where do I live?", top_k=50, now=NOW), read([]))
    assert searcher.asked == [INTENT_POOL, TIME_POOL, RANGE_POOL, 50]
    SearchPipeline(searcher, with_model(FixedReranker(), candidates=30)).run(
        "acme", SearchQuery(user_id="alice", query="Where do I live?", now=NOW), read([])
    )
    assert searcher.asked[-1] == 30


def test_stages_run_in_order_over_current_memories_of_the_user_and_the_answer_is_cut_to_top_k() -> None:
    mine = [fact(f"memory {i}") for i in range(5)]
    other = fact("someone else's", user_id="bob")
    expired = fact("expired", expires_at=NOW - timedelta(days=1))
    searcher = ListedSearcher([mine[0], other, expired, *mine[1:]])
    turns: list[str] = []
    pipeline = SearchPipeline(searcher, [Recorder("first", turns), Recorder("second", turns, pool=7)])
    found = pipeline.run("acme", SearchQuery(user_id="alice", query="q", top_k=3), read([*mine, other, expired]))
    assert turns == ["first", "second"]  # two reversals: the first ranking's order
    assert searcher.asked == [7]
    assert [f.text for f, _ in found] == ["memory 0", "memory 1", "memory 2"]


def test_the_reranker_blend_comes_before_the_default_stages() -> None:
    stages = with_model(FixedReranker(), 20, 0.5)
    assert [type(s) for s in stages] == [ModelRescore, TimeRanking, StatementRanking, IntentRanking]
    facts = [fact("Plays the piano"), fact("Takes guitar lessons")]
    found = SearchPipeline(ListedSearcher(facts), stages).run(
        "acme", SearchQuery(user_id="alice", query="music", now=NOW), read(facts)
    )
    assert [f.text for f, _ in found] == ["Takes guitar lessons", "Plays the piano"]


def test_the_settings_name_the_preset() -> None:
    assert stages_from_settings(Settings(), None) == DEFAULT
    reranker = FixedReranker()
    stages = stages_from_settings(Settings(search_rerank_candidates=40, search_rerank_weight=0.3), reranker)
    assert stages[0] == ModelRescore(reranker, 40, 0.3)  # type: ignore[arg-type]
    assert tuple(stages[1:]) == DEFAULT
