"""Memory and task events onto the tenant-routable bus (EventBridge), after the change is stored.

Publishing never loses or holds up the user's data: the memory write has committed before an event is
built; a bus that refuses an entry or fails is tried again a few times, then the events are logged and
counted (metric BusEventsNotPublished), never raised into the task or the request.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from aws_lambda_powertools import Logger

from engram.domain.bus_events import BusEvent
from engram.domain.errors import EngramError
from engram.domain.operations_ports import Metrics
from engram.domain.ports import EventBus

logger = Logger(child=True)

BATCH = 10  # PutEvents' limit per call
NOT_PUBLISHED = "BusEventsNotPublished"


@dataclass
class BusEvents:
    bus: EventBus
    include_text: Callable[[str], bool] = lambda _tenant: False  # the tenant opted in to the memory text
    metrics: Metrics | None = None
    attempts: int = 3
    sleep: Callable[[float], None] = field(default=time.sleep)

    def publish(self, events: Sequence[BusEvent]) -> int:
        """Publish in batches; returns how many could not be published (logged and counted)."""
        lost = 0
        texts: dict[str, bool] = {}
        for start in range(0, len(events), BATCH):
            batch = events[start : start + BATCH]
            entries: list[dict[str, Any]] = [
                {"event": e.event, "tenant_id": e.tenant_id, "detail": e.detail(self._text(e.tenant_id, texts))}
                for e in batch
            ]
            lost += self._put(batch, entries)
        return lost

    def _text(self, tenant_id: str, known: dict[str, bool]) -> bool:
        if tenant_id not in known:
            try:
                known[tenant_id] = self.include_text(tenant_id)
            except EngramError:  # config unreadable: the safe answer is no text
                logger.exception("tenant config unreadable; events sent without text", extra={"tenant": tenant_id})
                known[tenant_id] = False
        return known[tenant_id]

    def _put(self, batch: Sequence[BusEvent], entries: list[dict[str, Any]]) -> int:
        pending = list(range(len(entries)))
        reason = ""
        for attempt in range(self.attempts):
            if attempt:
                self.sleep(0.1 * 2**attempt)
            try:
                refused = self.bus.put([entries[i] for i in pending])
            except EngramError as err:
                reason = str(err)
                continue
            pending = [pending[i] for i in refused]
            if not pending:
                return 0
            reason = "entries refused by the bus"
        logger.error(
            "events not published",
            extra={
                "reason": reason,
                "events": [(batch[i].event, batch[i].memory_id or batch[i].task_id) for i in pending],
            },
        )
        if self.metrics is not None:
            self.metrics.add(NOT_PUBLISHED, len(pending))
        return len(pending)
