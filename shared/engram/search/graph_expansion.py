"""Graph-expanded retrieval: the entities a question names -> their current relations -> the
memories those relations were read from (Relation.memory_ids), added to the search's candidates.

"What does Maren do?" shares no word with "My sister Maren works at Equinor as an engineer" only
when the memory says it another way ("She started at Equinor ..."); the relation `Maren works_at
Equinor` links the memory it came from, so a question naming Maren reaches it through the graph.

Score: a linked memory's own score (its fused score among the candidates, or the candidates' floor
when the index did not return it) is lifted `share` of the way toward the entity match (1 for a
name written in the question), and never above the best candidate: the graph adds and reorders
evidence, it does not put a memory before the question's top hit. Nothing happens when the
question names no entity, so questions without one rank exactly as before.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from engram.domain.models import Fact
from engram.domain.ports import GraphStore, VectorIndex
from engram.graph.search import named

MAX_LINKED = 20  # linked memories read per search at most (a name mentioned everywhere links many)


@dataclass
class GraphExpansion:
    store: GraphStore
    entity_index: VectorIndex
    share: float  # how far a linked memory moves toward the entity match; 0: off

    def expand(
        self,
        tenant_id: str,
        user_id: str,
        query: str,
        found: Sequence[tuple[Fact, float]],
        read: Callable[[list[str]], dict[str, Fact]],
        keep: Callable[[Fact], bool],
    ) -> list[tuple[Fact, float]]:
        """`found` with linked memories lifted or added; `read` fetches memories by id, `keep` says
        whether one may be returned (the user's, current, matching the search's filters)."""
        if self.share <= 0:
            return list(found)
        seeds = named(self.store, self.entity_index, tenant_id, user_id, query)
        if not seeds:
            return list(found)
        relations = self.store.relations_of(tenant_id, sorted(seeds))
        linked = dict.fromkeys(i for r in relations if r.current for i in r.memory_ids)  # ordered, no repeats
        if not linked:
            return list(found)
        scores = {fact.id: score for fact, score in found}
        top = max(scores.values(), default=1.0)
        floor = min(scores.values(), default=0.0)
        missing = [i for i in linked if i not in scores][:MAX_LINKED]
        added = {i: f for i, f in read(missing).items() if keep(f)} if missing else {}
        out: list[tuple[Fact, float]] = []
        for fact, score in [*found, *((f, floor) for f in added.values())]:
            if fact.id in linked:
                score = max(score, min(top, score + self.share * (1.0 - score)))
            out.append((fact, score))
        return sorted(out, key=lambda hit: -hit[1])
