"""Aspects of the person read by meaning (state/aspects.py) and supersession by event time
(state/supersede.py), with the real local embedder."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from engram.adapters.embedded.index import EmbeddedIndex
from engram.adapters.onnx.embedder import OnnxEmbedder
from engram.domain.models import AddRequest, Fact, Message, Scope
from engram.pipeline.ingest import IngestPipeline
from engram.reconcile.offline import KeyReconciler
from engram.rules.extractor import OfflineExtractor
from engram.state.aspects import AspectReader, key_aspect
from tests.fakes import MemoryFactStore


@pytest.fixture(scope="module")
def reader() -> AspectReader:
    return AspectReader(OnnxEmbedder())


def read(reader: AspectReader, text: str) -> set[tuple[str, str]]:
    return {(r.aspect.name, r.value) for r in reader.read([text])[0]}


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("ugh the commute from my flat in Leeds is killing me", {("home", "Leeds")}),
        ("Finally made the move to Vancouver, goodbye snow", {("home", "Vancouver")}),
        ("been at Siemens for about three years now, mostly firmware stuff", {("employer", "Siemens")}),
        ("update: we adopted another cat, called Miso", {("pets", "Miso")}),
        ("peanuts make me swell up like a balloon so never suggest satay", {("allergy", "peanuts")}),
        ("we're finally doing the Japan thing in April", {("plans", "Japan")}),
        ("I'm seeing someone new, his name is Daniel", {("partner", "Daniel")}),
        # Said in passing: the words that lead to the value state it, whatever the clause goes on about.
        ("my girlfriend Maya thinks I drink too much coffee", {("partner", "Maya")}),
        # Two subjects, the person one of them: both the partner and the shared home.
        ("me and my boyfriend Tom moved to Leeds", {("home", "Leeds"), ("partner", "Tom")}),
        # The partner is the subject of the job: the partner is read, not an employer of the person.
        ("my husband Raj works at Infosys", {("partner", "Raj")}),
        ("my wife Sofia's sister lives in Madrid", {("partner", "Sofia")}),
    ],
)
def test_ordinary_speech_is_read_for_its_aspect_and_value(reader: AspectReader, text: str, expected: set) -> None:
    assert read(reader, text) == expected


@pytest.mark.parametrize(
    "text",
    [
        "my sister lives in Paris",  # someone else's home
        "I used to live in Oslo",  # past
        "thinking about moving to Madrid",  # hedged
        "I'm from Chicago originally",  # origin, not home
        "I had pasta for lunch in Rome",  # no aspect
        "the weather in London is awful today",
        "where do you live?",  # a question
        "my boyfriend hates it",  # an aspect without a value
        "my sister's boyfriend Tom is visiting next week",  # someone else's partner
        "Sarah's girlfriend Emma is lovely",
        "my friend's dog Rex bit me",  # someone else's pet
        "her husband Mark works at Google",
        "I interviewed at Google yesterday",  # sought, not held
    ],
)
def test_no_reading_without_a_clear_present_value_of_the_person(reader: AspectReader, text: str) -> None:
    assert read(reader, text) == set()


def test_the_person_tests_take_linear_time_on_hostile_text() -> None:
    import time

    from engram.state.aspects import BY_NAME, _speaks_of_self, _windows

    hostile = ["my sister's " * 5_000 + "boyfriend Tom", "me and " * 5_000 + "I", "and " * 10_000 + "me"]
    began = time.process_time()
    for text in hostile:
        _windows(text)
        for aspect in ("partner", "pets", "home"):
            _speaks_of_self(BY_NAME[aspect], text)
    assert time.process_time() - began < 2.0  # quadratic would take minutes on these lengths


def test_fact_keys_map_to_aspects() -> None:
    assert key_aspect("location") == "home"
    assert key_aspect("family:girlfriend") == "partner"
    assert key_aspect("family:sister") is None
    assert key_aspect("pet:cat:Miso") == "pets"
    assert key_aspect("health:peanut allergy") == "allergy"
    assert key_aspect("trip:lisbon") == "plans"


class World:
    def __init__(self, reader: AspectReader, read_wider: bool = True) -> None:
        self.facts = MemoryFactStore()
        self.index = EmbeddedIndex(None, 384)
        self.pipeline = IngestPipeline(
            self.facts,
            self.index,
            reader.embedder,
            OfflineExtractor(),
            KeyReconciler(),
            keep_episodes=True,
            aspects=reader,
            read_wider=read_wider,
        )
        self.scope = Scope(tenant_id="t", user_id="u")
        self.tasks = 0

    def say(self, text: str, on: str | None = None, name: str | None = None, infer: bool = True) -> None:
        at = datetime.fromisoformat(on).replace(tzinfo=UTC) if on else None
        message = Message(role="user", content=text, created_at=at, name=name)
        self.tasks += 1
        request = AddRequest(user_id="u", messages=[message], infer=infer)
        self.pipeline.run(self.scope, request, f"task-{self.tasks}")

    def current(self) -> list[Fact]:
        return self.facts.list_current("t", "u", 100).items

    def live(self, word: str) -> list[Fact]:
        return [f for f in self.current() if word in f.text and not f.outdated_by]


def test_a_kept_message_is_outdated_by_a_newer_statement_of_its_aspect(reader: AspectReader) -> None:
    world = World(reader)
    world.say("my place in Porto has the best view, I can see the river from the kitchen", "2025-02-12")
    world.say("I live in Lisbon now", "2025-08-30")
    assert world.live("Lisbon")
    assert not world.live("Porto")
    old = [f for f in world.current() if "Porto" in f.text]
    assert all(f.outdated_by for f in old if f.kind == "episode")


def test_a_partner_named_in_passing_is_outdated_by_a_new_one(reader: AspectReader) -> None:
    world = World(reader)
    world.say("my girlfriend Maya thinks I drink too much coffee. she is right", "2025-02-25")
    world.say("Maya and I split up in june. I'm seeing someone new, his name is Daniel", "2025-08-25")
    assert world.live("Daniel")
    assert not [f for f in world.live("Maya") if "coffee" in f.text]


def test_an_older_statement_told_later_is_the_outdated_one(reader: AspectReader) -> None:
    world = World(reader)
    world.say("I live in Lisbon now", "2025-08-30")
    world.say("my place in Porto has the best view, I can see the river from the kitchen", "2025-02-12")
    assert world.live("Lisbon")
    assert not world.live("Porto")


def test_a_second_pet_outdates_nothing(reader: AspectReader) -> None:
    world = World(reader)
    world.say("We got a dog last weekend, a beagle called Biscuit", "2025-03-14")
    world.say("update: we adopted another cat, called Miso", "2025-07-02")
    assert world.live("Biscuit") and world.live("Miso")
    assert not any(f.outdated_by for f in world.current())


def test_one_speaker_does_not_outdate_another(reader: AspectReader) -> None:
    world = World(reader, read_wider=False)  # the kept message alone states the first home
    world.say("the commute from my flat in Leeds is killing me", "2025-01-10", name="Caroline")
    world.say("I live in Manchester now", "2025-03-02", name="Melanie")
    assert world.live("Leeds") and world.live("Manchester")


def test_a_protected_memory_is_not_outdated(reader: AspectReader) -> None:
    from engram.domain.models import MemoryPatch
    from engram.services.memory import MemoryService
    from tests.fakes import MemoryQueue, MemoryTaskStore

    world = World(reader)
    world.say("ugh the commute from my flat in Leeds is killing me")  # said now: a correction is dated now
    service = MemoryService(world.facts, world.index, reader.embedder, MemoryTaskStore(), MemoryQueue())
    for memory in world.current():
        service.update("t", memory.id, MemoryPatch(is_protected=True))
    world.say("I live in Manchester now")
    assert world.live("Leeds") and world.live("Manchester")


def stored(world: World, text: str, on: str) -> Fact:
    """A fact as an LLM may write it, without a key (read by its words only)."""
    from engram.writes.unit_of_work import Lifecycle

    fact = Fact(tenant_id="t", user_id="u", text=text, valid_from=datetime.fromisoformat(on).replace(tzinfo=UTC))
    changes = Lifecycle(world.facts, world.index, world.pipeline.embedder).changes("t", "u")
    changes.add(fact, "test")
    changes.commit()
    return fact


def test_a_fact_that_says_more_than_what_changed_stays_current_marked_outdated(reader: AspectReader) -> None:
    world = World(reader)
    joined = stored(world, "Lives in Leeds and works as a nurse at St James's", "2025-01-10")
    stored(world, "Has been vegetarian for years and lives in Leeds", "2025-01-11")
    world.say("I moved to York", "2025-06-02")

    (kept,) = world.facts.get_many("t", [joined.id])
    assert kept.is_current and kept.outdated_by  # the job and the employer still hold
    assert world.live("York") and not world.live("Leeds")


def test_a_fact_stating_only_the_old_value_is_closed_and_a_message_stored_as_said_is_kept(
    reader: AspectReader,
) -> None:
    world = World(reader)
    alone = stored(world, "Lives in Leeds", "2025-01-10")
    world.say("I moved to York", "2025-06-02", infer=False)
    assert not world.facts.get_many("t", [alone.id])  # it stated only the old home: closed
    (york,) = world.live("York")
    world.say("I moved to Bath", "2025-09-02", infer=False)
    (kept,) = world.facts.get_many("t", [york.id])  # stored as said: never closed
    assert kept.outdated_by and kept.text == "I moved to York"


def test_a_later_session_outdates_an_earlier_one(reader: AspectReader) -> None:
    world = World(reader)
    world.scope = Scope(tenant_id="t", user_id="u", run_id="s1")
    world.say("I live in Leeds", "2025-01-10")
    world.scope = Scope(tenant_id="t", user_id="u", run_id="s2")
    world.say("I moved to York", "2025-06-02")
    assert world.live("York") and not world.live("Leeds")


def test_a_value_the_words_give_another_attribute_is_no_fact_of_the_aspect(reader: AspectReader) -> None:
    world = World(reader)
    world.say("My salary account is with GTBank, their app is fine", "2025-01-08")
    assert not [f for f in world.current() if f.fact_key and key_aspect(f.fact_key) == "employer"], [
        f.text for f in world.current()
    ]
    world.say("been at Siemens for about three years now, mostly firmware stuff", "2025-02-01")
    assert [f.text for f in world.current() if f.fact_key and key_aspect(f.fact_key) == "employer"] == [
        "Works at Siemens"
    ]
