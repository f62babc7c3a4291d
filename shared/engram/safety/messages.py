"""Redaction of what an add, a correction or an import brings, before the API stores any of it."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable

from engram.domain.imports import ImportedEntity, ImportRequest
from engram.domain.models import Message
from engram.domain.policy import RedactKind
from engram.safety.redaction import redact, redact_together

REDACTED = "redacted"  # the task's count of spans replaced by a placeholder


def redact_messages(messages: list[Message], kinds: Iterable[RedactKind]) -> tuple[list[Message], Counter[RedactKind]]:
    """Each message's content with the spans of `kinds` (credentials always) replaced, a secret found in one
    message wherever it appears again in the request (a tool echoing a code the user said); what was found."""
    found: Counter[RedactKind] = Counter()
    out = []
    for message, result in zip(messages, redact_together([m.content for m in messages], kinds), strict=True):
        found += result.found
        out.append(message if not result.found else message.model_copy(update={"content": result.text}))
    return out, found


def redact_import(request: ImportRequest, kinds: Iterable[RedactKind]) -> tuple[ImportRequest, int]:
    """Every text an import writes (each version's text, key and value, what it states, its history's old
    and new texts, the graph's names) with the spans of `kinds` replaced; how many were found. An older
    version is stored as a closed memory and shown by `versions=all` and the history: it is redacted too."""
    wanted = frozenset(kinds)
    found = 0

    def clean(text: str | None) -> str | None:
        nonlocal found
        if not text:
            return text
        result = redact(text, wanted)
        found += result.count
        return result.text if result.found else text

    def entity(e: ImportedEntity) -> ImportedEntity:
        return e.model_copy(update={"name": clean(e.name), "aliases": [clean(a) or a for a in e.aliases]})

    memories = [
        m.model_copy(
            update={
                "memory": clean(m.memory),
                "fact_key": clean(m.fact_key),
                "fact_value": clean(m.fact_value),
                "history": [
                    h.model_copy(update={"old_memory": clean(h.old_memory), "new_memory": clean(h.new_memory)})
                    for h in m.history
                ],
                "statements": None
                if m.statements is None
                else [
                    s.model_copy(update={"subject": clean(s.subject), "value": clean(s.value)}) for s in m.statements
                ],
            }
        )
        for m in request.memories
    ]
    relations = [
        r.model_copy(
            update={
                "relation": clean(r.relation),
                "source_entity": entity(r.source_entity),
                "destination_entity": entity(r.destination_entity),
            }
        )
        for r in request.relations
    ]
    return request.model_copy(update={"memories": memories, "relations": relations}), found
