"""Tenant B attacks tenant A, and one user's queries reach for another's, through `make run`'s HTTP API.

B knows everything of A's but the key: memory, task, attachment, maintenance, entity and relation ids,
A's user names, metadata and cursors. B tries them on every route in every header spelling, tampers
with A's cursors, listens on WebSockets while A works, and finally A's data is compared with a snapshot
taken before. Figures: requests tried, 5xx seen, leaks (any of A's data in an answer to B, or any
change to A's data) -- promised 0 -- in the `make test` summary. The stack's log of the whole run is
then searched for every API key and the configured secret (none may appear)."""

from __future__ import annotations

import base64
import json
import time
import uuid
from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import pytest
from websockets.sync.client import ClientConnection, connect

from tests.e2e.attack_probe import Probe
from tests.e2e.stack_process import Api, StackProcess
from tests.figures import record

pytestmark = pytest.mark.e2e

A_KEY = "key-victim-a"
B_KEY = "key-attacker-b"
SECRET = f"sk-secret-{uuid.uuid4().hex}"  # a configured secret: must never be logged
TAG = uuid.uuid4().hex[:8]
ALICE, BOB, MALLORY = f"alice-{TAG}", f"bob-{TAG}", f"mallory-{TAG}"


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[StackProcess]:
    data_dir: Path = tmp_path_factory.mktemp("attacks") / "data"
    env = {"ENGRAM_OPENSEARCH_PASSWORD": SECRET, "ENGRAM_RATE_LIMIT_RPS": "10000", "ENGRAM_RATE_LIMIT_BURST": "10000"}
    process = StackProcess(data_dir, f"acme:{A_KEY},globex:{B_KEY}", env).start()
    yield process
    process.stop()


def wait_run(api: Api, execution_id: str) -> None:
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline:
        if api.request("GET", f"/v1/maintenance/{execution_id}").json()["status"] != "RUNNING":
            return
        time.sleep(0.2)
    raise AssertionError(f"maintenance run {execution_id} still running")


def victim_data(a: Api) -> dict[str, Any]:
    """A's data (alice's), as A sees it; presigned URLs differ per call and are left out."""
    memories = a.memories(ALICE)
    attachment = a.request("GET", f"/v1/attachments/{VICTIM['attachment_id']}").json()
    attachment.pop("download_url", None)
    return {
        "memories": memories,
        "each": [a.request("GET", f"/v1/memories/{m['id']}").json() for m in memories],
        "history": {m["id"]: a.history(m["id"]) for m in memories},
        "attachment": attachment,
        "graph": a.request("GET", "/v1/graph", params={"user_id": ALICE}).json(),
        "users": a.request("GET", "/v1/users").json(),
        "tasks": [a.request("GET", f"/v1/tasks/{t}").json() for t in VICTIM["task_ids"]],
    }


VICTIM: dict[str, Any] = {}


def build_victim(a: Api) -> None:
    """Alice's memories, history, attachment, graph, a maintenance run and cursors; bob's memory."""
    created = a.request(
        "POST",
        "/v1/attachments",
        json={
            "name": f"passport-{TAG}.txt",
            "media_type": "text/plain",
            "content_base64": base64.b64encode(b"secret").decode(),
        },
    )
    assert created.status_code == 201, created.text
    attachment_id = created.json()["attachment_id"]
    tasks = [
        a.add(
            ALICE,
            "Hi, I'm Alice. I live in Quixbury and I love zephyrcake.",
            metadata={"topic": f"topic-{TAG}"},
            run_id=f"run-{TAG}",
            attachments=[{"attachment_id": attachment_id}],
        ),
        a.add(ALICE, "My sister Vantorel lives in Oslo. I work at Brightwave."),
    ]
    for task in tasks:
        assert a.wait(task)["status"] == "completed"
    a.remember(BOB, "I work at Initech as an engineer.")
    memories = a.memories(ALICE)
    assert len(memories) >= 3, memories
    patched = a.request("PATCH", f"/v1/memories/{memories[0]['id']}", json={"text": "Loves zephyrcake a lot"})
    assert patched.status_code == 200, patched.text
    run = a.request("POST", "/v1/maintenance", json={"actions": ["dedupe"], "user_id": ALICE}).json()["execution_id"]
    wait_run(a, run)
    graph = a.request("GET", "/v1/graph", params={"user_id": ALICE, "limit": 1}).json()
    full_graph = a.request("GET", "/v1/graph", params={"user_id": ALICE}).json()
    cursors = {
        "list": a.request("GET", "/v1/memories", params={"user_id": ALICE, "limit": 1}).json()["next_cursor"],
        "history": a.request("GET", f"/v1/memories/{memories[0]['id']}/history", params={"limit": 1}).json()[
            "next_cursor"
        ],
        "users": a.request("GET", "/v1/users", params={"limit": 1}).json()["next_cursor"],
        "entities": graph["next_entity_cursor"],
        "relations": graph["next_relation_cursor"],
    }
    assert all(cursors.values()), cursors
    VICTIM.update(
        memory_ids=[m["id"] for m in memories],
        texts=[m["memory"] for m in memories],
        task_ids=tasks,
        attachment_id=attachment_id,
        execution_id=run,
        entity_ids=[e["id"] for e in full_graph["entities"]],
        relation_ids=[r["id"] for r in full_graph["relations"]],
        cursors=cursors,
    )
    assert VICTIM["entity_ids"] and VICTIM["relation_ids"], full_graph


def alice_secrets() -> set[str]:
    v = VICTIM
    return {
        *v["memory_ids"],
        *v["texts"],
        *v["task_ids"],
        *v["entity_ids"],
        *v["relation_ids"],
        v["attachment_id"],
        v["execution_id"],
        *v["cursors"].values(),
        "Quixbury",
        "Vantorel",
        "zephyrcake",
        f"topic-{TAG}",
        f"run-{TAG}",
        f"passport-{TAG}",
    }


def tampered(cursor: str) -> list[str]:
    """A's cursor rewritten as an attacker would: pointed at B's partition, truncated, padded, junk."""
    raw = base64.urlsafe_b64decode(cursor.encode()).decode()
    variants = [
        raw.replace("acme", "globex"),
        raw.replace(ALICE, MALLORY),
        raw.replace("}", ',"x":{"S":"1"}}'),
        json.dumps([raw]),
        raw[: len(raw) // 2],
    ]
    return [
        cursor,
        cursor[:-4],
        cursor + "AAAA",
        "%00",
        *(base64.urlsafe_b64encode(v.encode()).decode() for v in variants),
    ]


def cross_tenant_requests() -> Iterator[tuple[str, str, dict[str, Any]]]:
    v, c = VICTIM, VICTIM["cursors"]
    for mid in v["memory_ids"]:
        for variant in (mid, mid.upper(), f"{mid}%20", f"..%2F{mid}"):
            yield "GET", f"/v1/memories/{variant}", {}
            yield "GET", f"/v1/memories/{variant}", {"params": {"include": "source"}}
            yield "GET", f"/v1/memories/{variant}/history", {}
            yield "GET", f"/v1/memories/{variant}/history", {"params": {"cursor": c["history"]}}
            yield "PATCH", f"/v1/memories/{variant}", {"body": {"text": "pwned"}}
            yield "DELETE", f"/v1/memories/{variant}", {}
    for task in v["task_ids"]:
        yield "GET", f"/v1/tasks/{task}", {}
    yield "GET", f"/v1/attachments/{v['attachment_id']}", {}
    yield "GET", "/v1/memories", {"params": {"user_id": MALLORY, "attachment_id": v["attachment_id"]}}
    yield (
        "POST",
        "/v1/memories",
        {
            "body": {
                "user_id": MALLORY,
                "messages": [{"role": "user", "content": "hi"}],
                "attachments": [{"attachment_id": v["attachment_id"]}],
            }
        },
    )
    yield "GET", f"/v1/maintenance/{v['execution_id']}", {}
    for entity in v["entity_ids"]:
        yield "GET", f"/v1/graph/entities/{entity}", {}
    for relation in v["relation_ids"]:
        yield "DELETE", f"/v1/graph/relations/{relation}", {}
    for params in (
        {"user_id": ALICE},
        {"user_id": ALICE, "run_id": f"run-{TAG}"},
        {"user_id": ALICE, "memory_bank": "semantic"},
        {"user_id": ALICE, "is_protected": "false"},
        {"user_id": ALICE, "as_of": "2100-01-01T00:00:00Z"},
        {"user_id": ALICE, "tenant_id": "acme"},
    ):
        yield "GET", "/v1/memories", {"params": params}
    for filters in (None, {"metadata": {"topic": f"topic-{TAG}"}}, {"memory_bank": "semantic"}):
        yield (
            "POST",
            "/v1/memories/search",
            {"body": {"user_id": ALICE, "query": "Where does Alice live? Quixbury", "filters": filters}},
        )
    yield "GET", "/v1/graph", {"params": {"user_id": ALICE}}
    yield "GET", "/v1/users", {}
    yield "GET", "/v1/metrics/extraction-queue", {"params": {"window": "day"}}


def cursor_requests() -> Iterator[tuple[str, str, dict[str, Any]]]:
    c = VICTIM["cursors"]
    for cursor in tampered(c["list"]):
        for user in (ALICE, MALLORY):
            yield "GET", "/v1/memories", {"params": {"user_id": user, "cursor": cursor}}
    for cursor in tampered(c["history"]):
        yield "GET", f"/v1/memories/{VICTIM['memory_ids'][0]}/history", {"params": {"cursor": cursor}}
    for cursor in tampered(c["users"]):
        yield "GET", "/v1/users", {"params": {"cursor": cursor}}
    for name in ("entity_cursor", "relation_cursor"):
        for cursor in tampered(c["entities" if name == "entity_cursor" else "relations"]):
            yield "GET", "/v1/graph", {"params": {"user_id": ALICE, name: cursor}}


def user_level_requests() -> Iterator[tuple[str, str, dict[str, Any]]]:
    """A's own key, asking for bob with alice's filters and cursors: nothing of alice's may come back."""
    c = VICTIM["cursors"]
    yield "GET", "/v1/memories", {"params": {"user_id": BOB}}
    yield "GET", "/v1/memories", {"params": {"user_id": BOB, "run_id": f"run-{TAG}"}}
    yield "GET", "/v1/memories", {"params": {"user_id": BOB, "attachment_id": VICTIM["attachment_id"]}}
    for cursor in tampered(c["list"]):
        yield "GET", "/v1/memories", {"params": {"user_id": BOB, "cursor": cursor}}
    for cursor in tampered(c["entities"]):
        yield "GET", "/v1/graph", {"params": {"user_id": BOB, "entity_cursor": cursor}}
    for query in ("Where does Alice live?", "Quixbury zephyrcake Vantorel Oslo Brightwave"):
        for filters in (None, {"metadata": {"topic": f"topic-{TAG}"}}):
            yield "POST", "/v1/memories/search", {"body": {"user_id": BOB, "query": query, "filters": filters}}
    yield "GET", "/v1/graph", {"params": {"user_id": BOB}}


def difference(old: Any, new: Any, path: str) -> list[str]:
    """Where two JSON values differ, as paths with both values."""
    if isinstance(old, dict) and isinstance(new, dict):
        return [d for k in old.keys() | new.keys() for d in difference(old.get(k), new.get(k), f"{path}.{k}")]
    if isinstance(old, list) and isinstance(new, list) and len(old) == len(new):
        return [d for i, (o, n) in enumerate(zip(old, new, strict=True)) for d in difference(o, n, f"{path}[{i}]")]
    return [] if old == new else [f"{path}: {old!r} -> {new!r}"]


def events_socket(stack: StackProcess, key: str, query: str = "") -> ClientConnection:
    return connect(
        stack.url.replace("http://", "ws://") + "/v1/events" + query,
        additional_headers={"x-api-key": key},
        open_timeout=10,
    )


def drain(ws: ClientConnection, probe: Probe, what: str) -> int:
    """Every event the socket heard, checked like an HTTP answer; how many there were."""
    heard = 0
    while True:
        try:
            message = ws.recv(timeout=1.0)
        except TimeoutError:
            return heard
        heard += 1
        probe.check(f"websocket {what}", 101, str(message))


def test_tenant_b_and_user_bob_get_nothing_of_alices(stack: StackProcess) -> None:
    a, b_api = Api(stack, A_KEY), Api(stack, B_KEY)
    b_api.remember(MALLORY, "I live in Lisbon and I play chess.")  # B has data of its own
    opened = ExitStack()
    sockets = {
        name: opened.enter_context(events_socket(stack, key, query))
        for name, key, query in (
            ("B", B_KEY, ""),
            ("B ?user_id=alice", B_KEY, f"?user_id={ALICE}"),
            ("B subscribed to alice", B_KEY, ""),
            ("A ?user_id=bob", A_KEY, f"?user_id={BOB}"),
        )
    }
    sockets["B subscribed to alice"].send(json.dumps({"action": "subscribe", "user_id": ALICE}))
    build_victim(a)
    before = victim_data(a)
    b = Probe(stack.url, B_KEY, alice_secrets())
    bob_probe = Probe(stack.url, A_KEY, alice_secrets() - {VICTIM["attachment_id"], *VICTIM["cursors"].values()})
    try:
        heard = {}
        for name, ws in sockets.items():
            b.tried += 1  # the connection itself
            heard[name] = drain(ws, bob_probe if name.startswith("A") else b, name)
        opened.close()
        assert heard["A ?user_id=bob"] >= 3, heard  # the sockets were live: bob's own task was heard
        b.each(cross_tenant_requests())
        b.each(cursor_requests(), with_spellings=False)
        bob_probe.each(user_level_requests())
        for key in ("", "not-a-key", A_KEY[:-1], A_KEY.upper(), f"{B_KEY},{A_KEY[:-1]}", "egm_0000000000000000_x"):
            b.send("GET", "/v1/memories", params={"user_id": ALICE}, headers=[("x-api-key", key)])
        # B's writes aimed at A's user: they touch B's own tenant only.
        b.send("POST", "/v1/maintenance", body={"actions": ["dedupe", "prune"], "user_id": ALICE})
        deleted = b.send("DELETE", "/v1/memories", params={"user_id": ALICE})
        assert deleted.status_code == 202, deleted.text
        b_api.wait(deleted.json()["task_id"])
        after = victim_data(a)
        # Queue figures are counts, which no marker can catch: B's may count B's own two tasks only.
        figures = b.send("GET", "/v1/metrics/extraction-queue", params={"window": "day"}).json()
        counted = sum(figures[k] for k in ("pending", "processing", "completed", "failed"))
        if counted > 2:
            b.leaks.append(f"B's queue figures count {counted} tasks; B queued 2: {figures}")
    finally:
        b.close()
        bob_probe.close()

    # Reading a memory counts as a use: the "before" snapshot's own reads add exactly one each, and
    # any read by B or by a query for bob would add more.
    for memory in after["memories"] + after["each"]:
        memory["access_count"] -= 1
    for memory in before["memories"] + before["each"] + after["memories"] + after["each"]:
        memory.pop("last_accessed_at")
    changes = [k for k in before if before[k] != after[k]]
    tried = b.tried + bob_probe.tried
    record(
        "cross-tenant and cross-user attacks",
        requests_tried=tried,
        server_errors=b.server_errors + bob_probe.server_errors,
        leaks=len(b.leaks) + len(bob_probe.leaks) + len(changes),
    )
    assert tried >= 1000
    assert b.errors + bob_probe.errors == []
    assert b.leaks + bob_probe.leaks == []
    assert changes == [], [difference(before[k], after[k], k) for k in changes]


def test_no_key_or_secret_in_any_log_line(stack: StackProcess) -> None:
    """Adds, searches, 4xx of every kind, refused keys (after the attacks when on the same stack)."""
    a = Api(stack, A_KEY)
    a.remember(f"logs-{TAG}", "I live in Tromso.")
    assert (
        a.request("POST", "/v1/memories/search", json={"user_id": f"logs-{TAG}", "query": "x", "top_k": 0}).status_code
        == 422
    )
    Api(stack, "wrong-key-in-a-header").request("GET", "/v1/users")
    Api(stack, None).request("GET", "/v1/users", params={"api_key": A_KEY})  # a key where none belongs
    with connect(stack.url.replace("http://", "ws://") + f"/v1/events?api_key={A_KEY}", open_timeout=10) as ws:
        ws.send(json.dumps({"action": "subscribe"}))
        assert json.loads(ws.recv(timeout=10))["type"] == "subscribed"
    lines = stack.log_path.read_text(errors="replace").splitlines()
    wanted = {"API key A": A_KEY, "API key B": B_KEY, "wrong key": "wrong-key-in-a-header", "secret": SECRET}
    hits = [f"{name}: {line[:200]}" for line in lines for name, value in wanted.items() if value in line]

    record("secrets in the stack's log", log_lines=len(lines), hits=len(hits))
    # The requests were logged (this test's own, whichever worker ran the attacks), just not their keys.
    assert any("/v1/memories/search" in line for line in lines)
    assert any("/v1/users" in line and "api_key" in line for line in lines)
    assert hits == []
