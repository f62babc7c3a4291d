"""An add decides from the memories the index keeps (no fact-store read) and changes a memory as
the fact store has it, so its use counts survive the new version."""

from __future__ import annotations

from engram.adapters.embedded.index import EmbeddedIndex
from engram.domain.models import AddRequest, Message, Scope, utcnow
from engram.pipeline.ingest import IngestPipeline
from engram.pipeline.llm_extractor import LLMFactExtractor
from engram.pipeline.reads import RunReads
from engram.reconcile.llm import LLMReconciler
from tests.fakes import MemoryIndex, ScriptedLLM, facts_json, memory_json
from tests.unit.search.test_search_views import DIMS, CountingEmbedder, CountingStore

SCOPE = Scope(tenant_id="acme", user_id="alice")


def pipeline(store: CountingStore, index: object, llm: ScriptedLLM, embedder: object | None = None) -> IngestPipeline:
    return IngestPipeline(store, index, embedder or CountingEmbedder(), LLMFactExtractor(llm), LLMReconciler(llm))  # type: ignore[arg-type]


def add(p: IngestPipeline, text: str, task_id: str, infer: bool = True) -> None:
    request = AddRequest(messages=[Message(role="user", content=text)], user_id="alice", infer=infer)
    p.run(SCOPE, request, task_id)


def test_an_add_decides_from_the_kept_memories_and_updates_the_stored_one() -> None:
    store, llm = CountingStore(), ScriptedLLM()
    p = pipeline(store, EmbeddedIndex(None, DIMS), llm)
    add(p, "Works at Siemens", "seed", infer=False)
    (siemens,) = store.list_current("acme", "alice").items
    store.touch("acme", {siemens.id: 1}, utcnow())  # a search used it: the fact store's count only
    store.reads.clear()
    llm.answers += [
        facts_json("Works at Siemens in Munich"),
        memory_json(
            {"id": "0", "text": "Works at Siemens in Munich", "event": "UPDATE", "old_memory": "Works at Siemens"}
        ),
    ]
    add(p, "I work at Siemens in Munich", "t1")
    assert '"text": "Works at Siemens"' in llm.calls[1]["user"]  # reconciled against the kept memory
    # Deciding read nothing; applying read the one memory it changes, once (also to see it is not protected).
    assert store.reads == [[siemens.id]]
    (munich,) = store.list_current("acme", "alice").items
    assert (munich.id, munich.text, munich.version) == (siemens.id, "Works at Siemens in Munich", 2)
    assert munich.access_count == 1  # the use count the index does not keep survived the update


def test_without_kept_memories_each_memory_is_read_once_per_add() -> None:
    store = CountingStore()
    index = MemoryIndex()
    add(pipeline(store, index, ScriptedLLM()), "Works at Siemens", "seed", infer=False)
    (siemens,) = store.list_current("acme", "alice").items
    reads = RunReads(store, index, "acme", "alice")
    store.reads.clear()
    assert [f.id for f in reads.get_many([siemens.id, "missing"])] == [siemens.id]
    assert [f.id for f in reads.get_many([siemens.id])] == [siemens.id]
    assert store.reads == [[siemens.id, "missing"]]  # the second ask was answered from the first read
    assert reads.stored([siemens]) == [siemens]


def test_an_add_embeds_each_text_once() -> None:
    from engram.adapters.recent_embeddings import RecentEmbeddings
    from engram.pipeline.one_call import OneCall
    from tests.unit.pipeline.test_one_call import one_json

    llm = ScriptedLLM(
        one_json(["Went to a support group"], [{"id": "0", "text": "Went to a support group", "event": "ADD"}])
    )
    model = CountingEmbedder()
    p = pipeline(CountingStore(), EmbeddedIndex(None, DIMS), llm, RecentEmbeddings(model))  # as the bootstrap wires it
    p.one_call, p.keep_episodes = OneCall(llm), True
    add(p, "I went to a support group yesterday.", "t1")
    embedded = model.texts
    # the message is searched with before the call and kept as an episode after it: one embedding
    assert sorted(embedded) == ["I went to a support group yesterday.", "Went to a support group"]


def test_recent_embeddings_embed_what_they_have_not_seen() -> None:
    from engram.adapters.recent_embeddings import RecentEmbeddings

    embedder = CountingEmbedder()
    vectors = RecentEmbeddings(embedder)
    first = vectors.embed(["a b", "c d", "a b"])
    assert first[0] == first[2] and vectors.embed(["c d", "e f"])[0] == first[1]
    assert embedder.texts == ["a b", "c d", "e f"]
