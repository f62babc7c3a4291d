"""Attachments: upload (inline or presigned), look up, and resolve the ones an add call names."""

from __future__ import annotations

import base64
import binascii
import hashlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from engram.domain.errors import PayloadTooLargeError, ValidationError
from engram.domain.models import Attachment, AttachmentInput, Fact
from engram.domain.policy import RedactKind
from engram.domain.ports import AttachmentStore, BlobStore
from engram.safety.redaction import redact
from engram.services.paging import page_after


@dataclass
class AttachmentService:
    store: AttachmentStore
    blobs: BlobStore
    max_inline_bytes: int = 5 * 1024 * 1024
    url_expires_s: int = 300  # presigned upload and download URLs work this long (ENGRAM_PRESIGN_EXPIRES_S)
    # The tenant's `redact` kinds: a description is text the reconcile prompt shows the LLM and the API
    # shows back, so it is redacted as an add's messages are (docs/safety.md); credentials always.
    redact_kinds: Callable[[str], Sequence[RedactKind]] = lambda tenant_id: ()
    # What the memory policy (the tenant's, and the user's own when the add names a user) lets a text say:
    # a description's clause about an excluded bank or topic is stored nowhere, as an add's is (issue 44).
    screen: Callable[[str, str | None, str], str] = lambda tenant_id, user_id, text: text

    def create(
        self,
        tenant_id: str,
        name: str,
        media_type: str,
        description: str | None = None,
        content_base64: str | None = None,
        user_id: str | None = None,
        field: str = "content_base64",
    ) -> tuple[Attachment, str | None]:
        """Store inline content now, or hand out a presigned PUT URL for the client to upload to."""
        if description:
            description = redact(description, self.redact_kinds(tenant_id)).text
            description = self.screen(tenant_id, user_id, description) or None
        attachment = Attachment(
            tenant_id=tenant_id, user_id=user_id, name=name, media_type=media_type, description=description, blob_key=""
        )
        # Under the tenant's own prefix: a presigned URL names this one key and nothing else.
        attachment.blob_key = f"attachments/{tenant_id}/{attachment.id}"
        upload_url = None
        if content_base64 is not None:
            data = self._decode(content_base64, field)
            self.blobs.put(attachment.blob_key, data, media_type)
            attachment.size, attachment.checksum, attachment.stored = len(data), hashlib.sha256(data).hexdigest(), True
        else:
            upload_url = self.blobs.presign_put(attachment.blob_key, media_type, self.url_expires_s)
        self.store.create(attachment)
        return attachment, upload_url

    def get(
        self, tenant_id: str, attachment_id: str, limit: int = 100, cursor: str | None = None
    ) -> tuple[Attachment, str | None, list[str], str | None]:
        """The attachment, its download URL, a page of the memories holding it and the next cursor."""
        attachment = self.store.get(tenant_id, attachment_id)
        url = None if attachment.deleted else self.blobs.presign_get(attachment.blob_key, self.url_expires_s)
        holders = self.store.holders(tenant_id, attachment_id)
        page, next_cursor = page_after(holders, limit, cursor, f"holders:{attachment_id}")
        return attachment, url, page, next_cursor

    def resolve(self, tenant_id: str, user_id: str, inputs: Sequence[AttachmentInput]) -> list[AttachmentInput]:
        """Every attachment of an add call as an id of this tenant; inline content is stored first."""
        resolved: list[AttachmentInput] = []
        for i, item in enumerate(inputs):
            if item.attachment_id is not None:
                self.store.get(tenant_id, item.attachment_id)  # another tenant's id: NotFoundError (404)
                resolved.append(AttachmentInput(attachment_id=item.attachment_id))
                continue
            assert item.name and item.media_type  # noqa: S101 - type narrowing: the model's validator guarantees both
            attachment, _ = self.create(
                tenant_id,
                item.name,
                item.media_type,
                item.description,
                item.content_base64,
                user_id,
                field=f"attachments[{i}].content_base64",
            )
            resolved.append(AttachmentInput(attachment_id=attachment.id))
        return resolved

    def details(self, tenant_id: str, facts: Sequence[Fact]) -> dict[str, Attachment]:
        ids = [a for f in facts for a in f.attachment_ids]
        return self.store.get_many(tenant_id, ids) if ids else {}

    def _decode(self, content: str, field: str) -> bytes:
        if len(content) * 3 // 4 > self.max_inline_bytes + 3:
            raise PayloadTooLargeError(field, f"inline attachments are limited to {self.max_inline_bytes} bytes")
        try:
            data = base64.b64decode(content, validate=True)
        except (binascii.Error, ValueError) as err:
            raise ValidationError(field, "is not valid base64") from err
        if len(data) > self.max_inline_bytes:
            raise PayloadTooLargeError(field, f"inline attachments are limited to {self.max_inline_bytes} bytes")
        return data
