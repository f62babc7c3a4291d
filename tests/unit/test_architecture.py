"""The layering the design promises: the domain talks to ports only, handlers are glue, imports run one way."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SHARED = ROOT / "shared"
ENGRAM = SHARED / "engram"
ADAPTERS = ENGRAM / "adapters"
PROVIDERS = ("boto3", "botocore", "openai", "opensearchpy", "onnxruntime", "tokenizers", "moto")
BACKENDS = ("aws", "dynamo", "embedded", "onnx", "openai", "opensearch")
# Everything that is not an adapter, the local stack, the admin command or the wiring.
DOMAIN = [
    p
    for p in ENGRAM.rglob("*.py")
    if not {"adapters", "local"} & set(p.relative_to(ENGRAM).parts) and p.name not in ("admin.py", "bootstrap.py")
]
# From the bottom up: a module imports its own layer or lower ones, never a higher one (lazy imports included).
LAYERS = (
    ("domain", "queue_message", "textproc"),
    ("settings", "offline", "ui"),
    ("reconcile",),
    ("graph", "pipeline"),
    ("maintenance", "services"),
    ("adapters",),
    ("admin", "live_wiring", "search_wiring", "policy_wiring"),
    ("bootstrap",),
    ("http",),
    ("local",),
)
# Known exceptions, each a debt to pay back: the chat proxy builds its OpenAI adapter itself.
UPWARD_ALLOWED = {("engram.services.chat_proxy", "engram.adapters.openai.chat")}


def imported(path: Path) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            names |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module.split(".")[0])
    return names


def module_name(path: Path) -> str:
    parts = path.relative_to(SHARED).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {module_name(p): p for p in ENGRAM.rglob("*.py")}


def engram_imports(path: Path) -> Iterator[str]:
    """The engram modules a file imports anywhere in it; `from pkg import mod` counts as importing mod."""
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            yield from (a.name for a in node.names if a.name in MODULES)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            for alias in node.names:
                sub = f"{node.module}.{alias.name}"
                if sub in MODULES:
                    yield sub
                elif node.module in MODULES:
                    yield node.module


GRAPH = {name: set(engram_imports(path)) - {name} for name, path in MODULES.items()}


def layer(module: str) -> int:
    top = module.split(".")[1] if "." in module else ""
    return next(i for i, names in enumerate(LAYERS) if top in names)


@pytest.mark.parametrize("path", DOMAIN, ids=lambda p: str(p.relative_to(ENGRAM)))
def test_domain_imports_no_provider_sdk(path: Path) -> None:
    assert not imported(path) & set(PROVIDERS)


@pytest.mark.parametrize("path", sorted((ROOT / "functions").glob("*/app.py")), ids=lambda p: p.parent.name)
def test_handlers_are_glue(path: Path) -> None:
    assert not imported(path) & set(PROVIDERS)
    assert len(path.read_text().splitlines()) < 200


def test_every_adapter_module_is_one_adapter() -> None:
    for path in ADAPTERS.rglob("*.py"):
        assert len(path.read_text().splitlines()) <= 400, path.relative_to(ADAPTERS)


def test_adapters_are_grouped_by_backend() -> None:
    """A backend's modules live in its own folder; at the top of adapters/ only what serves any backend."""
    assert sorted(p.name for p in ADAPTERS.iterdir() if p.is_dir() and p.name != "__pycache__") == sorted(BACKENDS)
    for path in ADAPTERS.glob("*.py"):
        assert not path.stem.startswith(tuple(f"{b}_" for b in BACKENDS)), path.name
        assert not imported(path) & set(PROVIDERS), path.name
        assert not {m for m in GRAPH[module_name(path)] if m.startswith("engram.adapters.")}, path.name


def test_backends_share_only_the_aws_clients() -> None:
    for name, targets in GRAPH.items():
        if name.startswith("engram.adapters.") and name.count(".") == 3:
            backend = name.split(".")[2]
            others = {t.split(".")[2] for t in targets if t.startswith("engram.adapters.") and t.count(".") == 3}
            assert others <= {backend, "aws"}, name


def test_imports_never_run_up_a_layer() -> None:
    upward = {
        (name, target)
        for name, targets in GRAPH.items()
        for target in targets
        if layer(target) > layer(name) and (name, target) not in UPWARD_ALLOWED
    }
    assert upward == set()


def test_no_import_cycle_among_engram_modules() -> None:
    cycles: list[list[str]] = []
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    path: list[str] = []

    def visit(name: str) -> None:
        state[name] = 1
        path.append(name)
        for target in sorted(GRAPH[name]):
            if state.get(target) == 1:
                cycles.append([*path[path.index(target) :], target])
            elif target not in state:
                visit(target)
        path.pop()
        state[name] = 2

    for name in sorted(GRAPH):
        if name not in state:
            visit(name)
    assert cycles == []
