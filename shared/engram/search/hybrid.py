"""Relevance search: semantic k-NN and BM25 over the same documents, fused into one ranking, then
conversation context: a memory recorded right next to a strong hit inherits part of its score.

Measured on LoCoMo (bench/parts/locomo_recall.py, evidence recall@10 over categories 1-4): cosine alone
0.45, BM25 alone 0.57; each step below is there because it moved that number, not for its own sake
(bench/README.md lists the gains; bench/labs/recall_lab.py is the quick loop they were measured with).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from itertools import pairwise
from typing import Any, Protocol

from engram.domain.index_ports import ContextVectors, HybridCandidates, Speakers, Timeline
from engram.domain.models import ScoredId, SearchFilters
from engram.domain.ports import Embedder, VectorIndex
from engram.settings import Settings
from engram.text.terms import FILLER_WORDS, QUESTION_WORDS

# A "when" question is answered by a turn that says when ("last week", "yesterday"): those words
# join its keyword side (+0.005 recall@10, temporal questions 0.79 -> 0.81).
_WHEN = re.compile(r"\s*(?:when|how\s+long|what\s+(?:year|month|date|day|time))\b", re.IGNORECASE)
TIME_WORDS = "yesterday last ago week weekend month year"
_WORD = re.compile(r"[^\W_]+(?:['\u2019][^\W_]+)*")
_APOSTROPHE = re.compile(r"['\u2019]")
_DROPPED = QUESTION_WORDS | FILLER_WORDS


def keyword_query(query: str) -> str:
    """The query for the BM25 side: question words and filler dropped ("what's" too), time words
    added to a "when" question; the query itself when nothing else is left."""
    kept = [w for w in _WORD.findall(query) if _APOSTROPHE.split(w.lower())[0] not in _DROPPED]
    if not kept:
        return query
    return " ".join(kept) + (" " + TIME_WORDS if _WHEN.match(query) else "")


def named_candidates(query: str) -> set[str]:
    """Words and word pairs of the query that could be a speaker's name, as written and capitalised
    ("Caroline's" -> "Caroline")."""
    words = [_APOSTROPHE.split(w)[0] for w in _WORD.findall(query)]
    names = words + [f"{a} {b}" for a, b in pairwise(words)]
    return {form for name in names for form in (name, name.title())}


def without_names(query: str, names: set[str]) -> str:
    """The query with these names (and their possessive) taken out; the query when nothing is left."""
    if not names:
        return query
    pattern = r"\b(?:" + "|".join(re.escape(n) for n in sorted(names, key=len, reverse=True)) + r")(?:['\u2019]s)?\b"
    stripped = " ".join(re.sub(pattern, " ", query, flags=re.IGNORECASE).split())
    return stripped if _WORD.search(stripped) else query


class Searcher(Protocol):
    """What MemoryService.search ranks with: HybridSearcher, or a fake of it in tests."""

    def search(
        self,
        tenant_id: str,
        user_id: str,
        query: str,
        top_k: int,
        filters: SearchFilters | None = None,
        threshold: float | None = None,
    ) -> list[ScoredId]: ...


@dataclass
class HybridSearcher:
    """Weighted fusion of cosine similarity and max-normalised BM25, plus conversation context.

    Cosine carries meaning; BM25 catches names, dates and rare words that small embedding models
    blur. Rank-only fusion (RRF) throws away how confident each side is (0.53 on LoCoMo against
    0.63 for this fusion), so scores are fused. Each side only returns its top `pool`; a document
    the other side did not return is scored at that side's cut-off rather than at zero, which
    would bury every memory that only one side found (+0.05 recall@10).

    Context: in a conversation the words of a question often sit in the turn before the answer
    ("What did you paint?" / "A sunset"). A memory recorded next to a strong hit (same user, same
    filters, within `context_window_s`) is pulled `context_weight` of the way up to the hit's
    score (+0.04 recall@10). Scores stay in [0, 1] and a pulled memory never passes its source.
    Needs an index that implements `Timeline`; with any other index this step is skipped.

    Speakers: "What kind of car does Evan drive?" is about what Evan said, and MiniLM reads the
    name so strongly that the turns of the person talking *to* Evan ("Hey Evan, ...") come first.
    When the question names a speaker of the user's memories (index_ports.Speakers), the name is left out
    of the text the embedding reads and that speaker's memories close `speaker_lift` of their
    distance to 1 (+0.03 recall@10 at lift 0.2). The embedding then carries more of the meaning,
    hence semantic_weight 0.75 (was 0.6: +0.017 with the speaker step, +0.002 without it).

    Vectors in context (index_ports.ContextVectors): the cosine side scores each memory as if its vector
    were blended with those of the memories recorded next to it (`vector_context` for the adjacent
    ones, half that for the next; within `context_window_s`), so "Yes, it broke down again" is
    found for a question about the car named two turns earlier (+0.011 recall@10). Plain cosine
    where the index cannot (a filtered search, a user large enough for the coarse pass, OpenSearch).
    """

    index: VectorIndex
    embedder: Embedder
    semantic_weight: float = 0.75
    speaker_lift: float = 0.2
    vector_context: float = 0.3
    context_weight: float = 0.5
    context_window_s: float = 1800.0
    candidates_factor: int = 4
    # 200 rather than 100: +0.0034 LoCoMo recall@10 (0.7793 -> 0.7827) for +0.7 ms p50 with the query
    # embedding at 10k memories (5.3 -> 6.0 ms), measured in one full bench run (bench/README.md).
    min_candidates: int = 200

    def search(
        self,
        tenant_id: str,
        user_id: str,
        query: str,
        top_k: int,
        filters: SearchFilters | None = None,
        threshold: float | None = None,
    ) -> list[ScoredId]:
        if top_k <= 0:
            return []
        pool = max(top_k * self.candidates_factor, self.min_candidates)
        named: set[str] = set()
        if self.speaker_lift > 0 and isinstance(self.index, Speakers):
            named = self.index.speakers_among(tenant_id, user_id, named_candidates(query))
        vector = self.embedder.embed([without_names(query, named)])[0]
        if self.vector_context > 0 and isinstance(self.index, ContextVectors):
            weights = (self.vector_context, self.vector_context / 2)
            semantic = self.index.knn_in_context(
                tenant_id, user_id, vector, pool, weights, self.context_window_s, filters
            )
            lexical = self.index.text_search(tenant_id, user_id, keyword_query(query), pool, filters)
        elif isinstance(self.index, HybridCandidates):  # both lists in one round trip
            semantic, lexical = self.index.hybrid(tenant_id, user_id, vector, keyword_query(query), pool, filters)
        else:
            semantic = self.index.knn(tenant_id, user_id, vector, pool, filters)
            lexical = self.index.text_search(tenant_id, user_id, keyword_query(query), pool, filters)
        fused, floor = self._fuse(semantic, lexical, pool)
        if named and isinstance(self.index, Speakers):
            for memory_id in self.index.spoken_by(tenant_id, user_id, list(fused), named):
                fused[memory_id] = 1.0 - (1.0 - fused[memory_id]) * (1.0 - self.speaker_lift)
        if self.context_weight > 0 and fused and isinstance(self.index, Timeline):
            fused = self._with_context(self.index, tenant_id, user_id, fused, floor, top_k, filters)
        ranked = sorted(fused.items(), key=lambda item: (-item[1], item[0]))
        if threshold is not None:
            ranked = [item for item in ranked if item[1] >= threshold]
        return [ScoredId(id=memory_id, score=round(score, 6)) for memory_id, score in ranked[:top_k]]

    def _fuse(self, semantic: list[ScoredId], lexical: list[ScoredId], pool: int) -> tuple[dict[str, float], float]:
        """Fused scores of every candidate, and the score of a document neither side returned."""
        cosine = {hit.id: max(hit.score, 0.0) for hit in semantic}
        # A full list was cut at `pool`: whatever it left out scores at most its last entry. A short
        # list holds every match (semantic: every document; lexical: every one sharing a term).
        cosine_floor = min(cosine.values(), default=0.0)
        bm25 = {hit.id: hit.score for hit in lexical}
        top_bm25 = max(bm25.values(), default=0.0)
        bm25_floor = min(bm25.values()) if len(lexical) >= pool else 0.0
        w = self.semantic_weight

        def fuse(cos: float, lex: float) -> float:
            return w * cos + ((1.0 - w) * lex / top_bm25 if top_bm25 > 0 else 0.0)

        fused = {i: fuse(cosine.get(i, cosine_floor), bm25.get(i, bm25_floor)) for i in cosine.keys() | bm25.keys()}
        return fused, fuse(cosine_floor, bm25_floor)

    def _with_context(
        self,
        timeline: Timeline,
        tenant_id: str,
        user_id: str,
        fused: dict[str, float],
        floor: float,
        top_k: int,
        filters: SearchFilters | None,
    ) -> dict[str, float]:
        sources = sorted(fused, key=lambda i: (-fused[i], i))[: max(2 * top_k, 20)]
        neighbours = timeline.neighbours(tenant_id, user_id, sources, filters, self.context_window_s)
        pulled: dict[str, float] = {}
        for source in sources:
            for neighbour in neighbours.get(source, ()):
                pulled[neighbour] = max(pulled.get(neighbour, 0.0), fused[source])
        result = dict(fused)
        for memory_id, source_score in pulled.items():
            own = fused.get(memory_id, floor)
            result[memory_id] = own + self.context_weight * max(0.0, source_score - own)
        return result


def hybrid_searcher(index: VectorIndex, embedder: Embedder, settings: Settings, **fields: Any) -> HybridSearcher:
    """HybridSearcher with the ENGRAM_SEARCH_* weights; `fields` on top (the bench labs try other values)."""
    s = settings
    configured: dict[str, Any] = {
        "semantic_weight": s.search_semantic_weight,
        "speaker_lift": s.search_speaker_lift,
        "vector_context": s.search_vector_context,
        "min_candidates": s.search_min_candidates,
        "context_weight": s.search_context_weight,
        "context_window_s": s.search_context_window_s,
    }
    return HybridSearcher(index, embedder, **(configured | fields))
