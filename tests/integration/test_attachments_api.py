"""Attachments over the API (moto S3 + DynamoDB): upload, download, listing, isolation, limits."""

from __future__ import annotations

import base64
import hashlib
import json
from typing import Any

import requests

from engram.domain.models import TaskStatus
from tests.fakes import facts_json
from tests.integration.stack import Stack
from tests.support.handlers import FakeContext, load_function, sqs_record

PNG = b"\x89PNG\r\n\x1a\n" + b"pixels" * 10


def upload(call: Any, tenant: str = "acme", data: bytes = PNG) -> str:
    status, body = call(
        "POST",
        "/v1/attachments",
        {
            "name": "photo.png",
            "media_type": "image/png",
            "description": "Max at the beach",
            "content_base64": base64.b64encode(data).decode(),
        },
        tenant=tenant,
    )
    assert status == 201 and body["stored"] is True and body["upload_url"] is None
    return str(body["attachment_id"])


def test_inline_upload_is_stored_with_size_and_checksum(call: Any) -> None:
    attachment_id = upload(call)
    status, view = call("GET", f"/v1/attachments/{attachment_id}")
    assert status == 200
    assert view["size"] == len(PNG) and view["checksum"] == hashlib.sha256(PNG).hexdigest()
    assert view["memory_ids"] == [] and view["download_url"]


def test_presigned_upload_url_accepts_the_bytes(call: Any, stack: Stack) -> None:
    status, body = call("POST", "/v1/attachments", {"name": "doc.pdf", "media_type": "application/pdf"})
    assert status == 201 and body["upload_url"] and body["stored"] is False
    put = requests.put(body["upload_url"], data=b"%PDF-1.4", headers={"content-type": "application/pdf"}, timeout=5)
    assert put.status_code == 200
    key = stack.container.attachment_store.get("acme", body["attachment_id"]).blob_key
    assert stack.container.blobs.get(key) == b"%PDF-1.4"


def test_inline_size_limit_is_413_naming_the_field(call: Any, stack: Stack) -> None:
    stack.container.attachments.max_inline_bytes = 10
    status, body = call(
        "POST",
        "/v1/attachments",
        {
            "name": "big.bin",
            "media_type": "application/octet-stream",
            "content_base64": base64.b64encode(b"x" * 100).decode(),
        },
    )
    assert status == 413 and body["field"] == "content_base64"


def test_bad_base64_is_400(call: Any) -> None:
    status, body = call("POST", "/v1/attachments", {"name": "a", "media_type": "text/plain", "content_base64": "***"})
    assert status == 400 and body["field"] == "content_base64"


def test_another_tenants_attachment_is_not_found(call: Any) -> None:
    attachment_id = upload(call, tenant="acme")
    assert call("GET", f"/v1/attachments/{attachment_id}", tenant="globex")[0] == 404
    status, body = call(
        "POST",
        "/v1/memories",
        {
            "messages": [{"role": "user", "content": "hi"}],
            "user_id": "bob",
            "attachments": [{"attachment_id": attachment_id}],
        },
        tenant="globex",
    )
    assert status == 404 and "attachment" in body["message"]


def test_add_with_attachments_then_list_by_attachment(call: Any, stack: Stack) -> None:
    uploaded = upload(call)
    inline = {"name": "note.txt", "media_type": "text/plain", "content_base64": base64.b64encode(b"hi").decode()}
    status, accepted = call(
        "POST",
        "/v1/memories",
        {
            "messages": [{"role": "user", "content": "My dog Max loves the beach"}],
            "user_id": "alice",
            "attachments": [{"attachment_id": uploaded}, inline],
        },
    )
    assert status == 202
    stack.llm.answers.append(facts_json("Has a dog named Max who loves the beach"))
    worker = load_function("extraction")
    record = sqs_record({"tenant_id": "acme", "task_id": accepted["task_id"], "user_id": "alice"}, "acme#alice")
    assert worker.lambda_handler({"Records": [record]}, FakeContext()) == {"batchItemFailures": []}
    task = call("GET", f"/v1/tasks/{accepted['task_id']}")[1]
    assert task["status"] == TaskStatus.COMPLETED.value
    (result,) = task["results"]
    assert len(result["attachments"]) == 2 and uploaded in result["attachments"]

    listed = call("GET", "/v1/memories", query={"user_id": "alice", "attachment_id": uploaded})[1]["results"]
    assert [m["id"] for m in listed] == [result["id"]]
    assert {a["name"] for a in listed[0]["attachments"]} == {"photo.png", "note.txt"}
    assert call("GET", "/v1/memories", query={"user_id": "bob", "attachment_id": uploaded})[1]["results"] == []
    assert call("GET", f"/v1/attachments/{uploaded}")[1]["memory_ids"] == [result["id"]]

    # deleting the only memory that holds it frees the bytes; the record stays for history
    assert call("DELETE", f"/v1/memories/{result['id']}")[0] == 200
    view = call("GET", f"/v1/attachments/{uploaded}")[1]
    assert view["deleted"] is True and view["memory_ids"] == [] and view["download_url"] is None


def test_attachment_input_needs_an_id_or_content(call: Any) -> None:
    status, body = call(
        "POST",
        "/v1/memories",
        {"messages": [{"role": "user", "content": "hi"}], "user_id": "a", "attachments": [{"name": "x"}]},
    )
    assert status == 422 and "attachments" in json.dumps(body)


def test_the_memories_holding_an_attachment_come_in_pages(call: Any, stack: Stack) -> None:
    from engram.domain.models import AddRequest, AttachmentInput, Message, Scope

    uploaded, other = upload(call), upload(call)
    for user, count in (("alice", 5), ("bob", 2)):
        request = AddRequest(
            messages=[Message(role="user", content=f"{user} photo memory {i}") for i in range(count)],
            user_id=user,
            infer=False,
            deduplicate=False,
            attachments=[AttachmentInput(attachment_id=uploaded)],
        )
        stack.container.pipeline.run(Scope(tenant_id="acme", user_id=user), request, f"seed-{user}")

    def pages(path: str, query: dict[str, str], field: str) -> list[list[Any]]:
        seen, cursor = [], None
        while True:
            status, body = call("GET", path, query={**query, "limit": "3", **({"cursor": cursor} if cursor else {})})
            assert status == 200 and len(body[field]) <= 3
            seen.append(body[field])
            if (cursor := body["next_cursor"]) is None:
                return seen

    holders = pages(f"/v1/attachments/{uploaded}", {}, "memory_ids")
    assert [len(p) for p in holders] == [3, 3, 1]
    ids = [i for p in holders for i in p]
    assert len(set(ids)) == 7
    alice = pages("/v1/memories", {"user_id": "alice", "attachment_id": uploaded}, "results")
    assert sorted(m["memory"] for p in alice for m in p) == [f"alice photo memory {i}" for i in range(5)]
    assert {m["id"] for p in alice for m in p} < set(ids)
    # A cursor is only good for the listing that gave it.
    cursor = call("GET", f"/v1/attachments/{uploaded}", query={"limit": "3"})[1]["next_cursor"]
    for bad in (cursor, "bm90LWEtY3Vyc29y"):
        status, body = call("GET", f"/v1/attachments/{other}", query={"cursor": bad})
        assert status == 400 and "cursor" in json.dumps(body)
    assert call("GET", f"/v1/attachments/{uploaded}", query={"limit": "0"})[0] == 422
