"""Property: whatever a misbehaving LLM answers, no attachment of a current memory is lost and none
ends on another user's memory."""

from __future__ import annotations

import json
import random
import re
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engram.domain.errors import LLMOutputError
from engram.domain.models import AddRequest, Attachment, AttachmentInput, MemoryPatch, Message, Scope
from engram.pipeline.ingest import IngestPipeline
from engram.pipeline.llm_extractor import LLMFactExtractor
from engram.reconcile.llm import LLMReconciler
from engram.services.memory import MemoryService
from tests.fakes import (
    HashEmbedder,
    MemoryAttachmentStore,
    MemoryBlobs,
    MemoryFactStore,
    MemoryIndex,
    MemoryQueue,
    MemoryTaskStore,
    facts_json,
)

WORDS = ["pizza", "berlin", "dog", "max", "jazz", "tea", "munich", "cat", "work", "google"]
USERS = ["alice", "bob"]


class ChaoticLLM:
    """Extraction answers from the script; reconciliation answers are random, often wrong."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.facts: list[str] = []

    def complete_json(self, system: str, user: str, schema: dict[str, Any], schema_name: str) -> Any:
        from engram.domain.steps import LLMReply

        if schema_name == "facts":
            return LLMReply(content=facts_json(*self.facts))
        rng = self.rng
        if rng.random() < 0.15:
            return LLMReply(content="{oops")
        ids = sorted(set(re.findall(r'"id": "(\d+)"', user)))
        codes = [*sorted(set(re.findall(r"\bA\d+\b", user))), "A99"]
        items = []
        for memory_id in ids:
            if rng.random() < 0.3:
                continue  # forgets a memory
            event = rng.choice(["NONE", "UPDATE", "DELETE"])
            item: dict[str, Any] = {
                "id": memory_id,
                "event": event,
                "old_memory": None,
                "text": " ".join(rng.sample(WORDS, 2)),
            }
            if rng.random() < 0.8:
                item["attachments"] = rng.sample(codes, rng.randint(0, min(2, len(codes))))
            items.append(item)
        for fact in self.facts:
            if rng.random() < 0.6:
                item = {"id": str(100 + len(items)), "event": "ADD", "text": fact, "old_memory": None}
                if rng.random() < 0.7:
                    item["attachments"] = rng.sample(codes, rng.randint(0, min(2, len(codes))))
                items.append(item)
        if rng.random() < 0.1:
            items.append({"id": "77", "event": "UPDATE", "text": "invented", "old_memory": None})
        return LLMReply(content=json.dumps({"memory": items}))


op = st.one_of(
    st.tuples(
        st.just("add"),
        st.sampled_from(USERS),
        st.lists(st.sampled_from(WORDS), min_size=1, max_size=3),
        st.integers(0, 2),
    ),
    st.tuples(st.just("patch"), st.sampled_from(USERS), st.integers(0, 9), st.integers(0, 0)),
    st.tuples(st.just("delete"), st.sampled_from(USERS), st.integers(0, 9), st.integers(0, 0)),
)


def holdings(facts: MemoryFactStore) -> dict[str, set[tuple[str, str]]]:
    held: dict[str, set[tuple[str, str]]] = {}
    for (_, _), fact in facts.current.items():
        if fact.is_current:
            for attachment_id in fact.attachment_ids:
                held.setdefault(attachment_id, set()).add((fact.user_id, fact.id))
    return held


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(ops=st.lists(op, min_size=1, max_size=12), seed=st.integers(0, 2**32 - 1))
def test_no_attachment_of_a_current_memory_is_lost(ops: list[tuple[Any, ...]], seed: int) -> None:
    rng = random.Random(seed)
    llm = ChaoticLLM(rng)
    facts, index, store, blobs = MemoryFactStore(), MemoryIndex(), MemoryAttachmentStore(), MemoryBlobs()
    pipeline = IngestPipeline(
        facts, index, HashEmbedder(), LLMFactExtractor(llm), LLMReconciler(llm), attachments=store, blobs=blobs
    )
    service = MemoryService(facts, index, HashEmbedder(), MemoryTaskStore(), MemoryQueue(), blobs)
    owner: dict[str, str] = {}
    for step, (kind, user, arg, n_attachments) in enumerate(ops):
        before = holdings(facts)
        current = [f for f in facts.list_current("acme", user, limit=1000).items]
        new: list[str] = []
        deleted_ids: set[str] = set()
        if kind == "add":
            for i in range(n_attachments):
                att = Attachment(
                    tenant_id="acme",
                    user_id=user,
                    name=f"f{step}-{i}",
                    media_type="image/png",
                    blob_key=f"k{step}-{i}",
                    stored=True,
                )
                store.create(att)
                blobs.put(att.blob_key, b"x")
                owner[att.id] = user
                new.append(att.id)
            llm.facts = [" ".join(arg)]
            request = AddRequest(
                messages=[Message(role="user", content=" ".join(arg))],
                user_id=user,
                attachments=[AttachmentInput(attachment_id=a) for a in new],
            )
            try:
                outcome = pipeline.run(Scope(tenant_id="acme", user_id=user), request, f"task-{step}")
            except LLMOutputError:
                assert holdings(facts) == before  # a failed task changes nothing
                continue
            deleted_ids = {r.id for r in outcome.results if r.event.value == "DELETE"}
        elif current:
            target = current[arg % len(current)]
            if kind == "patch":
                service.update("acme", target.id, MemoryPatch(text=f"edited {step}"))
            else:
                service.delete("acme", target.id)
                deleted_ids = {target.id}
        after = holdings(facts)
        for attachment_id, holders in before.items():
            if attachment_id not in after:
                # lost from every current memory: only allowed when all its holders were deleted
                assert {memory_id for _, memory_id in holders} <= deleted_ids, (attachment_id, holders)
        for attachment_id in new:
            placed = attachment_id in after or any(
                attachment_id in facts.get("acme", m, include_closed=True).attachment_ids for m in deleted_ids
            )
            assert placed, f"new attachment {attachment_id} was lost"
        for attachment_id, holders in after.items():
            assert {u for u, _ in holders} == {owner[attachment_id]}, "attachment on another user's memory"
