"""A relevance search as a list of stages, built once from the settings.

The first ranking (HybridSearcher: k-NN and BM25 fused, with conversation context) finds candidates;
each stage after it re-orders the hits it is given, in order. A stage also says how many candidates
it needs to see (a time named in the question can lift a memory from far down), so the first ranking
is asked for the most any stage needs. The stages come as named presets, as a search configuration
recipe: `DEFAULT` (event time, what the memories state, then the fact the question wants), and `with_model(...)` (the
reranker's blend first, ENGRAM_SEARCH_RERANKER=maxsim).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Protocol

from engram.domain.models import Fact, SearchQuery, utcnow
from engram.domain.ports import Reranker
from engram.search.hybrid import Searcher
from engram.search.intent import rerank
from engram.search.model_rerank import rescore
from engram.search.statement_ranking import rank_by_statements
from engram.search.time_ranking import RANGE_POOL, TIME_POOL, TimeAsked, rank_by_time
from engram.settings import Settings

Hits = list[tuple[Fact, float]]
# The memories of the hits' ids, by id (tenant, user, ids): the index's copies or the fact store's.
ReadMemories = Callable[[str, str, list[str]], dict[str, Fact]]
INTENT_POOL = 10  # a few more hits than asked for, so a fact of the kind the question wants can move up


@dataclass(frozen=True)
class SearchRun:
    """What every stage of one search reads: the question, when it is asked, and its time read once."""

    tenant_id: str
    query: SearchQuery
    now: datetime
    when: TimeAsked


class Stage(Protocol):
    def pool(self, run: SearchRun) -> int:
        """How many of the first ranking's hits this stage needs to see."""
        ...

    def __call__(self, run: SearchRun, hits: Hits) -> Hits:
        """The hits re-ordered (or re-scored), best first."""
        ...


@dataclass(frozen=True)
class ModelRescore:
    """The reranker's blend over the first ranking's top `candidates` (search/model_rerank.py)."""

    reranker: Reranker
    candidates: int = 20
    weight: float = 0.2

    def pool(self, run: SearchRun) -> int:
        return self.candidates

    def __call__(self, run: SearchRun, hits: Hits) -> Hits:
        return rescore(self.reranker, run.query.query, hits, self.candidates, self.weight)


@dataclass(frozen=True)
class TimeRanking:
    """Event time: what the question asks about when, what is outdated, what is newest (search/time_ranking.py)."""

    def pool(self, run: SearchRun) -> int:
        if run.query.time_range is not None:
            return RANGE_POOL  # `time_range` leaves some hits out
        return TIME_POOL if run.when.any else 0

    def __call__(self, run: SearchRun, hits: Hits) -> Hits:
        return rank_by_time(hits, run.when)


@dataclass(frozen=True)
class IntentRanking:
    """The fact of the kind the question wants moves up (search/intent.py)."""

    def pool(self, run: SearchRun) -> int:
        return INTENT_POOL

    def __call__(self, run: SearchRun, hits: Hits) -> Hits:
        return rerank(run.query.query, hits)


@dataclass(frozen=True)
class StatementRanking:
    """What the memories state, for a question about the person (search/statement_ranking.py)."""

    def pool(self, run: SearchRun) -> int:
        return 0

    def __call__(self, run: SearchRun, hits: Hits) -> Hits:
        return rank_by_statements(run.query.query, hits)


DEFAULT: tuple[Stage, ...] = (TimeRanking(), StatementRanking(), IntentRanking())


def with_model(reranker: Reranker, candidates: int = 20, weight: float = 0.2) -> tuple[Stage, ...]:
    """The default stages after the reranker's blend."""
    return (ModelRescore(reranker, candidates, weight), *DEFAULT)


def stages_from_settings(settings: Settings, reranker: Reranker | None) -> tuple[Stage, ...]:
    """The preset the settings name: the reranker's when one is configured (ENGRAM_SEARCH_RERANKER)."""
    if reranker is None:
        return DEFAULT
    return with_model(reranker, settings.search_rerank_candidates, settings.search_rerank_weight)


@dataclass
class SearchPipeline:
    searcher: Searcher
    stages: Sequence[Stage] = field(default=DEFAULT)

    def run(self, tenant_id: str, q: SearchQuery, memories: ReadMemories) -> Hits:
        """The user's current memories for `q`, best first, at most `q.top_k`."""
        now = utcnow()
        run = SearchRun(tenant_id, q, now, TimeAsked.of(q.query, q.now or now, q.time_range))
        pool = max([q.top_k, *(stage.pool(run) for stage in self.stages)])
        hits = self.searcher.search(tenant_id, q.user_id, q.query, pool, q.filters, q.threshold)
        facts = memories(tenant_id, q.user_id, [h.id for h in hits])
        found = [
            (facts[h.id], h.score)
            for h in hits
            if h.id in facts and facts[h.id].user_id == q.user_id and not facts[h.id].expired(now)
        ]
        for stage in self.stages:
            found = stage(run, found)
        return found[: q.top_k]
