"""AgentCore Memory's data plane through the real boto3 client against the local stack: every
operation, pagination, filters and errors; every answer checked against botocore's output shape."""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import boto3
import pytest
from botocore import UNSIGNED
from botocore.config import Config
from botocore.exceptions import ClientError

from engram.agentcore.ids import memory_id_of
from tests.e2e.conftest import ACME_KEY, API_KEYS
from tests.e2e.stack_process import Api, StackProcess
from tests.support.agentcore_shapes import shape_errors

pytestmark = pytest.mark.e2e

ACME = ("AKIAENGRAMACME000001", "acme/secret+key/0000000000000000000000")
GLOBEX = ("AKIAENGRAMGLOBEX0001", "globex/secret+key/000000000000000000000")
KEYS = f"{ACME[0]}:{ACME[1]}:acme,{GLOBEX[0]}:{GLOBEX[1]}:globex"
MEMORY = memory_id_of("acme")
POLL_S = 0.2


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[StackProcess]:
    data_dir: Path = tmp_path_factory.mktemp("agentcore") / "data"
    process = StackProcess(data_dir, API_KEYS, env={"ENGRAM_AGENTCORE_KEYS": KEYS}).start()
    yield process
    code = process.stop()
    assert code in (0, None), f"the stack exited with {code} on SIGTERM:\n{process.log_tail()}"


def agentcore(stack: StackProcess, key: tuple[str, str] = ACME, **config: Any) -> Any:
    client = boto3.client(
        "bedrock-agentcore",
        endpoint_url=stack.url,
        region_name="us-east-1",
        aws_access_key_id=key[0],
        aws_secret_access_key=key[1],
        config=Config(retries={"max_attempts": 1}, **config),
    )
    client.meta.events.register("after-call.bedrock-agentcore", _check_shape)
    return client


def _check_shape(http_response: Any, model: Any, **_: Any) -> None:
    """Every successful answer, as sent, against the operation's output shape."""
    if http_response.status_code >= 300 or model.output_shape is None:
        return
    body = json.loads(http_response.content or b"{}")
    errors = shape_errors(model.output_shape, body)
    assert not errors, f"{model.name}: {errors}"
    assert http_response.status_code == model.http.get("responseCode", 200), model.name


@pytest.fixture(scope="module")
def client(stack: StackProcess) -> Any:
    return agentcore(stack)


def actor() -> str:
    return f"user-{uuid.uuid4().hex[:8]}"


def say(client: Any, who: str, session: str, *turns: tuple[str, str], **extra: Any) -> dict[str, Any]:
    payload = [{"conversational": {"content": {"text": text}, "role": role}} for text, role in turns]
    when = extra.pop("eventTimestamp", datetime.now(UTC))
    reply = client.create_event(
        memoryId=MEMORY, actorId=who, sessionId=session, eventTimestamp=when, payload=payload, **extra
    )
    event: dict[str, Any] = reply["event"]
    return event


def until(check: Any, timeout_s: float = 60) -> Any:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        found = check()
        if found:
            return found
        time.sleep(POLL_S)
    raise AssertionError(f"nothing after {timeout_s} s")


def error_of(call: Any, **params: Any) -> ClientError:
    with pytest.raises(ClientError) as caught:
        call(**params)
    return caught.value


# --- events ------------------------------------------------------------------------------------------


def test_an_event_is_kept_as_sent_and_read_back_then_deleted(client: Any) -> None:
    who = actor()
    said = datetime(2026, 3, 1, 9, 30, tzinfo=UTC)
    event = say(
        client,
        who,
        "s1",
        ("I moved to Lisbon last week", "USER"),
        ("Lisbon is lovely", "ASSISTANT"),
        eventTimestamp=said,
        metadata={"channel": {"stringValue": "web"}},
    )
    assert (event["memoryId"], event["actorId"], event["sessionId"]) == (MEMORY, who, "s1")
    assert event["eventTimestamp"] == said  # the event time the client gave, not when it was stored
    keys = {"memoryId": MEMORY, "actorId": who, "sessionId": "s1", "eventId": event["eventId"]}
    got = client.get_event(**keys)["event"]
    assert got["payload"] == event["payload"]
    assert got["payload"][0]["conversational"] == {"content": {"text": "I moved to Lisbon last week"}, "role": "USER"}
    assert got["metadata"] == {"channel": {"stringValue": "web"}}

    assert client.delete_event(**keys)["eventId"] == event["eventId"]
    assert error_of(client.get_event, **keys).response["Error"]["Code"] == "ResourceNotFoundException"
    assert error_of(client.delete_event, **keys).response["Error"]["Code"] == "ResourceNotFoundException"


def test_an_event_sent_again_with_its_client_token_is_made_once(client: Any) -> None:
    who, when = actor(), datetime.now(UTC)
    sent = {"eventTimestamp": when, "extractionMode": "SKIP"}  # a retry sends the same request again
    first = say(client, who, "retry", ("hello", "USER"), clientToken="token-1", **sent)
    again = say(client, who, "retry", ("hello", "USER"), clientToken="token-1", **sent)
    other = say(client, who, "retry", ("hello", "USER"), clientToken="token-2", **sent)
    assert again["eventId"] == first["eventId"] != other["eventId"]
    listed = client.list_events(memoryId=MEMORY, actorId=who, sessionId="retry")["events"]
    assert sorted(e["eventId"] for e in listed) == sorted([first["eventId"], other["eventId"]])


def test_list_events_pages_newest_first_and_filters_metadata_and_branches(client: Any) -> None:
    who = actor()
    start = datetime(2026, 1, 1, tzinfo=UTC)
    made = [
        say(
            client,
            who,
            "paged",
            (f"turn {n}", "USER"),
            eventTimestamp=start + timedelta(minutes=n),
            metadata={"parity": {"stringValue": "even" if n % 2 == 0 else "odd"}},
            extractionMode="SKIP",
        )
        for n in range(5)
    ]
    keys = {"memoryId": MEMORY, "actorId": who, "sessionId": "paged"}
    seen: list[str] = []
    token: str | None = None
    pages = 0
    while True:
        reply = client.list_events(**keys, maxResults=2, **({"nextToken": token} if token else {}))
        assert len(reply["events"]) <= 2
        seen += [e["eventId"] for e in reply["events"]]
        pages += 1
        token = reply.get("nextToken")
        if not token:
            break
    assert seen == [e["eventId"] for e in reversed(made)]  # newest event time first, each once
    assert pages == 3

    even = {
        "left": {"metadataKey": "parity"},
        "operator": "EQUALS_TO",
        "right": {"metadataValue": {"stringValue": "even"}},
    }
    reply = client.list_events(**keys, filter={"eventMetadata": [even]})
    assert [e["eventId"] for e in reply["events"]] == [made[4]["eventId"], made[2]["eventId"], made[0]["eventId"]]
    missing = {"left": {"metadataKey": "parity"}, "operator": "NOT_EXISTS"}
    assert client.list_events(**keys, filter={"eventMetadata": [missing]})["events"] == []

    no_payload = client.list_events(**keys, includePayloads=False, maxResults=1)["events"][0]
    assert no_payload["payload"] == []

    # A branch from the second event: its own events, and with the parent's up to its root.
    fork = say(
        client,
        who,
        "paged",
        ("actually, turn 2 differently", "USER"),
        eventTimestamp=start + timedelta(minutes=10),
        branch={"name": "retry", "rootEventId": made[1]["eventId"]},
        extractionMode="SKIP",
    )
    own = client.list_events(**keys, filter={"branch": {"name": "retry"}})["events"]
    assert [e["eventId"] for e in own] == [fork["eventId"]]
    assert own[0]["branch"] == {"name": "retry", "rootEventId": made[1]["eventId"]}
    with_parent = client.list_events(**keys, filter={"branch": {"name": "retry", "includeParentBranches": True}})
    assert [e["eventId"] for e in with_parent["events"]] == [fork["eventId"], made[1]["eventId"], made[0]["eventId"]]


def test_sessions_and_actors_are_listed_and_paged(client: Any) -> None:
    who = actor()
    for session in ("alpha", "beta", "gamma"):
        say(client, who, session, ("hello", "USER"), extractionMode="SKIP")
    names: list[str] = []
    token: str | None = None
    while True:
        reply = client.list_sessions(
            memoryId=MEMORY, actorId=who, maxResults=2, **({"nextToken": token} if token else {})
        )
        names += [s["sessionId"] for s in reply["sessionSummaries"]]
        assert all(s["actorId"] == who for s in reply["sessionSummaries"])
        token = reply.get("nextToken")
        if not token:
            break
    assert names == ["alpha", "beta", "gamma"]

    actors: list[str] = []
    token = None
    while True:
        reply = client.list_actors(memoryId=MEMORY, maxResults=1, **({"nextToken": token} if token else {}))
        assert len(reply["actorSummaries"]) <= 1
        actors += [a["actorId"] for a in reply["actorSummaries"]]
        token = reply.get("nextToken")
        if not token:
            break
    assert who in actors and len(actors) == len(set(actors))


# --- memory records ----------------------------------------------------------------------------------


def test_an_event_becomes_memory_records_that_retrieve_get_list_and_delete(client: Any) -> None:
    who = actor()
    said = datetime.now(UTC) - timedelta(days=2)
    say(client, who, "onboarding", ("My name is Priya and I live in Lyon.", "USER"), eventTimestamp=said)
    namespace = f"/strategies/semantic/actors/{who}/"

    def found() -> list[dict[str, Any]]:
        reply = client.retrieve_memory_records(
            memoryId=MEMORY, namespace=namespace, searchCriteria={"searchQuery": "where does she live", "topK": 5}
        )
        return [r for r in reply["memoryRecordSummaries"] if "Lyon" in r["content"]["text"]]

    record = until(found)[0]
    assert record["namespaces"] == [namespace] and record["memoryStrategyId"] == "semantic"
    assert isinstance(record["score"], float)
    assert abs(record["timestamp"] - said) < timedelta(seconds=1)  # the event time: valid from then

    got = client.get_memory_record(memoryId=MEMORY, memoryRecordId=record["memoryRecordId"])["memoryRecord"]
    assert got["content"] == record["content"]

    # The actor's semantic records by namespace path (a prefix): both facts the turn stated.
    listed = client.list_memory_records(memoryId=MEMORY, namespacePath=f"/strategies/semantic/actors/{who}")
    texts = {r["content"]["text"] for r in listed["memoryRecordSummaries"]}
    assert {"Lives in Lyon", "Name is Priya"} <= texts
    other = client.list_memory_records(memoryId=MEMORY, namespacePath=f"/strategies/semantic/actors/{who}x/")
    assert other["memoryRecordSummaries"] == []

    client.delete_memory_record(memoryId=MEMORY, memoryRecordId=record["memoryRecordId"])
    gone = error_of(client.get_memory_record, memoryId=MEMORY, memoryRecordId=record["memoryRecordId"])
    assert gone.response["Error"]["Code"] == "ResourceNotFoundException"


def test_the_speaker_metadata_says_who_said_an_events_turns(stack: StackProcess, client: Any) -> None:
    """AgentCore's payload has a role but no name: the `speaker` metadata names the USER turns, and the
    memories read from them say so (in Engram's API, and filterable as records)."""
    who = actor()
    named = {"speaker": {"stringValue": "Caroline"}}
    say(
        client, who, "team", ("I adopted a puppy named Max.", "USER"), ("Congratulations!", "ASSISTANT"), metadata=named
    )
    say(client, who, "team", ("I started pottery classes.", "USER"))
    api = Api(stack, ACME_KEY)

    def both() -> list[Any]:
        kept = api.memories(who)
        texts = " ".join(m["memory"] for m in kept)
        return kept if "puppy" in texts and "pottery" in texts else []

    by_text = {m["memory"]: m["source"] or {} for m in until(both)}
    assert {s.get("name") for t, s in by_text.items() if "puppy" in t} == {"Caroline"}
    assert {s.get("name") for t, s in by_text.items() if "pottery" in t} == {None}
    assert {s.get("name") for t, s in by_text.items() if "Congratulations" in t} <= {None}  # the assistant is not her

    hers = {"left": {"metadataKey": "speaker"}, "operator": "EQUALS_TO", "right": {"metadataValue": named["speaker"]}}
    texts = {
        r["content"]["text"]
        for strategy in ("semantic", "episodic")
        for r in client.list_memory_records(
            memoryId=MEMORY, namespacePath=f"/strategies/{strategy}/actors/{who}/", metadataFilters=[hers]
        )["memoryRecordSummaries"]
    }  # the metadata is the event's: the records of her event, the assistant's turn kept as said included
    assert any("puppy" in t for t in texts) and not any("pottery" in t for t in texts)


def test_records_are_batch_created_filtered_updated_and_deleted(client: Any) -> None:
    who = actor()
    namespace = f"/strategies/preferences/actors/{who}/"
    records = [
        {
            "requestIdentifier": f"r{n}",
            "namespaces": [namespace],
            "content": {"text": text},
            "timestamp": datetime(2026, 2, 1, tzinfo=UTC),
            "metadata": {"topic": {"stringValue": topic}, "weight": {"numberValue": float(n)}},
        }
        for n, (text, topic) in enumerate([("Prefers green tea", "drink"), ("Likes hiking on weekends", "sport")])
    ]
    created = client.batch_create_memory_records(memoryId=MEMORY, records=records)
    assert created["failedRecords"] == []
    ids = {r["requestIdentifier"]: r["memoryRecordId"] for r in created["successfulRecords"]}
    assert set(ids) == {"r0", "r1"}

    drink = {
        "left": {"metadataKey": "topic"},
        "operator": "EQUALS_TO",
        "right": {"metadataValue": {"stringValue": "drink"}},
    }
    hits = client.retrieve_memory_records(
        memoryId=MEMORY, namespace=namespace, searchCriteria={"searchQuery": "tea", "metadataFilters": [drink]}
    )["memoryRecordSummaries"]
    assert [h["memoryRecordId"] for h in hits] == [ids["r0"]]
    heavy = {
        "left": {"metadataKey": "weight"},
        "operator": "GREATER_THAN",
        "right": {"metadataValue": {"numberValue": 0.5}},
    }
    listed = client.list_memory_records(memoryId=MEMORY, namespace=namespace, metadataFilters=[heavy])
    assert [r["memoryRecordId"] for r in listed["memoryRecordSummaries"]] == [ids["r1"]]

    page = client.list_memory_records(memoryId=MEMORY, namespace=namespace, maxResults=1)
    assert len(page["memoryRecordSummaries"]) == 1 and page["nextToken"]
    rest = client.list_memory_records(memoryId=MEMORY, namespace=namespace, maxResults=1, nextToken=page["nextToken"])
    both = {r["memoryRecordId"] for r in page["memoryRecordSummaries"] + rest["memoryRecordSummaries"]}
    assert both == set(ids.values())

    updated = client.batch_update_memory_records(
        memoryId=MEMORY,
        records=[
            {"memoryRecordId": ids["r0"], "timestamp": datetime.now(UTC), "content": {"text": "Prefers oolong tea"}}
        ],
    )
    assert [r["memoryRecordId"] for r in updated["successfulRecords"]] == [ids["r0"]]
    assert client.get_memory_record(memoryId=MEMORY, memoryRecordId=ids["r0"])["memoryRecord"]["content"]["text"] == (
        "Prefers oolong tea"
    )

    unknown = "mem-" + str(uuid.uuid4())
    deleted = client.batch_delete_memory_records(
        memoryId=MEMORY, records=[{"memoryRecordId": ids["r1"]}, {"memoryRecordId": unknown}]
    )
    assert [r["memoryRecordId"] for r in deleted["successfulRecords"]] == [ids["r1"]]
    assert [(r["memoryRecordId"], r["status"], r["errorCode"]) for r in deleted["failedRecords"]] == [
        (unknown, "FAILED", 404)
    ]


def test_ingested_data_goes_through_the_pipeline(client: Any) -> None:
    who = actor()
    reply = client.ingest_data(
        memoryId=MEMORY,
        actorId=who,
        sessionId="import-1",
        contentTimestamp=datetime(2026, 1, 5, tzinfo=UTC),
        source={
            "inline": {"payload": [{"conversational": {"content": {"text": "I work at Initech."}, "role": "USER"}}]}
        },
    )
    assert reply["sessionId"] == "import-1"

    def listed() -> list[dict[str, Any]]:
        page = client.list_memory_records(memoryId=MEMORY, namespace=f"/strategies/semantic/actors/{who}/")
        return list(page["memoryRecordSummaries"])

    record = until(listed)[0]
    assert "Initech" in record["content"]["text"]
    assert record["timestamp"] == datetime(2026, 1, 5, tzinfo=UTC)  # the content's time, not the ingest's
    # No event is kept for ingested content (AgentCore's IngestData feeds extraction only).
    events = client.list_events(memoryId=MEMORY, actorId=who, sessionId="import-1")["events"]
    assert events == []


# --- errors ------------------------------------------------------------------------------------------


def test_an_unknown_memory_is_not_found(client: Any) -> None:
    for memory in ("engram-0000000000", memory_id_of("globex")):  # nobody's; another tenant's
        err = error_of(client.list_actors, memoryId=memory)
        assert err.response["Error"]["Code"] == "ResourceNotFoundException"
        assert err.response["ResponseMetadata"]["HTTPStatusCode"] == 404


def test_a_bad_field_is_a_validation_exception_naming_it(client: Any) -> None:
    err = error_of(
        client.create_event,
        memoryId=MEMORY,
        actorId="has space",
        sessionId="s",
        eventTimestamp=datetime.now(UTC),
        payload=[{"conversational": {"content": {"text": "hi"}, "role": "USER"}}],
    )
    assert err.response["Error"]["Code"] == "ValidationException"
    assert err.response["ResponseMetadata"]["HTTPStatusCode"] == 400
    assert err.response["reason"] == "FieldValidationFailed"
    assert [f["name"] for f in err.response["fieldList"]] == ["actorId"]

    bad_namespace = error_of(
        client.retrieve_memory_records,
        memoryId=MEMORY,
        namespace="/support/facts/",
        searchCriteria={"searchQuery": "x"},
    )
    assert bad_namespace.response["Error"]["Code"] == "ValidationException"
    assert [f["name"] for f in bad_namespace.response["fieldList"]] == ["namespace"]

    bad_token = error_of(client.list_sessions, memoryId=MEMORY, actorId="someone", nextToken="not-a-token")
    assert [f["name"] for f in bad_token.response["fieldList"]] == ["nextToken"]


def test_a_wrong_secret_or_no_signature_is_access_denied(stack: StackProcess) -> None:
    for client in (
        agentcore(stack, (ACME[0], "not-the-secret")),
        agentcore(stack, ("AKIAUNKNOWN000000000", ACME[1])),
        agentcore(stack, signature_version=UNSIGNED),
    ):
        err = error_of(client.list_actors, memoryId=MEMORY)
        assert err.response["Error"]["Code"] == "AccessDeniedException"
        assert err.response["ResponseMetadata"]["HTTPStatusCode"] == 403


def test_a_tenant_sees_only_its_own_memory(stack: StackProcess, client: Any) -> None:
    who = actor()
    event = say(client, who, "private", ("secret plans", "USER"), extractionMode="SKIP")
    globex = agentcore(stack, GLOBEX)
    keys = {"actorId": who, "sessionId": "private", "eventId": event["eventId"]}
    # globex with acme's memory id: not found; with its own: no such event.
    assert error_of(globex.get_event, memoryId=MEMORY, **keys).response["Error"]["Code"] == "ResourceNotFoundException"
    own = memory_id_of("globex")
    assert error_of(globex.get_event, memoryId=own, **keys).response["Error"]["Code"] == "ResourceNotFoundException"
    assert globex.list_sessions(memoryId=own, actorId=who)["sessionSummaries"] == []


# --- the bedrock-agentcore SDK ------------------------------------------------------------------------


@pytest.fixture
def sdk_session(stack: StackProcess, monkeypatch: pytest.MonkeyPatch) -> boto3.Session:
    """What a user of the SDK changes: the endpoint (botocore's per-service variable) and the keys."""
    monkeypatch.setenv("AWS_ENDPOINT_URL_BEDROCK_AGENTCORE", stack.url)
    return boto3.Session(aws_access_key_id=ACME[0], aws_secret_access_key=ACME[1], region_name="us-east-1")


def test_the_sdks_quickstart_runs_unchanged(sdk_session: boto3.Session) -> None:
    """The bedrock-agentcore README's quick start: a session manager, turns, a long-term search."""
    from bedrock_agentcore.memory import MemorySessionManager
    from bedrock_agentcore.memory.constants import ConversationalMessage, MessageRole

    who = actor()
    manager = MemorySessionManager(memory_id=MEMORY, region_name="us-east-1", boto3_session=sdk_session)
    session = manager.create_memory_session(actor_id=who, session_id="session-456")
    session.add_turns(
        [
            ConversationalMessage("I love eating apples and cherries", MessageRole.USER),
            ConversationalMessage("Apples are very good for you!", MessageRole.ASSISTANT),
        ]
    )

    def memories() -> list[Any]:
        found = session.search_long_term_memories(
            query="what food does the user like", namespace_path=f"/strategies/preferences/actors/{who}/", top_k=5
        )
        return [m for m in found if "apples" in m["content"]["text"].lower()]

    assert until(memories)
    turns = session.get_last_k_turns(k=1)
    assert [m["content"]["text"] for m in turns[0]] == [
        "I love eating apples and cherries",
        "Apples are very good for you!",
    ]
    assert [s["sessionId"] for s in manager.list_actor_sessions(actor_id=who)] == ["session-456"]
    assert who in [a["actorId"] for a in manager.list_actors()]


def test_the_legacy_memory_client_creates_retrieves_and_lists(sdk_session: boto3.Session) -> None:
    """MemoryClient: create an event, wait for extraction, retrieve, list events and sessions."""
    from bedrock_agentcore.memory import MemoryClient

    who = actor()
    client = MemoryClient(region_name="us-east-1", boto3_session=sdk_session)
    event = client.create_event(
        memory_id=MEMORY, actor_id=who, session_id="weather", messages=[("I live in Oslo and I hate the rain.", "USER")]
    )
    assert event["eventId"]
    namespace = f"/strategies/semantic/actors/{who}/"
    assert client.wait_for_memories(
        memory_id=MEMORY, namespace=namespace, test_query="where", max_wait=60, poll_interval=1
    )
    found = client.retrieve_memories(memory_id=MEMORY, namespace=namespace, query="where does the user live", top_k=3)
    assert any("Oslo" in m["content"]["text"] for m in found)
    events = client.list_events(memory_id=MEMORY, actor_id=who, session_id="weather")
    assert [e["eventId"] for e in events] == [event["eventId"]]
    sessions = client.list_sessions(memoryId=MEMORY, actorId=who)["sessionSummaries"]
    assert [s["sessionId"] for s in sessions] == ["weather"]


def test_a_client_signing_for_api_gateway_as_on_aws_works_too(stack: StackProcess) -> None:
    """docs/agentcore.md's line for a deployed stack (API Gateway checks `execute-api` signatures); the
    local stack takes both signing names, so the same client runs here and there."""
    client = agentcore(stack)
    client.meta.events.register(
        "before-sign.bedrock-agentcore",
        lambda request, **_: request.context.setdefault("signing", {}).update(signing_name="execute-api"),
    )
    scopes: list[str] = []
    client.meta.events.register(
        "before-send.bedrock-agentcore",
        lambda request, **_: scopes.append(request.headers["Authorization"].decode().split("/")[3]),
    )
    assert "actorSummaries" in client.list_actors(memoryId=MEMORY)
    assert scopes == ["execute-api"]


def test_extraction_jobs_are_listed_per_session_and_an_unknown_one_is_not_found(client: Any) -> None:
    who = actor()
    say(client, who, "jobs", ("I live in Porto.", "USER"))
    filters = {"actorId": who, "sessionId": "jobs"}
    assert client.list_memory_extraction_jobs(memoryId=MEMORY, filter=filters)["jobs"] == []  # none failed
    unfiltered = error_of(client.list_memory_extraction_jobs, memoryId=MEMORY)
    assert [f["name"] for f in unfiltered.response["fieldList"]] == ["filter"]
    unknown = error_of(client.start_memory_extraction_job, memoryId=MEMORY, extractionJob={"jobId": "no-such-job"})
    assert unknown.response["Error"]["Code"] == "ResourceNotFoundException"


def test_a_retrieval_counts_as_a_search_in_the_tenants_usage(stack: StackProcess, client: Any) -> None:
    def searches() -> int:
        resp = Api(stack, ACME_KEY).request("GET", "/v1/usage")
        assert resp.status_code == 200, resp.text
        return int(resp.json()["totals"]["searches"])

    before = searches()
    for _ in range(2):
        client.retrieve_memory_records(
            memoryId=MEMORY, namespace=f"/strategies/semantic/actors/{actor()}/", searchCriteria={"searchQuery": "x"}
        )
    assert searches() == before + 2
