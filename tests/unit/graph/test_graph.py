"""Graph memory on fakes: offline walk-throughs, supersede, resolution, search, forget, repair."""

from __future__ import annotations

from collections.abc import Sequence

from engram.domain.graph import Entity
from engram.domain.models import Message, Scope
from engram.graph.service import GraphService
from engram.rules.extractor import OfflineExtractor
from engram.rules.relations import offline_triples
from tests.fakes import HashEmbedder, MemoryGraphStore, MemoryIndex

SCOPE = Scope(tenant_id="t1", user_id="u1")


def make_service() -> GraphService:
    return GraphService(MemoryGraphStore(), MemoryIndex(), HashEmbedder())


def say(graph: GraphService, text: str, scope: Scope = SCOPE, task_id: str = "task") -> None:
    messages = [Message(role="user", content=text)]
    facts, _ = OfflineExtractor().extract(messages, "user", scope)  # type: ignore[arg-type]
    graph.ingest(scope, messages, facts, task_id)


def triples(graph: GraphService, scope: Scope = SCOPE, **kw: object) -> set[tuple[str, str, str]]:
    page = graph.relations(scope.tenant_id, scope.user_id, 1000, None)
    return {(r.source, r.relation, r.destination) for r in page.relations}


def test_walkthrough_sister_and_employer() -> None:
    graph = make_service()
    say(graph, "My sister Maren lives in Oslo. I work at Brightwave.")
    assert triples(graph) == {
        ("u1", "sister", "Maren"),
        ("Maren", "lives_in", "Oslo"),
        ("u1", "works_at", "Brightwave"),
    }
    found = graph.search("t1", "u1", "Who is Maren?")
    named = {(h.relation.source, h.relation.relation, h.relation.destination) for h in found}
    assert named == {("u1", "sister", "Maren"), ("Maren", "lives_in", "Oslo")}


def test_new_employer_closes_the_old_and_history_keeps_both() -> None:
    graph = make_service()
    say(graph, "Alice works at MIT", task_id="t-a")
    say(graph, "Alice now works at Stanford as a professor", task_id="t-b")
    assert triples(graph) == {("Alice", "works_at", "Stanford"), ("Alice", "works_as", "professor")}
    alice = next(e for e in graph.entities("t1", "u1", 100, None).entities if e.name == "Alice")
    _, history = graph.entity("t1", alice.id)
    by_place = {r.destination: r for r in history if r.relation == "works_at"}
    assert by_place["MIT"].valid_to is not None and by_place["MIT"].closed_by == "t-b"
    assert by_place["Stanford"].valid_to is None
    as_of_before = graph.relations("t1", "u1", 100, None, as_of=by_place["MIT"].valid_from)
    assert {r.destination for r in as_of_before.relations} == {"MIT"}


def test_moving_closes_lives_in_and_repeats_change_nothing() -> None:
    graph = make_service()
    say(graph, "I live in Oslo")
    say(graph, "I live in Oslo")
    say(graph, "I moved to Madrid")
    assert triples(graph) == {("u1", "lives_in", "Madrid")}
    all_relations = graph.store.relations("t1", "u1", 100, None, include_closed=True).relations
    assert len(all_relations) == 2


def test_negation_and_opposite_preferences() -> None:
    graph = make_service()
    say(graph, "I love sushi")
    say(graph, "I hate sushi")
    assert triples(graph) == {("u1", "dislikes", "sushi")}
    say(graph, "I no longer work at Google")
    say(graph, "I work at Google")
    say(graph, "I no longer work at Google")
    assert ("u1", "works_at", "Google") not in triples(graph)


def test_same_person_twice_is_one_entity() -> None:
    graph = make_service()
    say(graph, "My sister Anna lives in Oslo")
    say(graph, "Anna works at Equinor")
    annas = [e for e in graph.entities("t1", "u1", 100, None).entities if e.name == "Anna"]
    assert len(annas) == 1
    assert ("Anna", "works_at", "Equinor") in triples(graph)


def test_two_people_with_one_name_in_contradicting_roles_stay_two() -> None:
    graph = make_service()
    say(graph, "My sister Anna lives in Oslo")
    say(graph, "My colleague Anna lives in Bergen")
    annas = [e for e in graph.entities("t1", "u1", 100, None).entities if e.name == "Anna"]
    assert len(annas) == 2
    assert {("Anna", "lives_in", "Oslo"), ("Anna", "lives_in", "Bergen")} <= triples(graph)


def test_other_tenant_and_other_user_see_nothing() -> None:
    graph = make_service()
    say(graph, "My sister Maren lives in Oslo")
    other_user = Scope(tenant_id="t1", user_id="u2")
    other_tenant = Scope(tenant_id="t2", user_id="u1")
    for scope in (other_user, other_tenant):
        assert graph.search(scope.tenant_id, scope.user_id, "Who is Maren?") == []
        assert triples(graph, scope) == set()
    entity_id = graph.entities("t1", "u1", 100, None).entities[0].id
    relation_id = graph.relations("t1", "u1", 100, None).relations[0].id
    import pytest

    from engram.domain.errors import NotFoundError

    with pytest.raises(NotFoundError):
        graph.entity("t2", entity_id)
    with pytest.raises(NotFoundError):
        graph.delete_relation("t2", relation_id)


def test_delete_relation_closes_it_once() -> None:
    import pytest

    from engram.domain.errors import NotFoundError

    graph = make_service()
    say(graph, "I live in Oslo")
    relation = graph.relations("t1", "u1", 100, None).relations[0]
    closed = graph.delete_relation("t1", relation.id)
    assert closed.valid_to is not None and triples(graph) == set()
    with pytest.raises(NotFoundError):
        graph.delete_relation("t1", relation.id)


def test_forget_user_removes_graph_and_vectors_and_is_idempotent() -> None:
    graph = make_service()
    say(graph, "My sister Maren lives in Oslo")
    say(graph, "I live in Paris", scope=Scope(tenant_id="t1", user_id="u2"))
    assert graph.forget_user("t1", "u1") > 0
    assert graph.forget_user("t1", "u1") == 0
    assert graph.entities("t1", "u1", 100, None).entities == []
    assert graph.index.ids("t1", "u1") == set()
    assert triples(graph, Scope(tenant_id="t1", user_id="u2")) == {("u2", "lives_in", "Paris")}


def test_repair_restores_missing_entity_vectors_and_drops_strays() -> None:
    graph = make_service()
    say(graph, "My sister Maren lives in Oslo")
    ids = sorted(graph.index.ids("t1", "u1"))
    graph.index.delete("t1", "u1", ids[:1])
    from engram.domain.models import IndexDoc

    graph.index.upsert([IndexDoc(id="stray", tenant_id="t1", user_id="u1", text="x", vector=[0.0] * 64)])
    assert graph.repair_vectors("t1", "u1") == (1, 1)
    assert graph.index.ids("t1", "u1") == set(ids)


def test_search_two_hops_reaches_the_neighbours_relations() -> None:
    graph = make_service()
    say(graph, "My brother Tom works at Google")
    one = {h.relation.relation for h in graph.search("t1", "u1", "Tom", hops=1)}
    two = graph.search("t1", "u1", "Tom", hops=2)
    assert one == {"brother", "works_at"}
    assert {h.relation.relation for h in two} == {"brother", "works_at"}
    say(graph, "I live in Oslo")
    hops2 = {h.relation.relation: h.score for h in graph.search("t1", "u1", "Tom", hops=2)}
    assert hops2["lives_in"] < hops2["brother"]


def test_offline_triples_cover_people_pets_work_home_tastes() -> None:
    messages = [Message(role="user", content="My dog Rex is cute. I work as a nurse. I love sushi.")]
    facts, _ = OfflineExtractor().extract(messages, "user", SCOPE)  # type: ignore[arg-type]
    got = {(t.source, t.relation, t.destination) for t in offline_triples(messages, facts)}
    assert got == {("user", "has_pet", "Rex"), ("user", "works_as", "nurse"), ("user", "likes", "sushi")}


def test_the_maintenance_repair_step_repairs_entity_vectors() -> None:
    from engram.maintenance.repair import RepairService
    from tests.fakes import MemoryFactStore
    from tests.unit.maintenance.test_maintenance_repair import MemoryFactScanner

    graph = make_service()
    say(graph, "My sister Maren lives in Oslo")
    dropped = sorted(graph.index.ids("t1", "u1"))
    graph.index.delete("t1", "u1", dropped)
    facts = MemoryFactStore()
    repair = RepairService(MemoryFactScanner(facts), facts, MemoryIndex(), HashEmbedder(), graph=graph)

    counts = repair.run([("t1", "u1")])

    assert counts["entities_reindexed"] == len(dropped) == 3
    assert graph.index.ids("t1", "u1") == set(dropped)
    assert "entities_reindexed" not in repair.run([("t1", "u1")])


def test_engram_graph_off_wires_no_graph_and_search_has_no_relations() -> None:
    from engram.bootstrap import Container
    from engram.domain.models import SearchQuery
    from engram.services.memory import MemoryService
    from engram.settings import Settings
    from tests.fakes import MemoryFactStore, MemoryQueue, MemoryTaskStore

    assert Container(Settings(graph="off")).graph is None  # type: ignore[arg-type]
    memories = MemoryService(MemoryFactStore(), MemoryIndex(), HashEmbedder(), MemoryTaskStore(), MemoryQueue())
    assert memories.related("t1", SearchQuery(user_id="u1", query="Who is Maren?")) == []
    graph = make_service()
    say(graph, "My sister Maren lives in Oslo")
    memories.graph = graph
    assert len(memories.related("t1", SearchQuery(user_id="u1", query="Who is Maren?"))) == 2


class CountingGraphStore(MemoryGraphStore):
    """Records each entity id read, by either read."""

    def __init__(self) -> None:
        super().__init__()
        self.read: list[str] = []

    def get_entity(self, tenant_id: str, entity_id: str) -> Entity:
        self.read.append(entity_id)
        return super().get_entity(tenant_id, entity_id)

    def get_entities(self, tenant_id: str, entity_ids: Sequence[str]) -> list[Entity]:
        self.read.extend(entity_ids)
        return super().get_entities(tenant_id, entity_ids)


def test_a_run_reads_each_stored_entity_once() -> None:
    """Each mention looks among the user's nearest entities, mostly the same few: one read each a run."""
    store = CountingGraphStore()
    graph = GraphService(store, MemoryIndex(), HashEmbedder())
    say(graph, "My sister Maren lives in Oslo. I work at Brightwave.")
    store.read.clear()
    say(graph, "My brother Jonas lives in Bergen. Maren works at Brightwave.")
    assert store.read and len(store.read) == len(set(store.read))
    assert ("u1", "sister", "Maren") in triples(graph) and ("Maren", "works_at", "Brightwave") in triples(graph)
    maren = [e for e in graph.entities("t1", "u1", 100, None).entities if e.name == "Maren"]
    assert len(maren) == 1  # resolved to the stored entity, not made again
