"""Relevance search: semantic k-NN and BM25 over the same documents, fused into one ranking."""

from __future__ import annotations

from dataclasses import dataclass

from engram.domain.models import ScoredId, SearchFilters
from engram.domain.ports import Embedder, VectorIndex


@dataclass
class HybridSearcher:
    """Weighted fusion of cosine similarity and max-normalised BM25.

    Cosine carries meaning; BM25 catches names, numbers and rare words that small embedding
    models blur. Rank-only fusion (RRF) throws away how confident each side is, so scores are
    fused instead.
    """

    index: VectorIndex
    embedder: Embedder
    semantic_weight: float = 0.6
    candidates_factor: int = 4
    min_candidates: int = 50

    def search(
        self,
        tenant_id: str,
        user_id: str,
        query: str,
        top_k: int,
        filters: SearchFilters | None = None,
        threshold: float | None = None,
    ) -> list[ScoredId]:
        pool = max(top_k * self.candidates_factor, self.min_candidates)
        vector = self.embedder.embed([query])[0]
        semantic = self.index.knn(tenant_id, user_id, vector, pool, filters)
        lexical = self.index.text_search(tenant_id, user_id, query, pool, filters)
        top_bm25 = max((hit.score for hit in lexical), default=0.0)
        fused: dict[str, float] = {}
        for hit in semantic:
            fused[hit.id] = self.semantic_weight * max(hit.score, 0.0)
        if top_bm25 > 0:
            lexical_weight = 1.0 - self.semantic_weight
            for hit in lexical:
                fused[hit.id] = fused.get(hit.id, 0.0) + lexical_weight * hit.score / top_bm25
        ranked = sorted(fused.items(), key=lambda item: item[1], reverse=True)
        if threshold is not None:
            ranked = [item for item in ranked if item[1] >= threshold]
        return [ScoredId(id=memory_id, score=round(score, 6)) for memory_id, score in ranked[:top_k]]
