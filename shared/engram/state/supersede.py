"""Supersession by meaning: a new statement about a single-valued aspect of the person (home,
employer, job, partner, diet) replaces older statements of another value of it, whether those were
read as facts or kept only as messages.

The reconciler already replaces a fact of the same key. This step covers what keys cannot see: an
older message kept in its own words ("ugh, the commute from my flat in Leeds"), facts of another
key about the same aspect (a girlfriend after a boyfriend), facts an LLM wrote without keys. Each
new memory's aspects are read (state/aspects.py); the user's memories near it, and near the
aspect's question, that state the same aspect with another value, and none with the same value, are
outdated by event time: the older statement gives way, whichever arrived last. An outdated fact that
states nothing else is closed (valid until the newer was said); a message kept as said (an episode, or
stored with `infer: false`) and a fact that states other things too stay current, marked `outdated_by`
(searches rank them below current knowledge): nothing said is lost.

The state is the user's: memories of every session (`run_id`) are compared, so what a person says in
one session outdates what they said in another; the agent still scopes it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from engram.domain.errors import ConflictError
from engram.domain.models import Fact, Scope, SearchFilters
from engram.domain.outdated import Outdated, outdated_version
from engram.domain.ports import FactStore, VectorIndex
from engram.state.aspects import BY_NAME, AspectReader, Reading, aspect_of_fact, first_person, key_aspect
from engram.text.match import values_match
from engram.writes.unit_of_work import Lifecycle

NEIGHBOURS = 20  # memories read near each new statement, and near its aspect's question
ACTOR = "extraction"


def _not_the_persons(fact: Fact) -> bool:
    """A message kept as the assistant (or a tool) said it: not the person's own statement."""
    return fact.kept_as_said and fact.source is not None and fact.source.role not in (None, "user")


def _states_more(fact: Fact, aspect: str, readings: tuple[Reading, ...]) -> bool:
    """Whether a memory says more than its statement of `aspect`: a message kept as said may say
    anything; a fact whose words read as another aspect too ("Works as a nurse in Leeds") does."""
    return fact.kept_as_said or any(r.aspect.name != aspect for r in readings)


def _speaker(fact: Fact) -> str | None:
    named = fact.source.name if fact.source is not None else None
    return named or (str(fact.metadata["speaker"]) if fact.metadata.get("speaker") else None)


@dataclass
class Supersession:
    facts: FactStore
    index: VectorIndex
    reader: AspectReader
    lifecycle: Lifecycle
    neighbours: int = NEIGHBOURS

    def single_values(self, fact: Fact) -> list[tuple[str, str]]:
        """The single-valued aspects a memory states, with their values. What the assistant said
        is not the person's own statement."""
        if _not_the_persons(fact):
            return []
        pairs = aspect_of_fact(fact, self._read([fact.text])[0])
        return [(a, v) for a, v in pairs if BY_NAME[a].single]

    def _read(self, texts: Sequence[str]) -> list[tuple[Reading, ...]]:
        """Memories read in the first person: a fact is written "Lives in Leeds and works as a nurse",
        the aspects are described as people say them ("I live in ...")."""
        return self.reader.read([first_person(t) for t in texts])

    def worth_reading(self, texts: Sequence[str], keys: Sequence[str | None]) -> bool:
        """Whether any of a run's new memories (their texts, and keys where known) may state a
        single-valued aspect: only then are they read back and their neighbours searched."""
        if any((a := key_aspect(k)) is not None and BY_NAME[a].single for k in keys):
            return True
        return any(r.aspect.single for readings in self._read(texts) for r in readings)

    def run(
        self, scope: Scope, stated: Sequence[Fact], vectors: dict[str, list[float]], task_id: str
    ) -> list[Outdated]:
        """Outdate what the new memories `stated` replace (or the new ones, when told out of order).
        Returns what was outdated, memory by memory."""
        said = [(f, self.single_values(f)) for f in stated if f.is_current]
        said = [(f, pairs) for f, pairs in said if pairs]
        if not said:
            return []
        # The user's state, whichever session said it (run_id); the agent still scopes it.
        filters = SearchFilters(agent_id=scope.agent_id)
        # memory id -> (memory, the newer statement, the aspect, the memory's values of it)
        outdated: dict[str, tuple[Fact, Fact, str, tuple[str, ...]]] = {}
        for fact, pairs in said:
            for memory, aspect, theirs in self._near(scope, fact, pairs, vectors, filters):
                newer, older = (fact, memory) if memory.valid_from <= fact.valid_from else (memory, fact)
                values = theirs if older is memory else tuple(v for a, v in pairs if a == aspect)
                if older.is_protected:  # what the user protected stays as it is (pipeline/protection.py)
                    continue
                if older.id not in outdated and newer.id not in older.outdated_by:
                    outdated[older.id] = (older, newer, aspect, values)
        return self._outdate(scope, outdated, task_id, "superseded by a later statement ({id})")

    def end(self, scope: Scope, endings: Sequence[tuple[Fact, str, str]], task_id: str) -> list[Outdated]:
        """Outdate what each ending closes: `endings` are (the memory the ending was stored in, the
        aspect, the value it ended), as the reader gave them ("I quit my job at Google": employer,
        Google). The user's current memories near it, said before it, that state that aspect with that
        value are closed (a fact stating nothing else) or marked outdated by it, in every session."""
        filters = SearchFilters(agent_id=scope.agent_id)
        outdated: dict[str, tuple[Fact, Fact, str, tuple[str, ...]]] = {}
        for by, aspect, value in endings:
            for memory in self._stating(scope, by, aspect, value, filters):
                if memory.valid_from <= by.valid_from and not memory.is_protected and by.id not in memory.outdated_by:
                    outdated.setdefault(memory.id, (memory, by, aspect, (value,)))
        return self._outdate(scope, outdated, task_id, "ended by a later statement ({id})")

    def _outdate(
        self, scope: Scope, outdated: dict[str, tuple[Fact, Fact, str, tuple[str, ...]]], task_id: str, why: str
    ) -> list[Outdated]:
        """Close each older memory that states only what changed, else mark it outdated by the newer."""
        if not outdated:
            return []
        changes = self.lifecycle.changes(scope.tenant_id, scope.user_id)
        done: list[Outdated] = []
        for older, newer, aspect, values in outdated.values():
            note = why.format(id=newer.id)
            current = self.facts.get_many(scope.tenant_id, [older.id])  # as stored now (this run may have changed it)
            if not current or not current[0].is_current:
                continue
            older = current[0]
            if older.is_protected or newer.id in older.outdated_by:
                continue
            close = not _states_more(older, aspect, self._read([older.text])[0])
            try:
                if close:
                    changes.close(older, ACTOR, task_id, note, when=max(newer.valid_from, older.valid_from))
                else:  # it may say other things: it stays current, outdated in part
                    changes.rewrite(older, outdated_version(older, newer.id), ACTOR, task_id, note)
            except ConflictError:  # changed since read: a later run sees it as it is
                continue
            done.append(Outdated(older.id, aspect, values, newer.id, newer.valid_from, close))
        changes.commit()
        return done

    def holds(self, scope: Scope, text: str, aspect: str, value: str, said: datetime) -> bool:
        """Whether the person still holds what an ending (`text`, said at `said`) ends: a current memory
        said before it states `value` of `aspect`. An ending a decision dropped is then stored."""
        probe = Fact(tenant_id=scope.tenant_id, user_id=scope.user_id, text=text, valid_from=said)
        found = self._stating(scope, probe, aspect, value, SearchFilters(agent_id=scope.agent_id))
        return any(m.valid_from <= said and not m.is_protected for m in found)

    def _stating(self, scope: Scope, by: Fact, aspect: str, value: str, filters: SearchFilters) -> list[Fact]:
        """The person's current memories near `by` and near the aspect's question that state `value` of it."""
        ids: list[str] = []
        for vector in (self.reader.embedder.embed([by.text])[0], self.reader.query_vector(aspect)):
            ids += [h.id for h in self.index.knn(scope.tenant_id, scope.user_id, vector, self.neighbours, filters)]
        speaker = _speaker(by)
        found = [
            m
            for m in self.facts.get_many(scope.tenant_id, list(dict.fromkeys(i for i in ids if i != by.id)))
            if m.is_current
            and m.user_id == scope.user_id
            and not _not_the_persons(m)
            and m.id != by.episode_id
            and (speaker is None or _speaker(m) in (None, speaker))
        ]
        readings = self._read([m.text for m in found])
        return [
            m
            for m, read in zip(found, readings, strict=True)
            if any(a == aspect and values_match(v, value) for a, v in aspect_of_fact(m, read))
        ]

    def _near(
        self,
        scope: Scope,
        fact: Fact,
        pairs: list[tuple[str, str]],
        vectors: dict[str, list[float]],
        filters: SearchFilters,
    ) -> list[tuple[Fact, str, tuple[str, ...]]]:
        """Current memories near `fact` (or its aspects' questions) that state one of its aspects
        with another value and never with the same, each with that aspect and the values it states."""
        queries = [vectors.get(fact.text) or self.reader.embedder.embed([fact.text])[0]]
        queries += [self.reader.query_vector(aspect) for aspect, _ in pairs]
        ids: list[str] = []
        for vector in queries:
            ids += [h.id for h in self.index.knn(scope.tenant_id, scope.user_id, vector, self.neighbours, filters)]
        skip = {fact.id, fact.episode_id}
        speaker = _speaker(fact)
        found = [
            m
            for m in self.facts.get_many(scope.tenant_id, list(dict.fromkeys(i for i in ids if i not in skip)))
            if m.is_current
            and m.episode_id != fact.id
            and m.user_id == scope.user_id
            # Two named speakers under one user (a group chat) each speak of themselves.
            and (speaker is None or _speaker(m) in (None, speaker))
        ]
        readings = self._read([m.text for m in found])
        conflicting: list[tuple[Fact, str, tuple[str, ...]]] = []
        for memory, read in zip(found, readings, strict=True):
            theirs = aspect_of_fact(memory, read)
            if _not_the_persons(memory):
                continue
            for aspect, value in pairs:
                stated = [v for a, v in theirs if a == aspect]
                if stated and not any(values_match(v, value) for v in stated):
                    conflicting.append((memory, aspect, tuple(stated)))
                    break
        return conflicting
