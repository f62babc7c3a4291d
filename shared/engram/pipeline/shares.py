"""What each task of a merged run made: its own results and counts.

The worker runs a user's consecutive adds as one run (one extraction, one reconciliation), which
must not show: each task reports the memories made from its own messages, as if the tasks had run
one after another. A result belongs to the task whose message its fact came from (the memory's
recorded source); a decision with no known message (an LLM's fact, a memory kept for its
attachments) belongs to the run's own task, as the memory's source does.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from engram.domain.models import MemorySource, TaskResult
from engram.domain.policy import Skipped
from engram.domain.relation_changes import TaskRelations
from engram.domain.steps import CandidateFact, Decision

EVENTS = ("ADD", "UPDATE", "DELETE", "NONE")


def zero_counts() -> dict[str, int]:
    return {"facts": 0, **dict.fromkeys(EVENTS, 0), "duplicates": 0}


@dataclass
class TaskShare:
    results: list[TaskResult] = field(default_factory=list)
    counts: dict[str, int] = field(default_factory=zero_counts)
    skipped: list[Skipped] = field(default_factory=list)  # what the memory policy left out, and why
    relations: TaskRelations = field(default_factory=TaskRelations)  # graph relations added, closed, refined


@dataclass
class RunShares:
    task_id: str  # the run's own task (the first of a merged run)
    sources: Sequence[MemorySource]  # where each message of the run came from
    by_task: dict[str, TaskShare] = field(default_factory=dict)

    def __post_init__(self) -> None:
        for task_id in dict.fromkeys([self.task_id, *(s.task_id for s in self.sources)]):
            self.by_task.setdefault(task_id, TaskShare())

    def owner(self, candidate: CandidateFact | None) -> str:
        return self.owner_of(candidate.message_index if candidate is not None else None)

    def owner_of(self, index: int | None) -> str:
        """The task a message of the run came from (the run's own task when not known)."""
        if index is not None and index < len(self.sources):
            return self.sources[index].task_id
        return self.task_id

    def count_facts(self, candidates: Sequence[CandidateFact]) -> None:
        for candidate in candidates:
            self.by_task[self.owner(candidate)].counts["facts"] += 1

    def count_decisions(self, decisions: Sequence[Decision], candidates: Sequence[CandidateFact]) -> None:
        for decision in decisions:
            counts = self.by_task[self.owner(_candidate(decision, candidates))].counts
            counts[decision.event.value] += 1
            counts["duplicates"] += decision.duplicate

    def add_results(self, applied: Sequence[tuple[Decision, TaskResult]], candidates: Sequence[CandidateFact]) -> None:
        for decision, result in applied:
            self.by_task[self.owner(_candidate(decision, candidates))].results.append(result)

    def add_skipped(self, skipped: Sequence[tuple[int | None, Skipped]]) -> None:
        """What the policy left out, on the task whose message said it."""
        for index, item in skipped:
            share = self.by_task[self.owner_of(index)]
            share.skipped.append(item)
            share.counts["excluded"] = share.counts.get("excluded", 0) + 1

    def add_run_counts(self, counts: Mapping[str, int]) -> None:
        """Counts of the run as a whole (the single call, graph relations): on the run's own task,
        as its LLM usage is."""
        mine = self.by_task[self.task_id].counts
        for name, value in counts.items():
            mine[name] = mine.get(name, 0) + value

    def add_run_relations(self, relations: TaskRelations) -> None:
        """The graph's changes, on the run's own task with their counts (the graph reads the run whole)."""
        self.by_task[self.task_id].relations.extend(relations)


def _candidate(decision: Decision, candidates: Sequence[CandidateFact]) -> CandidateFact | None:
    return candidates[decision.fact_index] if decision.fact_index is not None else None
