"""The benchmark's clients send only what the API reference documents, so the README's figures are what a
client following the README gets: who said a turn goes as the message's `name`, and no metadata key they
set is one Engram gives a meaning to (metadata is the client's own)."""

from __future__ import annotations

import re
from datetime import UTC, datetime
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from bench.data.locomo_data import parse_conversation
from bench.data.longmemeval_data import Session, Turn
from bench.parts import ingest_speed as http_ingest
from bench.parts import locomo_infer, locomo_recall, longmemeval
from engram.domain.models import SPEAKER_KEY, AddRequest

ENGRAM = Path(__file__).resolve().parents[3] / "shared" / "engram"
CONVERSATION = parse_conversation(
    {
        "sample_id": "conv-x",
        "conversation": {
            "speaker_a": "Ann",
            "speaker_b": "Bo",
            "session_1_date_time": "1:00 pm on 2 January, 2024",
            "session_1": [
                {"speaker": "Ann", "dia_id": "D1:1", "text": "I adopted a cat."},
                {"speaker": "Bo", "dia_id": "D1:2", "text": "Nice!", "blip_caption": "a cat"},
            ],
        },
        "qa": [{"question": "What pet did Ann adopt?", "answer": "a cat", "evidence": ["D1:1"], "category": 4}],
    }
)


def metadata_keys_engram_reads() -> set[str]:
    """Every metadata key the runtime package reads by name (a literal or the speaker key)."""
    pattern = re.compile(r"""metadata(?:\.get\(|\[)\s*["']([A-Za-z0-9_]+)["']""")
    keys = {SPEAKER_KEY}
    for path in ENGRAM.rglob("*.py"):
        keys |= set(pattern.findall(path.read_text(encoding="utf-8")))
    return keys


class CapturingEnv:
    """An EngramEnv stand-in that keeps each add request a bench client submits."""

    def __init__(self) -> None:
        self.requests: list[AddRequest] = []
        self.tenant_id = "bench"
        done = SimpleNamespace(value="completed")
        self.container = SimpleNamespace(
            memories=SimpleNamespace(submit=self._submit),
            worker=SimpleNamespace(
                process_many=lambda _t, ids: [
                    SimpleNamespace(task_id=i, status=done, results=[SimpleNamespace(id=i)], error=None) for i in ids
                ]
            ),
            facts=SimpleNamespace(list_current=lambda *_a: SimpleNamespace(items=[], next_cursor=None)),
        )

    def _submit(self, _tenant: str, request: AddRequest) -> Any:
        self.requests.append(request)
        return SimpleNamespace(task_id=str(len(self.requests)))


def client_requests() -> dict[str, list[AddRequest]]:
    sent: dict[str, list[AddRequest]] = {}
    for name, module in (("locomo_recall", locomo_recall), ("locomo_infer", locomo_infer)):
        env = CapturingEnv()
        module.ingest(env, CONVERSATION)  # type: ignore[arg-type]
        sent[name] = env.requests
    sent["ingest (HTTP)"] = [
        AddRequest.model_validate(http_ingest.add_body(CONVERSATION, t, infer, True))
        for t in CONVERSATION.turns
        for infer in (False, True)
    ]
    session = Session(
        "s1",
        datetime(2024, 1, 2, 13, tzinfo=UTC),
        (Turn("user", "I adopted a cat.", True), Turn("assistant", "Nice!", False)),
    )
    sent["longmemeval"] = [longmemeval._add(session, 1, "lme-u", {"infer": False, "deduplicate": False})]
    return sent


def test_bench_clients_name_the_speaker_and_set_no_metadata_engram_reads() -> None:
    meaningful = metadata_keys_engram_reads()
    assert SPEAKER_KEY in meaningful  # the scan finds what the runtime reads
    for client, requests in client_requests().items():
        assert requests, client
        for request in requests:
            assert not (set(request.metadata) & meaningful), (client, sorted(request.metadata))
            # Only documented request fields; AddRequest refuses others, so a round trip keeps them all.
            body = request.model_dump(exclude_unset=True)
            assert set(body) <= set(AddRequest.model_fields), client
    locomo = client_requests()["locomo_recall"]
    assert [m.name for r in locomo for m in r.messages] == ["Ann", "Bo"]
