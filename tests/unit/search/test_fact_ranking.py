"""Fact-level ranking with the real local models: the fact a question asks about comes first, even
when another fact shares the question's words (the user's name) or an old remark says otherwise."""

from __future__ import annotations

import pytest

from engram.adapters.embedded.index import EmbeddedIndex
from engram.adapters.onnx.embedder import OnnxEmbedder
from engram.domain.models import AddRequest, Message, Scope, SearchQuery
from engram.pipeline.ingest import IngestPipeline
from engram.reconcile.offline import KeyReconciler
from engram.rules.extractor import OfflineExtractor
from engram.search.intent import wanted_families
from engram.services.memory import MemoryService
from tests.fakes import MemoryFactStore, MemoryQueue, MemoryTaskStore

SCOPE = Scope(tenant_id="local", user_id="alice")


@pytest.fixture(scope="module")
def embedder() -> OnnxEmbedder:
    return OnnxEmbedder()


class World:
    def __init__(self, embedder: OnnxEmbedder) -> None:
        facts, index = MemoryFactStore(), EmbeddedIndex(None, embedder.dimensions)
        self.pipeline = IngestPipeline(facts, index, embedder, OfflineExtractor(), KeyReconciler(), keep_episodes=True)
        self.service = MemoryService(facts, index, embedder, MemoryTaskStore(), MemoryQueue())
        self.tasks = 0

    def say(self, text: str) -> None:
        self.tasks += 1
        request = AddRequest(messages=[Message(role="user", content=text)], user_id="alice")
        self.pipeline.run(SCOPE, request, f"t{self.tasks}")

    def ask(self, question: str) -> list[str]:
        hits = self.service.search("local", SearchQuery(user_id="alice", query=question, top_k=5))
        return [fact.text for fact, _ in hits]


def test_readme_example_finds_where_she_lives_first(embedder: OnnxEmbedder) -> None:
    world = World(embedder)
    world.say("Hi, I am Alice. I live in Berlin and I love pizza.")
    assert world.ask("where does she live?")[0] == "Lives in Berlin"
    assert world.ask("Where does Alice live?")[0] == "Lives in Berlin"
    assert world.ask("What food does Alice like?")[0] == "Loves pizza"
    assert world.ask("What is her name?")[0] == "Name is Alice"


def test_the_one_reminder_answers_what_to_be_reminded_of(embedder: OnnxEmbedder) -> None:
    world = World(embedder)
    world.say("My name is Alice. I can't stand cilantro. Remind me to renew my passport.")
    assert world.ask("What does Alice need to be reminded of?")[0] == "Reminder: renew my passport"


def test_a_fact_that_superseded_an_old_remark_outranks_it(embedder: OnnxEmbedder) -> None:
    world = World(embedder)
    world.say("I live in Graz and my balcony looks over the old town")
    world.say("I moved to Turin")
    assert world.ask("Where does she live now?")[0] == "Lives in Turin"


def test_question_wording_names_the_kind_of_fact() -> None:
    assert "location" in wanted_families("Where does Alice live?")
    assert "reminder" in wanted_families("What should I remind her about?")
    assert "employer" in wanted_families("Which company does he work for?")
    assert wanted_families("What did we talk about yesterday?") == frozenset()
