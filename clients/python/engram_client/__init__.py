"""Engram's Python SDK: `Engram` (sync) and `AsyncEngram`, typed results and errors."""

from typing import TYPE_CHECKING, Any

from engram_client._retry import RetryPolicy
from engram_client.client import Engram
from engram_client.errors import (
    APIError,
    AuthenticationError,
    BadRequestError,
    ConflictError,
    EngramConnectionError,
    EngramError,
    EngramTimeoutError,
    NotFoundError,
    PayloadTooLargeError,
    RateLimitError,
    ServerError,
    TaskFailedError,
)
from engram_client.models import (
    Attachment,
    Deleted,
    Entity,
    Graph,
    Health,
    HistoryEntry,
    MaintenanceRun,
    Memory,
    Page,
    QueueMetrics,
    SearchResults,
    Task,
    TenantConfig,
    Usage,
    User,
)

if TYPE_CHECKING:
    from engram_client.async_client import AsyncEngram


def __getattr__(name: str) -> Any:
    """AsyncEngram loads on first use (asyncio and its module are not needed by sync programs)."""
    if name == "AsyncEngram":
        from engram_client.async_client import AsyncEngram

        return AsyncEngram
    raise AttributeError(f"module 'engram_client' has no attribute {name!r}")


__all__ = [
    "APIError",
    "AsyncEngram",
    "Attachment",
    "AuthenticationError",
    "BadRequestError",
    "ConflictError",
    "Deleted",
    "Engram",
    "EngramConnectionError",
    "EngramError",
    "EngramTimeoutError",
    "Entity",
    "Graph",
    "Health",
    "HistoryEntry",
    "MaintenanceRun",
    "Memory",
    "NotFoundError",
    "Page",
    "PayloadTooLargeError",
    "QueueMetrics",
    "RateLimitError",
    "RetryPolicy",
    "SearchResults",
    "ServerError",
    "Task",
    "TaskFailedError",
    "TenantConfig",
    "Usage",
    "User",
]
