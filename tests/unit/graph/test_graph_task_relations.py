"""A task lists the graph relations its add changed, as triples (Task.relations), not only counts."""

from __future__ import annotations

from engram.domain.models import AddRequest, Message, Task
from engram.graph.service import GraphService
from engram.http.models import TaskView
from engram.pipeline.ingest import IngestPipeline
from engram.reconcile.offline import KeyReconciler
from engram.rules.extractor import OfflineExtractor
from engram.services.worker import ExtractionWorker
from tests.fakes import HashEmbedder, MemoryFactStore, MemoryGraphStore, MemoryIndex, MemoryTaskStore


class World:
    """The offline worker with the graph pipeline on, as `make run` wires it."""

    def __init__(self) -> None:
        self.tasks = MemoryTaskStore()
        self.graph = GraphService(MemoryGraphStore(), MemoryIndex(), HashEmbedder())
        pipeline = IngestPipeline(
            MemoryFactStore(), MemoryIndex(), HashEmbedder(), OfflineExtractor(), KeyReconciler(), graph=self.graph
        )
        self.worker = ExtractionWorker(self.tasks, pipeline)

    def task(self, text: str) -> Task:
        request = AddRequest(messages=[Message(role="user", content=text)], user_id="alice")
        task = Task(tenant_id="acme", user_id="alice", request=request)
        self.tasks.create(task)
        return task

    def add(self, text: str) -> Task:
        return self.worker.process("acme", self.task(text).task_id)


def triples(items: list) -> set[tuple[str, str, str]]:  # type: ignore[type-arg]
    return {(r.source, r.relation, r.destination) for r in items}


def test_a_task_lists_the_relations_it_added_with_their_ids() -> None:
    world = World()
    task = world.add("My sister Maren lives in Oslo")
    assert triples(task.relations.added) == {("alice", "sister", "Maren"), ("Maren", "lives_in", "Oslo")}
    assert task.relations.closed == [] and task.relations.refined == []
    stored = {r.id for r in world.graph.relations("acme", "alice", 100, None).relations}
    assert {r.id for r in task.relations.added} == stored
    assert task.counts["relations_added"] == len(task.relations.added)
    # what GET /v1/tasks/{id} shows
    view = TaskView.of(world.tasks.get("acme", task.task_id)).model_dump(mode="json")
    assert {(r["source"], r["relation"], r["destination"]) for r in view["relations"]["added"]} == triples(
        task.relations.added
    )


def test_a_negation_lists_the_relation_it_closed() -> None:
    world = World()
    world.add("I like sushi")
    task = world.add("I don't like sushi anymore")
    assert [(r.relation, r.destination) for r in task.relations.closed] == [("likes", "sushi")]
    assert task.relations.added == [] and task.counts["relations_closed"] == 1


def test_in_a_merged_run_the_relations_are_on_the_runs_own_task_with_their_counts() -> None:
    world = World()
    first, second = world.task("Alice works at MIT"), world.task("Bob lives in Rome")
    done = world.worker.process_many("acme", [first.task_id, second.task_id])
    assert triples(done[0].relations.added) == {("Alice", "works_at", "MIT"), ("Bob", "lives_in", "Rome")}
    assert done[1].relations.added == [] and "relations_added" not in done[1].counts


def test_the_python_sdk_reads_a_tasks_relations_typed() -> None:
    from engram_client.models import Task as ClientTask

    world = World()
    world.add("Alice works at MIT")
    task = world.add("Alice now works at Stanford")
    body = TaskView.of(world.tasks.get("acme", task.task_id)).model_dump(mode="json")
    read = ClientTask.model_validate(body)
    [refined] = read.relations.refined
    assert (refined.destination, refined.refined_from.destination) == ("Stanford", "MIT")
    assert read.relations.added == [] and read.relations.closed == []
