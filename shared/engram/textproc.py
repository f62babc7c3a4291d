"""Text normalisation shared by the indexes: the BM25 tokenizer and filter-value canonical form.

The tokenizer approximates what OpenSearch's standard tokenizer + lowercase + English stop words +
a stemmer do, so keyword search ranks alike on both backends. It is deliberately light: a few
suffix rules that make "hiking" ~ "hike" and "dogs" ~ "dog", not a full Porter stemmer.
"""

from __future__ import annotations

import re
from collections import Counter

# Lucene's English stop set (the `_english_` list OpenSearch uses), so both backends drop the same words.
STOPWORDS: frozenset[str] = frozenset(
    (
        "a an and are as at be but by for if in into is it no not of on or such that the their "
        "then there these they this to was will with"
    ).split()
)

# Letters/digits (any script), optionally joined by apostrophes: "john's", "don't", "l'été".
_WORD = re.compile(r"[^\W_]+(?:['\u2019][^\W_]+)*")
_APOSTROPHES = re.compile(r"['\u2019]")
_VOWELS = frozenset("aeiouy")
_NO_UNDOUBLE = frozenset("lsz")  # "spelling" -> "spell", not "spel"


def _has_vowel(text: str) -> bool:
    return any(ch in _VOWELS for ch in text)


def _undouble(word: str) -> str:
    # "running" -> "runn" -> "run"; keeps "spell", "pass", "buzz".
    if len(word) >= 3 and word[-1] == word[-2] and word[-1] not in _VOWELS | _NO_UNDOUBLE:
        return word[:-1]
    return word


def stem(word: str) -> str:
    """A light English suffix stemmer: plurals (-s, -es, -ies), -ing, -ed, a silent final e, and
    a final consonant+y -> i (as Porter does, so "berry" and "berries" meet at "berri").

    The output is a stem, not a word ("hike" -> "hik"); what matters is that the inflected forms
    of one word map to the same stem.
    """
    if len(word) <= 3 or not word.isalpha():
        return word
    if word.endswith("ies") and len(word) > 4:
        word = word[:-2]
    elif word.endswith(("sses", "xes", "ches", "shes")):
        word = word[:-2]
    elif word.endswith("s") and not word.endswith(("ss", "us", "is")):
        word = word[:-1]

    if word.endswith("ied") and len(word) > 4:
        return word[:-2]
    if word.endswith("ing") and len(word) >= 6 and _has_vowel(word[:-3]):
        return _y_to_i(_undouble(word[:-3]))
    if word.endswith("ed") and len(word) >= 5 and _has_vowel(word[:-2]):
        # The e of "hiked" went with the suffix; "agreed" -> "agre" must keep its own e.
        return _y_to_i(_undouble(word[:-2]))
    if word.endswith("e") and len(word) > 3:
        return word[:-1]
    return _y_to_i(word)


def _y_to_i(word: str) -> str:
    if len(word) > 3 and word.endswith("y") and word[-2] not in _VOWELS:
        return word[:-1] + "i"
    return word


def _normalise(token: str) -> str:
    if token.endswith(("'s", "\u2019s")):
        token = token[:-2]
    return _APOSTROPHES.sub("", token)


def tokenize(text: str) -> list[str]:
    """Lowercased, stop-word-free, stemmed terms of `text`, in order (duplicates kept)."""
    terms: list[str] = []
    for raw in _WORD.findall(text.lower()):
        token = _normalise(raw)
        if not token or token in STOPWORDS:
            continue
        terms.append(stem(token))
    return terms


def term_counts(text: str) -> dict[str, int]:
    """Term frequencies of `text` (what BM25 needs per document)."""
    return dict(Counter(tokenize(text)))


def filter_value(value: object) -> str:
    """Canonical string form of an exact-match filter value (metadata values included).

    OpenSearch keyword/flat_object fields hold every scalar as a string; both indexes compare
    that form so a filter matches the same documents on either backend (True -> "true", 5 -> "5").
    """
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return "null"
    return str(value)
