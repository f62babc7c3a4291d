"""Every relative link of the README and the docs it leads to (docs/, bench/README.md, bench/journal/) points at
a file that exists, and a link to a heading (`file.md#heading`) at a heading that file has: a section moved
or renamed without its links fails here. So does a repository path named in prose (`shared/engram/x.py` in
backticks in a *.md) or in a comment or docstring of a *.py (`engram/http/errors.py`, `offline/values.py`)
that no longer exists."""

from __future__ import annotations

import ast
import io
import re
import subprocess
import tokenize
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)\)")
FENCE = re.compile(r"^```.*?^```", re.DOTALL | re.MULTILINE)


def documents() -> list[Path]:
    return [
        ROOT / "README.md",
        *sorted((ROOT / "docs").glob("*.md")),
        ROOT / "bench" / "README.md",
        *sorted((ROOT / "bench" / "journal").glob("*.md")),
    ]


def anchors(markdown: str) -> set[str]:
    """GitHub's heading ids: lower case, punctuation but hyphens and underscores dropped, spaces to hyphens."""
    headings = re.findall(r"^#{1,6} (.+)$", FENCE.sub("", markdown), re.MULTILINE)
    return {re.sub(r"[^\w\- ]", "", h.strip().lower()).replace(" ", "-") for h in headings}


def relative_links(doc: Path) -> list[str]:
    text = FENCE.sub("", doc.read_text(encoding="utf-8"))
    return [t for t in LINK.findall(text) if not re.match(r"[a-z]+:", t)]


def test_every_relative_link_of_the_docs_points_at_a_file_and_heading_that_exist() -> None:
    dangling = []
    for doc in documents():
        for target in relative_links(doc):
            path, _, heading = target.partition("#")
            file = (doc.parent / path).resolve() if path else doc
            if not file.exists():
                dangling.append(f"{doc.relative_to(ROOT)}: {target} (no such file)")
            elif heading and file.suffix == ".md" and heading not in anchors(file.read_text(encoding="utf-8")):
                dangling.append(f"{doc.relative_to(ROOT)}: {target} (no such heading)")
    assert not dangling, "\n".join(dangling)


def test_the_link_check_reads_links_and_headings_as_github_does() -> None:
    assert anchors(
        "# Time: when it was said, and when Engram recorded it\n## `sam local invoke` against `make run`"
    ) == {
        "time-when-it-was-said-and-when-engram-recorded-it",
        "sam-local-invoke-against-make-run",
    }
    assert LINK.findall("[a](docs/api.md#limits) ![b](x.png) [c](https://example.com)") == [
        "docs/api.md#limits",
        "x.png",
        "https://example.com",
    ]


def test_the_readme_stays_short_and_leads_to_every_reference_page() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert len(readme.splitlines()) <= 300
    linked = {Path(t.partition("#")[0]).as_posix() for t in relative_links(ROOT / "README.md")}
    for page in sorted((ROOT / "docs").glob("*.md")):
        assert f"docs/{page.name}" in linked, f"README.md does not link docs/{page.name}"


# ------------------------------------------------------------------ paths named in prose and comments

_EXTENSIONS = r"(?:py|md|txt|json|jsonl|yaml|yml|toml|html|js|mjs|ts|css|sh|csv)"
# A path: two or more parts, ending in a folder's slash or a file's extension (`text/xml` is not one).
PATH = re.compile(r"(?<![\w/:.$~@-])((?:[\w*<>.-]+/)+(?:[\w*<>.-]+\." + _EXTENSIONS + r"|))(?![\w/])")
# Paths in other projects' repositories that comments cite (aws-sam-cli's samcli/, the LoCoMo and LongMemEval
# evaluation code's src/ and evaluation/).
EXTERNAL = ("samcli/", "src/", "evaluation/")
# Dated journal entries record what the tree was then; bench/data/ holds other projects' files.
NOT_CHECKED = ("bench/journal/", "bench/data/")
THIS = Path(__file__).resolve().relative_to(ROOT).as_posix()


def tracked(suffix: str) -> list[str]:
    files = subprocess.run(["git", "ls-files", f"*{suffix}"], cwd=ROOT, capture_output=True, text=True, check=True)
    return [f for f in files.stdout.split() if not f.startswith(NOT_CHECKED)]


def named_in_markdown(text: str) -> Iterator[str]:
    """Paths in inline code: `shared/engram/http/errors.py`, `bench/stubs/` (not commands, not code blocks)."""
    for code in re.findall(r"`([^`\n]+)`", FENCE.sub("", text)):
        if PATH.fullmatch(code.strip()):
            yield code.strip()


def named_in_hash_comments(text: str) -> Iterator[str]:
    """Paths in the `#` comments of the Makefile, template.yaml, samconfig.toml, pyproject.toml."""
    for line in text.splitlines():
        if "#" in line:
            yield from PATH.findall(line.split("#", 1)[1])


def named_in_python(text: str) -> Iterator[str]:
    """Paths in comments and docstrings."""
    prose = [t.string for t in tokenize.generate_tokens(io.StringIO(text).readline) if t.type == tokenize.COMMENT]
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            prose.append(ast.get_docstring(node, clean=False) or "")
    for chunk in prose:
        yield from PATH.findall(chunk)


def _exists(path: str, base: Path) -> bool:
    pattern = re.sub(r"<\w+>", "*", path.rstrip("/"))
    return any(base.glob(pattern)) if "*" in pattern else (base / pattern).exists()


def stale(path: str, source: str) -> bool:
    """Whether `path`, named in the file `source`, names nothing in this repository. A path from the root
    (`bench/stubs/`) or from the packages' folder (`engram/http/errors.py`) is looked up there; in Python, any
    other file path (`offline/values.py`) beside the file, in a folder above it, or in the engram package."""
    parts = path.split("/")
    if any(p.startswith(".") and p != ".ci" for p in parts) or path.startswith(EXTERNAL):
        return False  # state folders (.engram/, bench/.cache/): git ignores them; other projects' paths
    if "<" in path and not (ROOT / parts[0]).exists():
        return False  # a pattern of state files (`<data_dir>/schedules.json`, `sqs/<queue>.jsonl`)
    if (ROOT / parts[0]).exists() and parts[0] not in ("engram", "engram_tools"):
        return not _exists(path, ROOT)
    if parts[0] in ("engram", "engram_tools"):
        return not _exists(path, ROOT / "shared")
    if not source.endswith(".py") or path.endswith("/"):
        return False
    here = (ROOT / source).parent
    bases = [here, *here.parents, ROOT / "shared" / "engram"]
    return not any(_exists(path, base) for base in bases if base.is_relative_to(ROOT))


def test_every_repository_path_named_in_prose_or_comments_exists() -> None:
    missing = [
        f"{source}: {path}"
        for source in tracked(".md")
        for path in named_in_markdown((ROOT / source).read_text(encoding="utf-8"))
        if stale(path, source)
    ]
    missing += [
        f"{source}: {path}"
        for source in tracked(".py")
        if source != THIS  # its docstring and checks name stale paths on purpose
        for path in named_in_python((ROOT / source).read_text(encoding="utf-8"))
        if stale(path, source)
    ]
    missing += [
        f"{source}: {path}"
        for source in ("Makefile", *tracked(".yaml"), *tracked(".toml"))
        for path in named_in_hash_comments((ROOT / source).read_text(encoding="utf-8"))
        if stale(path, source)
    ]
    assert not missing, "\n".join(sorted(set(missing)))


def test_the_path_check_reads_paths_as_a_reader_does() -> None:
    comment = (
        '"""Reads offline/values.py."""\n# wired in engram/http/errors.py; text/xml, /v1/memories, https://x.io/a.py\n'
    )
    assert sorted(named_in_python(comment)) == ["engram/http/errors.py", "offline/values.py"]
    assert list(named_in_markdown("see `bench/stubs/`, run `make run`, `docs/api.md#limits`\n```\n`a/b.py`\n```")) == [
        "bench/stubs/"
    ]
    assert stale("offline/values.py", "shared/engram/state/aspects.py")
    assert not stale("rules/values.py", "shared/engram/state/aspects.py")
    assert stale("bench/stubs/", "bench/README.md") and not stale("bench/", "bench/README.md")
    assert not stale("engram/http/errors.py", "tests/unit/test_doc_links.py")
    assert not stale(".engram/env.json", "docs/sam-local.md") and not stale("<data_dir>/moto/", "x.py")
    assert list(named_in_hash_comments("a: 1  # (shared/engram/local/x.py)\n")) == ["shared/engram/local/x.py"]
