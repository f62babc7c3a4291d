"""What a person asks of their own memory in chat (safety/requests.py), applied before their add is read:
"don't remember anything about X" and "forget what I said about X" add X to the user's own `exclude` (their
policy, GET /v1/config?user_id=...), so that message and every later one is screened without it; "forget"
also closes the current memories about X, and those read from the same message that say what it said of X;
"you can remember X" takes X off again. A topic that names someone by their role ("my daughter") is known by
the names the user gave them too ("daughter (Isla)"). The requests themselves are then cut from the messages:
they are the user's policy, not memories. The same holds with an LLM: the requests are read by cues before any
model sees the messages."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from engram.domain.models import Fact, Message, Scope
from engram.domain.policy import MAX_ENTRY_CHARS, MemoryPolicy, topic_words
from engram.domain.ports import FactStore
from engram.pipeline.policy_screen import PolicyScreen
from engram.pipeline.reads import every_current
from engram.pipeline.topic_meaning import TopicMeaning
from engram.safety.requests import RequestKind, is_person, people, read_requests, roles, same_topic, unsaid
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
        said = [m.content for m in messages if m.role == "user"]
        requests = [r for text in said for r in read_requests(text)]
        if not requests:
            return {}
        own = self.configs.of_user(scope.tenant_id, scope.user_id)
        exclude = list(own.exclude)
        current: list[Fact] | None = None  # read once, and only when a request names someone by their role
        forget: list[str] = []  # what each "forget" closes
        for request in requests:
            if request.kind is RequestKind.ALLOW:  # "you can remember my travel plans" lifts "travel"
                exclude = [t for t in exclude if not same_topic(t, request.topic)]
                continue
            entry = request.topic
            if roles(request.topic):  # "my daughter": Isla too, as the user named her, said again or not
                current = self._current(scope) if current is None else current
                entry = _known_as(request.topic, people(request.topic, [*(f.text for f in current), *said]))
            exclude = [t for t in exclude if topic_words(t)[0].lower() != request.topic.lower()]
            exclude.append(entry)
            if request.kind is RequestKind.FORGET:
                # forgetting "my husband's job" closes what was said of his job, not every memory of him
                forget.append(entry if is_person(request.topic) else request.topic)
        self.configs.put_user(scope.tenant_id, scope.user_id, own.model_copy(update={"exclude": exclude}))
        counts = {"requests": len(requests)}
        if forgotten := self._forget(scope, forget, task_id):
            counts["forgotten"] = forgotten
        return counts

    @staticmethod
    def unsaid(messages: Sequence[Message]) -> list[Message]:
        """The messages without the requests they make: a request is said to the memory, not about the person,
        and is kept as the user's policy, not as a memory ("You can remember my diet again" is no memory)."""
        # model_copy does not validate: a message that only asked is left empty in place (sources index messages)
        return [m.model_copy(update={"content": unsaid(m.content)}) if m.role == "user" else m for m in messages]

    def _forget(self, scope: Scope, topics: list[str], task_id: str) -> int:
        if not topics:
            return 0
        screen = PolicyScreen(MemoryPolicy(exclude=topics), self.meaning)
        current = self._current(scope)
        about = screen.excluded_memories(current)
        closing = {m.id for m in about}
        about += screen.said_with(about, [m for m in current if m.id not in closing])
        batch = self.lifecycle.changes(scope.tenant_id, scope.user_id)
        closed = batch.close_many(about, "user", task_id=task_id, note=FORGOTTEN)
        batch.commit()
        return closed

    def _current(self, scope: Scope) -> list[Fact]:
        """Every current memory of the user but the protected (a request is the user's, whichever agent or run)."""
        return [f for f in every_current(self.facts, scope.tenant_id, scope.user_id) if not f.is_protected]


def _known_as(topic: str, names: Sequence[str]) -> str:
    """The topic with the names it is known by in brackets ("daughter (Isla)"), as many as an entry holds."""
    entry = topic
    for count in range(1, len(names) + 1):
        longer = f"{topic} ({', '.join(names[:count])})"
        if len(longer) > MAX_ENTRY_CHARS:
            break
        entry = longer
    return entry
