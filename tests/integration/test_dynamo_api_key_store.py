"""DynamoApiKeyStore against moto: create/resolve/list/revoke, and the plaintext is never stored."""

from __future__ import annotations

import hashlib
import json
import re
from typing import Any

import pytest

from engram.adapters.dynamo.api_key_store import DynamoApiKeyStore
from engram.domain.errors import NotFoundError, UnauthorizedError, ValidationError

TABLE = "engram-api-keys"


@pytest.fixture
def store(db: Any) -> DynamoApiKeyStore:
    return DynamoApiKeyStore(db, TABLE)


def test_a_created_key_resolves_to_its_tenant(store: DynamoApiKeyStore) -> None:
    record, plaintext = store.create("acme", "ci pipeline")
    match = re.fullmatch(r"egm_([0-9a-f]{16})_([A-Za-z0-9_-]{43})", plaintext)
    assert match is not None and match.group(1) == record.key_id
    resolved = store.resolve(plaintext)
    assert resolved == record
    assert (resolved.tenant_id, resolved.description, resolved.revoked) == ("acme", "ci pipeline", False)


def test_only_the_hash_is_stored(db: Any, store: DynamoApiKeyStore) -> None:
    _, plaintext = store.create("acme")
    secret = plaintext.split("_", 2)[2]  # egm_<key id>_<secret>; the secret itself may hold "_"
    items = db.scan(TableName=TABLE)["Items"]
    dump = json.dumps(items)
    assert plaintext not in dump and secret not in dump
    assert [i["key_hash"]["S"] for i in items] == [hashlib.sha256(plaintext.encode()).hexdigest()]


def test_unknown_malformed_and_tampered_keys_are_unauthorized(store: DynamoApiKeyStore) -> None:
    _, plaintext = store.create("acme")
    tampered = plaintext[:-1] + ("A" if plaintext[-1] != "A" else "B")
    for bad in (tampered, "egm_0000000000000000_nope", "not-a-key", ""):
        with pytest.raises(UnauthorizedError):
            store.resolve(bad)


def test_list_by_tenant_and_all(store: DynamoApiKeyStore) -> None:
    a1, _ = store.create("acme", "one")
    a2, _ = store.create("acme", "two")
    g1, _ = store.create("globex")
    assert {k.key_id for k in store.list("acme")} == {a1.key_id, a2.key_id}
    assert [k.key_id for k in store.list("globex")] == [g1.key_id]
    assert {k.key_id for k in store.list()} == {a1.key_id, a2.key_id, g1.key_id}
    assert store.list("initech") == []


def test_a_revoked_key_is_rejected_but_still_listed(store: DynamoApiKeyStore) -> None:
    record, plaintext = store.create("acme")
    other, other_plaintext = store.create("acme")
    store.revoke(record.key_id)
    with pytest.raises(UnauthorizedError, match="revoked"):
        store.resolve(plaintext)
    assert store.resolve(other_plaintext) == other
    listed = {k.key_id: k.revoked for k in store.list("acme")}
    assert listed == {record.key_id: True, other.key_id: False}
    store.revoke(record.key_id)  # revoking twice is harmless
    assert {k.key_id: k.revoked for k in store.list("acme")} == listed


@pytest.mark.parametrize("key_id", ["0123456789abcdef", "nope", ""])
def test_revoking_an_unknown_key_id_is_not_found(store: DynamoApiKeyStore, key_id: str) -> None:
    store.create("acme")
    with pytest.raises(NotFoundError):
        store.revoke(key_id)
    assert not any(k.revoked for k in store.list())


@pytest.mark.parametrize("tenant", ["", "a#b", "has space", "x" * 65])
def test_tenant_ids_must_be_plain(store: DynamoApiKeyStore, tenant: str) -> None:
    with pytest.raises(ValidationError):
        store.create(tenant)
