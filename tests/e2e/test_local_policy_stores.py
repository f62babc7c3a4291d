"""Issue 44: a tenant's `exclude`, `include` and `redact` hold in every store a user can read back through
`make run`'s stack, one store at a time, and in what the stack sends its LLM (the OpenAI stub records every
request). docs/policy.md and docs/safety.md ("Where the policy and redaction apply") list what this proves.

One stack with the stub as its LLM serves the module: every path goes through the LLM steps a deployment
with a model would run (extraction, reconciliation, the graph, summaries), so what reaches the model is
checked beside what is stored."""

from __future__ import annotations

import base64
import json
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import boto3
import pytest
from websockets.sync.client import connect

from tests.e2e.stack_process import Api, StackProcess
from tests.support.openai_stub import OpenAIStub, looks_like_extraction

pytestmark = pytest.mark.e2e
KEY = "key-stores-1"
BUS = "engram-local-MemoryEventBus"
POLICY = {
    "exclude": ["Health", "religion"],
    "include": ["Work", "Personal"],
    "redact": ["card", "email"],
    "events_include_text": True,
}
KEPT = "I work at Siemens as an engineer."
SAID = (
    f"{KEPT} I was diagnosed with diabetes last spring. My daughter Ines started school today. "
    "I'm fasting for Ramadan this month. My card is 4111 1111 1111 1111 and my bank password is hunter22. "
    "Write to me at ana.lima@example.com."
)
# Each is excluded (Health, religion), not included (Relationships) or redacted (card, credential, email).
NEVER = ("diabetes", "Ramadan", "Ines", "4111 1111 1111 1111", "4111111111111111", "hunter22", "ana.lima@example")


def model(request: dict[str, Any]) -> str:
    """The stack's LLM: a fact for each sentence of the excerpt it was shown that names a known thing, with
    the bank an LLM would give it (so a step that trusted the model alone would store what it was shown)."""
    prompt = " ".join(str(m.get("content")) for m in request["messages"])
    if looks_like_extraction(request):
        known = (
            ("Siemens", "Works at Siemens as an engineer", "Work"),
            ("diabetes", "Was diagnosed with diabetes", "Health"),
            ("Ines", "Has a daughter named Ines", "Relationships"),
            ("Ramadan", "Is fasting for Ramadan", "Personal"),
            ("4111", "Card number is 4111 1111 1111 1111", "Personal"),
        )
        facts = [{"text": f, "memory_bank": b, "importance": 0.5} for word, f, b in known if word in prompt]
        return json.dumps({"facts": facts})
    if "Memories:\n" in prompt:  # the summarise step: a summary of all it was shown
        listed = json.loads(prompt.split("Memories:\n", 1)[1])
        return json.dumps({"summary": " ".join(m["memory"] for m in listed)})
    if "relations" in prompt and request.get("response_format"):
        return json.dumps({"relations": []})
    return '{"memory": []}'


@pytest.fixture(scope="module")
def stub() -> Iterator[OpenAIStub]:
    with OpenAIStub(responder=model) as s:
        yield s


@pytest.fixture(scope="module")
def stack_of(tmp_path_factory: pytest.TempPathFactory, stub: OpenAIStub) -> Iterator[StackProcess]:
    data_dir: Path = tmp_path_factory.mktemp("engram-stores") / "data"
    env = {
        "ENGRAM_OPENAI_BASE_URL": stub.base_url,
        "ENGRAM_LLM_MODEL": "stub-model",
        "ENGRAM_LLM_SINGLE_CALL": "false",  # the stub answers the separate extraction call's schema
        "ENGRAM_SUMMARISE_MIN_AGE_DAYS": "0",  # today's memories can be summarised
    }
    process = StackProcess(data_dir, f"acme:{KEY}", env).start()
    yield process
    process.stop()


@pytest.fixture(scope="module")
def api(stack_of: StackProcess) -> Api:
    client = Api(stack_of, KEY)
    put = client.request("PUT", "/v1/config", POLICY)
    assert put.status_code == 200, put.text
    return client


def leaked(text: str) -> list[str]:
    return [word for word in NEVER if word in text]


def everything(api: Api, user: str) -> str:
    """All a client reads back of the user: memories with their source, every version (the export), their
    history, search hits and relations, the graph."""
    current = api.memories(user)
    sources = [api.request("GET", f"/v1/memories/{m['id']}", params={"include": "source"}).json() for m in current]
    export = api.request("GET", "/v1/memories", params={"user_id": user, "versions": "all", "limit": 1000}).json()
    histories = [api.history(m["id"]) for m in export["results"]]
    search = api.request("POST", "/v1/memories/search", {"user_id": user, "query": "daughter diabetes card"}).json()
    graph = api.request("GET", "/v1/graph", params={"user_id": user}).json()
    return json.dumps([current, sources, export, histories, search, graph])


def add(api: Api, user: str, text: str, **options: Any) -> dict[str, Any]:
    """Add and wait until completed; the task's report names only what `include` left out."""
    task: dict[str, Any] = api.wait(api.add(user, text, **options), timeout_s=120)
    assert task["status"] == "completed", task
    return task


def test_memories_episodes_sources_search_graph_and_export_hold_only_what_the_policy_keeps(api: Api) -> None:
    user = f"stores-{uuid.uuid4().hex[:8]}"
    tasks = [add(api, user, SAID), add(api, user, SAID, infer=False)]
    for task in tasks:
        full = api.request("GET", f"/v1/tasks/{task['task_id']}", params={"include": "source"}).json()
        # The task names what `include` left out in its words (docs/policy.md), and nothing else.
        full["skipped"] = [s for s in full.get("skipped", []) if s["reason"] != "not included"]
        assert not leaked(json.dumps(full)), full
    stored = everything(api, user)
    assert not leaked(stored), (leaked(stored), stored)
    assert "Siemens" in stored  # what the policy keeps is kept: by extraction and as given
    assert sum("Siemens" in m["memory"] for m in api.memories(user)) >= 2


def test_a_long_message_kept_in_parts_keeps_no_excluded_or_redacted_clause(api: Api) -> None:
    user = f"parts-{uuid.uuid4().hex[:8]}"
    filler = " ".join(f"On day {i} I reviewed the turbine design at work with the team." for i in range(40))
    add(api, user, f"{filler} {SAID} {filler}", infer=False)
    parts = api.memories(user)
    assert len(parts) > 1, parts  # the message was long enough to be kept in parts
    stored = everything(api, user)
    assert not leaked(stored), (leaked(stored), stored)
    assert "Siemens" in stored


def test_an_attachments_description_is_redacted_and_never_reaches_the_llm(api: Api, stub: OpenAIStub) -> None:
    user = f"attach-{uuid.uuid4().hex[:8]}"
    body = {
        "name": "receipt.txt",
        "media_type": "text/plain",
        "description": "receipt paid with card 4111 1111 1111 1111, sent to ana.lima@example.com",
        "content_base64": base64.b64encode(b"a receipt").decode(),
    }
    created = api.request("POST", "/v1/attachments", body)
    assert created.status_code in (200, 201), created.text
    attachment = {"id": created.json()["attachment_id"]}
    before = len(stub.requests)
    attachments = [{"attachment_id": attachment["id"]}]
    add(api, user, "I work at Siemens as an engineer, here is my receipt.", attachments=attachments)
    add(api, user, "I moved to the Siemens office in Munich.", attachments=attachments)
    read = api.request("GET", f"/v1/attachments/{attachment['id']}").json()
    assert not leaked(json.dumps(read)), read
    assert not leaked(everything(api, user))
    sent = json.dumps([r.body for r in stub.requests[before:]])
    assert not leaked(sent), leaked(sent)


def test_an_attachments_description_keeps_nothing_excluded_uploaded_or_inline(api: Api, stub: OpenAIStub) -> None:
    """A description is text the API shows back and the reconcile prompt shows the LLM: a clause of it
    about an excluded bank is stored nowhere, whether the file was uploaded first or sent with the add."""
    user = f"attach-excl-{uuid.uuid4().hex[:8]}"
    said = "photo of my new flat in Munich, and the x-ray of my broken wrist from the hospital"
    content = base64.b64encode(b"two photos").decode()
    body = {"name": "photos.zip", "media_type": "application/zip", "description": said, "content_base64": content}
    created = api.request("POST", "/v1/attachments", body)
    assert created.status_code == 201, created.text
    inline = {k: v for k, v in body.items() if k != "name"} | {"name": "inline.zip"}
    before = len(stub.requests)
    attachments = [{"attachment_id": created.json()["attachment_id"]}, inline]
    add(api, user, "I work at Siemens as an engineer, here are my photos.", attachments=attachments)
    held = [m for m in api.memories(user) if m.get("attachments")]
    assert held, api.memories(user)
    ids = {a["id"] for m in held for a in m["attachments"]}
    assert len(ids) == 2, held
    for attachment_id in ids:
        read = api.request("GET", f"/v1/attachments/{attachment_id}").json()
        assert "wrist" not in json.dumps(read), read
        assert "Munich" in read["description"], read  # the clause the policy keeps is kept
    assert "wrist" not in everything(api, user)
    sent = json.dumps([r.body for r in stub.requests[before:]])
    assert "wrist" not in sent


def test_an_import_is_redacted_and_screened_in_every_version_and_its_history(api: Api) -> None:
    user = f"import-{uuid.uuid4().hex[:8]}"
    t0, t1 = "2026-01-01T00:00:00+00:00", "2026-02-01T00:00:00+00:00"
    history = [
        {"id": "e1", "event": "ADD", "new_memory": "Card number is 4111 1111 1111 1111", "created_at": t0},
        {
            "id": "e2",
            "event": "UPDATE",
            "old_memory": "Card number is 4111 1111 1111 1111",
            "new_memory": "Works at Siemens as an engineer",
            "version": 2,
            "created_at": t1,
        },
    ]
    memories = [
        {"id": "m1", "memory": "Card number is 4111 1111 1111 1111", "version": 1, "valid_from": t0, "valid_to": t1},
        {"id": "m1", "memory": "Works at Siemens as an engineer", "version": 2, "valid_from": t1, "history": history},
        {"id": "m2", "memory": "Mail ana.lima@example.com", "fact_key": "email", "fact_value": "ana.lima@example.com"},
        {"id": "m3", "memory": "Was diagnosed with diabetes", "memory_bank": "Health"},
    ]
    relation = {
        "id": "r1",
        "relation": "pays_with",
        "source_entity": {"id": "s", "name": "user", "type": "person"},
        "destination_entity": {"id": "d", "name": "card 4111 1111 1111 1111", "type": "thing"},
        "valid_from": t0,
        "memory_ids": ["m1"],
    }
    resp = api.request("POST", "/v1/memories/import", {"user_id": user, "memories": memories, "relations": [relation]})
    assert resp.status_code == 202, resp.text
    task = api.wait(resp.json()["task_id"], timeout_s=120)
    assert task["status"] == "completed", task
    stored = everything(api, user)
    assert not leaked(stored), (leaked(stored), stored)
    assert "Siemens" in stored


def test_events_a_user_subscribes_to_carry_nothing_excluded_or_redacted(api: Api, stack_of: StackProcess) -> None:
    session = boto3.session.Session(region_name="us-east-1", aws_access_key_id="test", aws_secret_access_key="test")
    events = session.client("events", endpoint_url=stack_of.moto_endpoint)
    sqs = session.client("sqs", endpoint_url=stack_of.moto_endpoint)
    user = f"events-{uuid.uuid4().hex[:8]}"
    url = sqs.create_queue(QueueName=user)["QueueUrl"]
    arn = sqs.get_queue_attributes(QueueUrl=url, AttributeNames=["QueueArn"])["Attributes"]["QueueArn"]
    pattern = {"source": ["engram"], "detail": {"user_id": [user]}}
    events.put_rule(Name=user, EventBusName=BUS, EventPattern=json.dumps(pattern))
    events.put_targets(Rule=user, EventBusName=BUS, Targets=[{"Id": "queue", "Arn": arn}])

    socket_url = stack_of.url.replace("http://", "ws://") + f"/v1/events?user_id={user}"
    with connect(socket_url, additional_headers={"x-api-key": KEY}, open_timeout=10) as ws:
        add(api, user, SAID)
        add(api, user, SAID, infer=False)
        task_events: list[dict[str, Any]] = []
        while sum(e["type"] == "memory_extraction_completed" for e in task_events) < 2:
            task_events.append(json.loads(ws.recv(timeout=60)))
    assert any("Siemens" in json.dumps(e) for e in task_events), task_events
    assert not leaked(json.dumps(task_events)), leaked(json.dumps(task_events))
    received: list[dict[str, Any]] = []
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and sum(e.get("detail-type") == "task.completed" for e in received) < 2:
        reply = sqs.receive_message(QueueUrl=url, MaxNumberOfMessages=10, WaitTimeSeconds=1)
        received += [json.loads(m["Body"]) for m in reply.get("Messages", [])]
    assert any("Siemens" in json.dumps(e) for e in received), received  # the text is in the events
    assert not leaked(json.dumps(received)), leaked(json.dumps(received))


def test_summaries_and_every_llm_request_hold_nothing_excluded_or_redacted(api: Api, stub: OpenAIStub) -> None:
    user = f"summary-{uuid.uuid4().hex[:8]}"
    for _ in range(3):
        add(api, user, SAID, infer=False, deduplicate=False)
    run = api.request("POST", "/v1/maintenance", {"actions": ["summarise"], "user_id": user})
    assert run.status_code == 202, run.text
    execution = run.json()["execution_id"]
    deadline = time.monotonic() + 120
    status: dict[str, Any] = {}
    while time.monotonic() < deadline:
        status = api.request("GET", f"/v1/maintenance/{execution}").json()
        if status["status"] not in ("RUNNING", "running", "queued"):
            break
        time.sleep(0.2)
    assert status["status"].lower() in ("succeeded", "completed"), status
    summaries = [m for m in api.memories(user) if m.get("summarized_from")]
    assert summaries and "Siemens" in summaries[0]["memory"], api.memories(user)  # a summary was made
    assert not leaked(everything(api, user))
    sent = json.dumps([r.body for r in stub.requests])
    assert "Siemens" in sent  # the LLM was asked
    assert not leaked(sent), leaked(sent)
