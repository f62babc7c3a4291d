"""What a person asks of their own memory in chat (safety/requests.py), applied before their add is read:
"don't remember anything about X" and "forget what I said about X" add X to the user's own `exclude` (their
policy, GET /v1/config?user_id=...), so that message and every later one is screened without it; "forget"
also closes the current memories about X; "you can remember X" takes X off again. The same holds with an
LLM: the requests are read by cues before any model sees the messages."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from engram.domain.models import Fact, Message, Scope
from engram.domain.policy import MemoryPolicy
from engram.domain.ports import FactStore
from engram.pipeline.policy_screen import PolicyScreen
from engram.pipeline.reads import every_current
from engram.pipeline.topic_meaning import TopicMeaning
from engram.safety.requests import MemoryRequest, RequestKind, read_requests, same_topic
from engram.services.tenant_config import TenantConfigs
from engram.writes.unit_of_work import Lifecycle

FORGOTTEN = "forgotten at the user's request"


@dataclass
class UserRequests:
    configs: TenantConfigs
    facts: FactStore
    lifecycle: Lifecycle
    meaning: TopicMeaning | None = None

    def apply(self, scope: Scope, messages: Sequence[Message], task_id: str) -> dict[str, int]:
        """Apply the user's requests of these messages, in order; the counts of what changed."""
        requests = [r for m in messages if m.role == "user" for r in read_requests(m.content)]
        if not requests:
            return {}
        own = self.configs.of_user(scope.tenant_id, scope.user_id)
        exclude = list(own.exclude)
        for request in requests:
            if request.kind is RequestKind.ALLOW:  # "you can remember my travel plans" lifts "travel"
                exclude = [t for t in exclude if not same_topic(t, request.topic)]
                continue
            exclude = [t for t in exclude if t.lower() != request.topic.lower()]
            exclude.append(request.topic)
        self.configs.put_user(scope.tenant_id, scope.user_id, own.model_copy(update={"exclude": exclude}))
        counts = {"requests": len(requests)}
        if forgotten := self._forget(scope, [r for r in requests if r.kind is RequestKind.FORGET], task_id):
            counts["forgotten"] = forgotten
        return counts

    def _forget(self, scope: Scope, requests: list[MemoryRequest], task_id: str) -> int:
        if not requests:
            return 0
        screen = PolicyScreen(MemoryPolicy(exclude=[r.topic for r in requests]), self.meaning)
        about = screen.excluded_memories(self._current(scope))
        batch = self.lifecycle.changes(scope.tenant_id, scope.user_id)
        closed = batch.close_many(about, "user", task_id=task_id, note=FORGOTTEN)
        batch.commit()
        return closed

    def _current(self, scope: Scope) -> list[Fact]:
        """Every current memory of the user but the protected (a request is the user's, whichever agent or run)."""
        return [f for f in every_current(self.facts, scope.tenant_id, scope.user_id) if not f.is_protected]
