"""The layering the design promises: the domain talks to ports only, handlers are glue."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
ENGRAM = ROOT / "shared" / "engram"
PROVIDERS = ("boto3", "botocore", "openai", "opensearchpy", "onnxruntime", "tokenizers", "moto")
# Everything that is not an adapter, the local stack, the admin command or the wiring.
DOMAIN = [
    p
    for p in ENGRAM.rglob("*.py")
    if not {"adapters", "local"} & set(p.relative_to(ENGRAM).parts) and p.name not in ("admin.py", "bootstrap.py")
]


def imported(path: Path) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            names |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module.split(".")[0])
    return names


@pytest.mark.parametrize("path", DOMAIN, ids=lambda p: str(p.relative_to(ENGRAM)))
def test_domain_imports_no_provider_sdk(path: Path) -> None:
    assert not imported(path) & set(PROVIDERS)


@pytest.mark.parametrize("path", sorted((ROOT / "functions").glob("*/app.py")), ids=lambda p: p.parent.name)
def test_handlers_are_glue(path: Path) -> None:
    assert not imported(path) & set(PROVIDERS)
    assert len(path.read_text().splitlines()) < 200


def test_every_adapter_module_is_one_adapter() -> None:
    for path in (ENGRAM / "adapters").glob("*.py"):
        assert len(path.read_text().splitlines()) <= 400, path.name
