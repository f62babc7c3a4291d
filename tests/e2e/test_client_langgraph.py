"""EngramStore (LangGraph's BaseStore) and EngramRetriever (LangChain) against the local stack, with the
real langgraph and langchain-core packages."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import uuid

import pytest
from langchain_core.documents import Document
from langgraph.store.base import InvalidNamespaceError

from engram_client import AsyncEngram, Engram
from engram_client.langchain_retriever import EngramRetriever
from engram_client.langgraph_store import EngramStore
from tests.e2e.conftest import ACME_KEY, GLOBEX_KEY
from tests.e2e.stack_process import ROOT, StackProcess

pytestmark = pytest.mark.e2e


def new_user() -> str:
    return f"lg-{uuid.uuid4().hex[:8]}"


def test_put_get_update_delete_an_item_keeps_the_value_exactly(stack: StackProcess) -> None:
    user = new_user()
    ns = ("users", user, "prefs")
    value = {"food": "pizza", "n": 3, "nested": {"ok": True, "list": [1, "two", None]}, "text": "  spaced  "}
    with EngramStore(stack.url, ACME_KEY) as store:
        assert store.get(ns, "food") is None
        store.put(ns, "food", value)
        item = store.get(ns, "food")
        assert item is not None and (item.namespace, item.key, item.value) == (ns, "food", value)

        store.put(ns, "food", {"food": "sushi"})  # the same key: an update of the same memory
        updated = store.get(ns, "food")
        assert updated is not None and updated.value == {"food": "sushi"}
        assert updated.created_at == item.created_at and updated.updated_at > item.updated_at
        with Engram(stack.url, ACME_KEY) as client:
            (memory,) = client.list(user)
            assert memory.is_protected  # maintenance never merges, summarises or prunes it
            said = [e.new_memory for e in client.history(memory.id) if e.new_memory]
            assert said[0].startswith('{"food": "pizza"') and said[-1] == '{"food": "sushi"}'  # history kept

        store.delete(ns, "food")
        assert store.get(ns, "food") is None
        with Engram(stack.url, ACME_KEY) as client:
            assert list(client.list(user)) == []


def test_namespaces_keys_and_tenants_are_kept_apart(stack: StackProcess) -> None:
    user = new_user()
    with EngramStore(stack.url, ACME_KEY) as store, EngramStore(stack.url, GLOBEX_KEY) as other:
        store.put(("users", user, "a"), "k", {"v": "in a"})
        store.put(("users", user, "b"), "k", {"v": "in b"})
        store.put(("users", user, "a"), "k2", {"v": "second in a"})
        first = store.get(("users", user, "a"), "k")
        second = store.get(("users", user, "b"), "k")
        assert first is not None and first.value == {"v": "in a"}
        assert second is not None and second.value == {"v": "in b"}
        assert other.get(("users", user, "a"), "k") is None
        assert other.search(("users", user)) == []


def test_search_ranks_under_a_prefix_filters_values_and_pages(stack: StackProcess) -> None:
    user = new_user()
    with EngramStore(stack.url, ACME_KEY) as store, Engram(stack.url, ACME_KEY) as client:
        client.add("I live in Berlin", user_id=user)  # a memory that is not a store item: never an item
        store.put(("users", user, "memories"), "pets", {"text": "Has a dog called Rex", "year": 2020})
        store.put(("users", user, "memories"), "food", {"text": "Loves spicy ramen", "year": 2023})
        store.put(("users", user, "notes"), "pets", {"text": "The dog Rex needs a vet visit", "year": 2024})

        hits = store.search(("users", user, "memories"), query="what dog does she have?")
        assert hits[0].key == "pets"  # the best hit, and only items of that namespace
        assert {h.namespace for h in hits} == {("users", user, "memories")}
        assert all(h.score is not None for h in hits)

        everywhere = store.search(("users", user), query="dog Rex", limit=10)
        assert {(h.namespace[-1], h.key) for h in everywhere} == {
            ("memories", "pets"),
            ("memories", "food"),
            ("notes", "pets"),
        }
        recent = store.search(("users", user), filter={"year": {"$gte": 2023}})
        assert sorted(h.key for h in recent) == ["food", "pets"]
        assert {h.namespace[-1] for h in recent} == {"memories", "notes"}
        listed = store.search(("users", user), limit=2)
        rest = store.search(("users", user), limit=2, offset=2)
        assert len(listed) == 2 and len(rest) == 1
        assert {(h.namespace, h.key) for h in listed + rest} == {(h.namespace, h.key) for h in everywhere}


def test_agents_and_runs_map_to_engram_scopes_and_list_namespaces(stack: StackProcess) -> None:
    user = new_user()
    with EngramStore(stack.url, ACME_KEY) as store, Engram(stack.url, ACME_KEY) as client:
        store.put(("users", user, "agents", "planner", "runs", "r1", "scratch"), "step", {"todo": "book flight"})
        store.put(("users", user, "agents", "planner", "facts"), "city", {"city": "Oslo"})
        store.put(("users", user, "profile"), "name", {"name": "Ada"})

        (in_run,) = client.list(user, run_id="r1")
        assert (in_run.agent_id, in_run.run_id) == ("planner", "r1")
        assert {m.agent_id for m in client.list(user, agent_id="planner")} == {"planner"}
        assert len(list(client.list(user, agent_id="planner"))) == 2

        assert store.list_namespaces(prefix=("users", user)) == [
            ("users", user, "agents", "planner", "facts"),
            ("users", user, "agents", "planner", "runs", "r1", "scratch"),
            ("users", user, "profile"),
        ]
        assert store.list_namespaces(prefix=("users", user), max_depth=4) == [
            ("users", user, "agents", "planner"),
            ("users", user, "profile"),
        ]
        assert store.list_namespaces(prefix=("users", "*"), suffix=("profile",)).count(("users", user, "profile")) == 1
        assert store.list_namespaces(prefix=("users", user), suffix=("facts",)) == [
            ("users", user, "agents", "planner", "facts")
        ]


def test_a_namespace_outside_the_convention_is_refused_before_any_request(stack: StackProcess) -> None:
    with EngramStore(stack.url, ACME_KEY) as store:
        with pytest.raises(InvalidNamespaceError, match="users"):
            store.put(("memories", "alice"), "k", {"v": 1})
        with pytest.raises(InvalidNamespaceError, match="users"):
            store.search(("users",), query="anything")


def test_the_async_store_and_the_async_retriever(stack: StackProcess) -> None:
    user = new_user()
    ns = ("users", user, "memories")

    async def run() -> list[Document]:
        async with EngramStore(stack.url, ACME_KEY) as store:
            await store.aput(ns, "home", {"text": "Lives in Lisbon near the river"})
            await store.aput(ns, "job", {"text": "Works as a nurse"})
            item = await store.aget(ns, "home")
            assert item is not None and item.value == {"text": "Lives in Lisbon near the river"}
            (hit, *_) = await store.asearch(ns, query="where does she live")
            assert hit.key == "home"
            await store.adelete(ns, "job")
            assert await store.aget(ns, "job") is None
            assert await store.alist_namespaces(prefix=("users", user)) == [ns]
        async with AsyncEngram(stack.url, ACME_KEY) as client:
            retriever = EngramRetriever(user_id=user, client=Engram(stack.url, ACME_KEY), async_client=client)
            return await retriever.ainvoke("where does she live")

    documents = asyncio.run(run())
    assert [d.page_content for d in documents] == ['{"text": "Lives in Lisbon near the river"}']


def test_the_retriever_returns_documents_with_id_score_and_valid_from(stack: StackProcess) -> None:
    user = new_user()
    with Engram(stack.url, ACME_KEY) as client:
        task = client.add("I live in Berlin", user_id=user, metadata={"via": "chat"})
        client.add("I love pizza", user_id=user)
        berlin = task.results[0].id
        retriever = EngramRetriever(user_id=user, client=client, top_k=1)
        (document,) = retriever.invoke("where do I live?")
        assert "Berlin" in document.page_content
        assert document.id == document.metadata["id"] == berlin
        assert document.metadata["score"] > 0 and document.metadata["valid_from"]
        assert document.metadata["metadata"]["via"] == "chat" and document.metadata["user_id"] == user
        threaded = asyncio.run(retriever.ainvoke("where do I live?"))  # no async client: the sync search, threaded
        assert [d.id for d in threaded] == [berlin]
        assert EngramRetriever(user_id=new_user(), client=client).invoke("where do I live?") == []


def test_the_langgraph_example_saves_and_recalls(stack: StackProcess) -> None:
    env = {**os.environ, "ENGRAM_URL": stack.url, "ENGRAM_API_KEY": ACME_KEY}
    said = ["I love spicy ramen", "I have a dog called Rex", "what pet do I have?"]
    command = [sys.executable, str(ROOT / "examples" / "langgraph_memory.py"), "--user-id", new_user(), *said]
    done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[:3] == ["saved: I love spicy ramen", "saved: I have a dog called Rex", "what pet do I have?"]
    assert lines[3].startswith("  store: ['I have a dog called Rex'")
    assert lines[4].startswith("  retriever: ['I have a dog called Rex'")
