"""The memory page: static HTML/CSS/JS modules shipped in the package and served by the API at /ui."""

from __future__ import annotations

from importlib import resources

from engram.domain.errors import NotFoundError

_TYPES = {
    ".html": "text/html; charset=utf-8",
    ".js": "text/javascript; charset=utf-8",
    ".css": "text/css; charset=utf-8",
}


def static_file(name: str) -> tuple[str, str]:
    """(body, media type) of one file of the page; NotFoundError for anything that is not one of them
    (only plain names with a known suffix, so no path can reach outside this folder)."""
    suffix = name[name.rfind(".") :] if "." in name else ""
    entry = resources.files(__name__).joinpath(name)
    if suffix not in _TYPES or "/" in name or "\\" in name or name.startswith(".") or not entry.is_file():
        raise NotFoundError("file", name)
    return entry.read_text(encoding="utf-8"), _TYPES[suffix]
