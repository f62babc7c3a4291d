"""The later of two statements on the same subject ranks first: what holds now is what was said last.

"I've tried three Korean restaurants" (May) and "I've tried four so far" (June) both answer "How many
Korean restaurants have I tried?", with words that rank them in no particular order. The pipeline's
reconciliation closes the older of two facts it recognises as one; kept messages and raw turns have no
such step, so search does it for the hits it returns: a hit said after a higher-ranked hit on the same
subject (the same words of the question, see `same_subject`) moves to just above it. Nothing leaves the
ranking; only the order of statements on one subject changes, and only when the question does not ask
about an earlier time ("first", "previous", "before", a named date: services/query_time.py).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import lru_cache

from engram.domain.models import Fact
from engram.services.search import keyword_query
from engram.textproc import STOPWORDS, stem, tokenize

DEPTH = 10  # hits reordered: within the first ten, recall@10 cannot change (below, evidence could be pushed out)
MARGIN = 0.05  # a later statement passes an earlier one only when its score is this close
# "What was my first car?", "... before I moved", "What did I use to ...": the earlier statement answers.
_EARLIER = re.compile(
    r"\b(?:first|previous(?:ly)?|original(?:ly)?|initial(?:ly)?|earlier|before|used\s+to|at\s+first|"
    r"last\s+time|ago|when)\b",
    re.IGNORECASE,
)


# The first auxiliary of a question gives its tense: "How many ... have I tried", "What day do I take
# ...", "Is my mom still ..." ask what holds now; "What did I ...", "Where was ..." ask about an event.
_AUXILIARY = re.compile(r"\b(?:do|does|am|is|are|have|has|did|was|were|had)\b|['\u2019](?:ve|re|s)\b", re.IGNORECASE)
_PRESENT = frozenset("do does am is are have has 've 're 's \u2019ve \u2019re \u2019s".split())


def asks_about_earlier(query: str) -> bool:
    return bool(_EARLIER.search(query))


def asks_about_now(query: str) -> bool:
    """A question in the present tense that names no earlier time."""
    first = _AUXILIARY.search(query)
    return first is not None and first.group(0).lower() in _PRESENT and not asks_about_earlier(query)


def same_subject(a: frozenset[str], b: frozenset[str]) -> bool:
    """Two hits speak of the same subject when they share at least two of the question's terms and
    those are most (two thirds) of the question's terms either says."""
    shared = len(a & b)
    return shared >= 2 and 3 * shared >= 2 * len(a | b)


def newest_first(query: str, hits: Sequence[tuple[Fact, float]]) -> list[tuple[Fact, float]]:
    """The hits with each later statement on a subject moved just above the earlier ones it follows.
    Scores are kept except that a moved hit takes the score of the one it passes (ties keep the newer
    first), so the order and the scores shown agree."""
    ranked = sorted(hits, key=lambda hit: -hit[1])
    terms = frozenset(tokenize(keyword_query(query)))
    if len(terms) < 2 or not asks_about_now(query):
        return ranked
    top, rest = ranked[:DEPTH], ranked[DEPTH:]
    subjects = [_terms_in(fact.text, terms) for fact, _ in top]
    scores = [score for _, score in top]
    for low in range(1, len(top)):
        said = top[low][0].valid_from
        for high in range(low):
            if (
                top[high][0].valid_from < said
                and scores[high] - scores[low] <= MARGIN
                and same_subject(subjects[high], subjects[low])
            ):
                scores[low] = max(scores[low], scores[high])
                break
    moved = [(fact, scores[i], said_at) for i, ((fact, _), said_at) in enumerate(zip(top, _said(top), strict=True))]
    moved.sort(key=lambda item: (-item[1], -item[2]))
    return [(fact, score) for fact, score, _ in moved] + rest


_WORD = re.compile(r"[^\W_]+")


@lru_cache(maxsize=65536)
def _stem(word: str) -> str:
    return stem(word)


def _terms_in(text: str, terms: frozenset[str]) -> frozenset[str]:
    """The question's terms a hit's text holds: each distinct word stemmed once (a long turn repeats
    its words, and the same words recur across searches), about 5x cheaper than tokenising it."""
    return frozenset(t for w in set(_WORD.findall(text.lower())) if w not in STOPWORDS and (t := _stem(w)) in terms)


def _said(hits: Sequence[tuple[Fact, float]]) -> list[float]:
    return [fact.valid_from.timestamp() for fact, _ in hits]
