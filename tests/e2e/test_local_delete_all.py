"""Delete-all through `make run`'s HTTP API: a task that leaves nothing of the user in any table, the
embedded index or the bucket, but the audit trail (history events and closed versions)."""

from __future__ import annotations

import base64
import uuid

import boto3
import pytest

from engram_tools.local.names import physical_name
from tests.e2e.stack_process import Api, StackProcess

pytestmark = pytest.mark.e2e


def test_delete_all_leaves_nothing_of_the_user_but_history(acme: Api, stack: StackProcess) -> None:
    user, other = f"forget-{uuid.uuid4().hex[:8]}", f"keep-{uuid.uuid4().hex[:8]}"
    pdf = base64.b64encode(b"%PDF").decode()
    contract = {"name": "lease.pdf", "media_type": "application/pdf", "content_base64": pdf}
    tasks = [
        acme.add(user, "Signed the lease for the flat", infer=False, attachments=[contract]),
        *(acme.add(user, f"Remembered thing number {i}", infer=False, deduplicate=False) for i in range(12)),
        acme.add(other, "Lives in Oslo", infer=False),
    ]
    done = [acme.wait(t) for t in tasks]
    assert all(t["status"] == "completed" for t in done), done
    lease = next(m for m in acme.memories(user) if m["attachments"])
    attachment_id = lease["attachments"][0]["id"]
    blob_keys = _keys(stack, f"attachments/acme/{attachment_id}")
    assert blob_keys  # stored while a memory holds it

    resp = acme.request("DELETE", "/v1/memories", params={"user_id": user})
    assert resp.status_code == 202, resp.text
    task = acme.wait(resp.json()["task_id"])

    assert task["status"] == "completed" and task["kind"] == "delete_all" and task["counts"]["deleted"] == 13
    assert acme.memories(user) == [] and acme.search(user, "lease flat thing") == []
    assert _current_facts(stack, user) == []
    assert _keys(stack, f"attachments/acme/{attachment_id}") == []
    assert acme.request("GET", f"/v1/attachments/{attachment_id}").json()["deleted"] is True
    assert [h["event"] for h in acme.history(lease["id"])] == ["ADD", "DELETE"]
    assert [m["memory"] for m in acme.memories(other)] == ["Lives in Oslo"]
    # Her words are left only in the memory table's audit trail; in no other table, in no object.
    for table in ("MemoryTable", "TasksTable", "IdempotencyTable", "ApiKeysTable"):
        mentions = [
            i for i in _scan(stack, table) if "Remembered thing" in str(i) or "Signed the lease for the flat" in str(i)
        ]
        assert [i for i in mentions if not (table == "MemoryTable" and _is_audit(i))] == [], table
    assert not [key for key in _keys(stack, "") if b"Remembered thing" in _body(stack, key)]


def _client(stack: StackProcess, service: str) -> object:
    return boto3.client(
        service,
        endpoint_url=stack.moto_endpoint,
        region_name="us-east-1",
        aws_access_key_id="testing",
        aws_secret_access_key="testing",
    )


def _keys(stack: StackProcess, prefix: str) -> list[str]:
    s3 = _client(stack, "s3")
    listed = s3.list_objects_v2(Bucket=physical_name("BlobBucket"), Prefix=prefix)  # type: ignore[attr-defined]
    return [o["Key"] for o in listed.get("Contents", [])]


def _current_facts(stack: StackProcess, user: str) -> list[object]:
    """Every item of the memory table naming the user that is still a current fact."""
    db = _client(stack, "dynamodb")
    items = db.scan(  # type: ignore[attr-defined]
        TableName=physical_name("MemoryTable"),
        FilterExpression="user_id = :u AND sk = :fact AND attribute_not_exists(valid_to)",
        ExpressionAttributeValues={":u": {"S": user}, ":fact": {"S": "FACT"}},
    )["Items"]
    return list(items)


def _scan(stack: StackProcess, table: str) -> list[dict[str, object]]:
    db = _client(stack, "dynamodb")
    items: list[dict[str, object]] = []
    params: dict[str, object] = {"TableName": physical_name(table)}
    while True:
        resp = db.scan(**params)  # type: ignore[attr-defined]
        items += resp["Items"]
        if "LastEvaluatedKey" not in resp:
            return items
        params["ExclusiveStartKey"] = resp["LastEvaluatedKey"]


def _is_audit(item: dict[str, object]) -> bool:
    """History events and closed versions of a memory (what history and as_of read)."""
    sk = str(item["sk"])
    return any(mark in sk for mark in ("'H#", "'V#")) or (
        "'FACT'" in sk and "valid_to" in item and "gsi1pk" not in item
    )


def _body(stack: StackProcess, key: str) -> bytes:
    s3 = _client(stack, "s3")
    return bytes(s3.get_object(Bucket=physical_name("BlobBucket"), Key=key)["Body"].read())  # type: ignore[attr-defined]
