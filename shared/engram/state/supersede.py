"""The resolver: what a memory's statements (domain/statements.py) do to the user's older ones, by event time, the
same for every path (a fact, a message kept as said, a part, an import, a PATCH).

A memory's statements are those stored with it, else read by the StatementReader (state/reading.py); a fact of
an aspect's key states that aspect's value. For each new memory, the user's memories near it and near each
attribute's question are compared, statement by statement: same subject, same attribute by meaning
(state/attributes.py: "phone", "mobile" and "handset" are one), and
- a newer asserted value of a one-at-a-time attribute outdates each older statement with another value (and
  none with the same): whichever arrived last, the older-said gives way (out-of-order history);
- an ended or denied statement ("gave the bike away", "I left Google") outdates the older statements it ends:
  of its value, or of any value when it names none; a change that names only the old value ("switched from EE
  to Vodafone") ends that value whatever its attribute;
- many-valued attributes accumulate; hedged and past statements, visits, other people's attributes outdate
  nothing; protected memories are untouched; two named speakers under one user each speak of themselves.
An outdated fact that states nothing else is closed (valid until the newer was said); a message kept as said
and a memory that states other things too stay current, marked `outdated_by`, as is the statement that
changed: nothing said is lost.

The reconciler still replaces a fact of the same key; this covers what keys cannot see. The state is the
user's: memories of every session (`run_id`) are compared, so what a person says in one session outdates what
they said in another; the agent still scopes it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from engram.domain.errors import ConflictError
from engram.domain.index_ports import knn_each
from engram.domain.models import Fact, Scope, SearchFilters
from engram.domain.outdated import Outdated, outdated_version
from engram.domain.ports import FactStore, StatementReader, VectorIndex
from engram.domain.statements import USER, Statement, same_subject
from engram.state.aspects import BY_NAME, AspectReader, Reading, aspect_of_fact, first_person, key_aspect
from engram.state.attributes import ANY, AttributeMeaning
from engram.state.open_reading import THING, listed_with, names_of_own
from engram.state.reading import StatementReading
from engram.text.match import values_match
from engram.writes.unit_of_work import Lifecycle

NEIGHBOURS = 20  # memories read near each new statement, and near its attribute's question
LATE = timedelta(minutes=5)  # a memory said this long before it was stored may be older than what is stored
ACTOR = "extraction"
# memory id -> (the older memory, the newer, the attribute, the older's values of it)
Found = dict[str, tuple[Fact, Fact, str, tuple[str, ...]]]


def _not_the_persons(fact: Fact) -> bool:
    """A message kept as the assistant (or a tool) said it: not the person's own statement."""
    return fact.kept_as_said and fact.source is not None and fact.source.role not in (None, "user")


def _states_more(fact: Fact, attribute: str, statements: Sequence[Statement]) -> bool:
    """Whether a memory says more than its statement of `attribute`: a message kept as said may say
    anything; a fact whose words state another attribute too ("Works as a nurse in Leeds") does."""
    return fact.kept_as_said or any(s.attribute != attribute for s in statements)


def _speaker(fact: Fact) -> str | None:
    named = fact.source.name if fact.source is not None else None
    return named or (str(fact.metadata["speaker"]) if fact.metadata.get("speaker") else None)


def _when(statement: Statement, fact: Fact) -> datetime:
    """When a statement became so: its own time where it was said ("in May"), else its memory's."""
    return statement.event_time or fact.valid_from


def _subject(statement: Statement) -> str:
    return " ".join(statement.subject.split())


def _changes(statement: Statement) -> bool:
    """Whether a statement may outdate another: a value of a one-at-a-time attribute, or an ending."""
    return statement.polarity in ("ended", "denied") or (statement.polarity == "asserted" and statement.single)


def _told_late(fact: Fact) -> bool:
    """Said well before it was stored (history told later): only then may something stored be newer than it."""
    return fact.valid_from < fact.created_at - LATE


def _resolvable(statement: Statement, late: bool) -> bool:
    """Whether a statement takes part in resolution: it may outdate, or, told late, be outdated by a stored
    statement said after it (a value of any cardinality, told out of order)."""
    return _changes(statement) or (late and statement.polarity == "asserted")


@dataclass
class Supersession:
    facts: FactStore
    index: VectorIndex
    reader: AspectReader
    lifecycle: Lifecycle
    neighbours: int = NEIGHBOURS
    statements: StatementReader | None = None  # None: read with `reader`'s cache (state/reading.py)
    attributes: AttributeMeaning | None = None
    _reading: StatementReader = field(init=False)
    _meaning: AttributeMeaning = field(init=False)
    _questions: dict[str, list[float]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self._reading = self.statements or StatementReading(self.reader)
        self._meaning = self.attributes or AttributeMeaning(self.reader.embedder, self.reader.aspects)

    def said(self, facts: Sequence[Fact], said_in: dict[str, str] | None = None) -> list[list[Statement]]:
        """The statements of each memory: stored with it, else read from its text (and from the message it came
        from, in `said_in`). A fact of an aspect's key states that aspect's value; what the assistant said is
        not the person's own statement."""
        said_in = said_in or {}
        unread = [f.text for f in facts if not f.statements] + [said_in[f.id] for f in facts if f.id in said_in]
        read = dict(zip(unread, self._reading.statements(unread), strict=True)) if unread else {}
        out: list[list[Statement]] = []
        for fact in facts:
            if _not_the_persons(fact):
                out.append([])
                continue
            statements = list(fact.statements) if fact.statements else list(read[fact.text])
            aspect = key_aspect(fact.fact_key)
            if aspect is not None and fact.fact_value and not fact.statements:
                keyed = Statement(attribute=aspect, value=fact.fact_value[:300], single=BY_NAME[aspect].single)
                statements = [keyed, *(s for s in statements if s.attribute != aspect or s.polarity != "asserted")]
            if fact.id in said_in:  # what its message said, where the memory's own words do not say it
                mine = {(s.subject, s.attribute, s.value) for s in statements}
                statements += [s for s in read[said_in[fact.id]] if (s.subject, s.attribute, s.value) not in mine]
            out.append(statements)
        return out

    def statements_of(self, texts: Sequence[str]) -> list[tuple[Statement, ...]]:
        """What each text states, as this resolver reads it (cached)."""
        return self._reading.statements(texts)

    def _read(self, texts: Sequence[str]) -> list[tuple[Reading, ...]]:
        """Memories read in the first person: a fact is written "Lives in Leeds and works as a nurse",
        the aspects are described as people say them ("I live in ...")."""
        return self.reader.read([first_person(t) for t in texts])

    def worth_reading(self, texts: Sequence[str], keys: Sequence[str | None], late: bool = False) -> bool:
        """Whether any of a run's new memories (their texts, and keys where known) may change the state: a
        one-at-a-time value or an ending, or, told `late`, any value. Only then are their neighbours searched."""
        if any((a := key_aspect(k)) is not None and BY_NAME[a].single for k in keys):
            return True
        return any(_resolvable(s, late) for said in self._reading.statements(list(texts)) for s in said)

    def _question(self, statement: Statement) -> list[float]:
        """The question a statement's attribute answers: the catalogue's, else one in its words."""
        if statement.attribute in BY_NAME and same_subject(_subject(statement), USER):
            return self.reader.query_vector(statement.attribute)
        whose = "my" if same_subject(_subject(statement), USER) else f"{statement.subject}'s"
        question = f"what is {whose} {statement.attribute}?"
        if question not in self._questions:
            self._questions[question] = self.reader.embedder.embed([question])[0]
        return self._questions[question]

    def run(
        self,
        scope: Scope,
        stated: Sequence[Fact],
        vectors: dict[str, list[float]],
        task_id: str,
        said_in: dict[str, str] | None = None,
    ) -> list[Outdated]:
        """Outdate what the new memories `stated` replace or end (or the new ones, when told out of order).
        `said_in`: memory id -> the person's message it was read from, whose statements it carries too (a
        fact the rules wrote may not say what its message did: "switched from Three to Vodafone").
        Returns what was outdated, memory by memory."""
        current = [f for f in stated if f.is_current]
        read = self.said(current, said_in or {})
        said = [(f, st) for f, st in zip(current, read, strict=True) if any(_resolvable(s, _told_late(f)) for s in st)]
        if not said:
            return []
        # The user's state, whichever session said it (run_id); the agent still scopes it.
        filters = SearchFilters(agent_id=scope.agent_id)
        outdated: Found = {}
        for fact, statements in said:
            for memory, theirs in self._near(scope, fact, statements, vectors, filters):
                for older, newer, attribute, values in self._resolve(fact, statements, memory, theirs):
                    if older.is_protected:  # what the user protected stays as it is (pipeline/protection.py)
                        continue
                    if older.id not in outdated and newer.id not in older.outdated_by:
                        outdated[older.id] = (older, newer, attribute, values)
        return self._outdate(scope, outdated, task_id, "superseded by a later statement ({id})")

    def _same(self, a: Statement, b: Statement) -> bool:
        """Of one subject and one attribute by meaning."""
        return same_subject(_subject(a), _subject(b)) and self._meaning.same(a.attribute, b.attribute)

    def _of_kind(self, new: Statement, same: list[Statement]) -> list[Statement]:
        """A value held with no attribute named ("switched to a Garmin Venu 3") is of the attribute whose value is
        of its kind (an older "my Apple Watch Series 6"), among the things and providers the person holds; with
        none clearly so, of none. An ending keeps ANY: it names the value it ends."""
        if new.polarity != "asserted":
            return same
        if new.attribute == THING:  # "my new Toyota Yaris": of the thing held whose value is of its kind
            things = [t for t in same if t.attribute == THING and t.polarity == "asserted"]
            closest = self._meaning.kin(new.value, [(str(i), t.value) for i, t in enumerate(things)])
            return [things[int(closest)]] if closest is not None else []
        if new.attribute != ANY:  # an older value held with no attribute named stays: keep rather than outdate
            return [t for t in same if t.attribute != ANY or t.polarity != "asserted"]
        held = [(t.attribute, t.value) for t in same if t.attribute != ANY and t.polarity == "asserted"]
        kind = self._meaning.kin(new.value, [(a, v) for a, v in held if self._meaning.of_things(a)])
        return [t for t in same if t.attribute == kind or (t.attribute == ANY and t.polarity != "asserted")]

    def _resolve(
        self, fact: Fact, mine: Sequence[Statement], memory: Fact, theirs: Sequence[Statement]
    ) -> list[tuple[Fact, Fact, str, tuple[str, ...]]]:
        """What one new memory and one neighbour do to each other: (older, newer, attribute, older's values)."""
        out: list[tuple[Fact, Fact, str, tuple[str, ...]]] = []
        for new in mine:
            same = self._of_kind(new, [t for t in theirs if self._same(new, t)])
            held = [t for t in same if t.polarity == "asserted"]
            if new.polarity == "asserted" and held:
                if any(values_match(t.value, new.value) for t in held):
                    continue  # the same value said again: no change
                newest = max(_when(t, memory) for t in held)
                if new.single and newest <= _when(new, fact):  # named as the older memory names it
                    out.append((memory, fact, held[0].attribute, tuple(t.value for t in held)))
                elif any(t.single and _when(t, memory) > _when(new, fact) for t in held):
                    out.append((fact, memory, new.attribute, (new.value,)))  # told out of order: older-said
            elif new.polarity in ("ended", "denied"):
                ended = [t for t in held if new.value == ANY or values_match(t.value, new.value)]
                ended = [t for t in ended if _when(t, memory) <= _when(new, fact)]
                if ended:
                    out.append((memory, fact, ended[0].attribute, tuple(t.value for t in ended)))
            if new.polarity == "asserted":  # an older value arriving after its later ending
                for t in same:
                    late = t.polarity in ("ended", "denied") and _when(new, fact) <= _when(t, memory)
                    if late and (t.value == ANY or values_match(t.value, new.value)):
                        out.append((fact, memory, new.attribute, (new.value,)))
                        break
        return out

    def _near(
        self,
        scope: Scope,
        fact: Fact,
        statements: Sequence[Statement],
        vectors: dict[str, list[float]],
        filters: SearchFilters,
    ) -> list[tuple[Fact, list[Statement]]]:
        """The person's current memories near `fact` and near its changing attributes' questions, with their
        statements."""
        queries = [vectors.get(fact.text) or self.reader.embedder.embed([fact.text])[0]]
        asked = {(s.subject, s.attribute): s for s in statements if _changes(s) and s.attribute != ANY}
        queries += [self._question(s) for s in asked.values()]
        hits = knn_each(self.index, scope.tenant_id, scope.user_id, queries, self.neighbours, filters)
        ids = [h.id for found in hits for h in found]
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
        ended = [s.value for s in statements if s.polarity in ("ended", "denied") and s.value != ANY]
        read = [(m, st or _named_in_passing(m, ended)) for m, st in zip(found, self.said(found), strict=True)]
        return [(m, st) for m, st in read if st]

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

    def _outdate(self, scope: Scope, outdated: Found, task_id: str, why: str) -> list[Outdated]:
        """Close each older memory that states only what changed, else mark it outdated by the newer."""
        if not outdated:
            return []
        changes = self.lifecycle.changes(scope.tenant_id, scope.user_id)
        done: list[Outdated] = []
        # As stored now (this run may have changed them), in one read: each is changed once below.
        stored = {f.id: f for f in self.facts.get_many(scope.tenant_id, list(outdated))}
        for older, newer, aspect, values in outdated.values():
            note = why.format(id=newer.id)
            current = stored.get(older.id)
            if current is None or not current.is_current:
                continue
            older = current
            if older.is_protected or newer.id in older.outdated_by:
                continue
            statements = self.said([older])[0]
            close = not _states_more(older, aspect, statements)
            try:
                if close:
                    changes.close(older, ACTOR, task_id, note, when=max(newer.valid_from, older.valid_from))
                else:  # it may say other things: it stays current, outdated in part, as is the statement
                    kept = _outdated_in_part(older, statements, newer.id, aspect, values)
                    changes.rewrite(older, kept, ACTOR, task_id, note)
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
        queries = [self.reader.embedder.embed([by.text])[0], self.reader.query_vector(aspect)]
        hits = knn_each(self.index, scope.tenant_id, scope.user_id, queries, self.neighbours, filters)
        ids = [h.id for found in hits for h in found]
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


def _named_in_passing(memory: Fact, ended: Sequence[str]) -> list[Statement]:
    """A memory no statement was read from holds each ended value it names in a clause of the person's own
    ("Barclays charged me £15 ...", "the auld Corsa's still getting me up the A9"): a value said in passing,
    of no attribute known, many-valued, so only an ending that names it closes it."""
    return [Statement(attribute=ANY, value=v[:300], single=False) for v in ended if names_of_own(memory.text, v)]


def _outdated_in_part(
    kept: Fact, statements: Sequence[Statement], by: str, attribute: str, values: Sequence[str]
) -> Fact:
    """The next version of a memory kept current, outdated by `by`, with its statement of what changed marked too.
    A memory whose statements were read, not stored, gets them stored, with the names it lists with what changed
    as values still held ("we pay for Netflix and Disney+": Netflix ended, Disney+ not), so that what it still
    states is told apart from what changed."""
    version = outdated_version(kept, by)
    marked = [
        s.model_copy(update={"outdated_by": by})
        if s.attribute == attribute and s.outdated_by is None and any(values_match(s.value, v) for v in values)
        else s
        for s in (kept.statements or statements)
    ]
    if not kept.statements:
        marked += [
            Statement(attribute=attribute, value=v[:300], outdated_by=by)
            for v in values
            if not any(values_match(s.value, v) for s in marked)
        ]
        marked += [
            Statement(attribute=ANY, value=name[:300])
            for name in dict.fromkeys(n for v in values for n in listed_with(kept.text, v))
            if not any(values_match(s.value, name) for s in marked)
        ]
    return version.model_copy(update={"statements": marked})
