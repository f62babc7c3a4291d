"""`python -m engram_tools.admin keys ...` against moto: the key is printed once, never listed."""

from __future__ import annotations

import re
from typing import Any

import boto3
import pytest
from moto import mock_aws

from engram.adapters.dynamo.api_key_store import DynamoApiKeyStore
from engram.domain.errors import UnauthorizedError
from engram.settings import Settings
from engram_tools.admin import main
from tests.integration.aws_tables import create_tables

KEY = re.compile(r"egm_[0-9a-f]{16}_[A-Za-z0-9_-]{43}")


@pytest.fixture
def store(db: Any) -> DynamoApiKeyStore:
    return DynamoApiKeyStore(db, "engram-api-keys")


def create(store: DynamoApiKeyStore, capsys: pytest.CaptureFixture[str], tenant: str) -> tuple[str, str]:
    assert main(["keys", "create", "--tenant", tenant, "--description", "laptop"], store) == 0
    out = capsys.readouterr().out
    [plaintext] = KEY.findall(out)
    key_id = re.search(r"key_id:\s+(\S+)", out)
    assert key_id is not None
    return plaintext, key_id.group(1)


def test_create_prints_a_working_key_once(store: DynamoApiKeyStore, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["keys", "create", "--tenant", "acme", "--description", "laptop"], store) == 0
    out = capsys.readouterr().out
    [plaintext] = KEY.findall(out)
    assert out.count(plaintext) == 1
    resolved = store.resolve(plaintext)
    assert (resolved.tenant_id, resolved.description) == ("acme", "laptop")
    assert f"key_id:  {resolved.key_id}" in out


def test_list_shows_keys_but_never_their_plaintext(
    store: DynamoApiKeyStore, capsys: pytest.CaptureFixture[str]
) -> None:
    acme_key, acme_id = create(store, capsys, "acme")
    globex_key, globex_id = create(store, capsys, "globex")

    assert main(["keys", "list"], store) == 0
    out = capsys.readouterr().out
    assert acme_id in out and globex_id in out
    for plaintext in (acme_key, globex_key):
        # The secret is everything after "egm_<key id>_" (it may itself contain "_").
        secret = plaintext.split("_", 2)[2]
        assert plaintext not in out and secret not in out
    assert KEY.search(out) is None

    assert main(["keys", "list", "--tenant", "acme"], store) == 0
    out = capsys.readouterr().out
    assert acme_id in out and globex_id not in out


def test_revoke_disables_the_key(store: DynamoApiKeyStore, capsys: pytest.CaptureFixture[str]) -> None:
    plaintext, key_id = create(store, capsys, "acme")
    assert main(["keys", "revoke", key_id], store) == 0
    capsys.readouterr()
    with pytest.raises(UnauthorizedError):
        store.resolve(plaintext)
    assert main(["keys", "list", "--tenant", "acme"], store) == 0
    [row] = [line for line in capsys.readouterr().out.splitlines() if key_id in line]
    assert "revoked" in row


def test_revoking_an_unknown_key_exits_2(store: DynamoApiKeyStore, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["keys", "revoke", "0123456789abcdef"], store) == 2
    assert "0123456789abcdef" in capsys.readouterr().err


@pytest.mark.parametrize(
    "argv",
    [
        [],
        ["keys"],
        ["keys", "create"],
        ["keys", "frobnicate"],
        ["keys", "revoke"],
        ["users", "list"],
        ["keys", "create", "--tenant", "bad tenant"],
    ],
)
def test_bad_usage_exits_2_with_a_message(
    store: DynamoApiKeyStore, capsys: pytest.CaptureFixture[str], argv: list[str]
) -> None:
    assert main(argv, store) == 2
    assert capsys.readouterr().err.strip()
    assert store.list() == []


def test_help_exits_0(store: DynamoApiKeyStore, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["keys", "--help"], store) == 0
    assert "create" in capsys.readouterr().out


def test_without_a_store_it_uses_the_configured_table(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("ENGRAM_KEYS_TABLE", "ops-keys")
    with mock_aws():
        client = boto3.client("dynamodb", region_name="us-east-1")
        create_tables(client, Settings(keys_table="ops-keys"))
        assert main(["keys", "create", "--tenant", "acme"]) == 0
        [plaintext] = KEY.findall(capsys.readouterr().out)
        assert DynamoApiKeyStore(client, "ops-keys").resolve(plaintext).tenant_id == "acme"
        assert client.scan(TableName="ops-keys")["Count"] == 1


def test_an_unreachable_table_fails_with_a_message(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("ENGRAM_KEYS_TABLE", "missing-table")
    with mock_aws():
        assert main(["keys", "list"]) == 1
    assert "missing-table" in capsys.readouterr().err
