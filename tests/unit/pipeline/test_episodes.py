"""Episodes: what the offline rules do not read is kept in the speaker's own words, beside the facts,
and an add with attachments always leaves a memory that holds them."""

from __future__ import annotations

from engram.domain.models import AddRequest, Attachment, AttachmentInput, Event, Fact, Message, Scope
from engram.pipeline.episodes import KEPT_FOR_ATTACHMENTS, states_something
from engram.pipeline.ingest import IngestPipeline
from engram.pipeline.llm_extractor import LLMFactExtractor
from engram.reconcile.llm import LLMReconciler
from engram.reconcile.offline import KeyReconciler
from engram.rules.extractor import OfflineExtractor
from tests.fakes import (
    HashEmbedder,
    MemoryAttachmentStore,
    MemoryBlobs,
    MemoryFactStore,
    MemoryIndex,
    ScriptedLLM,
    facts_json,
)

SCOPE = Scope(tenant_id="local", user_id="alice")


def offline(
    keep_episodes: bool = True, store: MemoryAttachmentStore | None = None
) -> tuple[IngestPipeline, MemoryFactStore]:
    facts = MemoryFactStore()
    pipeline = IngestPipeline(
        facts,
        MemoryIndex(),
        HashEmbedder(),
        OfflineExtractor(),
        KeyReconciler(),
        attachments=store,
        blobs=MemoryBlobs() if store else None,
        keep_episodes=keep_episodes,
    )
    return pipeline, facts


def say(
    pipeline: IngestPipeline, text: str, task: str, name: str | None = None, **kw: object
) -> list[tuple[Event, str]]:
    request = AddRequest(messages=[Message(role="user", content=text, name=name)], user_id="alice", **kw)  # type: ignore[arg-type]
    return [(r.event, r.memory) for r in pipeline.run(SCOPE, request, task).results]


def current(facts: MemoryFactStore) -> list[Fact]:
    return facts.list_current("local", "alice", limit=100).items


def test_a_statement_no_rule_reads_is_kept_in_its_own_words() -> None:
    pipeline, facts = offline()
    text = "Caroline finally finished the mural at the community centre last weekend"
    assert say(pipeline, text, "t1", name="Caroline") == [(Event.ADD, text)]
    (episode,) = current(facts)
    assert episode.kind == "episode" and episode.fact_key is None
    assert episode.speaker == "Caroline" and episode.source is not None and episode.source.name == "Caroline"


def test_facts_the_rules_read_come_with_the_episode_when_part_of_the_message_is_unread() -> None:
    pipeline, facts = offline()
    text = "I live in Berlin and the neighbours play trombone every night until two"
    say(pipeline, text, "t1")
    kinds = {f.text: f.kind for f in current(facts)}
    assert kinds == {"Lives in Berlin": "fact", text: "episode"}


def test_a_fully_understood_message_adds_only_its_facts() -> None:
    pipeline, facts = offline()
    say(pipeline, "Hi, I am Alice. I live in Berlin and I love pizza.", "t1")
    assert sorted(f.text for f in current(facts)) == ["Lives in Berlin", "Loves pizza", "Name is Alice"]
    assert {f.kind for f in current(facts)} == {"fact"}


def test_greetings_thanks_and_questions_are_not_kept() -> None:
    pipeline, facts = offline()
    for n, text in enumerate(["Hey there!", "Thanks so much!", "What do you think about that?", "ok cool"]):
        assert say(pipeline, text, f"t{n}") == []
    assert current(facts) == []
    assert states_something("Wow, thanks! The concert was incredible.")


def test_the_same_message_twice_is_one_episode() -> None:
    pipeline, facts = offline()
    text = "The garden party at my aunt's place went on until midnight"
    say(pipeline, text, "t1")
    say(pipeline, text, "t2")
    assert [f.text for f in current(facts)] == [text]


def test_an_episode_never_replaces_a_fact_and_a_new_fact_still_supersedes_the_old_one() -> None:
    pipeline, facts = offline()
    say(pipeline, "I live in Graz and my balcony looks over the old town", "t1")
    say(pipeline, "I moved to Turin", "t2")
    texts = {f.text: f.kind for f in current(facts)}
    assert texts["Lives in Turin"] == "fact"
    assert "Lives in Graz" not in texts
    assert texts["I live in Graz and my balcony looks over the old town"] == "episode"


def test_episodes_off_keeps_only_facts() -> None:
    pipeline, facts = offline(keep_episodes=False)
    say(pipeline, "Caroline finally finished the mural at the community centre last weekend", "t1")
    assert current(facts) == []


def _attachment(store: MemoryAttachmentStore) -> str:
    att = Attachment(tenant_id="local", name="scan.png", media_type="image/png", blob_key="k/scan", stored=True)
    store.create(att)
    return att.id


def test_an_attachment_with_nothing_extracted_is_held_by_the_message_kept_as_given() -> None:
    for keep in (True, False):
        store = MemoryAttachmentStore()
        pipeline, facts = offline(keep_episodes=keep, store=store)
        att = _attachment(store)
        request = AddRequest(
            messages=[Message(role="user", content="Thanks!")],
            user_id="alice",
            attachments=[AttachmentInput(attachment_id=att)],
        )
        (result,) = pipeline.run(SCOPE, request, "t1").results
        assert (result.event, result.memory, result.attachments) == (Event.ADD, "Thanks!", [att])
        assert result.note == KEPT_FOR_ATTACHMENTS
        assert store.holders("local", att) == [result.id]
        assert [f.kind for f in current(facts)] == ["episode"]


def test_with_an_llm_the_episode_is_kept_beside_the_extracted_fact() -> None:
    llm, facts = ScriptedLLM(), MemoryFactStore()
    pipeline = IngestPipeline(
        facts, MemoryIndex(), HashEmbedder(), LLMFactExtractor(llm), LLMReconciler(llm), keep_episodes=True
    )
    llm.answers.append(facts_json("Is writing a thesis on graph neural networks"))
    text = "These days my thesis on graph neural networks eats all my evenings"
    say(pipeline, text, "t1")
    assert {f.text: f.kind for f in current(facts)} == {
        "Is writing a thesis on graph neural networks": "fact",
        text: "episode",
    }


def test_the_assistants_turns_are_kept_as_said_with_their_role() -> None:
    from engram.domain.models import AddRequest, Scope
    from engram.pipeline.ingest import IngestPipeline
    from engram.reconcile.offline import KeyReconciler
    from engram.rules.extractor import OfflineExtractor
    from tests.fakes import HashEmbedder, MemoryFactStore, MemoryIndex

    facts = MemoryFactStore()
    pipeline = IngestPipeline(
        facts,
        MemoryIndex(),
        HashEmbedder(),
        OfflineExtractor(),
        KeyReconciler(),
        keep_episodes=True,
        keep_assistant_turns=True,
    )
    messages = [
        Message(role="user", content="Any dinner ideas near the station?"),
        Message(role="assistant", content="Try Trattoria Da Enzo: their cacio e pepe is excellent."),
        Message(role="assistant", content="Thanks!"),
    ]
    pipeline.run(Scope(tenant_id="t", user_id="u"), AddRequest(messages=messages, user_id="u"), "t1")
    kept = facts.list_current("t", "u").items
    assert [(f.text, f.kind, f.source.role if f.source else None) for f in kept] == [
        ("Try Trattoria Da Enzo: their cacio e pepe is excellent.", "episode", "assistant")
    ]


def test_a_message_in_another_language_is_kept_and_found_by_a_question_in_that_language() -> None:
    from engram.adapters.embedded.index import EmbeddedIndex
    from engram.search.hybrid import HybridSearcher

    index = EmbeddedIndex(None, HashEmbedder.dimensions)
    facts = MemoryFactStore()
    pipeline = IngestPipeline(facts, index, HashEmbedder(), OfflineExtractor(), KeyReconciler(), keep_episodes=True)
    german = "Ich arbeite seit drei Jahren als Zahnärztin in einer kleinen Praxis in Hamburg."
    spanish = "Mi hermano tiene un restaurante de mariscos en Valencia."
    for n, text in enumerate([german, spanish, "My dog Rex is a beagle.", "Wo wohne ich?"]):
        say(pipeline, text, f"t{n}")
    kept = {f.text: f.kind for f in current(facts)}
    assert kept[german] == "episode" and kept[spanish] == "episode"
    assert "Wo wohne ich?" not in kept  # a question, in German too, states nothing
    searcher = HybridSearcher(index, HashEmbedder())
    by_text = {f.id: f.text for f in current(facts)}
    for query, expected in [("Wo arbeite ich als Zahnärztin?", german), ("¿Qué tiene mi hermano?", spanish)]:
        hits = searcher.search("local", "alice", query, 3)
        assert by_text[hits[0].id] == expected, query
