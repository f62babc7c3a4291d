"""Operator commands: `python -m engram_tools.admin keys create|list|revoke`.

Uses the API-key table from settings (ENGRAM_KEYS_TABLE; ENGRAM_AWS_ENDPOINT_URL for the local stack).
"""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING

from engram.domain.errors import EngramError, NotFoundError, ValidationError

if TYPE_CHECKING:
    from engram.domain.ports import ApiKeyStore

USAGE_ERROR = 2
FAILURE = 1


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m engram_tools.admin", description="Engram administration")
    groups = parser.add_subparsers(dest="group", required=True, metavar="{keys}")
    keys = groups.add_parser("keys", help="manage API keys")
    actions = keys.add_subparsers(dest="action", required=True, metavar="{create,list,revoke}")

    create = actions.add_parser("create", help="create a key for a tenant (printed once)")
    create.add_argument("--tenant", required=True, help="tenant id the key authenticates as")
    create.add_argument("--description", default=None, help="free text, e.g. who holds the key")

    listing = actions.add_parser("list", help="list keys (never their plaintext)")
    listing.add_argument("--tenant", default=None, help="only this tenant's keys")

    revoke = actions.add_parser("revoke", help="revoke a key by its key id")
    revoke.add_argument("key_id", help="the key id printed by `keys create` or `keys list`")
    return parser


def _default_store() -> ApiKeyStore:
    # Imported here so `--help` and usage errors need neither settings nor boto3.
    from engram.adapters.aws.clients import AwsClients
    from engram.adapters.dynamo.api_key_store import DynamoApiKeyStore
    from engram.settings import get_settings

    settings = get_settings()
    return DynamoApiKeyStore(AwsClients(settings).dynamodb, settings.keys_table)


def _create(store: ApiKeyStore, tenant: str, description: str | None) -> int:
    record, plaintext = store.create(tenant, description)
    print("API key created. It is shown only this once: store it now.")
    print(f"key:     {plaintext}")
    print(f"key_id:  {record.key_id}")
    print(f"tenant:  {record.tenant_id}")
    return 0


def _list(store: ApiKeyStore, tenant: str | None) -> int:
    keys = store.list(tenant)
    if not keys:
        print("no API keys" + (f" for tenant {tenant!r}" if tenant else ""))
        return 0
    print(f"{'KEY_ID':<18} {'TENANT':<24} {'CREATED_AT':<33} {'STATUS':<8} DESCRIPTION")
    for key in keys:
        status = "revoked" if key.revoked else "active"
        created = key.created_at.isoformat()
        print(f"{key.key_id:<18} {key.tenant_id:<24} {created:<33} {status:<8} {key.description or ''}")
    return 0


def _revoke(store: ApiKeyStore, key_id: str) -> int:
    store.revoke(key_id)
    print(f"revoked {key_id}")
    return 0


def main(argv: list[str] | None = None, store: ApiKeyStore | None = None) -> int:
    parser = _parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exit_:  # argparse exits on --help (0) and on bad usage (2)
        return exit_.code if isinstance(exit_.code, int) else USAGE_ERROR
    keys = store if store is not None else _default_store()
    try:
        if args.action == "create":
            return _create(keys, args.tenant, args.description)
        if args.action == "list":
            return _list(keys, args.tenant)
        return _revoke(keys, args.key_id)
    except (NotFoundError, ValidationError) as err:  # unknown key id, bad tenant id: the caller's fault
        print(f"error: {err}", file=sys.stderr)
        return USAGE_ERROR
    except EngramError as err:  # e.g. the table is missing or AWS is unreachable
        print(f"error: {err}", file=sys.stderr)
        return FAILURE


if __name__ == "__main__":
    raise SystemExit(main())
