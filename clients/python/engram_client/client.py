"""The synchronous client: `Engram(base_url, api_key)`."""

from __future__ import annotations

import builtins
import time
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
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
from engram_client.events import EventStream, EventsUnavailable, event_stream
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


class Engram:
    """Engram over HTTP. Arguments override ENGRAM_URL / ENGRAM_API_KEY and the config file.

    Requests are retried with backoff and jitter (`retry`); `timeout` bounds each HTTP request and
    `wait_timeout` each wait for a task. An add that waits listens for its task's events where the server
    offers them over WebSocket (`events=False` never tries), and polls the task otherwise."""

    def __init__(
        self,
        base_url: str | None = None,
        api_key: str | None = None,
        *,
        timeout: float = 30.0,
        wait_timeout: float = 120.0,
        retry: RetryPolicy | None = None,
        transport: httpx.BaseTransport | None = None,
        events: bool = True,
    ) -> None:
        settings = resolve(base_url, api_key)
        self.base_url, self.wait_timeout = settings.url, wait_timeout
        self._retry = retry or RetryPolicy()
        self._headers = headers(settings.api_key)
        self._http = httpx.Client(base_url=settings.url, timeout=timeout, transport=transport)
        # None: not tried yet; False: the server has no /v1/events (or websockets is not installed).
        self._events_offered: bool | None = None if events else False

    @property
    def api_key(self) -> str | None:
        """The API key the client sends (None when it has none)."""
        return self._headers.get("x-api-key")

    def close(self) -> None:
        self._http.close()

    def __enter__(self) -> Engram:
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        self.close()

    def _run(self, call: Call[T]) -> T:
        attempt = 0
        while True:
            attempt += 1
            try:
                response = self._http.request(
                    call.method, call.path, params=call.params, json=call.body, headers=self._headers
                )
            except httpx.TransportError as error:
                step = settle(self._retry, call, attempt, error=error)
            else:
                step = settle(self._retry, call, attempt, response=response)
            if step.retry_in is None:
                return outcome(step, call)
            time.sleep(step.retry_in)

    # --- memories -------------------------------------------------------------------------------

    def add(self, messages: Messages, *, user_id: str, wait: bool = True, **options: Unpack[AddOptions]) -> Task:
        """Queue messages for extraction; with `wait`, return the completed task (its results say what changed).
        Options: agent_id, run_id, metadata, infer, deduplicate, prompt, strategy, attachments, created_at,
        instructions, include, exclude."""
        call = _calls.add(messages, user_id, **options)
        if not wait:
            return self._run(call)
        with self._events(user_id) as stream:  # subscribed before the add, so no event is missed
            task = self._run(call)
            if stream is not None:
                stream.wait_for(task.task_id, self.wait_timeout)
        return self.wait_for_task(task.task_id)  # one read when the event came; polling when not

    @contextmanager
    def _events(self, user_id: str) -> Iterator[EventStream | None]:
        """The server's live events when it offers them (tried once per client), else None."""
        if self._events_offered is not False:
            try:
                with event_stream(self.base_url, self._headers.get("x-api-key"), user_id) as stream:
                    self._events_offered = True
                    yield stream
                    return
            except EventsUnavailable:
                self._events_offered = False
        yield None

    def import_memories(
        self,
        memories: builtins.list[dict[str, Any]],
        *,
        user_id: str,
        agent_id: str | None = None,
        run_id: str | None = None,
        wait: bool = True,
        relations: builtins.list[dict[str, Any]] | None = None,
    ) -> Task:
        """Write exported memories (lines of `engram export`, up to 500) and graph relations (up to 1000)
        as they were, for `user_id`. Re-importing the same ones into the same user adds nothing
        (`counts["skipped"]`, `counts["relations_skipped"]`)."""
        task = self._run(_calls.import_memories(user_id, memories, agent_id, run_id, relations or ()))
        return self.wait_for_task(task.task_id) if wait else task

    def task(self, task_id: str) -> Task:
        return self._run(_calls.task(task_id))

    def wait_for_task(self, task_id: str, timeout: float | None = None, raise_on_failure: bool = True) -> Task:
        """Poll the task, quickly at first then up to once a second, until it completed or failed."""
        deadline = time.monotonic() + (timeout or self.wait_timeout)
        for delay in poll_delays():
            task = self.task(task_id)
            if task.done:
                if task.status == "failed" and raise_on_failure:
                    raise TaskFailedError(task)
                return task
            if time.monotonic() + delay > deadline:
                raise EngramTimeoutError(f"task {task_id} still {task.status} after {timeout or self.wait_timeout} s")
            time.sleep(delay)
        raise AssertionError("unreachable")  # poll_delays never ends

    def search(self, query: str, *, user_id: str, **options: Unpack[SearchOptions]) -> SearchResults:
        """Options: top_k, agent_id, run_id, filters ({"memory_bank", "metadata"}), threshold, as_of."""
        return self._run(_calls.search(query, user_id, **options))

    def get(self, memory_id: str, include_source: bool = False) -> Memory:
        return self._run(_calls.get(memory_id, include_source))

    def list_page(self, user_id: str, limit: int = 100, cursor: str | None = None, **filters: Any) -> Page:
        """One page; `filters`: agent_id, run_id, attachment_id, memory_bank, is_protected, fact_key, as_of."""
        return self._run(_calls.page(user_id, limit, cursor, **filters))

    def list(self, user_id: str, page_size: int = 100, **filters: Any) -> Iterator[Memory]:
        """Every memory of the user, page after page (pages are fetched as the iterator is consumed)."""
        cursor: str | None = None
        while True:
            page = self.list_page(user_id, page_size, cursor, **filters)
            yield from page.results
            cursor = page.next_cursor
            if not cursor:
                return

    def update(self, memory_id: str, text: str | None = None, **options: Unpack[UpdateOptions]) -> Memory:
        """A new version: text and/or metadata, importance, is_protected, memory_bank."""
        return self._run(_calls.update(memory_id, text, **options))

    def delete(self, memory_id: str) -> Deleted:
        return self._run(_calls.delete(memory_id))

    def delete_all(self, user_id: str, wait: bool = True) -> Deleted:
        """Forget every memory of the user. A server that deletes in the background answers a task;
        with `wait` this returns once it completed, with its count."""
        result = self._run(_calls.delete_all(user_id))
        if result.task_id and wait:
            task = self.wait_for_task(result.task_id)
            result.deleted, result.status = task.counts.get("deleted", 0), task.status
        return result

    def history(self, memory_id: str) -> builtins.list[HistoryEntry]:
        return self._run(_calls.history(memory_id))

    # --- graph ----------------------------------------------------------------------------------

    def graph(
        self,
        user_id: str,
        limit: int | None = None,
        entity_cursor: str | None = None,
        relation_cursor: str | None = None,
        as_of: datetime | None = None,
        relations: Literal["all"] | None = None,
    ) -> Graph:
        """One page of the user's entities and one of their relations (current ones, those at `as_of`, or
        with `relations="all"` every one, closed ones too)."""
        return self._run(_calls.graph(user_id, limit, entity_cursor, relation_cursor, as_of, relations))

    def entity(self, entity_id: str) -> Entity:
        """One entity with every relation it took part in (closed ones have `valid_to`)."""
        return self._run(_calls.entity(entity_id))

    def delete_relation(self, relation_id: str) -> RelationDeleted:
        """Close a relation (it stays in the entity's history with `valid_to`)."""
        return self._run(_calls.delete_relation(relation_id))

    # --- operations -----------------------------------------------------------------------------

    def health(self, deep: bool = False) -> Health:
        """`deep` checks every dependency (needs the key); a dependency down answers 503 (ServerError)."""
        return self._run(_calls.health(deep))

    def openapi(self) -> dict[str, Any]:
        """The API's OpenAPI document."""
        return self._run(_calls.openapi())

    def queue_metrics(self, window: Literal["hour", "day"] = "hour") -> QueueMetrics:
        return self._run(_calls.queue_metrics(window))

    def chat_completions(self, user_id: str, messages: Sequence[Mapping[str, Any]], **params: Any) -> dict[str, Any]:
        """One chat completion through Engram's proxy: the user's memories join the system prompt, the
        answer is the LLM's as sent, and the exchange is queued to be remembered (`stream` is not offered
        here; point an `openai` client at Engram for that: engram_client.openai.chat_client)."""
        return self._run(_calls.chat_completions(user_id, messages, **params))

    def usage(self, start: date | None = None, end: date | None = None) -> Usage:
        """Usage per UTC day from `start` to `end` (the server's default range when not given)."""
        return self._run(_calls.usage(start, end))

    def start_maintenance(self, actions: Sequence[MaintenanceStep], user_id: str | None = None) -> MaintenanceStarted:
        """Start a maintenance run (repair, expire, dedupe, summarise, prune) for one user or all."""
        return self._run(_calls.start_maintenance(actions, user_id))

    def maintenance_run(self, execution_id: str) -> MaintenanceRun:
        return self._run(_calls.maintenance_run(execution_id))

    def users_page(self, limit: int | None = None, cursor: str | None = None) -> UsersPage:
        """One page of the tenant's users, most recently active first."""
        return self._run(_calls.users_page(limit, cursor))

    def users(self, page_size: int = 100) -> Iterator[User]:
        """Every user of the tenant, page after page (fetched as the iterator is consumed)."""
        cursor: str | None = None
        while True:
            page = self.users_page(page_size, cursor)
            yield from page.results
            if not (cursor := page.next_cursor):
                return

    # --- attachments ----------------------------------------------------------------------------

    def upload_attachment(
        self, name: str, media_type: str, data: bytes, description: str | None = None
    ) -> AttachmentCreated:
        """Inline up to 5 MiB; larger files are PUT to the presigned URL the server hands out."""
        created = self._run(_calls.create_attachment(name, media_type, data, description))
        if created.upload_url and not created.stored:
            response = self._http.put(created.upload_url, content=data, headers={"content-type": media_type})
            check(response)
        return created

    # --- the tenant's memory policy ------------------------------------------------------------------

    def get_config(self) -> TenantConfig:
        """The tenant's instructions, include/exclude and custom prompts."""
        return self._run(_calls.get_config())

    def put_config(self, config: TenantConfig | dict[str, Any]) -> TenantConfig:
        """Replace the tenant's configuration whole; a bad one raises (422) naming the field."""
        return self._run(_calls.put_config(config))

    def test_policy(
        self, text: str, user_id: str | None = None, policy: dict[str, Any] | None = None
    ) -> dict[str, Any]:
        """How the memory policy (the tenant's, plus the user's own with `user_id`, or `policy` instead) reads a
        sentence: per clause kept, excluded or not included, the reason and the closest bank or topic."""
        return self._run(_calls.test_policy(text, user_id, policy))

    def attachment(self, attachment_id: str, limit: int | None = None, cursor: str | None = None) -> Attachment:
        """The attachment and one page of the memories holding it."""
        return self._run(_calls.attachment(attachment_id, limit, cursor))

    def attachment_memory_ids(self, attachment_id: str, page_size: int = 100) -> Iterator[str]:
        """Every memory holding the attachment, page after page (fetched as the iterator is consumed)."""
        cursor: str | None = None
        while True:
            page = self.attachment(attachment_id, page_size, cursor)
            yield from page.memory_ids
            if not (cursor := page.next_cursor):
                return

    def download_attachment(self, attachment_id: str) -> bytes:
        found = self.attachment(attachment_id)
        if not found.download_url:
            raise EngramError(f"attachment {attachment_id} has no content to download")
        response = self._http.get(found.download_url)
        return check(response).content
