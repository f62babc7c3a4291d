"""Every relative link of the README and the docs it leads to (docs/, bench/README.md, bench/journal/) points at
a file that exists, and a link to a heading (`file.md#heading`) at a heading that file has: a section moved
or renamed without its links fails here."""

from __future__ import annotations

import re
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
