"""Dedupe: current memories of one user that say the same thing become one.

Memories at least `similarity` alike (cosine of their embeddings), in the same memory bank and
agent/run scope, form a group; the oldest is kept. It takes over the others' attachments (a new
version whose history event names the memories merged into it), and the others are closed with the
note "duplicate of <id>", their own history kept. Protected memories are never merged away (nor
kept in place of another); episodes are left alone, since two turns that read alike are still two
things said."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from aws_lambda_powertools import Logger

from engram.domain.errors import ConflictError
from engram.domain.models import Fact
from engram.maintenance.scanner import FactScanner, ScopeKey
from engram.maintenance.summarise import embed_in_batches, find_clusters
from engram.writes.unit_of_work import Lifecycle, next_version

logger = Logger(child=True)

ACTOR = "maintenance"
MAX_GROUP = 1000  # one leader gathers at most this many duplicates per run


@dataclass
class DedupeService:
    scanner: FactScanner
    lifecycle: Lifecycle
    similarity: float = 0.95

    def run(self, scopes: Iterable[ScopeKey] | None = None) -> dict[str, int]:
        counts = {"scopes": 0, "groups": 0, "merged": 0, "conflicts": 0}
        for tenant_id, user_id in self.scanner.scopes() if scopes is None else scopes:
            counts["scopes"] += 1
            for group in self.groups(tenant_id, user_id):
                merged, conflicts = self._merge(group[0], group[1:])
                counts["groups"] += 1
                counts["merged"] += merged
                counts["conflicts"] += conflicts
        return counts

    def groups(self, tenant_id: str, user_id: str) -> list[list[Fact]]:
        """Groups of duplicates, oldest first in each."""
        scopes: dict[tuple[str, str | None, str | None], list[Fact]] = defaultdict(list)
        for fact in sorted(self.scanner.current(tenant_id, user_id), key=lambda f: (f.created_at, f.id)):
            if not fact.is_protected and getattr(fact, "kind", "fact") != "episode":
                scopes[(fact.memory_bank.value, fact.agent_id, fact.run_id)].append(fact)
        found: list[list[Fact]] = []
        for facts in scopes.values():
            if len(facts) < 2:
                continue
            vectors = embed_in_batches(self.lifecycle.embedder, [f.text for f in facts])
            found += [[facts[i] for i in members] for members in find_clusters(vectors, self.similarity, 2, MAX_GROUP)]
        return found

    def _merge(self, keep: Fact, duplicates: Sequence[Fact]) -> tuple[int, int]:
        changes = self.lifecycle.changes(keep.tenant_id, keep.user_id)
        attachments = list(dict.fromkeys([*keep.attachment_ids, *(a for d in duplicates for a in d.attachment_ids)]))
        note = "merged " + ", ".join(d.id for d in duplicates)
        try:
            changes.rewrite(keep, next_version(keep, attachment_ids=attachments), ACTOR, note=note)
        except ConflictError:
            return 0, 1  # the kept memory changed since it was read: the next run looks again
        merged, conflicts = changes.close_each(duplicates, ACTOR, note=f"duplicate of {keep.id}")
        changes.commit()  # the kept memory holds the attachments before the duplicates let go of them
        logger.info("merged duplicates", extra={"memory_id": keep.id, "merged": merged})
        return merged, conflicts
