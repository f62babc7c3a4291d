"""Names the docs give a user against the code that reads them: every `ENGRAM_*` variable README.md and
docs/*.md name is a setting of the settings model or read by the code (the local stack's ENGRAM_PORT, ...),
and the request fields docs/api.md lists for each body (`include`, `exclude`, ...) are the fields of the model
that reads that body, no more and no fewer."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

from pydantic import BaseModel

from engram.domain.imports import ImportRequest
from engram.domain.models import AddRequest
from engram.domain.policy import TenantConfig
from engram.http.maintenance_models import MaintenanceBody
from engram.http.models import AttachmentCreate, PatchBody, SearchBody
from engram.settings import Settings
from engram_tools.settings_doc import env_name

ROOT = Path(__file__).resolve().parents[3]
VARIABLE = re.compile(r"\bENGRAM_[A-Z0-9_]*[A-Z0-9]\b")


def documents() -> list[Path]:
    return [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]


def read_by_the_code() -> set[str]:
    """Variables the settings model reads, and those the code (the tools, bench and tests included) names in a
    string or a shell expansion."""
    names = {env_name(name, field) for name, field in Settings.model_fields.items()}
    files = subprocess.run(
        ["git", "ls-files", "shared", "functions", "clients", "bench", "tests", "template.yaml", "Makefile"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    for file in files:
        if file.endswith((".py", ".ts", ".yaml")) or file == "Makefile":
            text = (ROOT / file).read_text(encoding="utf-8")
            names |= set(re.findall(r"[\"'](ENGRAM_[A-Z0-9_]+)[\"']", text))
            names |= set(re.findall(r"\$\{?(ENGRAM_[A-Z0-9_]+)", text))
    return names


def test_every_variable_the_docs_name_is_read_by_the_code() -> None:
    known = read_by_the_code()
    unread = sorted(
        f"{doc.relative_to(ROOT)}: {name}"
        for doc in documents()
        for name in set(VARIABLE.findall(doc.read_text(encoding="utf-8")))
        if name not in known and not name.endswith("_")  # `ENGRAM_*`, a prefix
    )
    assert unread == []


# The body of each route docs/api.md documents, and the model that reads it.
BODIES: dict[str, type[BaseModel]] = {
    "POST /v1/memories": AddRequest,
    "POST /v1/memories/search": SearchBody,
    "PATCH / DELETE /v1/memories/{id}": PatchBody,
    "POST /v1/memories/import": ImportRequest,
    "POST /v1/attachments": AttachmentCreate,
    "POST /v1/maintenance": MaintenanceBody,
    "GET / PUT /v1/config": TenantConfig,
}


def top_level_fields(shape: str) -> set[str]:
    """`{a, b?: 1, c: {d}, e: [f, g]}` -> {a, b, c, e}."""
    fields, depth, piece = set(), 0, ""
    for char in shape.strip()[1:-1] + ",":
        depth += (char in "{[(") - (char in "}])")
        if char == "," and depth == 0:
            if match := re.match(r"\s*(\w+)", piece):
                fields.add(match.group(1))
            piece = ""
        else:
            piece += char
    return fields


def documented_bodies() -> dict[str, set[str]]:
    text = (ROOT / "docs" / "api.md").read_text(encoding="utf-8")
    rows = re.findall(r"^\| `([A-Z][^`]*)` \| (.+) \|$", text, re.MULTILINE)
    return {
        route: top_level_fields(re.search(r"`(\{.*?\})`(?: →|:| \(|;|$)", cell).group(1))
        for route, cell in rows
        if route in BODIES
    }


def test_the_fields_docs_api_lists_for_each_body_are_those_its_model_reads() -> None:
    documented = documented_bodies()
    assert sorted(documented) == sorted(BODIES), "a route of BODIES is no longer in docs/api.md's table"
    wrong = {}
    for route, model in BODIES.items():
        fields = {field.alias or name for name, field in model.model_fields.items()}
        if documented[route] != fields:
            wrong[route] = {
                "only in the doc": documented[route] - fields,
                "only in the model": fields - documented[route],
            }
    assert not wrong, wrong


def test_the_body_reader_takes_the_top_level_names_only() -> None:
    assert top_level_fields('{a, b?: 1, c: {d, e}, f: [g, h], i?: "x"|"y"}') == {"a", "b", "c", "f", "i"}
