"""Summarise: clusters of old, similar memories of one user become one summary memory.

A cluster is at least `min_cluster_size` current facts that are older than `min_age_days` (by their
last change), neither protected nor summaries themselves, in the same memory bank and agent/run
scope, each with cosine >= `similarity` to the cluster's first fact. The LLM writes the summary;
an answer that drops a name, place, date or number of the originals is sent back to be redone.
The summary holds the originals' attachments and lists their ids in `summarized_from`; the
originals are closed (history kept) and leave the index.
"""

from __future__ import annotations

import json
import re
import uuid
from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import timedelta
from functools import cache
from importlib import resources
from typing import Any

import numpy as np
from aws_lambda_powertools import Logger

from engram.domain.errors import LLMOutputError, NotFoundError
from engram.domain.models import Fact, Usage, utcnow
from engram.domain.ports import LLM, Embedder
from engram.maintenance.scanner import FactScanner, ScopeKey
from engram.reconcile.llm_json import ask_json
from engram.writes.unit_of_work import Lifecycle

logger = Logger(child=True)

ACTOR = "maintenance"
EMBED_BATCH = 64
# Summary ids derive from the originals, so a run that stopped half-way finds its summary again.
_IDS = uuid.UUID("0b7f2a52-7c1e-4d5e-9d0c-5f3a2e8b9c41")
SUMMARY_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"summary": {"type": "string"}},
    "required": ["summary"],
    "additionalProperties": False,
}
_WORD = re.compile(r"\w[\w'\u2019-]*")
_NUMBER = re.compile(r"\d+(?:[.,:/-]\d+)*")
_SENTENCE_END = re.compile(r"[.!?;:\n]")


@cache
def summarise_system_prompt() -> str:
    return resources.files("engram").joinpath("prompts", "summarise.txt").read_text(encoding="utf-8")


def must_keep(texts: Iterable[str]) -> list[str]:
    """Numbers and capitalised words (names, places, months) that a faithful summary repeats.

    The first word of each sentence is capitalised anyway, so it says nothing and is left out.
    """
    found: dict[str, None] = {}
    for text in texts:
        found.update(dict.fromkeys(_NUMBER.findall(text)))
        for sentence in _SENTENCE_END.split(text):
            words = _WORD.findall(sentence)
            found.update(dict.fromkeys(w for w in words[1:] if w[0].isupper()))
    return list(found)


def summary_interpreter(originals: Sequence[str]) -> Callable[[Any], str]:
    keep = must_keep(originals)

    def interpret(answer: Any) -> str:
        if not isinstance(answer, dict) or not isinstance(answer.get("summary"), str):
            raise ValueError('expected {"summary": "..."}')
        summary = " ".join(answer["summary"].split())
        if not summary:
            raise ValueError("the summary is empty")
        lowered = summary.casefold()
        lost = [k for k in keep if k.casefold() not in lowered]
        if lost:
            raise ValueError(f"the summary leaves out {', '.join(lost)}; keep every name, place, date and number")
        return summary

    return interpret


def embed_in_batches(embedder: Embedder, texts: Sequence[str]) -> list[list[float]]:
    """Vectors for many texts, EMBED_BATCH at a time (a user may have thousands of memories)."""
    vectors: list[list[float]] = []
    for start in range(0, len(texts), EMBED_BATCH):
        vectors.extend(embedder.embed(texts[start : start + EMBED_BATCH]))
    return vectors


def find_clusters(
    vectors: Sequence[Sequence[float]], similarity: float, min_size: int, max_size: int
) -> list[list[int]]:
    """Leader clustering: each not-yet-clustered item in turn gathers the free items close to it."""
    if len(vectors) < min_size:
        return []
    matrix = np.asarray(vectors, dtype=np.float64)
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    matrix = matrix / np.where(norms == 0, 1.0, norms)
    sims = matrix @ matrix.T
    free = np.ones(len(vectors), dtype=bool)
    clusters: list[list[int]] = []
    for leader in range(len(vectors)):
        if not free[leader]:
            continue
        free[leader] = False
        near = np.flatnonzero(free & (sims[leader] >= similarity))
        near = near[np.argsort(-sims[leader][near], kind="stable")][: max_size - 1]
        if len(near) + 1 < min_size:
            free[leader] = True  # it may still join a later leader's cluster
            continue
        free[near] = False
        clusters.append([leader, *(int(i) for i in near)])
    return clusters


def _zero_counts() -> dict[str, Any]:
    return {"scopes": 0, "clusters": 0, "summaries": 0, "facts_summarised": 0, "failed": 0, "conflicts": 0}


def skipped_report(reason: str = "no LLM configured") -> dict[str, Any]:
    """What a run without an LLM reports: without a model there is no faithful summary; never fake one."""
    return {"skipped": True, "reason": reason, **_zero_counts()}


@dataclass
class SummariseService:
    scanner: FactScanner
    lifecycle: Lifecycle
    llm: LLM | None
    min_age_days: float = 30
    similarity: float = 0.85
    min_cluster_size: int = 3
    max_cluster_size: int = 20  # keeps one prompt (and one summary) a readable size
    usage: Usage = field(default_factory=Usage)

    def __post_init__(self) -> None:
        if self.min_cluster_size < 2 or self.max_cluster_size < self.min_cluster_size:
            raise ValueError("need 2 <= min_cluster_size <= max_cluster_size")

    def run(self, scopes: Iterable[ScopeKey] | None = None) -> dict[str, Any]:
        if self.llm is None:
            return skipped_report()
        counts = _zero_counts()
        for tenant_id, user_id in self.scanner.scopes() if scopes is None else scopes:
            counts["scopes"] += 1
            for cluster in self.clusters(tenant_id, user_id):
                counts["clusters"] += 1
                outcome = self._summarise(cluster)
                if outcome is None:
                    counts["failed"] += 1
                    continue
                closed, conflicts = outcome
                counts["summaries"] += 1
                counts["facts_summarised"] += closed
                counts["conflicts"] += conflicts
        return {"skipped": False, **counts, "usage": self.usage.model_dump()}

    def clusters(self, tenant_id: str, user_id: str) -> list[list[Fact]]:
        cutoff = utcnow() - timedelta(days=self.min_age_days)
        groups: dict[tuple[str, str | None, str | None], list[Fact]] = defaultdict(list)
        for fact in sorted(self.scanner.current(tenant_id, user_id), key=lambda f: (f.created_at, f.id)):
            # an instruction kept apart (safety/instructions.py) never becomes part of a summary of the user
            if fact.is_protected or fact.is_summarized or fact.kind == "instruction" or fact.updated_at > cutoff:
                continue
            # Search filters on bank, agent and run; a summary must stay findable under the same ones.
            groups[(fact.memory_bank.value, fact.agent_id, fact.run_id)].append(fact)
        found: list[list[Fact]] = []
        for group in groups.values():
            if len(group) < self.min_cluster_size:
                continue
            vectors = embed_in_batches(self.lifecycle.embedder, [f.text for f in group])
            for members in find_clusters(vectors, self.similarity, self.min_cluster_size, self.max_cluster_size):
                found.append([group[i] for i in members])
        return found

    def _ask(self, cluster: Sequence[Fact]) -> str | None:
        assert self.llm is not None  # noqa: S101 - type narrowing: only called when an LLM is configured
        listing = [{"date": f.valid_from.date().isoformat(), "memory": f.text} for f in cluster]
        user = "Memories:\n" + json.dumps(listing, ensure_ascii=False, indent=2)
        try:
            summary, usage = ask_json(
                self.llm,
                summarise_system_prompt(),
                user,
                SUMMARY_SCHEMA,
                "summary",
                summary_interpreter([f.text for f in cluster]),
            )
        except LLMOutputError as err:
            # The originals stay as they are: nothing is lost, the cluster is retried next run.
            logger.warning("summary rejected", extra={"memory_ids": [f.id for f in cluster], "error": str(err)})
            return None
        self.usage.add(usage)
        return summary

    def _summarise(self, cluster: list[Fact]) -> tuple[int, int] | None:
        text = self._ask(cluster)
        if text is None:
            return None
        summary = self._summary_fact(cluster, text)
        facts = self.lifecycle.facts
        try:
            earlier = facts.get(summary.tenant_id, summary.id, include_closed=True)
        except NotFoundError:
            earlier = None
        if earlier is not None and not earlier.is_current:
            # An earlier run wrote this summary and stopped before closing the originals; then the
            # summary was deleted. The originals stay.
            logger.warning("summary was deleted meanwhile; originals kept", extra={"memory_id": summary.id})
            return None
        changes = self.lifecycle.changes(summary.tenant_id, summary.user_id)
        changes.add(earlier or summary, ACTOR, note=f"summary of {len(cluster)} memories")
        changes.commit()  # the summary holds the attachments before any original lets go of them
        # An original changed since it was read stays current beside the summary.
        closed, conflicts = changes.close_each(cluster, ACTOR, note=f"summarised into {summary.id}")
        changes.commit()
        return closed, conflicts

    def _summary_fact(self, cluster: Sequence[Fact], text: str) -> Fact:
        first = cluster[0]
        ids = [f.id for f in cluster]
        accessed = [f.last_accessed_at for f in cluster if f.last_accessed_at is not None]
        return Fact(
            id=str(uuid.uuid5(_IDS, f"{first.tenant_id}:{first.user_id}:{','.join(sorted(ids))}")),
            tenant_id=first.tenant_id,
            user_id=first.user_id,
            agent_id=first.agent_id,
            run_id=first.run_id,
            text=text,
            memory_bank=first.memory_bank,
            importance=max(f.importance for f in cluster),
            # Only metadata every original agrees on: a filter that found all of them finds the summary.
            metadata={k: v for k, v in first.metadata.items() if all(f.metadata.get(k) == v for f in cluster)},
            attachment_ids=list(dict.fromkeys(a for f in cluster for a in f.attachment_ids)),
            last_accessed_at=max(accessed) if accessed else None,
            access_count=sum(f.access_count for f in cluster),
            is_summarized=True,
            summarized_from=ids,
            embedding_model=self.lifecycle.embedder.model_id,
        )
