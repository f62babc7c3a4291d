"""Where the SDK and CLI find the server and key: arguments, then the environment, then the config file."""

from __future__ import annotations

from pathlib import Path

import pytest

from engram_client.config import DEFAULT_URL, resolve


@pytest.fixture
def config_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = tmp_path / "config.toml"
    monkeypatch.setenv("ENGRAM_CONFIG", str(path))
    monkeypatch.delenv("ENGRAM_URL", raising=False)
    monkeypatch.delenv("ENGRAM_API_KEY", raising=False)
    return path


def test_defaults_without_anything(config_file: Path) -> None:
    settings = resolve()
    assert (settings.url, settings.api_key) == (DEFAULT_URL, None)


def test_file_then_environment_then_arguments(config_file: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    config_file.write_text('url = "http://file:1/"\napi_key = "file-key"\n')
    assert (resolve().url, resolve().api_key) == ("http://file:1", "file-key")
    monkeypatch.setenv("ENGRAM_URL", "http://env:2")
    monkeypatch.setenv("ENGRAM_API_KEY", "env-key")
    assert (resolve().url, resolve().api_key) == ("http://env:2", "env-key")
    assert (resolve("http://arg:3", "arg-key").url, resolve("http://arg:3", "arg-key").api_key) == (
        "http://arg:3",
        "arg-key",
    )
