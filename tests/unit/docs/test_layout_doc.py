"""docs/layout.md against the tree: every top-level folder and every folder and module of shared/engram/ has a
row, and every path the page names exists (a row's own paths from the root; the names in its description
inside the row's folder). A folder added, moved or removed without the page fails here."""

from __future__ import annotations

import fnmatch
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
LAYOUT = ROOT / "docs" / "layout.md"
ROW = re.compile(r"^\| (`[^|]+`) \| (.+) \|$", re.MULTILINE)
CODE = re.compile(r"`([^`]+)`")
# A name in a description is a path when it has a folder's slash or a file's extension.
PATHLIKE = re.compile(r"^[\w.<>-]+(?:/[\w.<>-]+)*(?:/|\.(?:py|md|txt|json|yaml|toml|html|js|css))$")


def rows() -> list[tuple[list[str], str]]:
    """(the row's paths, its description) for every row of the table."""
    return [(CODE.findall(paths), text) for paths, text in ROW.findall(LAYOUT.read_text(encoding="utf-8"))]


def named() -> set[str]:
    """Every path a row is about, as the page writes it, without a trailing slash."""
    return {path.rstrip("/") for paths, _ in rows() for path in paths}


def ignored(name: str) -> bool:
    patterns = [p.rstrip("/") for p in (ROOT / ".gitignore").read_text(encoding="utf-8").split() if p.endswith("/")]
    return name in (".git", "__pycache__", "node_modules") or any(fnmatch.fnmatch(name, p) for p in patterns)


def exists(path: str, base: Path = ROOT) -> bool:
    return any(base.glob(re.sub(r"<\w+>", "*", path.rstrip("/")))) if "<" in path else (base / path).exists()


def covered(path: str) -> bool:
    """Whether a row is about `path` or about something inside it (`functions/<name>/app.py` covers
    `functions/api`)."""
    depth = len(path.split("/"))
    for name in named():
        parts = re.sub(r"<\w+>", "*", name).split("/")
        if len(parts) >= depth and fnmatch.fnmatch(path, "/".join(parts[:depth])):
            return True
    return False


def folders(base: Path) -> list[Path]:
    return [p for p in base.iterdir() if p.is_dir() and not ignored(p.name)]


def test_every_top_level_folder_has_a_row() -> None:
    assert sorted(p.name for p in folders(ROOT) if not covered(p.name)) == []


def test_a_folder_described_part_by_part_has_a_row_for_every_part() -> None:
    # clients/ has no row of its own, so clients/python/ and clients/js/ each need theirs.
    parts = [child for top in folders(ROOT) if top.name not in named() for child in folders(top)]
    assert sorted(str(p.relative_to(ROOT)) for p in parts if not covered(str(p.relative_to(ROOT)))) == []


def test_every_folder_and_module_of_the_engram_package_has_a_row() -> None:
    package = ROOT / "shared" / "engram"
    parts = {
        f"shared/engram/{p.name}"
        for p in package.iterdir()
        if (p.is_dir() and p.name != "__pycache__") or (p.suffix == ".py" and p.name != "__init__.py")
    }
    assert sorted(parts - named()) == []


def test_every_path_the_page_names_exists() -> None:
    missing = []
    for paths, text in rows():
        missing += [path for path in paths if not exists(path)]
        bases = [ROOT, *(ROOT / path for path in paths if path.endswith("/"))]
        for name in CODE.findall(text):
            if PATHLIKE.match(name) and not any(exists(name, base) for base in bases):
                missing.append(f"{name} (in the row of {paths[0]})")
    assert missing == []


def test_the_page_is_read_as_a_reader_does() -> None:
    assert PATHLIKE.match("unit_of_work.py") and PATHLIKE.match("dynamo/") and PATHLIKE.match("functions/<name>/app.py")
    assert not PATHLIKE.match("FactStore") and not PATHLIKE.match("make run") and not PATHLIKE.match("ENGRAM_*")
    assert exists("functions/<name>/app.py") and not exists("functions/<name>/nothing.py")
    assert covered("functions/api") and covered("shared/engram") and not covered("shared/nothing")
