"""Who said each memory, for HybridSearcher's speaker step on OpenSearch (index_ports.Speakers).

The speaker step takes a question's speaker names out of the text it embeds, so it must know the
user's speakers before the candidate search: one terms aggregation on the `speaker` keyword (copied
from `metadata.speaker` when a memory is indexed), kept per user for `SPEAKERS_TTL_S` in the warm
container, so most searches stay one request. Who said each candidate comes back with the candidate
search itself. On LoCoMo the step is worth +0.045 recall@10 with OpenSearch's ranking (bench/README.md).
A speaker first heard within the last TTL is not yet known to a container that listed the user's
speakers before it: the step then ranks as if the name were not a speaker's (plain search).
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Collection, Sequence
from typing import Any

from engram.adapters.opensearch.queries import filter_clauses

SPEAKERS_TTL_S = 300.0
MAX_SPEAKERS = 1000  # speakers listed per user (a conversation has a handful)
USERS_KEPT = 1000
SAID_KEPT = 20_000  # candidates whose speaker is remembered (~2 MB)
SPEAKER_FIELD = "speaker"


def speakers_body(tenant_id: str, user_id: str) -> dict[str, Any]:
    return {
        "size": 0,
        "query": {"bool": {"filter": filter_clauses(tenant_id, user_id, None)}},
        "aggs": {"speakers": {"terms": {"field": SPEAKER_FIELD, "size": MAX_SPEAKERS}}},
    }


def speakers_in(answer: dict[str, Any]) -> frozenset[str]:
    buckets = ((answer.get("aggregations") or {}).get("speakers") or {}).get("buckets") or []
    return frozenset(str(bucket["key"]) for bucket in buckets)


class SpeakerCache:
    """Each user's speakers (expiring) and the speaker of memories seen in candidate answers; bounded, thread-safe."""

    def __init__(self, ttl_s: float = SPEAKERS_TTL_S, clock: Callable[[], float] = time.monotonic) -> None:
        self._ttl_s = ttl_s
        self._clock = clock
        self._speakers: OrderedDict[tuple[str, str], tuple[float, frozenset[str]]] = OrderedDict()
        self._said: OrderedDict[tuple[str, str, str], str] = OrderedDict()
        self._lock = threading.Lock()

    def speakers(self, tenant_id: str, user_id: str) -> frozenset[str] | None:
        """The user's speakers, or None when not listed within the TTL."""
        with self._lock:
            entry = self._speakers.get((tenant_id, user_id))
        if entry is None or entry[0] < self._clock():
            return None
        return entry[1]

    def store(self, tenant_id: str, user_id: str, names: frozenset[str]) -> None:
        with self._lock:
            self._speakers[(tenant_id, user_id)] = (self._clock() + self._ttl_s, names)
            self._speakers.move_to_end((tenant_id, user_id))
            while len(self._speakers) > USERS_KEPT:
                self._speakers.popitem(last=False)

    def heard(self, tenant_id: str, user_id: str, names: Collection[str]) -> None:
        """Speakers of memories this container just indexed join a listed user's speakers."""
        with self._lock:
            entry = self._speakers.get((tenant_id, user_id))
            if entry is not None:
                self._speakers[(tenant_id, user_id)] = (entry[0], entry[1] | frozenset(names))

    def remember(self, tenant_id: str, user_id: str, hits: Sequence[dict[str, Any]]) -> None:
        with self._lock:
            for hit in hits:
                said = (hit.get("_source") or {}).get(SPEAKER_FIELD)
                if isinstance(said, str):
                    self._said[(tenant_id, user_id, hit["_id"])] = said
            while len(self._said) > SAID_KEPT:
                self._said.popitem(last=False)

    def spoken_by(self, tenant_id: str, user_id: str, memory_ids: Sequence[str], speakers: Collection[str]) -> set[str]:
        """The given memories that a candidate answer showed to be said by one of `speakers`."""
        with self._lock:
            return {m for m in memory_ids if self._said.get((tenant_id, user_id, m)) in speakers}
