"""The bench measures the product as the container wires it (engram.bootstrap, via bench/doubles/in_memory.py):
no bench module assembles the product's pipeline or services by hand. A hand-built copy once lacked the
screen by meaning and gave a false leak figure."""

from __future__ import annotations

import ast
from pathlib import Path

from bench.doubles.in_memory import in_memory_product
from engram.domain.models import AddRequest, Message, Scope
from engram.domain.policy import MemoryPolicy
from engram.settings import Settings
from tests.fakes import HashEmbedder

BENCH = Path(__file__).resolve().parents[3] / "bench"
# What the container assembles from the parts (bootstrap/writes.py, services.py, search.py).
ASSEMBLED = {"IngestPipeline", "MemoryService", "SearchPipeline", "ExtractionWorker", "Lifecycle", "MemoryImporter"}


def built_by_hand(path: Path) -> list[str]:
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Call):
            name = node.func.id if isinstance(node.func, ast.Name) else getattr(node.func, "attr", None)
            if name in ASSEMBLED:
                found.append(f"{path.relative_to(BENCH)}:{node.lineno} {name}")
    return found


def test_no_bench_module_builds_the_product_by_hand() -> None:
    assert [hit for path in sorted(BENCH.rglob("*.py")) for hit in built_by_hand(path)] == []


def test_the_bench_product_is_wired_as_the_product_is() -> None:
    """The screen by meaning (the part a hand-built copy missed) and the settings reach the bench's pipeline."""
    engram = in_memory_product(HashEmbedder(), None, Settings(keep_episodes=False))
    assert engram.pipeline.meaning is not None  # a MiniLM of its own, as bootstrap/models.py wires it
    scope = Scope(tenant_id="t", user_id="u")
    said = "I live in Berlin and I take insulin every morning"
    request = AddRequest(user_id="u", messages=[Message(role="user", content=said)])
    engram.pipeline.run(scope, request, "task-1", policy=MemoryPolicy(exclude=["Health"]))
    kept = [f.text for f in engram.facts.list_current("t", "u", 100).items]
    assert kept and not [t for t in kept if "insulin" in t.lower()], kept
