"""Settings read the environment as pydantic-settings' BaseSettings did (settings.py reads it itself)."""

from __future__ import annotations

import os

import pytest
from pydantic import ValidationError

from engram.settings import Settings


@pytest.fixture(autouse=True)
def clean_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in list(os.environ):
        if name.upper().startswith(("ENGRAM_", "AWS_REGION")):
            monkeypatch.delenv(name)


def test_engram_prefix_in_any_case(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ENGRAM_MEMORY_TABLE", "t1")
    monkeypatch.setenv("engram_tasks_table", "t2")
    monkeypatch.setenv("ENGRAM_GRAPH", "off")
    monkeypatch.setenv("ENGRAM_RATE_LIMIT_RPS", "2.5")
    monkeypatch.setenv("ENGRAM_UNKNOWN", "ignored")
    s = Settings()
    assert (s.memory_table, s.tasks_table, s.graph, s.rate_limit_rps) == ("t1", "t2", False, 2.5)
    assert s.model_fields_set == {"memory_table", "tasks_table", "graph", "rate_limit_rps"}


def test_alias_is_read_without_prefix(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ENGRAM_AWS_REGION", "eu-west-2")
    assert Settings().aws_region == "us-east-1"
    monkeypatch.setenv("AWS_REGION", "eu-west-1")
    assert Settings().aws_region == "eu-west-1"


def test_keywords_win_over_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AWS_REGION", "eu-west-1")
    monkeypatch.setenv("ENGRAM_QUEUE_URL", "q")
    s = Settings(aws_region="kw", queue_url=None)
    assert (s.aws_region, s.queue_url) == ("kw", None)
    assert Settings(AWS_REGION="alias").aws_region == "alias"  # type: ignore[call-arg]


def test_empty_is_unset_and_values_are_validated(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ENGRAM_QUEUE_URL", "")
    assert Settings().queue_url is None
    monkeypatch.setenv("ENGRAM_MEMORY_TABLE", "")  # a required name: unset is an error, not ""
    with pytest.raises(ValidationError):
        Settings()
    monkeypatch.delenv("ENGRAM_MEMORY_TABLE")
    monkeypatch.setenv("ENGRAM_PRESIGN_EXPIRES_S", "3600")
    with pytest.raises(ValidationError):
        Settings()
