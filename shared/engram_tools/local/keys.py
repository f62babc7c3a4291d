"""API keys of the local stack: ENGRAM_LOCAL_API_KEYS, else one key for tenant `local` kept in the data folder.

Configured keys may have any shape ("key-acme-1"), which the table-backed store rightly rejects as
not issued by it, so they are not written to the keys table: `WithLocalKeys` wraps the real store
and answers for them first (by SHA-256, as the table would), then defers to the store. The
authorizer and its `authorize()` run unchanged; keys created with `python -m engram_tools.admin keys
create` against the local stack work too.
"""

from __future__ import annotations

import hashlib
import json
import re
import secrets
from dataclasses import dataclass
from pathlib import Path

from engram.domain.api_keys import ApiKey
from engram.domain.ports import ApiKeyStore

LOCAL_TENANT = "local"
KEY_FILE = "local-api-key.json"
# The rule DynamoApiKeyStore.create applies: tenant ids become parts of storage keys.
_TENANT_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")


@dataclass(frozen=True)
class LocalKey:
    tenant_id: str
    plaintext: str

    @property
    def digest(self) -> str:
        return hashlib.sha256(self.plaintext.encode("utf-8")).hexdigest()


def parse_keys(spec: str) -> list[LocalKey]:
    """ "tenant:key,other:key2" -> keys. Raises ValueError naming the bad entry."""
    keys = []
    for entry in (e.strip() for e in spec.split(",")):
        if not entry:
            continue
        tenant, sep, plaintext = entry.partition(":")
        if not sep or not plaintext.strip() or not _TENANT_ID.match(tenant.strip()):
            raise ValueError(
                f"ENGRAM_LOCAL_API_KEYS entry {entry.split(':')[0]!r}:... is not tenant:key "
                "(tenant: 1-64 letters, digits, '.', '_' or '-')"
            )
        keys.append(LocalKey(tenant.strip(), plaintext.strip()))
    if len({k.plaintext for k in keys}) != len(keys):
        raise ValueError("ENGRAM_LOCAL_API_KEYS names the same key twice")
    return keys


def local_keys(spec: str | None, data_dir: Path) -> list[LocalKey]:
    """The configured keys, or the data folder's key for tenant `local` (created on first start)."""
    if spec and spec.strip():
        return parse_keys(spec)
    path = data_dir / KEY_FILE
    if path.exists():
        saved = json.loads(path.read_text(encoding="utf-8"))
        return [LocalKey(saved["tenant_id"], saved["key"])]
    key = LocalKey(LOCAL_TENANT, f"local-{secrets.token_urlsafe(32)}")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"tenant_id": key.tenant_id, "key": key.plaintext}) + "\n", encoding="utf-8")
    path.chmod(0o600)  # it is a credential
    return [key]


class WithLocalKeys:
    """ApiKeyStore: the local keys first, then the wrapped store for everything else."""

    def __init__(self, inner: ApiKeyStore, keys: list[LocalKey]) -> None:
        self._inner = inner
        self._keys = {
            k.digest: ApiKey(key_id=k.digest[:16], tenant_id=k.tenant_id, description="local stack key") for k in keys
        }

    def resolve(self, plaintext: str) -> ApiKey:
        record = self._keys.get(hashlib.sha256(plaintext.encode("utf-8")).hexdigest())
        return record if record is not None else self._inner.resolve(plaintext)

    def create(self, tenant_id: str, description: str | None = None) -> tuple[ApiKey, str]:
        return self._inner.create(tenant_id, description)

    def list(self, tenant_id: str | None = None) -> list[ApiKey]:
        return self._inner.list(tenant_id)

    def revoke(self, key_id: str) -> None:
        self._inner.revoke(key_id)
