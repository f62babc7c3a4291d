"""An import under the memory policy: the exported memories, their history and graph relations are screened
as an add's facts are (pipeline/policy_screen.py decides), so an import stores nothing the tenant's or the
user's `exclude` leaves out. `include` is not applied: an import writes memories already kept once.

A version the policy leaves out is not written; when it is a memory's last version, the memory's earlier
versions go with it (they are its history). A history event keeps its place without a text the policy
leaves out. A relation goes when its own words are left out, or when every memory it was read from is."""

from __future__ import annotations

from dataclasses import dataclass

from engram.domain.imports import ImportedMemory, ImportedRelation, ImportRequest
from engram.domain.policy import MemoryPolicy
from engram.domain.steps import CandidateFact
from engram.pipeline.policy_screen import PolicyScreen
from engram.pipeline.topic_meaning import TopicMeaning


@dataclass(frozen=True)
class ScreenedImport:
    request: ImportRequest
    left_out: int  # memory lines (versions) not written
    relations_left_out: int


def screen_import(policy: MemoryPolicy, meaning: TopicMeaning | None, request: ImportRequest) -> ScreenedImport:
    if not policy.exclude:
        return ScreenedImport(request, 0, 0)
    screen = PolicyScreen(policy.model_copy(update={"include": []}), meaning)
    kept_texts = _kept(screen, _texts(request))
    latest = request.latest_versions()
    left_out = [not _kept_whole(m, kept_texts) for m in request.memories]
    pairs = list(zip(request.memories, left_out, strict=True))
    last_left_out = {m.id for m, out in pairs if out and m.id and m.version == latest[m.id]}  # the memory itself
    memories: list[ImportedMemory] = []
    for m, out in pairs:
        if out or (m.id and m.id in last_left_out):
            continue
        history = [
            h.model_copy(
                update={
                    "old_memory": h.old_memory if h.old_memory in kept_texts else None,
                    "new_memory": h.new_memory if h.new_memory in kept_texts else None,
                }
            )
            for h in m.history
        ]
        memories.append(m.model_copy(update={"history": history}))
    dropped = {m.id for m in request.memories if m.id} - {m.id for m in memories if m.id}  # no version left
    relations = [
        r
        for r in request.relations
        if _relation_text(r) in kept_texts and not (r.memory_ids and set(r.memory_ids) <= dropped)
    ]
    screened = request.model_copy(update={"memories": memories, "relations": relations})
    return ScreenedImport(screened, len(request.memories) - len(memories), len(request.relations) - len(relations))


def _kept_whole(memory: ImportedMemory, kept: set[str]) -> bool:
    return memory.memory in kept and (memory.fact_value is None or memory.fact_value in kept)


def _relation_text(r: ImportedRelation) -> str:
    return f"{r.source_entity.name} {r.relation.replace('_', ' ')} {r.destination_entity.name}"


def _texts(request: ImportRequest) -> list[CandidateFact]:
    facts = []
    for m in request.memories:
        facts.append(CandidateFact(text=m.memory, memory_bank=m.memory_bank, fact_key=m.fact_key))
        said = [m.fact_value, *(t for h in m.history for t in (h.old_memory, h.new_memory))]
        facts += [CandidateFact(text=t) for t in said if t]
    facts += [CandidateFact(text=_relation_text(r)) for r in request.relations]
    return facts


def _kept(screen: PolicyScreen, facts: list[CandidateFact]) -> set[str]:
    """The texts every reading of which the policy keeps (a text read with a bank it excludes is left out)."""
    kept, _ = screen.screen(facts)
    out = {f.text for f in kept}
    left = {f.text for f in facts} - out
    return out - left
