"""Fact keys: which hold one value at a time, and comparable signatures for the reconciler."""

from __future__ import annotations

import re

from engram.rules.vocab import SINGLE_RELATIONS

# Keys that hold one value: a new value replaces the old one instead of sitting beside it.
SINGLE_VALUED = frozenset(
    {
        "name",
        "nickname",
        "location",
        "hometown",
        "birthplace",
        "birth_year",
        "birthday",
        "age",
        "nationality",
        "religion",
        "employer",
        "job_title",
        "marital_status",
        "diet",
        "school",
        "field_of_study",
    }
)
# Keys whose last part is a free phrase ("preference:hiking"): compared by word stems.
_STEMMED = frozenset({"preference", "diet", "health", "reminder"})
_STOP = frozenset("the a an my their some any to of for about with and or on".split())
_WORD = re.compile(r"[\w'-]+")


def is_single_valued(key: str) -> bool:
    k = key.lower()
    if k in SINGLE_VALUED or k.startswith("favorite:") or k.endswith(":age"):
        return True
    parts = k.split(":")
    return len(parts) == 2 and parts[0] == "family" and parts[1] in SINGLE_RELATIONS


def family_of(key: str) -> str:
    return key.split(":", 1)[0].lower()


def stem(word: str) -> str:
    """A crude stem so 'hiking'/'hike', 'peanuts'/'peanut', 'buying'/'buy' compare equal."""
    w = word.lower().strip("'\".,!?-")
    if w.endswith("'s"):
        w = w[:-2]
    if len(w) > 5 and w.endswith("ing"):
        w = w[:-3]
        if len(w) > 2 and w[-1] == w[-2] and w[-1] not in "lsz":
            w = w[:-1]  # running -> run, but calling -> call
    elif len(w) > 3 and w.endswith("s") and not w.endswith(("ss", "us", "is")):
        w = w[:-1]
    if len(w) > 3 and w.endswith("e"):
        w = w[:-1]
    if len(w) > 2 and w.endswith("y"):
        w = w[:-1] + "i"
    return w


def stem_tokens(text: str) -> frozenset[str]:
    return frozenset(stem(w) for w in _WORD.findall(text.lower()) if w not in _STOP)


def signature(key: str) -> str:
    """'preference:Hiking' and 'preference:hike' share a signature; other keys compare lower-cased."""
    parts = [" ".join(p.split()).lower() for p in key.split(":")]
    if parts[0] in _STEMMED and len(parts) > 1:
        return parts[0] + ":" + " ".join(sorted(stem_tokens(" ".join(parts[1:]))))
    return ":".join(parts)


def key_object(key: str) -> str:
    """The free phrase of a key: 'preference:pizza' -> 'pizza'."""
    return key.split(":", 1)[1] if ":" in key else ""


def object_key(phrase: str) -> str:
    """The key form of a phrase: lower case, without leading determiners or punctuation."""
    words = _WORD.findall(phrase.lower())
    while words and words[0] in ("the", "a", "an", "my", "their", "some", "any"):
        words = words[1:]
    return " ".join(words)


def singular(phrase: str) -> str:
    """'peanuts' -> 'peanut', 'strawberries' -> 'strawberry' (last word only)."""
    words = phrase.split()
    if not words:
        return phrase
    w = words[-1]
    if len(w) > 4 and w.endswith("ies"):
        w = w[:-3] + "y"
    elif len(w) > 4 and w.endswith(("oes", "ches", "shes", "sses", "xes")):
        w = w[:-2]
    elif len(w) > 3 and w.endswith("s") and not w.endswith(("ss", "us", "is")):
        w = w[:-1]
    return " ".join([*words[:-1], w])


def same_value(a: str | None, b: str | None) -> bool:
    if a is None or b is None:
        return False
    return _plain(a) == _plain(b)


def _plain(value: str) -> str:
    words = _WORD.findall(value.lower())
    if words and words[0] == "the":
        words = words[1:]
    return " ".join(words)
