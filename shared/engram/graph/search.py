"""The relations around the entities a query names or resembles, ranked by how well the entity
matched (one hop by default, two at most; the second hop counts half)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from engram.domain.graph import Relation, ScoredRelation, normalise_name
from engram.domain.ports import GraphStore, VectorIndex
from engram.text.terms import FILLER_WORDS, QUESTION_WORDS

SEEDS = 5
SECOND_HOP = 0.5
_UNNAMING = QUESTION_WORDS | FILLER_WORDS | {"it", "and", "a", "an", "the", "of", "to", "in", "on", "for", "with"}


@dataclass
class GraphSearcher:
    store: GraphStore
    index: VectorIndex
    min_similarity: float = 0.5  # an entity whose name embedding is less similar is not "named"

    def search(
        self,
        tenant_id: str,
        user_id: str,
        query: str,
        vector: Sequence[float],
        hops: int = 1,
        limit: int = 20,
    ) -> list[ScoredRelation]:
        seeds = self.seeds(tenant_id, user_id, query, vector)
        scored: dict[str, ScoredRelation] = {}
        frontier = seeds
        for hop in range(max(1, min(hops, 2))):
            relations = self.store.relations_of(tenant_id, list(frontier))
            found = rank(relations, frontier, SECOND_HOP if hop else 1.0)
            nxt: dict[str, float] = {}
            for item in found:
                if item.relation.id not in scored:
                    scored[item.relation.id] = item
                    for end in (item.relation.source_entity_id, item.relation.destination_entity_id):
                        if end not in seeds:
                            nxt[end] = max(nxt.get(end, 0.0), item.score)
            frontier = nxt
            if not frontier:
                break
        return sorted(scored.values(), key=lambda s: s.score, reverse=True)[:limit]

    def seeds(self, tenant_id: str, user_id: str, query: str, vector: Sequence[float]) -> dict[str, float]:
        """Entity id -> match score: a name written in the query scores 1; otherwise the cosine
        similarity of the names, when above `min_similarity`."""
        words = f" {normalise_name(query)} "
        seeds: dict[str, float] = {}
        for hit in self.index.text_search(tenant_id, user_id, query, SEEDS):
            seeds[hit.id] = 0.0
        for hit in self.index.knn(tenant_id, user_id, vector, SEEDS):
            if hit.score >= self.min_similarity or hit.id in seeds:
                seeds[hit.id] = hit.score
        if not seeds:
            return {}
        named = {e.id for e in self.store.get_entities(tenant_id, list(seeds)) if _written(e.names(), words)}
        return {i: 1.0 if i in named else s for i, s in seeds.items() if i in named or s >= self.min_similarity}


def named(store: GraphStore, index: VectorIndex, tenant_id: str, user_id: str, query: str) -> set[str]:
    """Ids of the entities whose name (or alias) the query writes: a keyword search of the entity
    names, kept only where the whole name stands in the query. No embedding. The keyword side drops
    question words and filler ("what", "did", "her"), so a name such as "it and" is not read from
    DynamoDB for every question that says "it"."""
    # a capitalised word past the first may be a name ("What did Will say?")
    topical = [w for i, w in enumerate(query.split()) if _kept(w, i)]
    hits = index.text_search(tenant_id, user_id, " ".join(topical), 2 * SEEDS) if topical else []
    if not hits:
        return set()
    words = f" {normalise_name(query)} "
    return {e.id for e in store.get_entities(tenant_id, [h.id for h in hits]) if _written(e.names(), words)}


def _kept(word: str, position: int) -> bool:
    plain = normalise_name(word)
    return bool(plain) and (plain not in _UNNAMING or (position > 0 and word[:1].isupper()))


def _written(names: set[str], words: str) -> bool:
    return any(name and f" {name} " in words for name in names)


def rank(relations: Sequence[Relation], seeds: dict[str, float], weight: float) -> list[ScoredRelation]:
    out = []
    for relation in relations:
        if relation.current:
            score = max(seeds.get(relation.source_entity_id, 0.0), seeds.get(relation.destination_entity_id, 0.0))
            out.append(ScoredRelation(relation=relation, score=round(score * weight, 4)))
    return out
