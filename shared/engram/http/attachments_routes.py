"""The attachments routes of the API function (a Powertools Router the handler includes): upload a file
(inline or to a presigned URL) and read it back with the memories that hold it. HTTP glue only."""

from __future__ import annotations

from aws_lambda_powertools.event_handler import Response, content_types
from aws_lambda_powertools.event_handler.api_gateway import Router

from engram import bootstrap
from engram.http.authorization import tenant_of
from engram.http.models import AttachmentCreate, AttachmentCreated, AttachmentView
from engram.http.operation_docs import OPERATIONS
from engram.http.query import Cursor, Limit

router = Router()  # type: ignore[no-untyped-call]  # Powertools leaves __init__ unannotated


@router.post("/v1/attachments", **OPERATIONS["create_attachment"])
def create_attachment(body: AttachmentCreate) -> Response[AttachmentCreated]:
    attachment, upload_url = bootstrap.container().attachments.create(
        tenant_of(router.current_event), body.name, body.media_type, body.description, body.content_base64
    )
    created = AttachmentCreated(attachment_id=attachment.id, upload_url=upload_url, stored=attachment.stored)
    return Response(201, content_types.APPLICATION_JSON, created)


@router.get("/v1/attachments/<attachment_id>", **OPERATIONS["get_attachment"])
def get_attachment(attachment_id: str, limit: Limit = 100, cursor: Cursor = None) -> AttachmentView:
    attachments = bootstrap.container().attachments
    attachment, url, holders, more = attachments.get(tenant_of(router.current_event), attachment_id, limit, cursor)
    return AttachmentView(**attachment.model_dump(), download_url=url, memory_ids=holders, next_cursor=more)
