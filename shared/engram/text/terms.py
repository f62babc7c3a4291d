"""Text normalisation shared by the indexes: the BM25 tokenizer and filter-value canonical form.

The tokenizer approximates what OpenSearch's standard tokenizer + lowercase + English stop words +
a stemmer do, so keyword search ranks alike on both backends. It is deliberately light: a few
suffix rules that make "hiking" ~ "hike" and "dogs" ~ "dog", not a full Porter stemmer.

Both are English rules: a text that looks like another language (looks_english) keeps its words
as written, so "Ich wohne in München" and "Wo wohne ich?" meet at "wohne" and "ich" instead of at
stems cut by English suffix rules, and no foreign word is dropped as an English stop word.
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

# Function words that mark a text as English, and words of German, Spanish, French, Italian,
# Portuguese and Dutch that mark it as another language (words that are common English too, such as
# "was", "an", "die", "son", "me", "no", "war" and "per", are left out of the second set).
_ENGLISH_MARKERS: frozenset[str] = frozenset(
    (
        "the a an and of to is are was were i you he she we they my your his her our its this that "
        "what where when who how why do does did have has had not with for on at from be been will would "
        "can could should me him them us"
    ).split()
)
_OTHER_MARKERS: frozenset[str] = (
    frozenset(
        (
            "ich du er sie wir ihr mein meine dein deine ist sind und der das dem ein eine einen nicht mit "
            "auf für wo wie wer warum habe hast hat bin bist "
            "yo tú él ella nosotros mi mis tu tus es y el los las un una del para por que qué dónde cómo "
            "tengo tiene soy estoy vivo "
            "je il elle nous vous ma mes est sont et le les une des avec pour dans qui où comment ne pas suis "
            "io lui noi gli è sono di che non ho "
            "eu ele ela nós meu minha são os um uma com não onde "
            "ik jij hij wij mijn zijn en het een niet voor waar hoe heb"
        ).split()
    )
    - _ENGLISH_MARKERS
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


def looks_english(words: list[str]) -> bool:
    """Whether lowercased `words` read as English: its function words outnumber those of six other
    European languages plus the words written with letters outside ASCII ("münchen", "дом").
    A text with neither (a name, a number, "hike dog") counts as English, as it did before."""
    english = other = 0
    for word in words:
        if word in _ENGLISH_MARKERS:
            english += 1
        elif word in _OTHER_MARKERS or not word.isascii():
            other += 1
    return english >= other


def tokenize(text: str) -> list[str]:
    """Lowercased terms of `text`, in order (duplicates kept): English text without its stop words
    and stemmed, any other language's words as written."""
    tokens = [_normalise(raw) for raw in _WORD.findall(text.lower())]
    english = looks_english(tokens)
    terms: list[str] = []
    for token in tokens:
        if not token:
            continue
        if not english:
            terms.append(token)
        elif token not in STOPWORDS:
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


# Words that make a sentence a question but say nothing about its topic. Lucene's stop set keeps
# them, so "When did Caroline go to the support group?" would reward every memory saying "did".
# Only the keyword side drops them; the embedding reads the question as asked. ("may" stays: a month.)
QUESTION_WORDS: frozenset[str] = frozenset(
    (
        "what when where who whom whose which why how "
        "do does did am is are was were has have had can could would should shall will might must"
    ).split()
)
# Pronouns and vague nouns of questions ("What kind of car does she drive?"): frequent in chat, so
# BM25 rewards every turn that says "her" or "kind" (+0.004 recall@10 dropping them).
FILLER_WORDS: frozenset[str] = frozenset(
    "he she his her him hers they them their i me my you your we our us kind type sort thing things likely "
    "might been being".split()
)
