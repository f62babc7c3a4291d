"""The statements of a memory, as the container wires their reading (bootstrap: the catalogue's reader over
the local embedder), on each path that writes memories: an add read into facts, a message kept as said
(`infer: false`), and a correction of the text."""

from __future__ import annotations

import pytest

from bench.doubles.in_memory import in_memory_product
from engram.adapters.onnx.embedder import OnnxEmbedder
from engram.bootstrap import Container
from engram.domain.models import AddRequest, Fact, MemoryPatch, Message, Scope
from engram.services.tenant_config import TenantConfigs
from engram.settings import Settings
from tests.fakes import MemoryConfigStore

SCOPE = Scope(tenant_id="t", user_id="u")


@pytest.fixture(scope="module")
def embedder() -> OnnxEmbedder:
    return OnnxEmbedder()


@pytest.fixture
def engram(embedder: OnnxEmbedder) -> Container:
    configs = TenantConfigs(MemoryConfigStore())  # a correction reads the tenant's redaction kinds
    return in_memory_product(embedder, None, Settings(keep_episodes=False), configs=configs)


def add(engram: Container, text: str, task: str, infer: bool = True) -> list[Fact]:
    request = AddRequest(user_id="u", infer=infer, messages=[Message(role="user", content=text)])
    engram.pipeline.run(SCOPE, request, task)
    return engram.facts.list_current("t", "u", 100).items


def said(fact: Fact) -> set[tuple[str, str, str]]:
    return {(s.subject, s.attribute, s.value) for s in fact.statements}


def test_a_message_kept_as_said_carries_each_statement_and_a_correction_re_derives_them(engram: Container) -> None:
    [kept] = add(engram, "I live in York and work at Soins Alpins", "task-1", infer=False)
    assert said(kept) == {("user", "home", "York"), ("user", "employer", "Soins Alpins")}

    tagged = engram.memories.update("t", kept.id, MemoryPatch(metadata={"source": "chat"}))
    assert said(tagged) == said(kept)

    moved = engram.memories.update("t", kept.id, MemoryPatch(text="I live in Leeds"))
    assert said(moved) == {("user", "home", "Leeds")}
    assert said(engram.facts.get("t", kept.id)) == {("user", "home", "Leeds")}


def test_facts_read_from_an_add_carry_their_statements(engram: Container) -> None:
    facts = add(engram, "I live in York.", "task-1")
    homes = [f for f in facts if f.kind == "fact" and "York" in f.text]
    assert homes and all(("user", "home", "York") in said(f) for f in homes), facts
