"""Fixtures shared by the moto-backed tests: the container stack, the API caller, a DynamoDB client."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import boto3
import pytest
from moto import mock_aws

from tests.integration.aws_tables import create_tables
from tests.integration.stack import Stack, api_caller, moto_stack
from tests.support.handlers import load_function


@pytest.fixture
def stack(monkeypatch: pytest.MonkeyPatch) -> Iterator[Stack]:
    """Real DynamoDB/S3/SQS adapters on moto, a scripted LLM, fake embedder and index."""
    with moto_stack(monkeypatch) as s:
        yield s


@pytest.fixture
def call(stack: Stack) -> Any:
    """The API function: call(method, path, body=None, tenant="acme", ...) -> (status, JSON body)."""
    return api_caller(load_function("api"))


@pytest.fixture
def db() -> Iterator[Any]:
    """A moto DynamoDB client with the template's tables created."""
    with mock_aws():
        client = boto3.client("dynamodb", region_name="us-east-1")
        create_tables(client)
        yield client
