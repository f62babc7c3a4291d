"""Ranking by what the memories state (domain/statements.py), for a question about the person ("who is my
doctor?", "which network am I on?") or about someone the question names ("which school does Kofi go to?"):
- a memory with a current statement of that subject, of an attribute the question names, is lifted ("My family
  doctor is Dr. Ramírez" over "I changed dentists; I now see Dr. Cruz"; "Kofi started at Westbrook Academy" over
  "Has a son named Kofi");
- for a question about the person, a memory that states only what others hold ("my father switched to Airtel")
  keeps a share of its score.
A memory with no statements is left as it is: this stage only orders what the statements tell apart."""

from __future__ import annotations

import re
from collections.abc import Sequence

from engram.domain.models import Fact
from engram.domain.statements import USER, Statement
from engram.text.match import content_tokens

OWN_LIFT = 0.2  # a memory stating the asked attribute of the asked subject closes this share of its distance to 1
OTHERS_SHARE = 0.85  # of the score of a memory stating only what others hold, for a question about the person
_ABOUT_ME = re.compile(r"\b(?:i|i'm|i've|me|my|mine|am)\b", re.I)
_NAME = re.compile(r"(?<!^)(?<![.?!]\s)\b[^\W\d_][\w'\u2019-]*")  # a word inside the question, not its first


def asks_about_the_person(query: str) -> bool:
    """Whether a question is about the person whose memory it is ("where do I live?"), not only about others."""
    return _ABOUT_ME.search(query) is not None


def rank_by_statements(query: str, hits: Sequence[tuple[Fact, float]]) -> list[tuple[Fact, float]]:
    """The hits re-scored by their statements, best first (unchanged for a question that names no subject)."""
    about_me = asks_about_the_person(query)
    names = _names_in(" ".join(_NAME.findall(query[:500])))
    if not about_me and not names:
        return list(hits)
    words = content_tokens(query)
    ranked = [(fact, _score(fact, score, words, about_me, names)) for fact, score in hits]
    return sorted(ranked, key=lambda hit: -hit[1])


def _score(fact: Fact, score: float, words: set[str], about_me: bool, names: set[str]) -> float:
    current = [s for s in fact.statements if s.outdated_by is None]
    if not current:
        return score
    asked = [
        s
        for s in current
        if s.polarity == "asserted"
        and _names(s, words)
        and ((about_me and s.subject == USER) or _named(s.subject, names))
    ]
    if asked:
        return 1.0 - (1.0 - score) * (1.0 - OWN_LIFT)
    if about_me and all(s.subject != USER for s in current):
        return score * OTHERS_SHARE
    return score


def _named(subject: str, names: set[str]) -> bool:
    """Whether a subject is someone the question names ("Kofi" of "my son Kofi", "Boateng" of "Ama Boateng")."""
    return not _names_in(subject).isdisjoint(names)


def _names_in(text: str) -> set[str]:
    return {w.replace("\u2019", "'").removesuffix("'s").casefold() for w in text.split() if w[:1].isupper()}


def _names(statement: Statement, words: set[str]) -> bool:
    """Whether the question names the statement's attribute (a word of it: "doctor" of "family doctor")."""
    return not content_tokens(statement.attribute.replace("_", " ")).isdisjoint(words)
