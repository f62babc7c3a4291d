"""The BM25 tokenizer: what gets matched to what when a user searches their memories by keyword."""

from __future__ import annotations

import pytest

from engram.textproc import STOPWORDS, filter_value, stem, term_counts, tokenize


@pytest.mark.parametrize(
    ("inflected", "base"),
    [
        ("hiking", "hike"),
        ("hiked", "hike"),
        ("hikes", "hike"),
        ("dogs", "dog"),
        ("boxes", "box"),
        ("dishes", "dish"),
        ("glasses", "glass"),
        ("berries", "berry"),
        ("studies", "study"),
        ("studying", "study"),
        ("carried", "carry"),
        ("movies", "movie"),
        ("running", "run"),
        ("swimming", "swim"),
        ("played", "play"),
        ("liked", "like"),
        ("agreed", "agree"),
    ],
)
def test_inflections_share_a_stem(inflected: str, base: str) -> None:
    assert stem(inflected) == stem(base)


@pytest.mark.parametrize(("a", "b"), [("dog", "cat"), ("hike", "hiker"), ("bus", "bush"), ("sing", "son")])
def test_different_words_keep_different_stems(a: str, b: str) -> None:
    assert stem(a) != stem(b)


@pytest.mark.parametrize("word", ["bus", "analysis", "glass", "gas", "yes", "bring", "thing", "need", "play"])
def test_words_that_only_look_inflected_are_left_alone(word: str) -> None:
    assert stem(word) == word


def test_tokenize_lowercases_and_drops_stopwords_and_punctuation() -> None:
    assert tokenize("The Dog, and THE cat!") == ["dog", "cat"]


def test_tokenize_strips_possessives_and_apostrophes() -> None:
    assert tokenize("John's dog") == ["john", "dog"]
    assert tokenize("Anna\u2019s bike") == ["anna", "bik"]
    assert tokenize("don't") == ["dont"]


def test_tokenize_keeps_numbers_and_mixed_tokens() -> None:
    assert tokenize("Born in 1990, lives at 221b") == ["born", "1990", "liv", "221b"]


def test_tokenize_is_unicode_aware() -> None:
    assert tokenize("Zürich café ДОМ 東京") == ["zürich", "café", "дом", "東京"]


def test_tokenize_stems_so_query_and_document_forms_meet() -> None:
    assert set(tokenize("loves hiking with dogs")) >= set(tokenize("hike dog"))


def test_tokenize_of_nothing_useful_is_empty() -> None:
    assert tokenize("") == []
    assert tokenize("the and of, !!! ...") == []


def test_stopwords_are_the_small_english_set() -> None:
    assert {"the", "and", "is", "of"} <= STOPWORDS
    assert "dog" not in STOPWORDS
    assert len(STOPWORDS) < 50


def test_term_counts_counts_stemmed_terms() -> None:
    assert term_counts("dog dogs cat") == {"dog": 2, "cat": 1}


@pytest.mark.parametrize(
    ("value", "text"),
    [(True, "true"), (False, "false"), (5, "5"), (1.5, "1.5"), ("red", "red"), (None, "null")],
)
def test_filter_value_is_the_keyword_form(value: object, text: str) -> None:
    assert filter_value(value) == text
