"""The resolver on statements of attributes outside the catalogue (state/supersede.py), through the ingest
pipeline with the real local embedder: a memory stating more keeps its other statements current, named
speakers stay apart, endings close only what they end."""

from __future__ import annotations

import pytest

from engram.adapters.onnx.embedder import OnnxEmbedder
from engram.state.aspects import AspectReader
from engram.state.reading import StatementReading
from tests.unit.state.test_aspects import World


@pytest.fixture(scope="module")
def reader() -> AspectReader:
    return AspectReader(OnnxEmbedder())


def test_a_memory_stating_more_stays_current_and_only_its_changed_statement_is_outdated(reader: AspectReader) -> None:
    world = World(reader)
    world.say("my GP is Dr Ahmed and my dentist is Dr Lim", "2025-01-10", infer=False)
    [kept] = world.current()
    stored = list(StatementReading(reader).statements([kept.text])[0])  # as the write path stores them
    assert {s.attribute for s in stored} == {"gp", "dentist"}
    world.facts.current[("t", kept.id)] = kept.model_copy(update={"statements": stored})
    world.say("my new GP is Dr Okoro", "2025-07-10")

    after = world.facts.get("t", kept.id)
    assert after.is_current and after.outdated_by
    marks = {s.attribute: s.outdated_by for s in after.statements}
    assert marks["gp"] in after.outdated_by and marks["dentist"] is None


def test_named_speakers_in_one_group_chat_keep_their_own_values(reader: AspectReader) -> None:
    world = World(reader)
    world.say("my new GP is Dr Ahmed", "2025-01-10", name="Ana")
    world.say("my new GP is Dr Okoro", "2025-07-10", name="Ben")
    assert world.live("Ahmed") and world.live("Okoro")


def test_an_ending_closes_its_own_attribute_and_not_another(reader: AspectReader) -> None:
    world = World(reader)
    world.say("got a new bike: a Brompton", "2025-01-10")
    world.say("my new phone is a Pixel 9", "2025-01-11")
    world.say("gave the bike away", "2025-07-10")
    assert not world.live("Brompton")
    assert world.live("Pixel 9")


def test_a_kept_message_listing_two_values_keeps_the_one_that_did_not_end(reader: AspectReader) -> None:
    world = World(reader)
    world.say("we pay for Netflix and Disney+ at the moment", "2025-01-03", infer=False)
    [kept] = world.current()
    world.say("cancelled Netflix, nothing on it worth watching", "2025-05-11")

    after = world.facts.get("t", kept.id)
    assert after.is_current and after.outdated_by
    held = {s.value: s.outdated_by for s in after.statements}
    assert held.get("Netflix") in after.outdated_by and "Disney+" in held and held["Disney+"] is None, held
