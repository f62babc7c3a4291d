"""The Python SDK (clients/python) against the real local stack: sync and async, typed results and errors."""

from __future__ import annotations

import asyncio
import uuid

import pytest

from engram_client import AsyncEngram, AuthenticationError, BadRequestError, Engram, NotFoundError
from tests.e2e.conftest import ACME_KEY, GLOBEX_KEY
from tests.e2e.stack_process import StackProcess

pytestmark = pytest.mark.e2e


def new_user() -> str:
    return f"sdk-{uuid.uuid4().hex[:8]}"


def test_add_wait_search_update_history_delete(stack: StackProcess) -> None:
    user = new_user()
    with Engram(stack.url, ACME_KEY) as client:
        task = client.add("I live in Berlin", user_id=user, metadata={"via": "sdk"})
        assert task.status == "completed"
        assert [r.event for r in task.results] == ["ADD"]
        memory_id, extracted = task.results[0].id, task.results[0].memory
        assert "Berlin" in extracted

        hits = client.search("where do I live", user_id=user).results
        assert hits[0].id == memory_id and "Berlin" in hits[0].memory and hits[0].score is not None

        updated = client.update(memory_id, "I live in Munich", metadata={"via": "sdk", "moved": True})
        assert updated.memory == "I live in Munich" and updated.version == 2
        got = client.get(memory_id)
        assert got.memory == "I live in Munich" and got.metadata == {"via": "sdk", "moved": True}

        events = [(e.event, e.new_memory) for e in client.history(memory_id)]
        assert ("ADD", extracted) in events and ("UPDATE", "I live in Munich") in events

        client.delete(memory_id)
        assert list(client.list(user)) == []
        with pytest.raises(NotFoundError):
            client.delete(str(uuid.uuid4()))


def test_list_iterates_over_every_page(stack: StackProcess) -> None:
    user = new_user()
    with Engram(stack.url, ACME_KEY) as client:
        turns = [{"role": "user", "content": f"Note number {i} about topic {i * 7}"} for i in range(7)]
        client.add(turns, user_id=user, infer=False, deduplicate=False)
        listed = list(client.list(user, page_size=2))
        assert sorted(m.memory for m in listed) == sorted(t["content"] for t in turns)
        assert len({m.id for m in listed}) == 7


def test_delete_all_answers_a_count(stack: StackProcess) -> None:
    user = new_user()
    with Engram(stack.url, ACME_KEY) as client:
        client.add("I live in Berlin", user_id=user)
        client.add("I love pizza", user_id=user)
        result = client.delete_all(user)
        assert result.deleted == 2
        assert list(client.list(user)) == []


def test_errors_are_typed_and_name_the_field(stack: StackProcess) -> None:
    with Engram(stack.url, ACME_KEY) as client:
        with pytest.raises(BadRequestError) as bad:
            client.search("", user_id="someone")
        assert bad.value.status == 422 and bad.value.field == "query"
    with Engram(stack.url, "not-a-key") as stranger, pytest.raises(AuthenticationError):
        stranger.search("x", user_id="someone")


def test_another_tenant_cannot_see_the_memory(stack: StackProcess) -> None:
    user = new_user()
    with Engram(stack.url, ACME_KEY) as acme, Engram(stack.url, GLOBEX_KEY) as globex:
        memory_id = acme.add("I live in Berlin", user_id=user).results[0].id
        with pytest.raises(NotFoundError):
            globex.get(memory_id)
        assert globex.search("where do I live", user_id=user).results == []


def test_attachment_inline_upload_and_download(stack: StackProcess) -> None:
    user = new_user()
    with Engram(stack.url, ACME_KEY) as client:
        created = client.upload_attachment("lease.txt", "text/plain", b"flat lease, Berlin", "the lease")
        task = client.add("I live in Berlin", user_id=user, attachments=[{"attachment_id": created.attachment_id}])
        memory = client.get(task.results[0].id)
        assert [a.id for a in memory.attachments] == [created.attachment_id]
        assert client.download_attachment(created.attachment_id) == b"flat lease, Berlin"
        attached = [{"attachment_id": created.attachment_id}]
        more = [client.add(t, user_id=user, attachments=attached, infer=False) for t in ("Lease signed", "Rent due")]
        holders = {task.results[0].id, *(t.results[0].id for t in more)}
        assert client.attachment(created.attachment_id, limit=2).next_cursor  # three holders, pages of two
        assert set(client.attachment_memory_ids(created.attachment_id, page_size=2)) == holders


def test_async_client_does_the_same(stack: StackProcess) -> None:
    user = new_user()

    async def scenario() -> None:
        async with AsyncEngram(stack.url, ACME_KEY) as client:
            tasks = await asyncio.gather(
                client.add("I live in Berlin", user_id=user), client.add("I love pizza", user_id=user)
            )
            assert all(t.status == "completed" for t in tasks)
            hits = (await client.search("where do I live", user_id=user)).results
            assert "Berlin" in hits[0].memory
            listed = [m async for m in client.list(user, page_size=1)]
            assert len(listed) == 2
            memory_id = hits[0].id
            await client.update(memory_id, "I live in Hamburg")
            history = await client.history(memory_id)
            assert [e.event for e in history][-1] == "UPDATE"
            assert (await client.delete_all(user)).deleted == 2

    asyncio.run(scenario())
