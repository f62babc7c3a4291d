"""Where the server and key come from: arguments, then ENGRAM_URL / ENGRAM_API_KEY, then the config file
(ENGRAM_CONFIG, default ~/.config/engram/config.toml: `url = "..."` and `api_key = "..."`)."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

DEFAULT_URL = "http://127.0.0.1:3000"


def config_path() -> Path:
    return Path(os.environ.get("ENGRAM_CONFIG") or Path.home() / ".config" / "engram" / "config.toml")


@dataclass(frozen=True)
class Settings:
    url: str
    api_key: str | None


def resolve(url: str | None = None, api_key: str | None = None) -> Settings:
    file: dict[str, object] = {}
    path = config_path()
    if path.is_file():
        import tomllib  # only when there is a file to read

        with path.open("rb") as handle:
            file = tomllib.load(handle)
    chosen_url = url or os.environ.get("ENGRAM_URL") or str(file.get("url") or DEFAULT_URL)
    key = api_key or os.environ.get("ENGRAM_API_KEY") or (str(file["api_key"]) if file.get("api_key") else None)
    return Settings(url=chosen_url.rstrip("/"), api_key=key)
