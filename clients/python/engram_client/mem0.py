"""A mem0-compatible surface: code written for mem0's hosted `MemoryClient` runs against Engram with one
changed import (`from engram_client.mem0 import MemoryClient`).

Differences: Engram extracts asynchronously, so `add` waits for its task by default (`wait=False` answers
the queued task instead); memories carry Engram's `memory_bank` as mem0's `categories`; `delete_all` needs
`user_id`; organisation and project arguments are accepted and ignored (the API key names the tenant)."""

from __future__ import annotations

import os
from datetime import datetime
from typing import Any

from engram_client._calls import Messages
from engram_client.client import Engram
from engram_client.models import HistoryEntry, Memory


def memory_dict(memory: Memory) -> dict[str, Any]:
    """A memory in mem0's shape."""
    found: dict[str, Any] = {
        "id": memory.id,
        "memory": memory.memory,
        "user_id": memory.user_id,
        "agent_id": memory.agent_id,
        "run_id": memory.run_id,
        "metadata": memory.metadata or None,
        "categories": [memory.memory_bank.lower()],
        "created_at": memory.created_at.isoformat() if memory.created_at else None,
        "updated_at": memory.updated_at.isoformat() if memory.updated_at else None,
    }
    if memory.score is not None:
        found["score"] = memory.score
    return found


def history_dict(entry: HistoryEntry) -> dict[str, Any]:
    return {
        "id": entry.id,
        "memory_id": entry.memory_id,
        "old_memory": entry.old_memory,
        "new_memory": entry.new_memory,
        "event": entry.event,
        "created_at": entry.created_at.isoformat() if entry.created_at else None,
    }


class MemoryClient:
    """mem0's hosted client calls, answered by Engram. `host` is Engram's URL (default ENGRAM_URL);
    `api_key` defaults to ENGRAM_API_KEY, then MEM0_API_KEY."""

    def __init__(
        self,
        api_key: str | None = None,
        host: str | None = None,
        org_id: str | None = None,
        project_id: str | None = None,
        client: Engram | None = None,
    ) -> None:
        key = api_key or os.environ.get("ENGRAM_API_KEY") or os.environ.get("MEM0_API_KEY")
        self.engram = client or Engram(host, key)

    def add(
        self,
        messages: Messages,
        user_id: str | None = None,
        agent_id: str | None = None,
        run_id: str | None = None,
        metadata: dict[str, Any] | None = None,
        infer: bool = True,
        wait: bool = True,
        timestamp: int | float | datetime | None = None,
        **_: Any,
    ) -> dict[str, Any]:
        """`{"results": [{"id", "memory", "event"}]}` once extracted (or the queued task with `wait=False`).
        `timestamp` (mem0's: Unix seconds) is when the messages were said."""
        task = self.engram.add(
            messages,
            user_id=self._user(user_id),
            agent_id=agent_id,
            run_id=run_id,
            metadata=metadata,
            infer=infer,
            wait=wait,
            created_at=timestamp,
        )
        if not wait:
            return {"results": [], "task_id": task.task_id, "status": task.status}
        results = [{"id": r.id, "memory": r.memory, "event": r.event} for r in task.results if r.event != "NONE"]
        return {"results": results}

    def search(
        self,
        query: str,
        user_id: str | None = None,
        agent_id: str | None = None,
        run_id: str | None = None,
        limit: int | None = None,
        top_k: int | None = None,
        threshold: float | None = None,
        metadata: dict[str, Any] | None = None,
        **_: Any,
    ) -> list[dict[str, Any]]:
        found = self.engram.search(
            query,
            user_id=self._user(user_id),
            agent_id=agent_id,
            run_id=run_id,
            top_k=top_k or limit,
            threshold=threshold,
            filters={"metadata": metadata} if metadata else None,
        )
        return [memory_dict(m) for m in found.results]

    def get_all(
        self,
        user_id: str | None = None,
        agent_id: str | None = None,
        run_id: str | None = None,
        limit: int | None = None,
        **_: Any,
    ) -> list[dict[str, Any]]:
        filters: dict[str, Any] = {k: v for k, v in {"agent_id": agent_id, "run_id": run_id}.items() if v}
        found: list[dict[str, Any]] = []
        for memory in self.engram.list(self._user(user_id), 100, **filters):
            if limit is not None and len(found) >= limit:
                break
            found.append(memory_dict(memory))
        return found

    def get(self, memory_id: str) -> dict[str, Any]:
        return memory_dict(self.engram.get(memory_id))

    def update(self, memory_id: str, text: str | None = None, metadata: dict[str, Any] | None = None) -> dict[str, Any]:
        return memory_dict(self.engram.update(memory_id, text, metadata=metadata))

    def delete(self, memory_id: str) -> dict[str, str]:
        self.engram.delete(memory_id)
        return {"message": "Memory deleted successfully!"}

    def delete_all(self, user_id: str | None = None, **_: Any) -> dict[str, Any]:
        deleted = self.engram.delete_all(self._user(user_id))
        return {"message": "Memories deleted successfully!", "deleted": deleted.deleted}

    def history(self, memory_id: str) -> list[dict[str, Any]]:
        return [history_dict(e) for e in self.engram.history(memory_id)]

    def close(self) -> None:
        self.engram.close()

    @staticmethod
    def _user(user_id: str | None) -> str:
        if not user_id:
            raise ValueError("Engram scopes every memory to a user: pass user_id")
        return user_id
