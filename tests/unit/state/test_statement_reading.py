"""The statements a text makes: the catalogue's attributes of the person, one statement per value, with the
catalogue's cardinality (state/reading.py), on the real local embedder."""

from __future__ import annotations

import pytest

from engram.adapters.onnx.embedder import OnnxEmbedder
from engram.state.aspects import AspectReader
from engram.state.reading import StatementReading


@pytest.fixture(scope="module")
def reading() -> StatementReading:
    return StatementReading(AspectReader(OnnxEmbedder()))


def test_a_sentence_states_each_attribute_it_gives_a_value(reading: StatementReading) -> None:
    [said] = reading.statements(["I moved to York and I work at Soins Alpins now"])
    assert {(s.subject, s.attribute, s.value, s.polarity, s.single) for s in said} == {
        ("user", "home", "York", "asserted", True),
        ("user", "employer", "Soins Alpins", "asserted", True),
    }


def test_many_valued_attributes_are_not_single_and_small_talk_states_nothing(reading: StatementReading) -> None:
    pets, nothing = reading.statements(["we adopted a cat named Miso", "the weather is awful today"])
    assert [(s.attribute, s.value, s.single) for s in pets] == [("pets", "Miso", False)]
    assert nothing == ()
