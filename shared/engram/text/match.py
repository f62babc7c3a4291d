"""Cheap lexical checks the reconciler uses to validate LLM decisions."""

from __future__ import annotations

import re

_WORD = re.compile(r"[^\W_]+", re.UNICODE)
_STOP = frozenset(
    "a an the and or but of to in on at for with from by is are was were be been has have had "
    "user user's their they them he she his her its it this that as not no now also very".split()
)
_NEGATION = re.compile(
    r"\b(no longer|not|n't|never|stopped|quit|doesn't|don't|dislikes?|hates?|anymore)\b", re.IGNORECASE
)


def content_words(text: str) -> list[str]:
    """The text's content words, lower-cased, in the order said (the last one is what a clause names last)."""
    return [w for w in (t.lower() for t in _WORD.findall(text)) if w not in _STOP]


def content_tokens(text: str) -> set[str]:
    return set(content_words(text))


def overlap(fact: str, other: str) -> float:
    """Share of the fact's content words that the other text holds."""
    mine = content_tokens(fact)
    if not mine:
        return 0.0
    return len(mine & content_tokens(other)) / len(mine)


def looks_negated(text: str) -> bool:
    return bool(_NEGATION.search(text))


def protected_details(text: str) -> set[str]:
    """Names, places, dates and quantities: capitalised words after the first, and numbers."""
    words = _WORD.findall(text)
    found = {w.lower() for w in words if any(ch.isdigit() for ch in w)}
    found |= {w.lower() for w in words[1:] if w[:1].isupper() and w.lower() not in _STOP}
    return found


def dropped_details(old: str, new: str) -> set[str]:
    """Details of `old` that `new` loses without replacing them with others of its own."""
    new_words = {w.lower() for w in _WORD.findall(new)}
    old_words = {w.lower() for w in _WORD.findall(old)}
    dropped = protected_details(old) - new_words
    introduced = protected_details(new) - old_words
    return dropped if len(dropped) > len(introduced) else set()


def values_match(a: str, b: str) -> bool:
    """'Manchester' and 'manchester, UK' state the same value; 'Leeds' and 'Manchester' do not."""
    x, y = " ".join(a.lower().replace(",", " ").split()), " ".join(b.lower().replace(",", " ").split())
    return bool(x and y) and (x == y or f" {x} " in f" {y} " or f" {y} " in f" {x} ")
