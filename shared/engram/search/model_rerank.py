"""The reranker's step in a search: the first ranking's top few scored again by a model that reads
the question and each memory together, the two scores blended.

Blended rather than replaced: the fused score carries BM25's names and dates, the speaker step and
the conversation context, which the model does not see; on LoCoMo the model's score alone ranked
below the fused one, a fifth of it blended in ranked above (bench/README.md, "Reranker (issue 26)").
"""

from __future__ import annotations

from collections.abc import Sequence

from engram.domain.models import Fact
from engram.domain.ports import Reranker


def rescore(
    reranker: Reranker, query: str, hits: Sequence[tuple[Fact, float]], candidates: int, weight: float
) -> list[tuple[Fact, float]]:
    """Hits re-scored best first: (1 - weight) x their score + weight x the model's score for the
    first `candidates` of them; the ones after are scored as if the model gave them the lowest score
    it gave (as the fusion scores what one side did not return at that side's cut-off)."""
    head = hits[:candidates]
    if not head or weight <= 0:
        return list(hits)
    model = reranker.score(query, [fact.text for fact, _ in head])
    floor = min(model)
    blended = [
        (fact, (1.0 - weight) * score + weight * (model[i] if i < len(model) else floor))
        for i, (fact, score) in enumerate(hits)
    ]
    return sorted(blended, key=lambda hit: -hit[1])
