"""The one place that wires adapters to ports, from one Settings, once per warm container.

The wiring is in parts, each a module of this package, built in this order, each from the ones before:
clients (AWS, OpenAI) -> stores (tables, bucket, queue) -> operations (metrics, usage, events, breaker,
configs) -> models (embedder, LLM, extractor, reconciler) -> search (index, ranking) -> graph -> writes
(ingest pipeline, worker, lifecycle, forgetting, maintenance) -> services (memories, attachments, chat
proxy, health). `Container` composes them and hands on the names the handlers and tests use.

Heavy clients (onnxruntime, openai, opensearch-py) are imported only when first needed, so the API
function's cold start stays small. Tests and the bench pass fakes in by name: `Container(settings,
index=..., embedder=...)` puts each in the part that builds it, before anything is built from it.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from engram.bootstrap.clients import Clients
from engram.bootstrap.graph import Graph
from engram.bootstrap.models import Models, local_minilm_installed
from engram.bootstrap.operations import Operations
from engram.bootstrap.search import Search
from engram.bootstrap.services import HEALTH_ID, Services
from engram.bootstrap.stores import Stores
from engram.bootstrap.writes import Writes
from engram.settings import Settings, get_settings

if TYPE_CHECKING:
    from engram.domain.policy import TenantConfig

__all__ = ["HEALTH_ID", "Container", "container", "local_minilm_installed"]

T = TypeVar("T")


class _Part(Generic[T]):
    """A name of the container that one part builds, read from that part (typed as the part types it);
    set, it replaces what that part builds under the name (Container.replace)."""

    def __init__(self, read: Callable[[Container], T]) -> None:
        self.read = read
        self.name = ""

    def __set_name__(self, owner: type[Container], name: str) -> None:
        self.name = name

    def __get__(self, container: Container, owner: type[Container] | None = None) -> T:
        return self.read(container)

    def __set__(self, container: Container, value: T) -> None:
        container.replace(**{self.name: value})


class Container:
    def __init__(self, settings: Settings | None = None, **overrides: Any) -> None:
        s = self._settings = settings or get_settings()
        self.clients = Clients(s)
        self.stores = Stores(s, self.clients)
        self.operations = Operations(s, self.clients, self.stores)
        self.models = Models(s, self.clients, self.operations)
        self.search = Search(s, self.models)
        self.graphs = Graph(s, self.clients, self.models)
        self.writes = Writes(s, self.stores, self.models, self.search, self.graphs, self.operations)
        parts = (self.clients, self.stores, self.operations, self.models, self.search, self.graphs, self.writes)
        self.services = Services(s, parts)
        self.parts = (*parts, self.services)
        self.replace(**overrides)

    @property
    def settings(self) -> Settings:
        return self._settings

    @settings.setter
    def settings(self, value: Settings) -> None:
        """Every part reads the new settings from then on (what was built from the old stays built)."""
        self._settings = value
        for part in self.parts:
            part.settings = value

    def _owner(self, name: str) -> Any:
        for part in self.parts:
            if name in type(part).__dict__:
                return part
        raise TypeError(f"no part of the container builds {name!r}")

    def replace(self, **built: Any) -> None:
        """Use these in place of what the part that builds each name would build (a fake, a faulty index).
        Given before first use, everything built from the name gets the replacement."""
        for name, value in built.items():
            if name == "settings":
                self.settings = value
            else:
                self._owner(name).__dict__[name] = value

    def rebuild(self, *names: str) -> None:
        """Forget these built names: each is built again, from what stands then, when next used."""
        for name in names:
            self._owner(name).__dict__.pop(name, None)

    def close(self) -> None:
        """Writes the search counts that wait and stops their thread (before discarding a container)."""
        self.operations.close()

    def policy_warnings(self, config: TenantConfig) -> list[str]:
        return self.models.policy_warnings(config)

    # The names handlers, the local stack, the bench and tests read, each from the part that builds it.
    aws = _Part(lambda c: c.clients.aws)
    facts = _Part(lambda c: c.stores.facts)
    blobs = _Part(lambda c: c.stores.blobs)
    tasks = _Part(lambda c: c.stores.tasks)
    attachment_store = _Part(lambda c: c.stores.attachment_store)
    keys = _Part(lambda c: c.stores.keys)
    queue = _Part(lambda c: c.stores.queue)
    scanner = _Part(lambda c: c.stores.scanner)
    users = _Part(lambda c: c.stores.users)
    usage_counters = _Part(lambda c: c.stores.usage_counters)
    connections = _Part(lambda c: c.stores.connections)
    metrics = _Part(lambda c: c.operations.metrics)
    queue_metrics = _Part(lambda c: c.operations.queue_metrics)
    usage = _Part(lambda c: c.operations.usage)
    search_usage = _Part(lambda c: c.operations.search_usage)
    accounting = _Part(lambda c: c.operations.accounting)
    events = _Part(lambda c: c.operations.events)
    task_events = _Part(lambda c: c.operations.task_events)
    breaker = _Part(lambda c: c.operations.breaker)
    configs = _Part(lambda c: c.operations.configs)
    maintenance_runs = _Part(lambda c: c.operations.maintenance_runs)
    embedder = _Part(lambda c: c.models.embedder)
    llm = _Part(lambda c: c.models.llm)
    index = _Part(lambda c: c.search.index)
    search_pipeline = _Part(lambda c: c.search.search_pipeline)
    graph = _Part(lambda c: c.graphs.graph)
    pipeline = _Part(lambda c: c.writes.pipeline)
    maintenance = _Part(lambda c: c.writes.maintenance)
    worker = _Part(lambda c: c.writes.worker)
    memories = _Part(lambda c: c.services.memories)
    attachments = _Part(lambda c: c.services.attachments)
    chat_proxy = _Part(lambda c: c.services.chat_proxy)
    policy_trials = _Part(lambda c: c.services.policy_trials)
    agentcore = _Part(lambda c: c.services.agentcore)
    agentcore_callers = _Part(lambda c: c.services.agentcore_callers)
    health = _Part(lambda c: c.services.health)


@lru_cache(maxsize=1)
def container() -> Container:
    """The process-wide container (one per warm Lambda container or local stack process)."""
    return Container()
