"""The user directory write-sharded (one partition per tenant took every add of a busy tenant): the
listing answers what it answered unsharded, page by page, and a user is listed once and forgotten
everywhere, also with entries written before sharding."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

import boto3
import pytest
from moto import mock_aws

from engram.adapters.dynamo.user_directory import DynamoUserDirectory
from engram.domain.errors import ValidationError
from engram.domain.models import UserActivity
from engram.settings import Settings
from tests.integration.aws_tables import create_tables

T0 = datetime(2024, 6, 1, 9, 30, tzinfo=UTC)
TABLE = Settings().memory_table


@pytest.fixture
def db() -> Iterator[Any]:
    with mock_aws():
        client = boto3.client("dynamodb", region_name="us-east-1")
        create_tables(client)
        yield client


def every_page(users: DynamoUserDirectory, limit: int) -> list[list[UserActivity]]:
    pages, cursor = [], None
    while True:
        page = users.list("acme", limit, cursor)
        pages.append(page.items)
        cursor = page.next_cursor
        if cursor is None:
            return pages


def test_sharded_pages_are_the_unsharded_pages(db: Any) -> None:
    one, eight = DynamoUserDirectory(db, TABLE, shards=1), DynamoUserDirectory(db, TABLE, shards=8)
    for n in range(23):
        for directory in (one, eight):
            directory.touch("acme", f"user-{n:02d}", T0 + timedelta(minutes=n))
    eight.touch("globex", "mallory", T0)
    pk_of_eight = {i["pk"]["S"] for i in db.scan(TableName=TABLE)["Items"] if i["pk"]["S"].startswith("T#acme")}
    assert len(pk_of_eight) == 8  # the writes spread over every shard (shard 0 is the unsharded key)
    for limit in (1, 4, 23, 100):
        pages = every_page(eight, limit)
        assert [u for page in pages for u in page] == one.list("acme", 100).items
        assert all(len(page) == limit for page in pages[:-1])


def test_a_user_written_before_and_after_sharding_is_listed_once_and_forgotten_everywhere(db: Any) -> None:
    before, after = DynamoUserDirectory(db, TABLE, shards=1), DynamoUserDirectory(db, TABLE, shards=8)
    user = next(f"u{n}" for n in range(100) if after.entry("acme", f"u{n}", T0)["pk"]["S"].endswith("#s3"))
    before.touch("acme", user, T0)  # the entry of the unsharded layout, in shard 0
    after.touch("acme", user, T0 + timedelta(hours=1))
    after.touch("acme", "zed", T0)
    assert after.list("acme", 1).items == [UserActivity(user_id=user, last_active_at=T0 + timedelta(hours=1))]
    after.forget("acme", user)  # delete-all: no shard keeps the user listed
    assert after.list("acme", 10).items == [UserActivity(user_id="zed", last_active_at=T0)]
    assert before.list("acme", 10).items == []  # nor the unsharded key


def test_a_cursor_of_another_tenant_is_refused(db: Any) -> None:
    users = DynamoUserDirectory(db, TABLE, shards=8)
    for user in ("a", "b", "c"):
        users.touch("acme", user, T0)
    cursor = users.list("acme", 1).next_cursor
    assert cursor is not None
    with pytest.raises(ValidationError, match="cursor"):
        users.list("globex", 1, cursor)
