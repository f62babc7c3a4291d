"""Which clauses are read for an ending by meaning (state/polarity.py `may_end`): only those that say a word the
labelled endings say and no asserting example does. Conversation is mostly other things, each meaning asked is a
model run, and a clause with no such word was read as an ending only by mistake ("Keep it up!" as a job ended)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from engram.state.polarity import LABELLED, PolarityReader, cue, ending_words
from tests.fakes import HashEmbedder


@pytest.fixture(scope="module")
def reader() -> PolarityReader:
    return PolarityReader(HashEmbedder())


@pytest.mark.parametrize(
    "clause",
    [
        "we broke up in May",
        "I sold the van",
        "my hamster died",
        "she quit her job",
        "I cancelled Spotify",
        "I handed in my resignation",
        "we got rid of the sofa",
        "I stopped going to yoga",
    ],
)
def test_a_clause_with_an_ending_word_is_read_for_its_meaning(reader: PolarityReader, clause: str) -> None:
    assert reader.may_end(clause)


@pytest.mark.parametrize(
    "clause",
    [
        "Keep it up!",
        "Sounds like a great time",
        "I got a new car",
        "I love my job",
        "we moved in together",
        "Wow",
        "we pay for Netflix and Disney+ at the moment",  # a name an ending example ends is no sign of an ending
    ],
)
def test_a_clause_without_one_is_not(reader: PolarityReader, clause: str) -> None:
    assert not reader.may_end(clause)


def test_the_words_come_from_the_labelled_set_so_an_example_adds_its_words(tmp_path: Path) -> None:
    data = json.loads(LABELLED.read_text(encoding="utf-8"))
    assert "scrapp" not in ending_words(data)
    data["ended"].append({"text": "I scrapped the old Ford", "attribute": "car"})
    assert "scrapp" in ending_words(data)  # "scrapped", "scrapping" alike
    path = tmp_path / "polarity.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    assert PolarityReader(HashEmbedder(), path).may_end("we are scrapping the boat")
    # a word an asserting example says is no sign of an ending ("got": "I got a new car")
    assert "got" not in ending_words(data)


DENIALS = ["I don't have a car", "I won't quit", "I can\u2019t stand the gym", "I do not drive"]


@pytest.mark.parametrize("clause", DENIALS)
def test_a_denial_said_with_nt_is_a_denial(clause: str) -> None:
    assert cue(clause) == "denied"  # "n't" ends its word: "won't quit" is not an ending


def test_a_word_holding_no_is_no_denial() -> None:
    assert cue("I know Notre Dame well") is None
