"""The AgentCore recall lab's own parts: the event it sends for a LoCoMo turn (valid for botocore, and
read by Engram as the add the lab compares it with) and the merge of the per-strategy retrievals.

The turn here is made up in LoCoMo's shape; the dataset itself is never copied into the repo.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import botocore.session
import pytest
from botocore.exceptions import ParamValidationError
from botocore.validate import validate_parameters

from bench.data.locomo_data import Conversation, Turn
from bench.labs.agentcore_recall import (
    event_request,
    merge_by_score,
    namespace_paths,
    record_dia_id,
    v1_add,
)
from engram.agentcore.ids import memory_id_of
from engram.agentcore.service import AgentCoreService, NewEvent
from engram.domain.agentcore import StoredEvent
from engram.domain.models import AddRequest, Task

SAID = datetime(2023, 5, 8, 13, 56, tzinfo=UTC)
TURN = Turn(dia_id="D2:3", speaker="Caroline", text="I adopted a puppy!", session=2, said_at=SAID, caption="a dog")
CONV = Conversation("conv-x", [TURN])
MEMORY = memory_id_of("acme")


def create_event_shape() -> Any:
    model = botocore.session.get_session().get_service_model("bedrock-agentcore")
    return model.operation_model("CreateEvent").input_shape


def test_a_turn_becomes_one_user_event_of_its_session_said_at_its_time() -> None:
    request = event_request(CONV, TURN, MEMORY)

    assert request["actorId"] == "locomo-conv-x"
    assert request["sessionId"] == "session_2"
    assert request["eventTimestamp"] == SAID + timedelta(seconds=2)  # third turn of the session: 2 s on
    assert request["payload"] == [
        {
            "conversational": {
                "content": {"text": "Caroline: I adopted a puppy! [shares a photo: a dog]"},
                "role": "USER",
            }
        }
    ]
    assert request["metadata"]["dia_id"] == {"stringValue": "D2:3"}
    assert request["metadata"]["session"] == {"stringValue": "2"}
    assert request["metadata"]["speaker"] == {"stringValue": "Caroline"}  # what names the turn in Engram


def test_the_event_is_one_botocore_accepts() -> None:
    validate_parameters(event_request(CONV, TURN, MEMORY), create_event_shape())  # raises when not

    broken = event_request(CONV, TURN, MEMORY) | {"metadata": {"dia_id": "D2:3"}}
    with pytest.raises(ParamValidationError):  # the check can fail: metadata values are typed
        validate_parameters(broken, create_event_shape())


def test_a_turn_without_a_date_is_refused() -> None:
    undated = Turn(dia_id="D1:1", speaker="Mel", text="hi", session=1, said_at=None)

    with pytest.raises(ValueError, match="D1:1"):
        event_request(CONV, undated, MEMORY)


class _Submitted:
    """Stands in for MemoryService: keeps the adds CreateEvent submits."""

    def __init__(self) -> None:
        self.adds: list[AddRequest] = []

    def submit(self, tenant_id: str, request: AddRequest) -> Task:
        self.adds.append(request)
        return Task(task_id="task-1", tenant_id=tenant_id, user_id=request.user_id)


class _Events:
    def put(self, event: StoredEvent) -> None:
        self.kept = event


def test_the_named_extracted_add_is_the_add_create_event_submits() -> None:
    """The lab's `v1, extracted, name` arm must send over /v1 what Engram makes of the lab's event."""
    submitted = _Submitted()
    service = AgentCoreService(submitted, None, _Events(), None, timedelta(days=90))  # type: ignore[arg-type]
    sent = event_request(CONV, TURN, memory_id_of("acme"))
    service.create_event(
        "acme",
        sent["memoryId"],
        NewEvent(
            actor_id=sent["actorId"],
            session_id=sent["sessionId"],
            event_timestamp=sent["eventTimestamp"],
            payload=sent["payload"],
            metadata={k: v["stringValue"] for k, v in sent["metadata"].items()},
        ),
    )

    (made,) = submitted.adds
    ours = AddRequest.model_validate(v1_add(CONV, TURN, CONV.user_id, infer=True, named=True))
    assert ours.messages[0].name == "Caroline"
    made_metadata = {k: v for k, v in made.metadata.items() if k != "agentcore_event_id"}
    assert made.model_copy(update={"metadata": made_metadata}) == ours


def test_strategy_results_merge_by_score_each_record_once() -> None:
    semantic = [{"memoryRecordId": "mem-a", "score": 0.9}, {"memoryRecordId": "mem-c", "score": 0.5}]
    episodic = [
        {"memoryRecordId": "mem-b", "score": 0.7},
        {"memoryRecordId": "mem-a", "score": 0.9},
        {"memoryRecordId": "mem-d", "score": 0.5},
    ]

    merged = merge_by_score([semantic, [], episodic], top_k=3)

    assert [r["memoryRecordId"] for r in merged] == ["mem-a", "mem-b", "mem-c"]  # a tie keeps the calls' order


def test_the_retrievals_cover_every_strategy_of_the_actor() -> None:
    assert namespace_paths("locomo-conv-x") == [
        "/strategies/semantic/actors/locomo-conv-x/",
        "/strategies/preferences/actors/locomo-conv-x/",
        "/strategies/summary/actors/locomo-conv-x/",
        "/strategies/episodic/actors/locomo-conv-x/",
    ]


def test_a_record_counts_for_its_turn() -> None:
    assert record_dia_id({"metadata": {"dia_id": {"stringValue": "D2:3"}}}) == "D2:3"
    assert record_dia_id({"memoryRecordId": "mem-x"}) == "?"
