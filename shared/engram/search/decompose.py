"""Questions that need several memories, split into sub-queries (offline, no model).

"Would Melanie prefer a national park or a theme park?" is answered by what Melanie said of national
parks and what she said of theme parks: two different turns, and the one ranking of the whole
question puts near-copies of whichever side its embedding leans to first. A coordination of short
phrases ("X and Y", "X or Y", "X, Y and Z") becomes one sub-query per alternative, each with the rest
of the question's content words; each sub-query is searched on its own, and its hits join the main
ranking at a share of their score (`DecomposingSearcher`), so they can take a place of the top k only
where the main ranking had nothing as good.

Linear in the question's length: one pass over its words, no backtracking patterns.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from engram.domain.models import ScoredId, SearchFilters
from engram.search.hybrid import Searcher

_WORD = re.compile(r"[^\W_]+(?:['\u2019][^\W_]+)*")
_JOINS = frozenset(("and", "or"))
# Words that end a coordinated phrase: question words, auxiliaries, pronouns, prepositions and
# articles (a phrase is the run of content words next to "and"/"or", articles skipped at its start).
_STOPS = frozenset(
    (
        "what when where who whom whose which why how do does did am is are was were be been being has have had "
        "can could would should shall will might must i me my you your he she his her him they them their we our "
        "us it its this that these those to of in on at for from with by about as into during after before "
        "than then not no so if but both either neither between a an the any some"
    ).split()
)
_ARTICLES = frozenset("a an the".split())
MAX_PHRASE = 3  # content words per alternative: longer runs are clauses, not alternatives
MAX_SUBQUERIES = 4


def sub_queries(question: str) -> list[str]:
    """One sub-query per alternative of the first coordination of short phrases; [] when there is none.

    >>> sub_queries("Would Melanie prefer a national park or a theme park?")
    ['Melanie prefer national park', 'Melanie prefer theme park']
    """
    found = list(_WORD.finditer(question))
    words = [m.group() for m in found]
    comma = [question[m.end() : m.end() + 1] == "," for m in found]
    lower = [w.lower() for w in words]
    joins = [i for i, w in enumerate(lower) if w in _JOINS]
    if not joins:
        return []
    first = joins[0]
    left_end = first
    left = _phrase_before(lower, comma, left_end)
    if not left:
        return []
    alternatives = [(left_end - len(left), left_end)]
    i = first
    while i < len(lower) and lower[i] in _JOINS:
        start = i + 1
        while start < len(lower) and lower[start] in _ARTICLES:
            start += 1
        end = start
        # Coordinated phrases are parallel: an alternative after the join is no longer than the one
        # before it ("Caroline and Melanie paint together": "Melanie", not "Melanie paint together").
        while end < len(lower) and end - start < len(left) and lower[end] not in _STOPS | _JOINS:
            end += 1
        if end == start:
            break
        alternatives.append((start, end))
        i = end
    alternatives += _listed_before(lower, comma, alternatives[0][0])
    if len(alternatives) < 2:
        return []
    inside = {p for s, e in alternatives for p in range(s, e)}
    # The rest of the question's content words (the joins and the articles before a phrase go too).
    rest = [w for p, w in enumerate(words) if p not in inside and lower[p] not in _STOPS | _JOINS]
    subs = [" ".join([*rest, *words[s:e]]) for s, e in sorted(alternatives)]
    return list(dict.fromkeys(subs))[:MAX_SUBQUERIES]


def _phrase_before(lower: list[str], comma: list[bool], end: int) -> list[str]:
    start = end
    while (
        start > 0
        and end - start < MAX_PHRASE
        and lower[start - 1] not in _STOPS | _JOINS
        and not (comma[start - 1] and start < end)
    ):
        start -= 1
    return lower[start:end]


def _listed_before(lower: list[str], comma: list[bool], start: int) -> list[tuple[int, int]]:
    """Phrases of a list before the first alternative ("hiking, swimming and running"): single content
    words each followed by a comma in the question text."""
    found: list[tuple[int, int]] = []
    p = start - 1
    while p >= 0 and lower[p] not in _STOPS and comma[p]:
        found.append((p, p + 1))
        p -= 1
    return found


def offline_split(tenant_id: str, question: str) -> list[str]:
    """The split of `sub_queries`, as a DecomposingSearcher calls it (the tenant is for a model's usage)."""
    return sub_queries(question)


@dataclass
class DecomposingSearcher:
    """The inner searcher's ranking of the question, joined by those of its sub-queries. One more
    search (and query embedding) per sub-query; a question without one costs nothing.

    Two ways to join: with `head` None, a memory a sub-query finds scores max(its score for the
    question, `share` x its score for the sub-query); with `head` = h, the question's top h stay
    first, then the rankings take turns (each sub-query's best not yet chosen, then the question's
    next), so each alternative has a place in the top k whatever its score. Scores are kept, capped
    by the one before, so that the order survives later re-sorting by score."""

    inner: Searcher
    share: float = 0.9
    head: int | None = None
    # (tenant, question) -> sub-queries: the offline split, or an LLM's (search/query_rewrite.py)
    split: Callable[[str, str], list[str]] = offline_split

    def search(
        self,
        tenant_id: str,
        user_id: str,
        query: str,
        top_k: int,
        filters: SearchFilters | None = None,
        threshold: float | None = None,
    ) -> list[ScoredId]:
        main = self.inner.search(tenant_id, user_id, query, top_k, filters, threshold)
        subs = self.split(tenant_id, query) if self.share > 0 else []
        if not subs:
            return main
        found = [self.inner.search(tenant_id, user_id, sub, top_k, filters, threshold) for sub in subs]
        if self.head is not None:
            return _interleave(main, found, self.head, top_k)
        scores = {hit.id: hit.score for hit in main}
        for ranking in found:
            for hit in ranking:
                scores[hit.id] = max(scores.get(hit.id, 0.0), round(self.share * hit.score, 6))
        ranked = sorted(scores.items(), key=lambda item: (-item[1], item[0]))[:top_k]
        return [ScoredId(id=memory_id, score=score) for memory_id, score in ranked]


def decomposing(
    searcher: Searcher, share: float, head: int | None = None, split: Callable[[str, str], list[str]] | None = None
) -> Searcher:
    """The searcher, wrapped to search sub-queries too when `share` > 0 (ENGRAM_SEARCH_DECOMPOSE), split
    offline or by `split` (ENGRAM_SEARCH_REWRITE=llm)."""
    return DecomposingSearcher(searcher, share, head, split or offline_split) if share > 0 else searcher


def _interleave(main: list[ScoredId], found: list[list[ScoredId]], head: int, top_k: int) -> list[ScoredId]:
    queues = [list(main[head:]), *(list(r) for r in found)]
    chosen: dict[str, float] = {}
    for hit in main[:head]:
        chosen[hit.id] = hit.score
    turn = 1  # the sub-queries first after the head
    while len(chosen) < top_k and any(queues):
        queue = queues[turn % len(queues)]
        while queue and queue[0].id in chosen:
            queue.pop(0)
        if queue:
            hit = queue.pop(0)
            chosen[hit.id] = min(hit.score, min(chosen.values(), default=hit.score))
        turn += 1
    return [ScoredId(id=i, score=s) for i, s in chosen.items()]
