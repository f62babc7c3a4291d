"""A deployed function whose template left out a setting fails at start, naming it, instead of
quietly running against a default table or queue."""

from __future__ import annotations

import pytest

import engram.bootstrap
from engram.bootstrap import Container
from engram.domain.errors import ConfigurationError
from engram.settings import Settings
from tests.support.handlers import load_function


@pytest.fixture
def deployed(monkeypatch: pytest.MonkeyPatch) -> pytest.MonkeyPatch:
    for name in ("ENGRAM_MEMORY_TABLE", "ENGRAM_TASKS_TABLE", "ENGRAM_BUCKET", "ENGRAM_QUEUE_URL", "ENGRAM_KEYS_TABLE"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("AWS_LAMBDA_FUNCTION_NAME", "engram-api")
    return monkeypatch


def test_the_api_function_names_every_missing_setting(deployed: pytest.MonkeyPatch) -> None:
    deployed.setenv("ENGRAM_MEMORY_TABLE", "mem")
    deployed.setattr(engram.bootstrap, "container", lambda: Container(Settings()))
    with pytest.raises(ConfigurationError) as raised:
        load_function("api")
    message = str(raised.value)
    assert "ENGRAM_TASKS_TABLE" in message and "ENGRAM_BUCKET" in message and "ENGRAM_QUEUE_URL" in message
    assert "ENGRAM_MEMORY_TABLE" not in message


def test_the_authorizer_starts_when_its_setting_is_given(deployed: pytest.MonkeyPatch) -> None:
    deployed.setenv("ENGRAM_KEYS_TABLE", "keys")
    deployed.setattr(engram.bootstrap, "container", lambda: Container(Settings()))
    assert load_function("authorizer").lambda_handler is not None


def test_outside_lambda_the_defaults_apply(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("AWS_LAMBDA_FUNCTION_NAME", raising=False)
    monkeypatch.delenv("ENGRAM_QUEUE_URL", raising=False)
    Settings().require("queue_url")  # tests and the local stack run on defaults on purpose
