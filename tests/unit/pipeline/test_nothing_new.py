"""An add that changes no memory says why on its task (`note`): nothing worth keeping was said, nothing
could be read, or every fact is stored already (near-duplicates, or decided NONE)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from engram.domain.models import AddRequest, Message, Scope
from engram.pipeline.ingest import IngestOutcome, IngestPipeline
from engram.pipeline.llm_extractor import LLMFactExtractor
from engram.pipeline.nothing_new import why_nothing_changed
from engram.reconcile.llm import LLMReconciler
from engram.reconcile.offline import KeyReconciler
from engram.rules.extractor import OfflineExtractor
from tests.fakes import HashEmbedder, MemoryFactStore, MemoryIndex, ScriptedLLM, facts_json, memory_json

SCOPE = Scope(tenant_id="acme", user_id="alice")


def offline(keep_episodes: bool = True) -> IngestPipeline:
    return IngestPipeline(
        MemoryFactStore(),
        MemoryIndex(),
        HashEmbedder(),
        OfflineExtractor(),
        KeyReconciler(),
        keep_episodes=keep_episodes,
    )


@dataclass
class Done:
    """The run's outcome, and the note its task gets (the worker writes it from the task's own share)."""

    outcome: IngestOutcome
    note: str | None

    def __getattr__(self, name: str) -> Any:
        return getattr(self.outcome, name)


def run(pipeline: IngestPipeline, task_id: str, *messages: tuple[str, str], **options: object) -> Done:
    request = AddRequest(
        messages=[Message(role=role, content=text) for role, text in messages],
        user_id="alice",
        **options,  # type: ignore[arg-type]
    )
    outcome = pipeline.run(SCOPE, request, task_id)
    share = outcome.share(task_id, task_id)
    return Done(outcome, why_nothing_changed(request, share.counts, share.results))


def test_an_add_that_stores_something_has_no_note() -> None:
    outcome = run(offline(), "t1", ("user", "I live in Berlin"))
    assert outcome.results and outcome.note is None


def test_small_talk_and_questions_are_named() -> None:
    outcome = run(offline(), "t1", ("user", "Hello! Thanks a lot."), ("user", "What's the weather like today?"))
    assert outcome.results == [] and outcome.counts["facts"] == 0
    assert outcome.note == "no memory changed: only greetings, small talk or questions, nothing to remember"


def test_a_statement_nothing_could_read_is_named() -> None:
    outcome = run(offline(keep_episodes=False), "t1", ("user", "The quarterly zorbification of widgets went well"))
    assert outcome.results == []
    assert outcome.note == "no memory changed: no fact could be extracted from the messages"


def test_no_message_of_the_side_extraction_reads_is_named() -> None:
    outcome = run(offline(), "t1", ("assistant", "You live in Berlin, I remember"), prompt="user")
    assert outcome.results == []
    assert outcome.note == "no memory changed: no user message to read (the user messages are what is extracted)"


def test_stored_as_given_with_only_system_messages_is_named() -> None:
    outcome = run(offline(), "t1", ("system", "You are a helpful assistant"), infer=False)
    assert outcome.note == "no memory changed: the add has only system messages, which are not stored"


def test_near_duplicates_are_counted_and_named() -> None:
    pipeline = offline()
    run(pipeline, "t1", ("user", "I live in Berlin. I love pizza."))
    again = run(pipeline, "t2", ("user", "I live in Berlin. I love pizza."))
    assert again.results == []
    assert (again.counts["facts"], again.counts["NONE"], again.counts["duplicates"]) == (2, 2, 2)
    assert again.note == "no memory changed: 2 facts found, 2 near-duplicates of current memories"


def test_facts_the_model_decided_none_for_are_named_apart_from_duplicates() -> None:
    llm = ScriptedLLM(facts_json("Loves pizza"))
    pipeline = IngestPipeline(
        MemoryFactStore(), MemoryIndex(), HashEmbedder(), LLMFactExtractor(llm), LLMReconciler(llm)
    )
    run(pipeline, "t1", ("user", "I love pizza"))
    llm.answers += [
        facts_json("Loves pizza", "Really loves pizza a lot"),
        memory_json({"id": "0", "text": "Loves pizza", "event": "NONE"}),
    ]
    outcome = run(pipeline, "t2", ("user", "pizza is really great, I love it a lot"))
    assert outcome.results == [] and outcome.counts["duplicates"] == 1
    assert outcome.note == (
        "no memory changed: 2 facts found, 1 near-duplicate of a current memory, 1 already known (decided NONE)"
    )
