"""Ranking by what the memories state (domain/statements.py), for a question about the person themselves ("who is
my doctor?", "which network am I on?"):
- a memory with a current statement of the person's own, of an attribute the question names, is lifted ("My family
  doctor is Dr. Ramírez" over "I changed dentists; I now see Dr. Cruz");
- a memory that states only what others hold ("my father switched to Airtel") keeps a share of its score.
A memory with no statements is left as it is: this stage only orders what the statements tell apart."""

from __future__ import annotations

import re
from collections.abc import Sequence

from engram.domain.models import Fact
from engram.domain.statements import USER, Statement
from engram.text.match import content_tokens

OWN_LIFT = 0.2  # a memory stating the asked attribute as the person's closes this share of its distance to 1
OTHERS_SHARE = 0.85  # of the score of a memory stating only what others hold
_ABOUT_ME = re.compile(r"\b(?:i|i'm|i've|me|my|mine|am)\b", re.I)


def rank_by_statements(query: str, hits: Sequence[tuple[Fact, float]]) -> list[tuple[Fact, float]]:
    """The hits re-scored by their statements, best first (unchanged for a question not about the person)."""
    if not _ABOUT_ME.search(query):
        return list(hits)
    words = content_tokens(query)
    ranked = [(fact, _score(fact, score, words)) for fact, score in hits]
    return sorted(ranked, key=lambda hit: -hit[1])


def _score(fact: Fact, score: float, words: set[str]) -> float:
    current = [s for s in fact.statements if s.outdated_by is None]
    if not current:
        return score
    own = [s for s in current if s.subject == USER]
    if not own:
        return score * OTHERS_SHARE
    if any(s.polarity == "asserted" and _names(s, words) for s in own):
        return 1.0 - (1.0 - score) * (1.0 - OWN_LIFT)
    return score


def _names(statement: Statement, words: set[str]) -> bool:
    """Whether the question names the statement's attribute (a word of it: "doctor" of "family doctor")."""
    return not content_tokens(statement.attribute.replace("_", " ")).isdisjoint(words)
