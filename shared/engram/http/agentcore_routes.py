"""AgentCore Memory's data plane (botocore's `bedrock-agentcore` request URIs, at the root beside /v1):
HTTP glue only. The caller's tenant comes from the SigV4 signature (domain/agentcore.py Callers); errors are
AgentCore's (http/errors.py); the domain is engram.agentcore."""

from __future__ import annotations

from typing import Annotated, Any

from aws_lambda_powertools.event_handler import Response, content_types
from aws_lambda_powertools.event_handler.api_gateway import Router
from aws_lambda_powertools.event_handler.openapi.params import Path, Query

from engram import bootstrap
from engram.agentcore.ids import parse_namespace
from engram.agentcore.service import AgentCoreService, NewEvent, NewRecord, RecordOutcome
from engram.domain.errors import ValidationError
from engram.http.agentcore_models import (
    ACTOR_PATTERN,
    SESSION_PATTERN,
    BatchCreateBody,
    BatchDeleteBody,
    BatchUpdateBody,
    CreateEventBody,
    IngestBody,
    ListEventsBody,
    ListJobsBody,
    ListRecordsBody,
    PageBody,
    RetrieveBody,
    StartJobBody,
    event_view,
    job_view,
    record_view,
)

router = Router()  # type: ignore[no-untyped-call]  # Powertools leaves __init__ unannotated
# Parameters are named as the URIs label them (memoryId, ...): Powertools passes them by name.

Actor = Annotated[str, Path(min_length=1, max_length=255, pattern=ACTOR_PATTERN)]
Session = Annotated[str, Path(min_length=1, max_length=100, pattern=SESSION_PATTERN)]
Namespace = Annotated[str | None, Query(max_length=1024)]
HIDDEN: dict[str, Any] = {"include_in_schema": False}  # botocore's service model documents these, not /openapi.json


def tenant() -> str:
    """Locally the key pair that signed the request (ENGRAM_AGENTCORE_KEYS); on AWS the IAM principal
    API Gateway verified (ENGRAM_AGENTCORE_PRINCIPALS)."""
    return bootstrap.container().agentcore_callers.tenant(router.current_event.raw_event)


def agentcore() -> AgentCoreService:
    return bootstrap.container().agentcore


def answer(status: int, body: dict[str, Any]) -> Response[Any]:
    return Response(status, content_types.APPLICATION_JSON, body)


def outcomes(done: list[RecordOutcome]) -> dict[str, Any]:
    def view(o: RecordOutcome) -> dict[str, Any]:
        shown: dict[str, Any] = {"memoryRecordId": o.record_id, "status": "FAILED" if o.error_code else "SUCCEEDED"}
        extra = {"requestIdentifier": o.request_identifier, "errorCode": o.error_code, "errorMessage": o.error_message}
        return shown | {k: v for k, v in extra.items() if v is not None}

    return {
        "successfulRecords": [view(o) for o in done if not o.error_code],
        "failedRecords": [view(o) for o in done if o.error_code],
    }


# --- events ----------------------------------------------------------------------------------------


@router.post("/memories/<memoryId>/events", **HIDDEN)
def create_event(memoryId: str, body: CreateEventBody) -> Response[Any]:
    new = NewEvent(
        actor_id=body.actorId,
        session_id=body.sessionId or body.actorId.replace(":", "-"),
        event_timestamp=body.eventTimestamp,
        payload=[p.as_sent() for p in body.payload],
        branch=body.branch.model_dump(exclude_none=True) if body.branch else None,
        metadata=body.metadata_strings(),
        extract=body.extractionMode != "SKIP",
        client_token=body.clientToken,
    )
    event = agentcore().create_event(tenant(), memoryId, new)
    return answer(201, {"event": event_view(memoryId, event)})


# Powertools' path parameters take no "#", which every event id holds: the id is read as its two halves.
@router.get("/memories/<memoryId>/actor/<actorId>/sessions/<sessionId>/events/<eventTime>#<eventHash>", **HIDDEN)
def get_event(memoryId: str, actorId: Actor, sessionId: Session, eventTime: str, eventHash: str) -> Response[Any]:
    event = agentcore().get_event(tenant(), memoryId, actorId, sessionId, f"{eventTime}#{eventHash}")
    return answer(200, {"event": event_view(memoryId, event)})


@router.delete("/memories/<memoryId>/actor/<actorId>/sessions/<sessionId>/events/<eventTime>#<eventHash>", **HIDDEN)
def delete_event(memoryId: str, actorId: Actor, sessionId: Session, eventTime: str, eventHash: str) -> Response[Any]:
    event_id = f"{eventTime}#{eventHash}"
    agentcore().delete_event(tenant(), memoryId, actorId, sessionId, event_id)
    return answer(200, {"eventId": event_id})


@router.post("/memories/<memoryId>/actor/<actorId>/sessions/<sessionId>", **HIDDEN)
def list_events(memoryId: str, actorId: Actor, sessionId: Session, body: ListEventsBody) -> Response[Any]:
    page = agentcore().list_events(
        tenant(), memoryId, actorId, sessionId, body.branch(), body.filters(), body.maxResults, body.nextToken
    )
    events = [event_view(memoryId, e, body.includePayloads) for e in page.items]
    return answer(200, {"events": events} | ({"nextToken": page.next_token} if page.next_token else {}))


@router.post("/memories/<memoryId>/actor/<actorId>/sessions", **HIDDEN)
def list_sessions(memoryId: str, actorId: Actor, body: PageBody) -> Response[Any]:
    page = agentcore().list_sessions(tenant(), memoryId, actorId, body.maxResults, body.nextToken)
    sessions = [{"sessionId": s, "actorId": actorId, "createdAt": at.timestamp()} for s, at in page.items]
    return answer(200, {"sessionSummaries": sessions} | ({"nextToken": page.next_token} if page.next_token else {}))


@router.post("/memories/<memoryId>/actors", **HIDDEN)
def list_actors(memoryId: str, body: PageBody) -> Response[Any]:
    page = agentcore().list_actors(tenant(), memoryId, body.maxResults, body.nextToken)
    actors = [{"actorId": u.user_id} for u in page.items]
    return answer(200, {"actorSummaries": actors} | ({"nextToken": page.next_cursor} if page.next_cursor else {}))


@router.post("/memories/<memoryId>/ingest", **HIDDEN)
def ingest_data(memoryId: str, body: IngestBody) -> Response[Any]:
    session = body.sessionId or body.actorId.replace(":", "-")
    metadata = {k: v.stringValue for k, v in body.metadata.items()}
    agentcore().ingest(tenant(), memoryId, body.actorId, session, body.turns(), body.contentTimestamp, metadata)
    return answer(202, {"sessionId": session})


@router.post("/memories/<memoryId>/extractionJobs", **HIDDEN)
def list_memory_extraction_jobs(memoryId: str, body: ListJobsBody) -> Response[Any]:
    actor, session = _checked(body.session, "filter")
    jobs, token = agentcore().failed_extractions(tenant(), memoryId, actor, session, body.maxResults, body.nextToken)
    return answer(200, {"jobs": [job_view(e, t) for e, t in jobs]} | ({"nextToken": token} if token else {}))


@router.post("/memories/<memoryId>/extractionJobs/start", **HIDDEN)
def start_memory_extraction_job(memoryId: str, body: StartJobBody) -> Response[Any]:
    job = agentcore().retry_extraction(tenant(), memoryId, body.extractionJob.jobId)
    return answer(200, {"jobId": job})


# --- memory records ----------------------------------------------------------------------------------


@router.post("/memories/<memoryId>/retrieve", **HIDDEN)
def retrieve_memory_records(memoryId: str, body: RetrieveBody) -> Response[Any]:
    text, exact, field = _chosen(body.chosen)
    criteria = body.searchCriteria
    filters = [f.as_filter() for f in criteria.metadataFilters]
    namespace = parse_namespace(text, exact, field)
    caller = tenant()
    with bootstrap.container().accounting.search(caller):  # the tenant's usage and the latency metric, as /v1's
        hits = agentcore().retrieve(caller, memoryId, namespace, criteria.searchQuery, criteria.topK, filters)
    return answer(200, {"memoryRecordSummaries": [record_view(f, s) for f, s in hits]})  # topK in one page


@router.post("/memories/<memoryId>/memoryRecords", **HIDDEN)
def list_memory_records(memoryId: str, body: ListRecordsBody) -> Response[Any]:
    text, exact, field = _chosen(body.chosen)
    filters = [f.as_filter() for f in body.metadataFilters]
    namespace = parse_namespace(text, exact, field)
    facts, token = agentcore().list_records(tenant(), memoryId, namespace, filters, body.maxResults, body.nextToken)
    return answer(
        200, {"memoryRecordSummaries": [record_view(f) for f in facts]} | ({"nextToken": token} if token else {})
    )


@router.get("/memories/<memoryId>/memoryRecord/<memoryRecordId>", **HIDDEN)
def get_memory_record(memoryId: str, memoryRecordId: str, namespace: Namespace = None) -> Response[Any]:
    fact = agentcore().get_record(tenant(), memoryId, memoryRecordId)
    return answer(200, {"memoryRecord": record_view(fact)})


@router.delete("/memories/<memoryId>/memoryRecords/<memoryRecordId>", **HIDDEN)
def delete_memory_record(memoryId: str, memoryRecordId: str, namespace: Namespace = None) -> Response[Any]:
    agentcore().delete_record(tenant(), memoryId, memoryRecordId)
    return answer(200, {"memoryRecordId": memoryRecordId})


@router.post("/memories/<memoryId>/memoryRecords/batchCreate", **HIDDEN)
def batch_create_memory_records(memoryId: str, body: BatchCreateBody) -> Response[Any]:
    records = [
        NewRecord(
            r.requestIdentifier,
            parse_namespace(r.namespaces[0], True, f"records.{i}.namespaces.0"),
            r.content.text,
            r.timestamp,
            {k: v.stored() for k, v in r.metadata.items()},
        )
        for i, r in enumerate(body.records)
    ]
    return answer(201, outcomes(agentcore().batch_create(tenant(), memoryId, records)))


@router.post("/memories/<memoryId>/memoryRecords/batchUpdate", **HIDDEN)
def batch_update_memory_records(memoryId: str, body: BatchUpdateBody) -> Response[Any]:
    updates = [(r.memoryRecordId, r.content.text if r.content else None, r.stored_metadata()) for r in body.records]
    return answer(200, outcomes(agentcore().batch_update(tenant(), memoryId, updates)))


@router.post("/memories/<memoryId>/memoryRecords/batchDelete", **HIDDEN)
def batch_delete_memory_records(memoryId: str, body: BatchDeleteBody) -> Response[Any]:
    done = agentcore().batch_delete(tenant(), memoryId, [r.memoryRecordId for r in body.records])
    return answer(200, outcomes(done))


def _chosen(choose: Any) -> tuple[str, bool, str]:
    return _checked(choose, "namespace")  # type: ignore[no-any-return]


def _checked(choose: Any, field: str) -> Any:
    """A choice among fields the model cannot express, refused naming `field`."""
    try:
        return choose()
    except ValueError as err:
        raise ValidationError(field, str(err)) from err
