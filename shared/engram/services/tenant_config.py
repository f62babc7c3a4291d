"""The tenant's configuration (domain/policy.py) as the API and the worker use it: read through the
ConfigStore and kept per warm container for a short time, so an add does not pay a read each time.
A PUT answered by this container is seen here at once; other containers see it within `ttl_s`."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

from engram.domain.models import AddRequest, MemoryBank
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

    def of_user(self, tenant_id: str, user_id: str) -> TenantConfig:
        """A user's own policy: what they asked in chat not to be remembered (safety/requests.py), or a
        PUT /v1/config?user_id=... set for them. Only its `exclude` is applied."""
        return self.get(user_key(tenant_id, user_id))

    def put_user(self, tenant_id: str, user_id: str, config: TenantConfig) -> TenantConfig:
        return self.put(user_key(tenant_id, user_id), config)

    def policy(self, tenant_id: str, request: AddRequest) -> MemoryPolicy:
        """What an add runs with: its own instructions, include and exclude, else the tenant's; and always
        what the user asked not to be remembered."""
        policy = MemoryPolicy.of(self.get(tenant_id), request.instructions, request.include, request.exclude)
        return self._with_users_own(tenant_id, request.user_id, policy)

    def policy_of_user(self, tenant_id: str, user_id: str) -> MemoryPolicy:
        """What a write with no fields of its own (an import) runs with: the tenant's policy and the user's."""
        return self._with_users_own(tenant_id, user_id, MemoryPolicy.of(self.get(tenant_id)))

    def _with_users_own(self, tenant_id: str, user_id: str, policy: MemoryPolicy) -> MemoryPolicy:
        own = [t for t in self.of_user(tenant_id, user_id).exclude if t.lower() not in policy.excluded]
        return policy.model_copy(update={"exclude": [*policy.exclude, *own]}) if own else policy


def user_key(tenant_id: str, user_id: str) -> str:
    # Tenant ids never hold '#': no tenant's key can take this form.
    return f"{tenant_id}#user#{user_id}"


INSTRUCTIONS_NEED_AN_LLM = (
    "instructions need an LLM and none is configured: they are stored but not applied until one is "
    "(include and exclude are applied without one)"
)
NO_MEANING = (
    "include/exclude are decided by the offline rules' banks and the topics' words only: deciding them by "
    "meaning needs the local embedder (pip install 'engram[local]')"
)


def warnings(config: TenantConfig, llm: bool, meaning: bool) -> list[str]:
    """What of `config` a deployment with (or without) an LLM and the local embedder cannot honour."""
    out = []
    if config.instructions.strip() and not llm:
        out.append(INSTRUCTIONS_NEED_AN_LLM)
    if (config.include or config.exclude) and not meaning:
        out.append(NO_MEANING)
    banks = {b.value.lower() for b in MemoryBank}
    unused = [t for t in config.examples if t.lower() not in {e.lower() for e in config.include + config.exclude}]
    if unused:
        out.append(f"examples given for topics neither included nor excluded: {', '.join(unused)}")
    named = [t for t in config.examples if t.lower() in banks]
    if named:
        out.append(f"examples for a memory bank are not used (a bank has its own description): {', '.join(named)}")
    return out
