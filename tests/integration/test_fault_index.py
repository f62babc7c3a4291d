"""The index is a copy of DynamoDB that can fall behind. Two faults, counted: the worker dies between
its DynamoDB write and its index write, and the index is down for a while. In both, nothing
accepted is lost, nothing is stored twice, and a search while the index is down says so (503)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pytest

from engram.domain.errors import IndexUnavailableError
from engram.domain.models import AddRequest, IndexDoc, Message, ScoredId, TaskStatus
from engram.maintenance.repair import RepairService
from engram.pipeline.llm_extractor import LLMFactExtractor
from tests.figures import record
from tests.integration.stack import Stack, api_caller, dead_letters, poll, with_dlq
from tests.support.fault_llms import RephrasingLLM
from tests.support.handlers import FakeContext, load_function, sqs_record

USERS = 12


class Killed(BaseException):
    """The process dying: not an Exception, so nothing in the worker catches or records it."""


class FaultyIndex:
    """The container's index, with writes that kill the process or an outage, as the test says."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.kill_on_write = False
        self.writes_down = False
        self.down = False
        self.refused = 0

    def _check(self, write: bool = False) -> None:
        if write and self.kill_on_write:
            raise Killed
        if self.down or (write and self.writes_down):
            self.refused += 1
            raise IndexUnavailableError("OpenSearch search: ConnectionError(connection refused)")

    def upsert(self, docs: Sequence[IndexDoc]) -> None:
        self._check(write=True)
        self.inner.upsert(docs)

    def delete(self, tenant_id: str, user_id: str, memory_ids: Sequence[str]) -> None:
        self._check(write=True)
        self.inner.delete(tenant_id, user_id, memory_ids)

    def knn(self, *args: Any, **kw: Any) -> list[ScoredId]:
        self._check()
        result: list[ScoredId] = self.inner.knn(*args, **kw)
        return result

    def text_search(self, *args: Any, **kw: Any) -> list[ScoredId]:
        self._check()
        result: list[ScoredId] = self.inner.text_search(*args, **kw)
        return result

    def __getattr__(self, name: str) -> Any:  # ids, count, ...: read paths, down with the rest
        self._check()
        return getattr(self.inner, name)


@pytest.fixture
def index(stack: Stack) -> FaultyIndex:
    """Every user of the index (pipeline, lifecycle, search, repair) goes through the faulty one."""
    c = stack.container
    faulty = FaultyIndex(c.index)
    c.index = faulty
    c.rebuild("pipeline", "lifecycle", "searcher", "memories", "maintenance", "worker")
    c.pipeline.extractor = LLMFactExtractor(RephrasingLLM())
    return faulty


def submit_all(stack: Stack, prefix: str) -> dict[str, str]:
    """One add per user, each saying one thing; user -> task id."""
    tasks = {}
    for i in range(USERS):
        user = f"{prefix}{i}"
        request = AddRequest(messages=[Message(role="user", content=f"I keep bees in hive {prefix}{i}.")], user_id=user)
        tasks[user] = stack.container.memories.submit("acme", request).task_id
    return tasks


def counts(stack: Stack, index: FaultyIndex, tasks: dict[str, str]) -> dict[str, int]:
    """Memories in DynamoDB, memories a search finds, lost adds, duplicates, completed tasks."""
    c = stack.container
    stored = searchable = lost = duplicates = 0
    for user in tasks:
        current = c.facts.list_current("acme", user).items
        stored += len(current)
        duplicates += max(0, len(current) - 1)
        found = {h.id for h in index.inner.text_search("acme", user, f"bees hive {user}", 5)}
        searchable += len(found & {f.id for f in current})
        lost += not any(f.text.lower().startswith(f"i keep bees in hive {user}") for f in current)
    done = sum(t.status is TaskStatus.COMPLETED for t in c.tasks.get_many("acme", list(tasks.values())))
    return {"stored": stored, "searchable": searchable, "lost": lost, "duplicates": duplicates, "completed": done}


def kill_each_after_its_dynamodb_write(stack: Stack, index: FaultyIndex, tasks: dict[str, str]) -> int:
    """Process each task until the index write, then die there (the Lambda killed mid-commit)."""
    index.kill_on_write = True
    killed = 0
    for task_id in tasks.values():
        with pytest.raises(Killed):
            stack.container.worker.process("acme", task_id)
        killed += 1
    index.kill_on_write = False
    return killed


def redeliver(stack: Stack, tasks: dict[str, str]) -> None:
    """SQS delivers each message again after its visibility timeout (second receive)."""
    handler = load_function("extraction").lambda_handler
    for user, task_id in tasks.items():
        message = sqs_record({"tenant_id": "acme", "task_id": task_id, "user_id": user}, f"acme#{user}", 2)
        assert handler({"Records": [message]}, FakeContext()) == {"batchItemFailures": []}


def test_a_worker_killed_between_dynamodb_and_index_loses_nothing_and_duplicates_nothing(
    stack: Stack, index: FaultyIndex
) -> None:
    repaired_first, redelivered_only = submit_all(stack, "r"), submit_all(stack, "d")
    killed = kill_each_after_its_dynamodb_write(stack, index, repaired_first | redelivered_only)

    after_kill = counts(stack, index, repaired_first | redelivered_only)
    assert after_kill["stored"] == 2 * USERS and after_kill["searchable"] == 0  # in DynamoDB, not searchable

    # The maintenance repair step makes the first half searchable; their redelivery then adds nothing.
    scanner = stack.container.scanner
    report = RepairService(scanner, stack.container.facts, index, stack.container.embedder).run(
        [("acme", user) for user in repaired_first]
    )
    assert report["reindexed"] == USERS
    assert counts(stack, index, repaired_first)["searchable"] == USERS
    # The other half is only redelivered: the worker repairs the user's index before trying again,
    # so reconciliation sees the memory the dead try wrote (the model words it differently now).
    redeliver(stack, repaired_first | redelivered_only)

    final = counts(stack, index, repaired_first | redelivered_only)
    record(
        "faults: worker killed between DynamoDB and index writes",
        adds=2 * USERS,
        killed=killed,
        searchable_after_kill=after_kill["searchable"],
        reindexed_by_repair=report["reindexed"],
        accepted_adds_lost=final["lost"],
        duplicates=final["duplicates"],
    )
    assert final == {"stored": 2 * USERS, "searchable": 2 * USERS, "lost": 0, "duplicates": 0, "completed": 2 * USERS}


def test_an_index_outage_makes_adds_wait_and_complete_and_search_answer_503(stack: Stack, index: FaultyIndex) -> None:
    dlq_url = with_dlq(stack, stack.container.settings.max_receives)
    handler = load_function("extraction").lambda_handler
    call = api_caller(load_function("api"))
    tasks = submit_all(stack, "o")
    user = next(iter(tasks))

    # First the index takes no writes (each try dies mid-commit, after DynamoDB), then nothing at all.
    index.writes_down = True
    for _ in range(3):
        poll(stack, handler, stack.queue_url)
    index.down = True
    for _ in range(3 * stack.container.settings.max_receives):  # longer than the queue's receives
        poll(stack, handler, stack.queue_url)
    statuses = stack.container.tasks.get_many("acme", list(tasks.values()))
    waiting = [t for t in statuses if t.status is TaskStatus.WAITING]
    during = counts(stack, index, tasks)
    status, body = call("POST", "/v1/memories/search", {"user_id": user, "query": "bees"})
    listed, page = call("GET", "/v1/memories", query={"user_id": user})

    index.down = index.writes_down = False
    polls = 0
    while poll(stack, handler, stack.queue_url) and polls < 100:
        polls += 1

    final = counts(stack, index, tasks)
    dead = dead_letters(stack, dlq_url)
    record(
        "faults: index down for a while",
        adds=USERS,
        index_calls_refused=index.refused,
        tasks_waiting_during_outage=len(waiting),
        search_status_during_outage=status,
        dead_lettered=len(dead),
        accepted_adds_lost=final["lost"],
        duplicates=final["duplicates"],
    )
    assert during["stored"] > 0 and during["completed"] == 0  # some were written to DynamoDB mid-commit
    assert waiting and all("search index unavailable" in (t.error or "") for t in waiting)
    assert status == 503 and body["error"] == "IndexUnavailableError"
    assert "search index unavailable" in body["message"]
    # Listing reads DynamoDB, not the index: what is stored for the user is listed.
    assert (listed, len(page["results"])) == (200, len(stack.container.facts.list_current("acme", user).items))
    assert dead == []
    assert final == {"stored": USERS, "searchable": USERS, "lost": 0, "duplicates": 0, "completed": USERS}
