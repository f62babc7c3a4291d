"""Delete-all as a task, through the API and extraction handlers on moto: 202 with a task id, the work
done in batches from the queue in the user's order, and nothing of the user left but history."""

from __future__ import annotations

import base64
import json
from collections.abc import Iterator
from typing import Any

import pytest

from engram.domain.models import AddRequest, AttachmentInput, Message, Scope
from tests.integration.stack import Stack, api_caller, moto_stack
from tests.support.handlers import FakeContext, load_function, sqs_record


@pytest.fixture
def stack(monkeypatch: pytest.MonkeyPatch) -> Iterator[Stack]:
    with moto_stack(monkeypatch) as s:
        s.container.settings = s.container.settings.model_copy(update={"delete_all_batch_size": 40})
        yield s


@pytest.fixture
def call(stack: Stack) -> Any:
    return api_caller(load_function("api"))


@pytest.fixture
def extraction(stack: Stack) -> Any:
    return load_function("extraction").lambda_handler


def remember(stack: Stack, user: str, texts: list[str], attachment_ids: list[str] = ()) -> None:  # type: ignore[assignment]
    """Stored as given (infer=false): no LLM call."""
    request = AddRequest(
        messages=[Message(role="user", content=t) for t in texts],
        user_id=user,
        infer=False,
        deduplicate=False,
        attachments=[AttachmentInput(attachment_id=a) for a in attachment_ids],
    )
    stack.container.pipeline.run(Scope(tenant_id="acme", user_id=user), request, f"seed-{user}-{texts[0]}")


def attachment(stack: Stack, user: str) -> str:
    content = base64.b64encode(b"%PDF-1.4 contract").decode()
    stored, _ = stack.container.attachments.create("acme", "contract.pdf", "application/pdf", None, content, user)
    return stored.id


def run_queued(stack: Stack, extraction: Any) -> None:
    """Deliver every queued message, in queue order, to the extraction handler in one batch."""
    records = []
    for message in stack.queued():
        body = json.loads(message["Body"])
        records.append(sqs_record(body, message["Attributes"]["MessageGroupId"], message_id=message["MessageId"]))
    assert extraction({"Records": records}, FakeContext()) == {"batchItemFailures": []}


def stored_items(stack: Stack) -> list[dict[str, Any]]:
    table = stack.container.settings.memory_table
    items: list[dict[str, Any]] = []
    params: dict[str, Any] = {"TableName": table}
    while True:
        resp = stack.dynamodb.scan(**params)
        items += resp["Items"]
        if "LastEvaluatedKey" not in resp:
            return items
        params["ExclusiveStartKey"] = resp["LastEvaluatedKey"]


def test_delete_all_is_a_task_that_leaves_nothing_of_the_user_but_history(
    call: Any, stack: Stack, extraction: Any
) -> None:
    kept = attachment(stack, "alice")
    remember(stack, "alice", [f"Alice fact number {i}" for i in range(95)])
    remember(stack, "alice", ["Signed the lease", "Lease runs two years"], [kept])
    remember(stack, "bob", ["Bob lives in Oslo"])
    (first, *_) = call("GET", "/v1/memories", query={"user_id": "alice", "limit": "1"})[1]["results"]

    status, accepted = call("DELETE", "/v1/memories", query={"user_id": "alice"})
    assert status == 202 and accepted["status"] == "queued"
    assert call("GET", "/v1/memories", query={"user_id": "alice", "limit": "1"})[1]["results"]  # not yet done
    run_queued(stack, extraction)

    status, task = call("GET", f"/v1/tasks/{accepted['task_id']}")
    assert status == 200 and task["status"] == "completed" and task["counts"]["deleted"] == 97
    assert task["kind"] == "delete_all"
    # No current memory in the table (the by-user index is empty), none in the search index.
    assert call("GET", "/v1/memories", query={"user_id": "alice"})[1] == {"results": [], "next_cursor": None}
    alice = [i for i in stored_items(stack) if i.get("user_id", {}).get("S") == "alice"]
    assert not [i for i in alice if "gsi1pk" in i or (i["sk"]["S"] == "FACT" and "valid_to" not in i)]
    assert stack.container.index.ids("acme", "alice") == set()
    assert call("GET", f"/v1/memories/{first['id']}")[0] == 404
    # The attachment no memory holds any more is gone from the bucket and marked deleted.
    s3 = stack.container.aws.s3
    listed = s3.list_objects_v2(Bucket=stack.container.settings.bucket, Prefix="attachments/")
    assert listed.get("KeyCount", 0) == 0
    assert call("GET", f"/v1/attachments/{kept}")[1]["deleted"] is True
    # History stays as the audit trail.
    history = call("GET", f"/v1/memories/{first['id']}/history")[1]["results"]
    assert [h["event"] for h in history] == ["ADD", "DELETE"]
    # Another user of the tenant keeps everything.
    bob = call("GET", "/v1/memories", query={"user_id": "bob"})[1]["results"]
    assert [m["memory"] for m in bob] == ["Bob lives in Oslo"]


def test_delete_all_comes_after_adds_queued_before_it_and_before_adds_queued_after(
    call: Any, stack: Stack, extraction: Any
) -> None:
    def add(text: str) -> None:
        message = {"role": "user", "content": text}
        body = {"messages": [message], "user_id": "alice", "infer": False, "deduplicate": False}
        assert call("POST", "/v1/memories", body)[0] == 202

    remember(stack, "alice", ["Stored long ago"])
    add("Queued before the delete")
    accepted = call("DELETE", "/v1/memories", query={"user_id": "alice"})[1]
    add("Queued after the delete")
    run_queued(stack, extraction)

    task = call("GET", f"/v1/tasks/{accepted['task_id']}")[1]
    assert task["status"] == "completed" and task["counts"]["deleted"] == 2
    left = call("GET", "/v1/memories", query={"user_id": "alice"})[1]["results"]
    assert [m["memory"] for m in left] == ["Queued after the delete"]


def test_delete_all_of_a_user_with_nothing_completes_with_zero(call: Any, stack: Stack, extraction: Any) -> None:
    status, accepted = call("DELETE", "/v1/memories", query={"user_id": "nobody"})
    run_queued(stack, extraction)
    task = call("GET", f"/v1/tasks/{accepted['task_id']}")[1]
    assert status == 202 and task["status"] == "completed" and task["counts"]["deleted"] == 0
    assert call("GET", f"/v1/tasks/{accepted['task_id']}", tenant="globex")[0] == 404


def test_history_is_paged(call: Any, stack: Stack) -> None:
    remember(stack, "alice", ["Lives in Berlin"])
    (memory,) = call("GET", "/v1/memories", query={"user_id": "alice"})[1]["results"]
    for city in ("Munich", "Hamburg", "Cologne"):
        assert call("PATCH", f"/v1/memories/{memory['id']}", {"text": f"Lives in {city}"})[0] == 200
    seen, cursor = [], None
    while True:
        query = {"limit": "3", **({"cursor": cursor} if cursor else {})}
        page = call("GET", f"/v1/memories/{memory['id']}/history", query=query)[1]
        assert len(page["results"]) <= 3
        seen += [h["new_memory"] for h in page["results"]]
        cursor = page["next_cursor"]
        if cursor is None:
            break
    assert seen == ["Lives in Berlin", "Lives in Munich", "Lives in Hamburg", "Lives in Cologne"]
    bad = call("GET", f"/v1/memories/{memory['id']}/history", query={"cursor": "bm90LWEtY3Vyc29y"})
    assert bad[0] == 400 and "cursor" in json.dumps(bad[1])


def scan_all(stack: Stack, table: str) -> list[dict[str, Any]]:
    items: list[dict[str, Any]] = []
    params: dict[str, Any] = {"TableName": table}
    while True:
        resp = stack.dynamodb.scan(**params)
        items += resp["Items"]
        if "LastEvaluatedKey" not in resp:
            return items
        params["ExclusiveStartKey"] = resp["LastEvaluatedKey"]


def test_delete_all_erases_what_the_user_sent_and_keeps_only_the_audit_trail(
    call: Any, stack: Stack, extraction: Any
) -> None:
    # Inputs over 400 bytes wait in the bucket (payloads/, then sources/ once memories come from them).
    stack.container.memories.max_inline_payload_bytes = 400

    def add(user: str, text: str) -> str:
        body = {"messages": [{"role": "user", "content": text}], "user_id": user, "infer": False}
        status, accepted = call("POST", "/v1/memories", {**body, "deduplicate": False})
        assert status == 202
        return str(accepted["task_id"])

    alice = [add("alice", "Diary kept in the blue drawer " * 20), add("alice", "Diary password is swordfish")]
    bob = add("bob", "Bob keeps a diary too " * 20)
    stack.container.worker.process_many("acme", alice)  # as the queue would, then the queue is emptied
    stack.container.worker.process("acme", bob)
    stack.sqs.purge_queue(QueueUrl=stack.queue_url)
    s3, bucket = stack.container.aws.s3, stack.container.settings.bucket
    before = {o["Key"] for o in s3.list_objects_v2(Bucket=bucket).get("Contents", [])}
    assert any(key.startswith("sources/") for key in before)  # alice's large input, kept as a source

    accepted = call("DELETE", "/v1/memories", query={"user_id": "alice"})[1]
    run_queued(stack, extraction)
    assert call("GET", f"/v1/tasks/{accepted['task_id']}")[1]["counts"]["deleted"] == 2

    # Nothing alice sent is left in the bucket; bob's kept source is.
    left = {o["Key"] for o in s3.list_objects_v2(Bucket=bucket).get("Contents", [])}
    assert not [key for key in left if any(t in key for t in alice)]
    assert [key for key in left if bob in key]
    # Her add tasks keep their status and counts, not what she sent or what became of it.
    for task_id in alice:
        status, task = call("GET", f"/v1/tasks/{task_id}")
        assert status == 200 and task["status"] == "completed" and task["results"] == []
    assert call("GET", f"/v1/tasks/{bob}")[1]["results"]
    # In every table, the only items that still hold her words are the memory table's audit trail:
    # history events and closed versions (read by history and as_of).
    settings = stack.container.settings
    for table in (settings.memory_table, settings.tasks_table, settings.idempotency_table, settings.keys_table):
        mentions = [i for i in scan_all(stack, table) if "Diary" in json.dumps(i) or "swordfish" in json.dumps(i)]
        audit = [i for i in mentions if table == settings.memory_table and _is_audit(i)]
        assert mentions == audit, (table, mentions)
    assert call("GET", "/v1/users")[1]["results"] == [{"user_id": "bob", **_any_time()}]


def _is_audit(item: dict[str, Any]) -> bool:
    sk = item["sk"]["S"]
    return sk.startswith(("H#", "V#")) or (sk == "FACT" and "valid_to" in item and "gsi1pk" not in item)


def _any_time() -> dict[str, Any]:
    class AnyTime(str):
        def __eq__(self, other: object) -> bool:
            return isinstance(other, str)

        def __hash__(self) -> int:
            return 0

    return {"last_active_at": AnyTime()}
