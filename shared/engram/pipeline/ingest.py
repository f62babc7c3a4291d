"""The basic memory pipeline: messages -> facts -> similar memories -> decisions -> apply.

One add is a list of stages (STAGES) over one run-state object (IngestRun): the policy screens the
messages, the single LLM call plans the run when it can, the facts are read, decided and applied, the
graph adds its relations, and the outcome says what the policy left out. Each stage is a small
function; the steps it runs live in their own modules (policy_screen, one_call, apply, graph)."""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from aws_lambda_powertools import Logger

from engram.domain.bus_events import BusEvent
from engram.domain.errors import LLMOutputError
from engram.domain.filters import ListFilters
from engram.domain.index_ports import knn_each
from engram.domain.models import (
    AddRequest,
    Attachment,
    Event,
    ExtractionPrompt,
    Fact,
    MemorySource,
    Message,
    ReconcileStrategy,
    Scope,
    SearchFilters,
    TaskResult,
    Usage,
    utcnow,
)
from engram.domain.outdated import Outdated
from engram.domain.policy import MemoryPolicy
from engram.domain.ports import (
    AttachmentStore,
    BlobStore,
    Embedder,
    FactExtractor,
    FactStore,
    Reconciler,
    StatementReader,
    VectorIndex,
)
from engram.domain.relation_changes import TaskRelations
from engram.domain.statements import USER
from engram.domain.steps import CandidateFact, Decision
from engram.pipeline import instruction_screen
from engram.pipeline.apply import Applier, said_at
from engram.pipeline.attachment_settle import settle_attachments
from engram.pipeline.duplicates import DuplicateRule
from engram.pipeline.episodes import (
    CUT_SHORT,
    KEPT_FOR_ATTACHMENTS,
    CutsShort,
    as_given,
    episodes,
    kept_for_attachments,
)
from engram.pipeline.policy_screen import INSTRUCTIONS_UNREAD, Located, PolicyScreen
from engram.pipeline.reads import RunReads, every_current
from engram.pipeline.shares import RunShares, TaskShare
from engram.reconcile.llm import cover_missing, lost_details
from engram.reconcile.prompts import using_policy
from engram.state.aspects import AspectReader, key_aspect
from engram.state.supersede import LATE, Supersession
from engram.text.match import values_match
from engram.text.transcript import choose_prompt, parse_messages
from engram.writes.unit_of_work import Lifecycle

if TYPE_CHECKING:
    from engram.graph.apply import GraphChanges
    from engram.graph.service import GraphService
    from engram.pipeline.one_call import OneCall, OneCallAnswer
    from engram.pipeline.topic_meaning import TopicMeaning

logger = Logger(child=True)
NEARBY_POOL = 4  # hits per statement before episodes are set aside (times similar_per_fact)
NEARBY_MARGIN = 0.05


def _plain(text: str) -> str:
    return " ".join(text.lower().strip(" .!").split())


@dataclass
class IngestOutcome:
    results: list[TaskResult]
    usage: Usage
    counts: dict[str, int]
    candidates: list[CandidateFact] = field(default_factory=list)
    shares: RunShares | None = None  # the results and counts of each task of a merged run
    skipped: list[Located] = field(default_factory=list)  # what the policy left out (pipeline/policy_screen.py)
    messages: list[Message] | None = None  # the run's messages without their excluded clauses, when any were cut
    relations: TaskRelations = field(default_factory=TaskRelations)  # what the graph pipeline changed
    unread: str | None = None  # what of the policy this pipeline could not honour (the task's note says it)
    outdated: list[Outdated] = field(default_factory=list)  # what a later statement of this run replaced

    def share(self, task_id: str, run_task_id: str) -> TaskShare:
        """What one task of the run made; without shares, the whole outcome is the run's own task's."""
        if self.shares is not None:
            return self.shares.by_task.get(task_id) or TaskShare()
        if task_id != run_task_id:
            return TaskShare()
        return TaskShare(list(self.results), dict(self.counts), [s for _, s in self.skipped], self.relations)

    def record_skipped(self, skipped: Sequence[Located]) -> None:
        self.skipped += skipped
        self.counts["excluded"] = self.counts.get("excluded", 0) + len(skipped)
        if self.shares is not None:
            self.shares.add_skipped(skipped)


@dataclass
class IngestRun:
    """One add's run as the stages fill it in: what was asked, read (the messages the policy kept and the
    prompt that reads them), planned (the single call's answer), decided and applied (the outcome)."""

    scope: Scope
    request: AddRequest
    task_id: str
    reads: RunReads  # the user's memories as this run reads them (each read once)
    sources: Sequence[MemorySource] = ()
    policy: MemoryPolicy | None = None
    screen: PolicyScreen | None = None
    skipped: list[Located] = field(default_factory=list)  # what the policy left out: clauses, then facts
    redacted: bool = False  # clauses were cut from the messages
    flagged: list[CandidateFact] = field(default_factory=list)  # sentences addressed to the assistant, kept apart
    prompt: ExtractionPrompt = ExtractionPrompt.USER  # chosen once the messages are screened
    planned: OneCallAnswer | None = None
    outcome: IngestOutcome | None = None

    @property
    def result(self) -> IngestOutcome:
        if self.outcome is None:
            raise RuntimeError("the facts stage has not run")
        return self.outcome


@dataclass
class IngestPipeline:
    facts: FactStore
    index: VectorIndex
    embedder: Embedder
    extractor: FactExtractor
    reconciler: Reconciler
    duplicate_threshold: float = 0.95
    similar_per_fact: int = 5
    attachments: AttachmentStore | None = None
    blobs: BlobStore | None = None
    keep_episodes: bool = False  # messages the extractor did not fully read are kept as given (settings: on)
    keep_assistant_turns: bool = False  # with keep_episodes, the assistant's messages too (settings: on)
    graph: GraphService | None = None  # the second pipeline, run after the facts'
    one_call: OneCall | None = None  # facts, decisions and relations in one LLM call (settings: on)
    # A fact's neighbour at least this similar that the single call was not shown: the reconciler decides.
    recheck_similarity: float = 0.5
    # include/exclude by meaning (pipeline/topic_meaning.py); None: by the rules' banks and topic words only
    meaning: TopicMeaning | None = None
    announce: Callable[[Sequence[BusEvent]], object] | None = None  # the stored changes, to the event bus
    # Aspects of the person read by meaning: newer statements of a single-valued aspect outdate older
    # ones, facts or kept messages (state/supersede.py). None: only the reconciler's keys decide.
    aspects: AspectReader | None = None
    # What every memory states (domain/statements.py), read as it is written (the unit of work) with the aspects'
    # cache; the resolver compares them.
    statements: StatementReader | None = None
    read_wider: bool = False  # with `aspects`, clauses the extractor missed are read as facts too (offline)

    def __post_init__(self) -> None:
        self._lifecycle = Lifecycle(
            self.facts, self.index, self.embedder, self.attachments, self.blobs, self.announce, self.statements
        )
        self._supersession = (
            Supersession(self.facts, self.index, self.aspects, self._lifecycle, statements=self.statements)
            if self.aspects is not None
            else None
        )

    def run(
        self,
        scope: Scope,
        request: AddRequest,
        task_id: str,
        sources: Sequence[MemorySource] = (),
        policy: MemoryPolicy | None = None,
    ) -> IngestOutcome:
        """`policy`: the add's instructions, include/exclude and custom prompts (domain/policy.py)."""
        reads = RunReads(self.facts, self.index, scope.tenant_id, scope.user_id)
        run = IngestRun(scope, request, task_id, reads, sources, policy)
        with using_policy(policy):
            for stage in STAGES:
                stage(self, run)
        return run.result

    @property
    def reads_instructions(self) -> bool:
        """An LLM reads the policy's instructions (the offline rules cannot honour them)."""
        return self.one_call is not None or bool(getattr(self.extractor, "reads_instructions", False))

    def _protected_texts(self, scope: Scope) -> list[str]:
        """The user's protected memories; the graph keeps what they state. A filtered listing of all
        the user's memories, so it is read only when a relation is about to close."""
        wanted = ListFilters(is_protected=True)  # the graph is the user's, whichever agent or run
        return [f.text for f in every_current(self.facts, scope.tenant_id, scope.user_id, wanted)]

    def _ask_once(
        self, scope: Scope, request: AddRequest, prompt: ExtractionPrompt, reads: RunReads, policy: MemoryPolicy | None
    ) -> OneCallAnswer | None:
        """The single call's answer, or None where the separate steps run (rules understood every
        statement, a conversation longer than one window, attachments, the relevance strategy, custom
        prompts: each replaces the prompt of its own step)."""
        if self.one_call is None or not (request.infer and request.deduplicate) or request.attachment_ids:
            return None
        if policy is not None and policy.prompts.any:
            return None
        if request.strategy is not ReconcileStrategy.DEFAULT or not self.one_call.fits(request.messages, prompt):
            return None
        if self.one_call.shortcut(self.extractor, request.messages, prompt):
            return None
        shown = self._nearby(scope, request.messages, reads)
        if any(f.attachment_ids for f in shown):  # the separate reconciler places attachments
            return None
        graph = self.graph.context(scope, request.messages) if self.graph is not None else None
        try:
            return self.one_call.ask(request.messages, prompt, shown, graph)
        except LLMOutputError as err:
            # A model that cannot answer the combined shape may still answer each step's smaller one.
            logger.warning("single call unusable; separate calls instead", extra={"error": str(err)})
            return None

    def _nearby(self, scope: Scope, messages: Sequence[Message], reads: RunReads) -> list[Fact]:
        """The current facts most similar to each statement: what reconciliation would compare with."""
        from engram.pipeline.one_call import queries

        texts = queries(messages)
        filters = SearchFilters(agent_id=scope.agent_id, run_id=scope.run_id)
        vectors = self.embedder.embed(texts) if texts else []
        k = NEARBY_POOL * self.similar_per_fact
        hits_of = knn_each(self.index, scope.tenant_id, scope.user_id, vectors, k, filters)
        found = {f.id: f for f in reads.get_many([h.id for hits in hits_of for h in hits])}
        best: dict[str, float] = {}
        # A fact lies near its statement, not on it: past the closest few, a memory within a margin of
        # the recheck similarity is shown too, or the fact may find it close and need a second call.
        floor = self.recheck_similarity - NEARBY_MARGIN
        for hits in hits_of:
            facts = [h for h in hits if h.id in found and found[h.id].kind == "fact"][: 2 * self.similar_per_fact]
            for rank, hit in enumerate(facts):
                if rank < self.similar_per_fact or hit.score >= floor:
                    best[hit.id] = max(best.get(hit.id, 0.0), hit.score)
        return [found[i] for i in sorted(best, key=lambda i: best[i], reverse=True)]

    def _facts(
        self,
        scope: Scope,
        request: AddRequest,
        prompt: ExtractionPrompt,
        task_id: str,
        sources: Sequence[MemorySource],
        planned: OneCallAnswer | None,
        reads: RunReads,
        screen: PolicyScreen | None,
        skipped: list[Located],
    ) -> IngestOutcome:
        """`sources` says where each message of the request came from (tasks merged into one run);
        without it, memories record `task_id`. What `screen` leaves out is added to `skipped`."""
        usage = Usage()
        shares = RunShares(task_id, sources)
        notes: dict[int, str] = {}  # candidate index -> why it was kept, for the task result
        if request.infer:
            if planned is not None:
                candidates, used = list(planned.facts), planned.usage
            else:
                candidates, used = self.extractor.extract(request.messages, prompt, scope)
            usage.add(used)
            if self.read_wider and self.aspects is not None and prompt is ExtractionPrompt.USER:
                said_by_user = [(i, m.content) for i, m in enumerate(request.messages) if m.role == "user"]
                candidates += self._stated(said_by_user, self.aspects.candidates(said_by_user, candidates))
            if self.keep_episodes:
                said = {_plain(c.text) for c in candidates}  # a fact that is the message itself needs no episode
                kept = episodes(request.messages, prompt, self.extractor, self.keep_assistant_turns)
                candidates += [e for e in kept if _plain(e.text) not in said]
            if screen is not None:
                candidates, cut = screen.screen(candidates)
                skipped += cut
                if cut and planned is not None:  # its decisions and relations may state what was cut: ask again
                    planned.decisions = planned.graph = None
            if self.keep_episodes:
                notes |= self._cut_short(request.messages, prompt, candidates)
            if not candidates and request.attachments:
                candidates = kept_for_attachments(request.messages, prompt)
                notes = dict.fromkeys(range(len(candidates)), KEPT_FOR_ATTACHMENTS)
        else:  # stored as given, no LLM call
            candidates = [part for i, m in enumerate(request.messages) if m.role != "system" for part in as_given(m, i)]
            candidates = [c for c in candidates if c.text.strip()]  # a message the policy emptied stores nothing
        for candidate in candidates:  # new facts carry the attachments of their add call
            candidate.attachment_ids = candidate.attachment_ids or list(request.attachment_ids)
        counts = {"facts": len(candidates), "ADD": 0, "UPDATE": 0, "DELETE": 0, "NONE": 0, "duplicates": 0}
        if CUT_SHORT in notes.values():
            counts["cut_short"] = len({candidates[i].message_index for i, note in notes.items() if note == CUT_SHORT})
            shares.add_run_counts({"cut_short": counts["cut_short"]})
        shares.count_facts(candidates)
        if not candidates:
            return IngestOutcome([], usage, counts, candidates, shares)

        vectors = dict(
            zip([c.text for c in candidates], self.embedder.embed([c.text for c in candidates]), strict=True)
        )
        existing: list[Fact] = []
        if request.deduplicate:
            decisions, existing, used = self._reconcile(scope, request, candidates, vectors, reads, planned)
            usage.add(used)
            if planned is not None:
                counts["one_call"] = 1
                counts["one_call_rechecked"] = int(used.llm_calls > 0)
                shares.add_run_counts({"one_call": 1, "one_call_rechecked": counts["one_call_rechecked"]})
        else:
            decisions = [Decision(event=Event.ADD, text=c.text, fact_index=i) for i, c in enumerate(candidates)]
        for decision in decisions:
            if decision.fact_index in notes and decision.note is None:
                decision.note = notes[decision.fact_index]
            repaired = candidates[decision.fact_index].note if decision.fact_index is not None else None
            if repaired and decision.event in (Event.ADD, Event.UPDATE) and repaired not in (decision.note or ""):
                decision.note = f"{decision.note}; {repaired}" if decision.note else repaired
        decisions = settle_attachments(decisions, candidates, existing)
        applier = Applier(self._lifecycle)
        known = reads.stored(existing)  # a change is applied to the memory as the fact store has it
        decisions, known = applier.protect(scope.tenant_id, candidates, decisions, known)
        decisions = self._keep_endings(scope, request, candidates, decisions)
        for decision in decisions:
            counts[decision.event.value] += 1
            counts["duplicates"] += decision.duplicate
        shares.count_decisions(decisions, candidates)
        applied = applier.apply_each(scope, request, task_id, candidates, vectors, decisions, known, sources)
        reads.wrote(applier.written.values())
        shares.add_results(applied, candidates)
        stated = [(d, r) for d, r in applied if r.event in (Event.ADD, Event.UPDATE)]
        keys = [candidates[d.fact_index].fact_key if d.fact_index is not None else None for d, _ in stated]
        outdated: list[Outdated] = []
        said_in = _said_in(request, candidates, stated)
        texts = [r.memory for _, r in stated] + list(dict.fromkeys(said_in.values()))
        late = any(m.created_at is not None and m.created_at < utcnow() - LATE for m in request.messages)
        if self._supersession is not None and self._supersession.worth_reading(texts, keys, late):
            written = reads.get_many([r.id for _, r in stated])
            outdated = self._supersession.run(scope, written, vectors, task_id, said_in)
        if self._supersession is not None and (ended := self._endings(candidates, applied, reads)):
            outdated += self._supersession.end(scope, ended, task_id)
        reads.forget(o.memory_id for o in outdated)
        if outdated:
            counts["superseded"] = len(outdated)
            shares.add_run_counts({"superseded": len(outdated)})
        outcome = IngestOutcome([result for _, result in applied], usage, counts, candidates, shares)
        outcome.outdated = outdated
        return outcome

    def _keep_endings(
        self, scope: Scope, request: AddRequest, candidates: Sequence[CandidateFact], decisions: Sequence[Decision]
    ) -> list[Decision]:
        """An ending a decision dropped ("I'm not vegetarian anymore" beside a message kept as said that
        the reconciler did not read as a diet) is stored when the person still holds what it ends, so
        that memory can be marked outdated by it: what was said is not lost."""
        out = list(decisions)
        if self._supersession is None:
            return out
        decided = {d.fact_index for d in out if d.event is not Event.NONE or d.memory_id}
        for index, candidate in enumerate(candidates):
            aspect = key_aspect(candidate.fact_key)
            if index in decided or not candidate.negated or aspect is None or not candidate.fact_value:
                continue
            if not self._supersession.holds(
                scope, candidate.text, aspect, candidate.fact_value, said_at(request, candidate)
            ):
                continue
            stored = Decision(event=Event.ADD, text=candidate.text, fact_index=index)
            at = next((i for i, d in enumerate(out) if d.fact_index == index), None)
            if at is None:
                out.append(stored)
            else:
                out[at] = stored
        return out

    def _endings(
        self, candidates: Sequence[CandidateFact], applied: Sequence[tuple[Decision, TaskResult]], reads: RunReads
    ) -> list[tuple[Fact, str, str]]:
        """The endings the reader gave this run ("I quit my job at Google": a negated fact of an aspect,
        with the value it ends), each with the memory its message was stored in by this run."""
        negated = [(c, a) for c in candidates if c.negated and c.fact_value and (a := key_aspect(c.fact_key))]
        if not negated:
            return []
        stored: dict[int | None, str] = {}
        for decision, result in applied:
            candidate = candidates[decision.fact_index] if decision.fact_index is not None else None
            if result.event is Event.ADD and candidate is not None:
                stored.setdefault(candidate.message_index, result.id)
        by = {f.id: f for f in reads.get_many(list(stored.values()))}
        return [
            (by[stored[c.message_index]], aspect, c.fact_value or "")
            for c, aspect in negated
            if stored.get(c.message_index) in by
        ]

    def _stated(self, messages: Sequence[tuple[int, str]], read: list[CandidateFact]) -> list[CandidateFact]:
        """The catalogue's facts whose value the message states as the person's, as the statement reader reads it:
        a value its words give another attribute ("my salary account is with HDFC Bank": no employer) or end
        ("switched from BT to Sky": BT is not held) is not written as the aspect's fact. The same reading the
        resolver makes of the message (cached), so the facts and the state agree."""
        if self._supersession is None or not read:
            return read
        texts = dict(messages)
        said = dict(zip(texts, self._supersession.statements_of(list(texts.values())), strict=True))
        return [
            c
            for c in read
            if any(
                s.subject == USER
                and s.polarity == "asserted"
                and s.attribute == key_aspect(c.fact_key)
                and values_match(s.value, c.fact_value or "")
                for s in said.get(c.message_index if c.message_index is not None else -1, ())
            )
        ]

    def _cut_short(
        self, messages: Sequence[Message], prompt: ExtractionPrompt, candidates: Sequence[CandidateFact]
    ) -> dict[int, str]:
        """Notes for the episodes of messages whose reading ran out of time."""
        cut = self.extractor.cut_short(messages, prompt) if isinstance(self.extractor, CutsShort) else []
        return {i: CUT_SHORT for i, c in enumerate(candidates) if c.kind == "episode" and c.message_index in cut}

    def _reconcile(
        self,
        scope: Scope,
        request: AddRequest,
        candidates: Sequence[CandidateFact],
        vectors: dict[str, list[float]],
        reads: RunReads,
        planned: OneCallAnswer | None = None,
    ) -> tuple[list[Decision], list[Fact], Usage]:
        """Decisions for the candidates, and every existing memory they refer to."""
        filters = SearchFilters(agent_id=scope.agent_id, run_id=scope.run_id)
        # Twice the neighbours: episodes among them are set aside, facts are what the reconciler compares.
        queries = [vectors[c.text] for c in candidates]
        k = 2 * self.similar_per_fact
        hits_of = knn_each(self.index, scope.tenant_id, scope.user_id, queries, k, filters)
        found = reads.get_many([h.id for hits in hits_of for h in hits])
        kinds = {f.id: f.kind for f in found}
        rule = DuplicateRule(self.duplicate_threshold)
        similar: dict[str, float] = {}
        skipped: list[Decision] = []
        pending: list[CandidateFact] = []
        episodes_added: list[Decision] = []
        earlier: list[CandidateFact] = []  # this run's new facts so far, which a later one may repeat
        for index, (candidate, hits) in enumerate(zip(candidates, hits_of, strict=True)):
            hits = [h for h in hits if h.id in kinds]
            # A near-duplicate of a current memory is skipped before the LLM sees it; a fact is only
            # ever a duplicate of a fact (an episode does not hold its key), an episode of anything.
            same = [h for h in hits if candidate.kind == "episode" or kinds[h.id] == "fact"]
            if same and not candidate.negated and rule.same(same[0].score):
                skipped.append(
                    Decision(
                        event=Event.NONE, text=candidate.text, memory_id=same[0].id, fact_index=index, duplicate=True
                    )
                )
                continue
            # The index holds none of this run's facts: one repeating an earlier fact of the run (an
            # identical add merged with it) is skipped as it would be with the earlier one stored.
            if rule.repeats(candidate, earlier, vectors):
                skipped.append(Decision(event=Event.NONE, text=candidate.text, fact_index=index))
                continue
            earlier.append(candidate)
            if candidate.kind == "episode":  # kept as said: never merged into or replacing a fact
                episodes_added.append(Decision(event=Event.ADD, text=candidate.text, fact_index=index))
                continue
            pending.append(candidate)
            for hit in [h for h in hits if kinds[h.id] == "fact"][: self.similar_per_fact]:
                similar[hit.id] = max(similar.get(hit.id, 0.0), hit.score)
        existing = sorted((f for f in found if f.id in similar), key=lambda f: similar[f.id], reverse=True)
        skipped += episodes_added
        if not pending:
            return skipped, found, Usage()
        if planned is not None and planned.decisions is not None:
            decided = self._planned(planned, candidates, pending, skipped, similar)
            if decided is not None:
                return skipped + decided, [*found, *planned.shown], Usage()
        if not existing:  # nothing to reconcile against: no LLM call needed
            adds = [Decision(event=Event.ADD, text=c.text, fact_index=candidates.index(c)) for c in pending]
            return skipped + adds, found, Usage()
        decisions, usage = self.reconciler.reconcile(
            pending,
            existing,
            request.strategy,
            parse_messages(request.messages),
            attachments=self._attachment_details(scope, existing, pending),
        )
        # Decisions index into `pending`; re-point them at the full candidate list.
        remap = [candidates.index(c) for c in pending]
        for decision in decisions:
            if decision.fact_index is not None:
                decision.fact_index = remap[decision.fact_index]
        return skipped + decisions, found, usage

    def _planned(
        self,
        planned: OneCallAnswer,
        candidates: Sequence[CandidateFact],
        pending: Sequence[CandidateFact],
        skipped: Sequence[Decision],
        similar: dict[str, float],
    ) -> list[Decision] | None:
        """The single call's decisions for the pending facts, or None when the separate reconciler
        must decide: a fact's close neighbour was not shown, or an UPDATE would lose details."""
        shown = {f.id: f for f in planned.shown}
        missed = [i for i, score in similar.items() if i not in shown and score >= self.recheck_similarity]
        if missed:
            logger.info("single call missed a similar memory; reconciling separately", extra={"ids": missed})
            return None
        decisions = planned.decisions or []
        if lost_details(decisions, shown):
            logger.info("single call's UPDATE would lose details; reconciling separately")
            return None
        settled = {d.fact_index for d in skipped}  # near-duplicates and episodes are already decided
        decisions = [d for d in decisions if not (d.event is Event.ADD and d.fact_index in settled)]
        checks = self.one_call.checks if self.one_call is not None else None
        if checks is not None:
            decisions = checks(decisions, candidates, planned.shown)
        return cover_missing(decisions, pending, [candidates.index(c) for c in pending])

    def _attachment_details(
        self, scope: Scope, existing: Sequence[Fact], pending: Sequence[CandidateFact]
    ) -> dict[str, Attachment]:
        ids = list(
            dict.fromkeys(
                [a for f in existing for a in f.attachment_ids] + [a for c in pending for a in c.attachment_ids]
            )
        )
        if not ids or self.attachments is None:
            return {}
        return self.attachments.get_many(scope.tenant_id, ids)


def screen_messages(pipeline: IngestPipeline, run: IngestRun) -> None:
    """Excluded clauses leave the messages first: no stage (nor the LLM) sees them, nothing can store them.
    The prompt that reads the messages is chosen here, once."""
    policy = run.policy
    run.screen = PolicyScreen(policy, pipeline.meaning) if policy is not None and policy.filters else None
    if run.screen is not None:
        run.request, run.skipped = run.screen.redact(run.request)
        run.redacted = bool(run.skipped)
    run.prompt = choose_prompt(run.request.messages, run.request.prompt)


def screen_instructions(pipeline: IngestPipeline, run: IngestRun) -> None:
    """Sentences addressed to the assistant leave the messages too: no step reads them as the user's facts."""
    mode = run.policy.stored_instructions if run.policy is not None else "flag"
    screened = instruction_screen.screen(run.request, mode)
    run.request, run.flagged = screened.request, screened.flagged
    if screened.skipped:
        run.skipped += screened.skipped
        run.redacted = True


def plan(pipeline: IngestPipeline, run: IngestRun) -> None:
    """The single LLM call's facts, decisions and relations, where it can answer for the run."""
    run.planned = pipeline._ask_once(run.scope, run.request, run.prompt, run.reads, run.policy)


def store_facts(pipeline: IngestPipeline, run: IngestRun) -> None:
    """The facts read (or planned), decided against the user's memories and applied."""
    run.outcome = pipeline._facts(
        run.scope, run.request, run.prompt, run.task_id, run.sources, run.planned, run.reads, run.screen, run.skipped
    )


def keep_instructions(pipeline: IngestPipeline, run: IngestRun) -> None:
    """The flagged sentences, each a memory of kind "instruction" with its message as provenance: never
    reconciled with facts, outdating nothing, left out of summaries and of the chat proxy's prompts."""
    if not run.flagged:
        return
    flagged, outcome = run.flagged, run.result
    texts = [c.text for c in flagged]
    vectors = dict(zip(texts, pipeline.embedder.embed(texts), strict=True))
    decisions = [Decision(event=Event.ADD, text=c.text, fact_index=i) for i, c in enumerate(flagged)]
    applier = Applier(pipeline._lifecycle)
    applied = applier.apply_each(run.scope, run.request, run.task_id, flagged, vectors, decisions, (), run.sources)
    run.reads.wrote(applier.written.values())
    outcome.results += [result for _, result in applied]
    outcome.counts["instructions"] = len(applied)
    outcome.counts["ADD"] = outcome.counts.get("ADD", 0) + len(applied)
    if outcome.shares is not None:
        outcome.shares.add_results(applied, flagged)
        outcome.shares.add_run_counts({"instructions": len(applied)})


def drop_unsaid(pipeline: IngestPipeline, run: IngestRun) -> None:
    """What the screen excluded only once read (an LLM's fact, an episode's clause) leaves the messages too:
    the graph step does not see it and the add's kept input does not show it."""
    unsaid = run.screen.unsaid(run.request) if run.screen is not None else None
    if unsaid is not None:
        run.request, run.redacted = unsaid, True


def add_relations(pipeline: IngestPipeline, run: IngestRun) -> None:
    """The graph's relations of the run, after its facts (whose memories they link)."""
    graph, outcome = pipeline.graph, run.result
    if graph is None:
        return
    stored = [(r.id, r.memory) for r in outcome.results if r.event is not Event.DELETE]
    # What the run's memories state, as stored (read as each was written): relations of their own
    # (graph/statements.py), for messages stored as said too.
    stated = {f.id: f.statements for f in run.reads.get_many([i for i, _ in stored]) if f.statements}
    protected = functools.cache(functools.partial(pipeline._protected_texts, run.scope))
    messages = run.request.messages
    if not run.request.infer:  # nothing extracted: only what the memories state
        if stated:
            changes = graph.ingest(run.scope, messages, [], run.task_id, None, protected, stored, stated, extract=False)
            _record_relations(run, *changes)
        return
    decided = run.planned.graph if run.planned is not None else None
    if run.policy is not None and run.policy.include:
        # With include, what was not included is stored nowhere, the graph included: it reads the facts kept,
        # not the messages, whose other clauses still say what was left out.
        said = messages[-1].created_at if messages else None
        kept = [c.text for c in outcome.candidates if c.kind == "fact"]
        messages = [Message(role="user", content=text, created_at=said) for text in kept]
        decided = None
        if not messages:
            return
    candidates = outcome.candidates
    read = run.planned.relations_read if run.planned is not None and decided is not None else None
    changes = graph.ingest(run.scope, messages, candidates, run.task_id, decided, protected, stored, stated, read=read)
    _record_relations(run, *changes)


def _record_relations(run: IngestRun, changes: GraphChanges, used: Usage) -> None:
    outcome = run.result
    outcome.usage.add(used)
    outcome.counts.update(changes.counts())
    outcome.relations = changes.relations()
    if outcome.shares is not None:
        outcome.shares.add_run_counts(changes.counts())
        outcome.shares.add_run_relations(outcome.relations)


def close_ended_relations(pipeline: IngestPipeline, run: IngestRun) -> None:
    """The graph's relations that rest only on memories this run outdated close with them ("boyfriend
    Julien" once a later statement replaced the memories that said so), whatever the add's mode."""
    graph, outcome = pipeline.graph, run.result
    if graph is None or not outcome.outdated:
        return

    def read(ids: Sequence[str]) -> list[Fact]:
        return pipeline.facts.get_many(run.scope.tenant_id, list(ids))

    changes = graph.close_outdated(run.scope, outcome.outdated, run.task_id, read)
    if not changes.closed:
        return
    for name, count in changes.counts().items():
        outcome.counts[name] = outcome.counts.get(name, 0) + count
    outcome.relations.extend(changes.relations())
    if outcome.shares is not None:
        outcome.shares.add_run_counts(changes.counts())
        outcome.shares.add_run_relations(changes.relations())


def report_skipped(pipeline: IngestPipeline, run: IngestRun) -> None:
    """What the policy left out, the messages without it when the redaction cut any, and instructions that
    nothing in this deployment reads."""
    outcome = run.result
    if run.skipped:
        outcome.record_skipped(run.skipped)
    if run.redacted:
        outcome.messages = list(run.request.messages)
    policy = run.policy
    if policy is not None and policy.instructions.strip() and not pipeline.reads_instructions:
        outcome.unread = INSTRUCTIONS_UNREAD


Stage = Callable[[IngestPipeline, IngestRun], None]
STAGES: tuple[Stage, ...] = (
    *(screen_messages, screen_instructions, plan, store_facts, keep_instructions),
    *(drop_unsaid, add_relations, close_ended_relations, report_skipped),
)


def _said_in(
    request: AddRequest, candidates: Sequence[CandidateFact], stated: Sequence[tuple[Decision, TaskResult]]
) -> dict[str, str]:
    """Each new memory's message, where the person said it: its statements are the memory's too for the resolver
    (a fact the rules wrote from "switched from Three to Vodafone" may not say that Three ended)."""
    out: dict[str, str] = {}
    for decision, result in stated:
        index = candidates[decision.fact_index].message_index if decision.fact_index is not None else None
        if index is not None and 0 <= index < len(request.messages) and request.messages[index].role == "user":
            out[result.id] = request.messages[index].content
    return out
