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
TOOLS = SHARED / "engram_tools"
# Everything that is not an adapter or the wiring.
DOMAIN = [p for p in ENGRAM.rglob("*.py") if not {"adapters", "bootstrap"} & set(p.relative_to(ENGRAM).parts)]
# What each room of the runtime package may import besides itself (lazy imports included). Read from the bottom up:
# every room stands above the rooms it imports, so no import runs up and rooms never import each other in a loop.
MAY_IMPORT: dict[str, set[str]] = {
    "domain": set(),  # models, ports (Workflow, the task message), errors
    "text": {"domain"},  # clauses and sentences, index terms, lexical overlap, transcripts
    "settings": {"domain"},
    "ui": {"domain"},
    "safety": {"domain"},  # personal data, secrets and text addressed to the assistant, found at ingest
    "writes": {"domain"},  # the unit of work every memory change goes through
    "operations": {"domain"},  # health, metrics, usage, the circuit breaker, the busy log
    "rules": {"domain", "text"},  # reading without a model: used by the offline extractor and the LLM path alike
    "reconcile": {"domain", "text", "rules"},
    "graph": {"domain", "text", "rules", "reconcile"},
    # statements, the attribute catalogue, their readers and the resolution by event time
    "state": {"domain", "text", "rules", "writes"},
    "pipeline": {"domain", "text", "rules", "reconcile", "writes", "graph", "safety", "state"},
    "maintenance": {"domain", "text", "reconcile", "writes"},
    "search": {"domain", "text", "settings"},  # the stages of a relevance query and their ranking
    # use cases
    "services": {
        *("domain", "text", "rules", "settings", "writes", "operations", "pipeline", "search", "graph", "safety"),
        "state",
    },
    "agentcore": {"domain", "writes", "services"},  # AgentCore Memory's API over the memory services
    "adapters": {"domain", "text", "settings"},
    "bootstrap": {
        *("domain", "settings", "writes", "operations", "rules", "reconcile", "graph", "pipeline", "maintenance"),
        "safety",
        "state",
        *("search", "services", "agentcore", "adapters"),
    },
    "http": {"domain", "text", "settings", "ui", "operations", "services", "graph", "agentcore", "bootstrap"},
}
# Known exceptions, each a debt to pay back: the chat proxy builds its OpenAI adapter itself.
ALLOWED_EXCEPTIONS = {("engram.services.chat_proxy", "engram.adapters.openai.chat")}


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
TOOL_MODULES = {module_name(p): p for p in TOOLS.rglob("*.py")}


def engram_imports(path: Path, modules: dict[str, Path] = MODULES) -> Iterator[str]:
    """The modules of `modules` a file imports anywhere in it; `from pkg import mod` counts as importing mod."""
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            yield from (a.name for a in node.names if a.name in modules)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            for alias in node.names:
                sub = f"{node.module}.{alias.name}"
                if sub in modules:
                    yield sub
                elif node.module in modules:
                    yield node.module


GRAPH = {name: set(engram_imports(path)) - {name} for name, path in MODULES.items()}


def room(module: str) -> str:
    return module.split(".")[1] if "." in module else ""


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


def cycles_of(graph: dict[str, set[str]]) -> list[list[str]]:
    cycles: list[list[str]] = []
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    path: list[str] = []

    def visit(name: str) -> None:
        state[name] = 1
        path.append(name)
        for target in sorted(graph.get(name, ())):
            if state.get(target) == 1:
                cycles.append([*path[path.index(target) :], target])
            elif target not in state:
                visit(target)
        path.pop()
        state[name] = 2

    for name in sorted(graph):
        if name not in state:
            visit(name)
    return cycles


def test_every_room_is_named_in_the_plan() -> None:
    rooms = {room(name) for name in MODULES if name != "engram"}
    assert rooms == set(MAY_IMPORT)


def test_the_rooms_stand_one_above_another() -> None:
    """The plan itself has no loop: a room never, through others, imports a room that imports it."""
    assert cycles_of(MAY_IMPORT) == []


def test_each_room_imports_only_what_the_plan_allows() -> None:
    outside = {
        (name, target)
        for name, targets in GRAPH.items()
        for target in targets
        if room(target) != room(name)
        and room(target) not in MAY_IMPORT[room(name)]
        and (name, target) not in ALLOWED_EXCEPTIONS
    }
    assert outside == set()


def test_no_import_cycle_among_engram_modules() -> None:
    assert cycles_of(GRAPH) == []


def test_the_runtime_package_never_imports_the_tools() -> None:
    """The local stack and the operator CLI are not in the Lambda layer: nothing there may need them."""
    runtime = [*ENGRAM.rglob("*.py"), *(ROOT / "functions").glob("*/app.py")]
    assert [str(p) for p in runtime if "engram_tools" in imported(p)] == []


def test_no_import_cycle_among_the_tools_or_the_bench() -> None:
    tools = {name: set(engram_imports(path, TOOL_MODULES)) - {name} for name, path in TOOL_MODULES.items()}
    assert cycles_of(tools) == []
    bench = {".".join(p.relative_to(ROOT).with_suffix("").parts): p for p in (ROOT / "bench").rglob("*.py")}
    assert cycles_of({name: set(engram_imports(path, bench)) - {name} for name, path in bench.items()}) == []
