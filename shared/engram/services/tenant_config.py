"""The tenant's configuration (domain/policy.py) as the API and the worker use it: read through the
ConfigStore and kept per warm container for a short time, so an add does not pay a read each time.
A PUT answered by this container is seen here at once; other containers see it within `ttl_s`."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

from engram.domain.models import AddRequest
from engram.domain.policy import MemoryPolicy, TenantConfig
from engram.domain.ports import ConfigStore

DEFAULT_TTL_S = 30.0


class TenantConfigs:
    def __init__(
        self, store: ConfigStore, ttl_s: float = DEFAULT_TTL_S, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self._store = store
        self._ttl_s = ttl_s
        self._clock = clock
        self._cached: dict[str, tuple[float, TenantConfig]] = {}
        self._lock = threading.Lock()

    def get(self, tenant_id: str) -> TenantConfig:
        """The tenant's configuration (the empty one when it never set any)."""
        now = self._clock()
        with self._lock:
            hit = self._cached.get(tenant_id)
        if hit is not None and now - hit[0] < self._ttl_s:
            return hit[1]
        config = self._store.get(tenant_id) or TenantConfig()
        with self._lock:
            self._cached[tenant_id] = (now, config)
        return config

    def put(self, tenant_id: str, config: TenantConfig) -> TenantConfig:
        self._store.put(tenant_id, config)
        with self._lock:
            self._cached[tenant_id] = (self._clock(), config)
        return config

    def policy(self, tenant_id: str, request: AddRequest) -> MemoryPolicy:
        """What an add runs with: its own instructions, include and exclude, else the tenant's."""
        return MemoryPolicy.of(self.get(tenant_id), request.instructions, request.include, request.exclude)
