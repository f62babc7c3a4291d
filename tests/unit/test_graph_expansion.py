"""Graph-expanded retrieval: relations link the memories they were read from, and a search whose
question names an entity also returns the memories linked through that entity's relations."""

from __future__ import annotations

from engram.domain.graph import Entity, Relation
from engram.domain.models import AddRequest, Fact, HistoryEvent, Message, SearchFilters, SearchQuery, Task
from engram.graph.resolve import index_entities
from engram.graph.search import named
from engram.graph.service import GraphService
from engram.pipeline.ingest import IngestPipeline
from engram.reconcile.offline import KeyReconciler
from engram.rules.extractor import OfflineExtractor
from engram.search.graph_expansion import GraphExpansion
from engram.services.memory import MemoryService
from engram.services.worker import ExtractionWorker
from engram.writes.unit_of_work import index_doc
from tests.fakes import HashEmbedder, MemoryFactStore, MemoryGraphStore, MemoryIndex, MemoryQueue, MemoryTaskStore

T, U = "acme", "alice"
# Memories that share words with the questions below ("work", "where", "does") but say nothing of Maren.
FILLER = [f"Where does the team {n} work on Mondays? The office {n} is where we work." for n in range(12)]
LINKED = "She started at Equinor in May as a geologist."


class World:
    """Fakes wired as `make run` wires them: the offline worker with episodes and the graph on, and
    the search over the same stores."""

    def __init__(self, share: float = 0.5) -> None:
        self.facts, self.index, self.embedder = MemoryFactStore(), MemoryIndex(), HashEmbedder()
        self.tasks = MemoryTaskStore()
        self.graph = GraphService(MemoryGraphStore(), MemoryIndex(), self.embedder)
        pipeline = IngestPipeline(
            self.facts, self.index, self.embedder, OfflineExtractor(), KeyReconciler(), keep_episodes=True
        )
        pipeline.graph = self.graph
        self.worker = ExtractionWorker(self.tasks, pipeline)
        expansion = GraphExpansion(self.graph.store, self.graph.index, share)
        self.memories = MemoryService(
            self.facts, self.index, self.embedder, self.tasks, MemoryQueue(), graph=self.graph, expansion=expansion
        )

    def add(self, *texts: str) -> Task:
        request = AddRequest(messages=[Message(role="user", content=t) for t in texts], user_id=U)
        task = Task(tenant_id=T, user_id=U, request=request)
        self.tasks.create(task)
        return self.worker.process(T, task.task_id)

    def store(self, text: str, user_id: str = U) -> Fact:
        """A memory written straight into the stores (the same shape the pipeline writes)."""
        fact = Fact(tenant_id=T, user_id=user_id, text=text)
        self.facts.add(
            fact, HistoryEvent(memory_id=fact.id, tenant_id=T, user_id=user_id, event="ADD", new_memory=text)
        )
        self.index.upsert([index_doc(fact, self.embedder.embed([text])[0])])
        return fact

    def link(self, source: str, relation: str, destination: str, memory: Fact, aliases: list[str]) -> None:
        """A relation an LLM read through a pronoun: its memory does not write the source's name."""
        ends = [Entity(tenant_id=T, user_id=U, name=source, type="person", aliases=aliases)]
        ends.append(Entity(tenant_id=T, user_id=U, name=destination, type="organization"))
        self.graph.store.put_entities(ends)
        index_entities(self.graph.index, self.embedder, ends)
        self.graph.store.put_relations(
            [
                Relation(
                    tenant_id=T,
                    user_id=U,
                    source_entity_id=ends[0].id,
                    relation=relation,
                    destination_entity_id=ends[1].id,
                    source=source,
                    destination=destination,
                    memory_ids=[memory.id],
                )
            ]
        )

    def search(self, query: str, top_k: int = 3, **kw: object) -> list[str]:
        hits = self.memories.search(T, SearchQuery(user_id=U, query=query, top_k=top_k, **kw))
        return [f.text for f, _ in hits]


def test_a_relation_links_the_memories_of_the_run_that_state_it() -> None:
    world = World()
    task = world.add("My sister Maren moved to Oslo. She works at Equinor as a geologist.", "I like tea.")
    by_text = {r.memory: r.id for r in task.results}
    relations = {(r.source, r.relation, r.destination): r for r in world.graph.relations(T, U, 100, None).relations}
    said = by_text["My sister Maren moved to Oslo. She works at Equinor as a geologist."]
    assert relations[("Maren", "works_at", "Equinor")].memory_ids == [said]
    assert relations[("Maren", "lives_in", "Oslo")].memory_ids == [said]
    # a relation of the user's own names only the other end; the tea message states nothing of Maren
    sister = relations[(U, "sister", "Maren")].memory_ids
    assert said in sister
    assert {text for text, i in by_text.items() if i in sister and "Maren" not in text} == set()
    assert any("tea" in text for text in by_text)  # the run has a memory that states nothing of Maren


def test_when_no_memory_names_both_ends_those_naming_one_are_linked() -> None:
    world = World()
    task = world.add("Tom's wife Anna was born in Rome.", "Nothing else today.")
    relation = next(r for r in world.graph.relations(T, U, 100, None).relations if r.destination == "Rome")
    by_text = {r.memory: r.id for r in task.results}
    assert relation.memory_ids == [by_text["Tom's wife Anna was born in Rome."]]


def test_a_memory_sharing_no_word_with_the_question_is_found_through_a_named_entity() -> None:
    world = World()
    for text in FILLER:
        world.store(text)
    linked = world.store(LINKED)
    world.link("Maren", "works_at", "Equinor", linked, aliases=["my sister"])
    question = "Where does my sister work?"
    assert not set(question.lower().strip("?").split()) & set(LINKED.lower().strip(".").split())
    world.memories.expansion = None
    assert LINKED not in world.search(question)
    world.memories.expansion = GraphExpansion(world.graph.store, world.graph.index, 0.5)
    found = world.search(question)
    assert LINKED in found
    assert found[0] != LINKED  # lifted toward the match, never above the best candidate
    # `graph: false` in the request turns the expansion off with the relations
    assert LINKED not in world.search(question, graph=False)


def test_nothing_changes_when_the_question_names_no_entity() -> None:
    world = World()
    for text in FILLER:
        world.store(text)
    world.link("Maren", "works_at", "Equinor", world.store(LINKED), aliases=["my sister"])
    for question in ["Where does the team work?", "What happened on Mondays at the office?"]:
        with_expansion = world.memories.search(T, SearchQuery(user_id=U, query=question, top_k=5))
        world.memories.expansion, kept = None, world.memories.expansion
        without = world.memories.search(T, SearchQuery(user_id=U, query=question, top_k=5))
        world.memories.expansion = kept
        assert [(f.id, s) for f, s in with_expansion] == [(f.id, s) for f, s in without]


def test_a_linked_memory_outside_the_filters_or_deleted_is_not_returned() -> None:
    world = World()
    for text in FILLER:
        world.store(text)
    linked = world.store(LINKED)
    world.link("Maren", "works_at", "Equinor", linked, aliases=["my sister"])
    assert LINKED not in world.search("Where does my sister work?", filters=SearchFilters(agent_id="other"))
    world.memories.delete(T, linked.id)
    assert LINKED not in world.search("Where does my sister work?", top_k=20)


def test_share_zero_is_off() -> None:
    world = World(share=0.0)
    for text in FILLER:
        world.store(text)
    world.link("Maren", "works_at", "Equinor", world.store(LINKED), aliases=["my sister"])
    assert LINKED not in world.search("Where does my sister work?")


def test_relations_stored_before_the_link_read_with_no_memories() -> None:
    body = (
        '{"id": "r1", "tenant_id": "t", "user_id": "u", "source_entity_id": "a", "relation": "likes",'
        ' "destination_entity_id": "b", "source": "u", "destination": "tea", "valid_from": "2026-01-01T00:00:00Z"}'
    )
    assert Relation.model_validate_json(body).memory_ids == []


def test_the_setting_wires_the_expansion_and_zero_leaves_it_out() -> None:
    from engram.bootstrap import Container
    from engram.settings import Settings

    assert Container(Settings()).graph_expansion() is None
    wired = Container(Settings(search_graph_expansion=0.3)).graph_expansion()
    assert wired is not None and wired.share == 0.3
    assert Container(Settings(graph="off", search_graph_expansion=0.3)).graph_expansion() is None


def test_a_name_that_is_also_a_question_word_is_named_when_capitalised() -> None:
    world = World()
    world.link("Will", "works_at", "Equinor", world.store(LINKED), aliases=[])
    store, index = world.graph.store, world.graph.index
    will = {e.id for e in store.entity_rows.values() if e.name == "Will"}
    assert named(store, index, T, U, "Where does Will work?") == will
    assert named(store, index, T, U, "Where will the team work?") == set()
    assert named(store, index, T, U, "Will you tell me more?") == set()  # the first word: a question's
