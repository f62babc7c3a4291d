"""Which current memories hold each attachment; an attachment's bytes go once nothing holds it."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from aws_lambda_powertools import Logger

from engram.domain.errors import NotFoundError
from engram.domain.ports import AttachmentStore, BlobStore

logger = Logger(child=True)


@dataclass
class AttachmentHolders:
    tenant_id: str
    store: AttachmentStore | None
    blobs: BlobStore | None
    _links: list[tuple[str, str]] = field(default_factory=list)
    _unlinks: list[tuple[str, str]] = field(default_factory=list)

    def changed(self, memory_id: str, before: Sequence[str], after: Sequence[str]) -> None:
        self._links += [(a, memory_id) for a in after if a not in before]
        self._unlinks += [(a, memory_id) for a in before if a not in after]

    def flush(self) -> None:
        """Links first, so an attachment moving between memories never looks unheld."""
        if self.store is None:
            return
        for attachment_id, memory_id in self._links:
            self.store.link(self.tenant_id, attachment_id, memory_id)
        for attachment_id, memory_id in self._unlinks:
            if self.store.unlink(self.tenant_id, attachment_id, memory_id) == 0:
                self._forget_bytes(attachment_id)
        self._links.clear()
        self._unlinks.clear()

    def _forget_bytes(self, attachment_id: str) -> None:
        assert self.store is not None  # noqa: S101 - type narrowing: only queued when a store is set
        try:
            attachment = self.store.get(self.tenant_id, attachment_id)
        except NotFoundError:
            return
        if self.blobs is not None:
            self.blobs.delete(attachment.blob_key)
        self.store.save(attachment.model_copy(update={"deleted": True}))
        logger.info("attachment bytes removed: no memory holds it", extra={"attachment_id": attachment_id})
