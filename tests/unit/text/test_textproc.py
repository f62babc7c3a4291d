"""The BM25 tokenizer: what gets matched to what when a user searches their memories by keyword."""

from __future__ import annotations

import pytest

from engram.text.terms import STOPWORDS, filter_value, looks_english, stem, term_counts, tokenize


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


def test_text_in_another_language_keeps_its_words_and_stop_words() -> None:
    # English rules would give "wohn" and drop "in"; German words are neither English stems nor stop words.
    assert tokenize("Ich wohne in München") == ["ich", "wohne", "in", "münchen"]
    assert tokenize("Wo wohne ich?") == ["wo", "wohne", "ich"]
    assert tokenize("No como carne los viernes") == ["no", "como", "carne", "los", "viernes"]
    assert tokenize("Je suis allée à Paris") == ["je", "suis", "allée", "à", "paris"]


def test_english_text_with_foreign_names_is_still_english() -> None:
    assert tokenize("I met José at the café in Zürich") == ["i", "met", "josé", "café", "zürich"]
    assert tokenize("She is hiking in München") == ["she", "hik", "münchen"]


@pytest.mark.parametrize(
    ("text", "english"),
    [
        ("Where do I live?", True),
        ("hike dog", True),  # no marker either way: English, as before
        ("Wo wohne ich?", False),
        ("Was ist mein Beruf?", False),  # "was" is English too; "ist" and "mein" are not
        ("¿Dónde vive mi hermano?", False),
        ("Я живу в Москве", False),
        ("私は東京に住んでいます", False),
    ],
)
def test_looks_english(text: str, english: bool) -> None:
    assert looks_english(text.lower().replace("?", "").replace("¿", "").split()) is english
