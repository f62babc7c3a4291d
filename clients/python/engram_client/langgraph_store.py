"""`EngramStore`: a LangGraph `BaseStore` whose items are Engram memories (pip install "engram-client[langgraph]").

    store = EngramStore("http://127.0.0.1:8000", "key-...")
    store.put(("users", "alice", "memories"), "food", {"likes": "pizza and pasta"})
    store.search(("users", "alice"), query="what does she eat?")

Namespaces are ("users", user_id, ["agents", agent_id,] ["runs", run_id,] *labels) (engram_client._store_items).
Each item is one memory stored as given (infer=false, no extraction) and protected (maintenance never
merges, summarises or prunes it); its metadata holds the key and the value as JSON, so a value up to about
15 KB comes back exactly as put. `put` of an existing key updates that memory (a new version, in its
history); a value of None deletes it.

Each operation is written once, as a plan: a generator that yields the API calls it needs and receives
their answers. `batch` runs the plans on `Engram`, `abatch` on `AsyncEngram`.
"""

from __future__ import annotations

from collections.abc import Generator, Iterable, Sequence
from dataclasses import dataclass
from types import TracebackType
from typing import Any, TypeVar

try:
    from langgraph.store.base import (
        BaseStore,
        GetOp,
        InvalidNamespaceError,
        Item,
        ListNamespacesOp,
        Op,
        PutOp,
        Result,
        SearchItem,
        SearchOp,
    )
except ImportError as missing:  # the extra is not installed: say which
    raise ImportError(
        f"EngramStore needs the 'langgraph' extra ({missing}): pip install \"engram-client[langgraph]\""
    ) from missing

from engram_client import _calls
from engram_client._calls import Call
from engram_client._store_items import (
    KEY,
    NAMESPACE,
    PREFIXES,
    SEP,
    Scope,
    is_item,
    key_of,
    matches_condition,
    matches_filter,
    metadata_of,
    namespace_of,
    newest_first,
    scope_of,
    text_of,
    times_of,
    under,
    value_of,
)
from engram_client.async_client import AsyncEngram
from engram_client.client import Engram
from engram_client.errors import EngramError
from engram_client.models import Memory, Page, SearchResults, Task, UsersPage

T = TypeVar("T")
TOP_K = 100  # the most one search answers
PAGE = 1000  # the most one list page answers
MAX_QUERY_CHARS = 4000


@dataclass(frozen=True)
class WaitTask:
    """A plan's step that waits until a task completed (polling, on either client)."""

    task_id: str


Step = Call[Any] | WaitTask
Plan = Generator[Step, Any, T]


def run_sync(client: Engram, plan: Plan[T]) -> T:
    answer: Any = None
    while True:
        try:
            step = plan.send(answer)
        except StopIteration as done:
            result: T = done.value
            return result
        answer = client.wait_for_task(step.task_id) if isinstance(step, WaitTask) else client._run(step)


async def run_async(client: AsyncEngram, plan: Plan[T]) -> T:
    answer: Any = None
    while True:
        try:
            step = plan.send(answer)
        except StopIteration as done:
            result: T = done.value
            return result
        answer = await client.wait_for_task(step.task_id) if isinstance(step, WaitTask) else await client._run(step)


# --- plans ----------------------------------------------------------------------------------------


def _checked(namespace: tuple[str, ...]) -> tuple[str, ...]:
    for label in namespace:
        if not isinstance(label, str) or not label or SEP in label:
            raise InvalidNamespaceError(f"namespace labels are non-empty strings without '{SEP}': {namespace}")
    return tuple(namespace)


def _item(memory: Memory) -> Item:
    created, updated = times_of(memory)
    return Item(
        value=value_of(memory),
        key=key_of(memory),
        namespace=namespace_of(memory),
        created_at=created,
        updated_at=updated,
    )


def _search_item(memory: Memory) -> SearchItem:
    created, updated = times_of(memory)
    return SearchItem(namespace_of(memory), key_of(memory), value_of(memory), created, updated, memory.score)


def _lookup(scope: Scope, key: str) -> Plan[list[Memory]]:
    """The memories holding `key` in the namespace, newest first (more than one only after racing puts).
    The server filters on the metadata, so the query's text does not decide what is found."""
    wanted = {NAMESPACE: scope.joined, KEY: key}
    query = key[:MAX_QUERY_CHARS] if key.strip() else "item"
    found: SearchResults = yield _calls.search(
        query, scope.user_id, top_k=TOP_K, filters={"metadata": wanted}, graph=False
    )
    same = [m for m in found.results if is_item(m) and key_of(m) == key and namespace_of(m) == scope.namespace]
    return newest_first(same)


def _listed(user_id: str, prefix: tuple[str, ...], scope: Scope | None = None) -> Plan[list[Memory]]:
    """Every item of the user under `prefix`, newest first (the user's other memories are skipped)."""
    filters = {"agent_id": scope.agent_id, "run_id": scope.run_id} if scope else {}
    items: list[Memory] = []
    cursor: str | None = None
    while True:
        page: Page = yield _calls.page(user_id, PAGE, cursor, **filters)
        items += [m for m in page.results if is_item(m) and under(namespace_of(m), prefix)]
        if not (cursor := page.next_cursor):
            return newest_first(items)


def get_plan(op: GetOp) -> Plan[Item | None]:
    found = yield from _lookup(scope_of(_checked(op.namespace)), op.key)
    return _item(found[0]) if found else None


def put_plan(op: PutOp, index_fields: Sequence[str] | None) -> Plan[None]:
    scope = scope_of(_checked(op.namespace))
    found = yield from _lookup(scope, op.key)
    if op.value is None:
        for memory in found:
            yield _calls.delete(memory.id)
        return
    fields = index_fields if op.index is None else (op.index or [])  # index=False: only the key is text
    text = text_of(op.key, op.value, fields)
    metadata = metadata_of(scope, op.key, op.value)
    if found:
        yield _calls.update(found[0].id, text, metadata=metadata, is_protected=True)
        for extra in found[1:]:  # puts that raced each other: one memory per key from now on
            yield _calls.delete(extra.id)
        return
    message = {"role": "user", "content": text}
    queued: Task = yield _calls.add(
        message,
        scope.user_id,
        agent_id=scope.agent_id,
        run_id=scope.run_id,
        metadata=metadata,
        infer=False,
        deduplicate=False,
    )
    done: Task = yield WaitTask(queued.task_id)
    added = [r.id for r in done.results if r.event == "ADD"]
    if not added:
        raise EngramError(f"put {op.namespace} {op.key!r} stored no memory: {done.note or done.status}")
    for memory_id in added:
        yield _calls.update(memory_id, is_protected=True)


def search_plan(op: SearchOp) -> Plan[list[SearchItem]]:
    prefix = _checked(op.namespace_prefix)
    scope = scope_of(prefix, prefix=True)
    if op.query:
        # Ranked by Engram (vector and keyword) among the items under the prefix, which the server filters.
        top_k = TOP_K if op.filter else max(1, min(TOP_K, op.offset + op.limit))
        wanted = {PREFIXES: SEP.join(prefix)}
        found: SearchResults = yield _calls.search(
            op.query[:MAX_QUERY_CHARS], scope.user_id, top_k=top_k, filters={"metadata": wanted}, graph=False
        )
        hits = [m for m in found.results if is_item(m) and under(namespace_of(m), prefix)]
    else:
        hits = yield from _listed(scope.user_id, prefix, scope)
    kept = [m for m in hits if matches_filter(value_of(m), op.filter)]
    return [_search_item(m) for m in kept[op.offset : op.offset + op.limit]]


def _users_to_read(op: ListNamespacesOp) -> Plan[list[str]]:
    """The one user a prefix condition names, else every user of the tenant."""
    for condition in op.match_conditions or ():
        path = tuple(condition.path)
        if condition.match_type != "prefix" or not path:
            continue
        if path[0] not in ("users", "*"):
            return []  # no item's namespace can start otherwise
        if len(path) >= 2 and path[1] != "*":
            return [path[1]]
    users: list[str] = []
    cursor: str | None = None
    while True:
        page: UsersPage = yield _calls.users_page(PAGE, cursor)
        users += [u.user_id for u in page.results]
        if not (cursor := page.next_cursor):
            return users


def list_namespaces_plan(op: ListNamespacesOp) -> Plan[list[tuple[str, ...]]]:
    for condition in op.match_conditions or ():
        _checked(tuple(label for label in condition.path if label != "*"))
    found: set[tuple[str, ...]] = set()
    for user_id in (yield from _users_to_read(op)):
        items = yield from _listed(user_id, ("users", user_id))
        found |= {namespace_of(m) for m in items}
    kept = [ns for ns in found if all(matches_condition(ns, c) for c in op.match_conditions or ())]
    if op.max_depth is not None:
        kept = list({ns[: op.max_depth] for ns in kept})
    return sorted(kept)[op.offset : op.offset + op.limit]


def plan_of(op: Op, index_fields: Sequence[str] | None) -> Plan[Result]:
    if isinstance(op, GetOp):
        return get_plan(op)
    if isinstance(op, PutOp):
        return put_plan(op, index_fields)
    if isinstance(op, SearchOp):
        return search_plan(op)
    if isinstance(op, ListNamespacesOp):
        return list_namespaces_plan(op)
    raise TypeError(f"unknown store operation {type(op).__name__}")


# --- the store ------------------------------------------------------------------------------------


class EngramStore(BaseStore):
    """LangGraph's store on Engram. Give `base_url`/`api_key` (or ENGRAM_URL / ENGRAM_API_KEY), or clients.

    `index_fields`: the value's fields whose text search ranks (LangGraph paths such as "memory" or
    "notes[*].text"; default: the whole value as JSON); `put(..., index=[...])` overrides it per item.
    Operations of a batch run one after another, in order."""

    def __init__(
        self,
        base_url: str | None = None,
        api_key: str | None = None,
        *,
        client: Engram | None = None,
        async_client: AsyncEngram | None = None,
        index_fields: Sequence[str] | None = None,
    ) -> None:
        self._url, self._key = base_url, api_key
        self._client, self._async_client = client, async_client
        self._owned: list[Engram | AsyncEngram] = []
        self.index_fields = list(index_fields) if index_fields is not None else None

    def _sync(self) -> Engram:
        if self._client is None:
            self._client = Engram(self._url, self._key)
            self._owned.append(self._client)
        return self._client

    def _async(self) -> AsyncEngram:
        if self._async_client is None:
            self._async_client = AsyncEngram(self._url, self._key)
            self._owned.append(self._async_client)
        return self._async_client

    def batch(self, ops: Iterable[Op]) -> list[Result]:
        return [run_sync(self._sync(), plan_of(op, self.index_fields)) for op in ops]

    async def abatch(self, ops: Iterable[Op]) -> list[Result]:
        return [await run_async(self._async(), plan_of(op, self.index_fields)) for op in ops]

    def close(self) -> None:
        """Close the clients this store made (not those it was given). An async client is closed with aclose."""
        for owned in [c for c in self._owned if isinstance(c, Engram)]:
            owned.close()
            self._owned.remove(owned)

    async def aclose(self) -> None:
        for owned in list(self._owned):
            if isinstance(owned, AsyncEngram):
                await owned.close()
            else:
                owned.close()
        self._owned.clear()

    def __enter__(self) -> EngramStore:
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        self.close()

    async def __aenter__(self) -> EngramStore:
        return self

    async def __aexit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self.aclose()
