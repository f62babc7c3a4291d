"""The asynchronous client: `AsyncEngram(base_url, api_key)`, the same methods as `Engram`, awaited."""

from __future__ import annotations

import asyncio
import builtins
import time
from collections.abc import AsyncIterator, Mapping, Sequence
from datetime import date, datetime
from types import TracebackType
from typing import Any, Literal, TypeVar, Unpack

import httpx

from engram_client import _calls
from engram_client._calls import AddOptions, Call, MaintenanceStep, Messages, SearchOptions, UpdateOptions
from engram_client._retry import RetryPolicy, poll_delays
from engram_client._transport import check, headers, outcome, settle
from engram_client.config import resolve
from engram_client.errors import EngramError, EngramTimeoutError, TaskFailedError
from engram_client.models import (
    Attachment,
    AttachmentCreated,
    Deleted,
    Entity,
    Graph,
    Health,
    HistoryEntry,
    MaintenanceRun,
    MaintenanceStarted,
    Memory,
    Page,
    QueueMetrics,
    RelationDeleted,
    SearchResults,
    Task,
    TenantConfig,
    Usage,
    User,
    UsersPage,
)

T = TypeVar("T")


class AsyncEngram:
    """Engram over HTTP. Arguments override ENGRAM_URL / ENGRAM_API_KEY and the config file.

    Requests are retried with backoff and jitter (`retry`); `timeout` bounds each HTTP request and
    `wait_timeout` each wait for a task."""

    def __init__(
        self,
        base_url: str | None = None,
        api_key: str | None = None,
        *,
        timeout: float = 30.0,
        wait_timeout: float = 120.0,
        retry: RetryPolicy | None = None,
        transport: httpx.AsyncBaseTransport | None = None,
    ) -> None:
        settings = resolve(base_url, api_key)
        self.base_url, self.wait_timeout = settings.url, wait_timeout
        self._retry = retry or RetryPolicy()
        self._headers = headers(settings.api_key)
        self._http = httpx.AsyncClient(base_url=settings.url, timeout=timeout, transport=transport)

    async def close(self) -> None:
        await self._http.aclose()

    async def __aenter__(self) -> AsyncEngram:
        return self

    async def __aexit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self.close()

    async def _run(self, call: Call[T]) -> T:
        attempt = 0
        while True:
            attempt += 1
            try:
                response = await self._http.request(
                    call.method, call.path, params=call.params, json=call.body, headers=self._headers
                )
            except httpx.TransportError as error:
                step = settle(self._retry, call, attempt, error=error)
            else:
                step = settle(self._retry, call, attempt, response=response)
            if step.retry_in is None:
                return outcome(step, call)
            await asyncio.sleep(step.retry_in)

    # --- memories -------------------------------------------------------------------------------

    async def add(self, messages: Messages, *, user_id: str, wait: bool = True, **options: Unpack[AddOptions]) -> Task:
        """Queue messages for extraction; with `wait`, poll until the task completed (its results say what
        changed). Options: as Engram.add."""
        task = await self._run(_calls.add(messages, user_id, **options))
        return await self.wait_for_task(task.task_id) if wait else task

    async def import_memories(
        self,
        memories: builtins.list[dict[str, Any]],
        *,
        user_id: str,
        agent_id: str | None = None,
        run_id: str | None = None,
        wait: bool = True,
        relations: builtins.list[dict[str, Any]] | None = None,
    ) -> Task:
        """Write exported memories (up to 500) and relations as they were; see Engram.import_memories."""
        task = await self._run(_calls.import_memories(user_id, memories, agent_id, run_id, relations or ()))
        return await self.wait_for_task(task.task_id) if wait else task

    async def task(self, task_id: str) -> Task:
        return await self._run(_calls.task(task_id))

    async def wait_for_task(self, task_id: str, timeout: float | None = None, raise_on_failure: bool = True) -> Task:
        """Poll the task, quickly at first then up to once a second, until it completed or failed."""
        deadline = time.monotonic() + (timeout or self.wait_timeout)
        for delay in poll_delays():
            task = await self.task(task_id)
            if task.done:
                if task.status == "failed" and raise_on_failure:
                    raise TaskFailedError(task)
                return task
            if time.monotonic() + delay > deadline:
                raise EngramTimeoutError(f"task {task_id} still {task.status} after {timeout or self.wait_timeout} s")
            await asyncio.sleep(delay)
        raise AssertionError("unreachable")  # poll_delays never ends

    async def search(self, query: str, *, user_id: str, **options: Unpack[SearchOptions]) -> SearchResults:
        """Options: top_k, agent_id, run_id, filters ({"memory_bank", "metadata"}), threshold, as_of."""
        return await self._run(_calls.search(query, user_id, **options))

    async def get(self, memory_id: str, include_source: bool = False) -> Memory:
        return await self._run(_calls.get(memory_id, include_source))

    async def list_page(self, user_id: str, limit: int = 100, cursor: str | None = None, **filters: Any) -> Page:
        """One page; `filters`: agent_id, run_id, attachment_id, memory_bank, is_protected, fact_key, as_of."""
        return await self._run(_calls.page(user_id, limit, cursor, **filters))

    async def list(self, user_id: str, page_size: int = 100, **filters: Any) -> AsyncIterator[Memory]:
        """Every memory of the user, page after page (pages are fetched as the iterator is consumed)."""
        cursor: str | None = None
        while True:
            page = await self.list_page(user_id, page_size, cursor, **filters)
            for memory in page.results:
                yield memory
            cursor = page.next_cursor
            if not cursor:
                return

    async def update(self, memory_id: str, text: str | None = None, **options: Unpack[UpdateOptions]) -> Memory:
        """A new version: text and/or metadata, importance, is_protected, memory_bank."""
        return await self._run(_calls.update(memory_id, text, **options))

    async def delete(self, memory_id: str) -> Deleted:
        return await self._run(_calls.delete(memory_id))

    async def delete_all(self, user_id: str, wait: bool = True) -> Deleted:
        """Forget every memory of the user. A server that deletes in the background answers a task;
        with `wait` this returns once it completed, with its count."""
        result = await self._run(_calls.delete_all(user_id))
        if result.task_id and wait:
            task = await self.wait_for_task(result.task_id)
            result.deleted, result.status = task.counts.get("deleted", 0), task.status
        return result

    async def history(self, memory_id: str) -> builtins.list[HistoryEntry]:
        return await self._run(_calls.history(memory_id))

    # --- graph ----------------------------------------------------------------------------------

    async def graph(
        self,
        user_id: str,
        limit: int | None = None,
        entity_cursor: str | None = None,
        relation_cursor: str | None = None,
        as_of: datetime | None = None,
        relations: Literal["all"] | None = None,
    ) -> Graph:
        """One page of the user's entities and one of their relations; see Engram.graph."""
        return await self._run(_calls.graph(user_id, limit, entity_cursor, relation_cursor, as_of, relations))

    async def entity(self, entity_id: str) -> Entity:
        """One entity with every relation it took part in (closed ones have `valid_to`)."""
        return await self._run(_calls.entity(entity_id))

    async def delete_relation(self, relation_id: str) -> RelationDeleted:
        """Close a relation (it stays in the entity's history with `valid_to`)."""
        return await self._run(_calls.delete_relation(relation_id))

    # --- operations -----------------------------------------------------------------------------

    async def health(self, deep: bool = False) -> Health:
        """`deep` checks every dependency (needs the key); a dependency down answers 503 (ServerError)."""
        return await self._run(_calls.health(deep))

    async def openapi(self) -> dict[str, Any]:
        """The API's OpenAPI document."""
        return await self._run(_calls.openapi())

    async def queue_metrics(self, window: Literal["hour", "day"] = "hour") -> QueueMetrics:
        return await self._run(_calls.queue_metrics(window))

    async def chat_completions(
        self, user_id: str, messages: Sequence[Mapping[str, Any]], **params: Any
    ) -> dict[str, Any]:
        """One chat completion through Engram's proxy: the user's memories join the system prompt, the
        answer is the LLM's as sent, and the exchange is queued to be remembered (`stream` is not offered
        here; point an `openai` client at Engram for that: engram_client.openai.chat_client)."""
        return await self._run(_calls.chat_completions(user_id, messages, **params))

    async def usage(self, start: date | None = None, end: date | None = None) -> Usage:
        """Usage per UTC day from `start` to `end` (the server's default range when not given)."""
        return await self._run(_calls.usage(start, end))

    async def start_maintenance(
        self, actions: Sequence[MaintenanceStep], user_id: str | None = None
    ) -> MaintenanceStarted:
        """Start a maintenance run (repair, expire, dedupe, summarise, prune) for one user or all."""
        return await self._run(_calls.start_maintenance(actions, user_id))

    async def maintenance_run(self, execution_id: str) -> MaintenanceRun:
        return await self._run(_calls.maintenance_run(execution_id))

    async def users_page(self, limit: int | None = None, cursor: str | None = None) -> UsersPage:
        """One page of the tenant's users, most recently active first."""
        return await self._run(_calls.users_page(limit, cursor))

    async def users(self, page_size: int = 100) -> AsyncIterator[User]:
        """Every user of the tenant, page after page (fetched as the iterator is consumed)."""
        cursor: str | None = None
        while True:
            page = await self.users_page(page_size, cursor)
            for user in page.results:
                yield user
            if not (cursor := page.next_cursor):
                return

    # --- attachments ----------------------------------------------------------------------------

    async def upload_attachment(
        self, name: str, media_type: str, data: bytes, description: str | None = None
    ) -> AttachmentCreated:
        """Inline up to 5 MiB; larger files are PUT to the presigned URL the server hands out."""
        created = await self._run(_calls.create_attachment(name, media_type, data, description))
        if created.upload_url and not created.stored:
            response = await self._http.put(created.upload_url, content=data, headers={"content-type": media_type})
            check(response)
        return created

    async def get_config(self) -> TenantConfig:
        """The tenant's instructions, include/exclude and custom prompts."""
        return await self._run(_calls.get_config())

    async def put_config(self, config: TenantConfig | dict[str, Any]) -> TenantConfig:
        """Replace the tenant's configuration whole; a bad one raises (422) naming the field."""
        return await self._run(_calls.put_config(config))

    async def test_policy(
        self, text: str, user_id: str | None = None, policy: dict[str, Any] | None = None
    ) -> dict[str, Any]:
        """How the memory policy (the tenant's, plus the user's own with `user_id`, or `policy` instead) reads a
        sentence: per clause kept, excluded or not included, the reason and the closest bank or topic."""
        return await self._run(_calls.test_policy(text, user_id, policy))

    async def attachment(self, attachment_id: str, limit: int | None = None, cursor: str | None = None) -> Attachment:
        """The attachment and one page of the memories holding it."""
        return await self._run(_calls.attachment(attachment_id, limit, cursor))

    async def attachment_memory_ids(self, attachment_id: str, page_size: int = 100) -> AsyncIterator[str]:
        """Every memory holding the attachment, page after page (fetched as the iterator is consumed)."""
        cursor: str | None = None
        while True:
            page = await self.attachment(attachment_id, page_size, cursor)
            for memory_id in page.memory_ids:
                yield memory_id
            if not (cursor := page.next_cursor):
                return

    async def download_attachment(self, attachment_id: str) -> bytes:
        found = await self.attachment(attachment_id)
        if not found.download_url:
            raise EngramError(f"attachment {attachment_id} has no content to download")
        response = await self._http.get(found.download_url)
        return check(response).content
