"""What a rule returns, and how candidate facts are built (texts in mem0's style, bank, importance)."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from engram.domain.models import MemoryBank
from engram.domain.steps import CandidateFact
from engram.rules.keys import signature
from engram.text.clauses import MAX_CLAUSE, Clause, sentence_case

# Importance by family (0..1). Health and identity matter most; passing tastes least.
HEALTH = 0.9
NAME = 0.9
LOCATION = 0.8
WORK = 0.8
FAMILY = 0.8
DIET = 0.8
PERSONAL = 0.7
PET = 0.7
REMINDER = 0.7
PREFERENCE = 0.6
HISTORY = 0.5  # "previously worked at ...": kept, but below what is true now


@dataclass(frozen=True)
class Match:
    """Facts a rule found in one clause; `complete` is False when part of the clause was not understood."""

    facts: tuple[CandidateFact, ...]
    complete: bool = True


Build = Callable[[re.Match[str], Clause], Match | None]
Rule = Callable[[Clause], Match | None]


def regex_rule(pattern: str, build: Build) -> Rule:
    """A rule that fires when the whole clause matches `pattern` (case-insensitive), or does once
    trailing fillers are gone ("I got married last year", "I love pizza lol")."""
    compiled = re.compile(pattern, re.IGNORECASE)

    def rule(clause: Clause) -> Match | None:
        if len(clause.text) > MAX_CLAUSE:  # bounded work per clause, whatever the pattern
            return None
        found = compiled.fullmatch(clause.text)
        if found is None and clause.stripped != clause.text:
            found = compiled.fullmatch(clause.stripped)
        return build(found, clause) if found else None

    rule.__name__ = f"rule<{pattern[:40]}>"
    return rule


def make(
    text: str,
    key: str | None,
    value: str | None,
    bank: MemoryBank,
    importance: float,
    negated: bool = False,
) -> CandidateFact:
    return CandidateFact(
        text=sentence_case(" ".join(text.split())),
        fact_key=key,
        fact_value=value,
        memory_bank=bank,
        importance=importance,
        negated=negated,
    )


def one(fact: CandidateFact, complete: bool = True) -> Match:
    return Match((fact,), complete)


def latest(facts: Sequence[CandidateFact]) -> list[tuple[int, CandidateFact]]:
    """One candidate per key, keeping positions: within one conversation the last statement wins
    ("I live in Berlin. Actually, I just moved to Munich."), and "Has a dog" gives way to "Has a dog
    named Max". Candidates without a key are kept unless their text repeats an earlier one."""
    kept: list[tuple[int, CandidateFact]] = []
    for index, fact in enumerate(facts):
        if fact.fact_key:
            sig = signature(fact.fact_key)
            kept = [(i, f) for i, f in kept if not (f.fact_key and signature(f.fact_key) == sig)]
        elif any(f.text.strip().lower() == fact.text.strip().lower() for _, f in kept):
            continue
        kept.append((index, fact))
    named = {signature(f.fact_key).rsplit(":", 1)[0] for _, f in kept if f.fact_key and f.fact_key.count(":") == 2}
    return [
        (i, f)
        for i, f in kept
        if not (f.fact_key and f.fact_value == "1" and signature(f.fact_key) in named and not f.negated)
    ]
