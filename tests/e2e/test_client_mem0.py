"""A script written for mem0's hosted client runs against Engram with only its import line changed."""

from __future__ import annotations

import os
import subprocess
import sys
import uuid

import pytest

from tests.e2e.conftest import ACME_KEY
from tests.e2e.stack_process import StackProcess

pytestmark = pytest.mark.e2e

# As mem0's documentation writes it; only the first line differs.
MEM0_SCRIPT = """
from mem0 import MemoryClient
import os, json

client = MemoryClient(api_key=os.environ["MEM0_API_KEY"])
user = os.environ["SCRIPT_USER"]

messages = [
    {"role": "user", "content": "Hi, I'm Alex. I live in Berlin and I love pizza."},
    {"role": "assistant", "content": "Nice to meet you, Alex!"},
]
result = client.add(messages, user_id=user, metadata={"source": "onboarding"})
print("added", len(result["results"]))

related = client.search("where do I live", user_id=user)
print("top", related[0]["memory"], round(related[0]["score"], 2) > 0)

all_memories = client.get_all(user_id=user)
print("all", len(all_memories), all_memories[0]["metadata"])
memory_id = [m for m in all_memories if "Berlin" in m["memory"]][0]["id"]
print("get", client.get(memory_id)["memory"])
print("update", client.update(memory_id, text="Lives in Munich")["memory"])
print("history", [h["event"] for h in client.history(memory_id)])
print("delete", client.delete(memory_id)["message"])
print("delete_all", client.delete_all(user_id=user)["message"])
print("left", len(client.get_all(user_id=user)))
"""


def test_mem0_script_runs_with_one_changed_import(stack: StackProcess) -> None:
    script = MEM0_SCRIPT.replace("from mem0 import MemoryClient", "from engram_client.mem0 import MemoryClient")
    assert script.count("\n") == MEM0_SCRIPT.count("\n")  # nothing else changed
    user = f"mem0-{uuid.uuid4().hex[:8]}"
    env = {**os.environ, "MEM0_API_KEY": ACME_KEY, "ENGRAM_URL": stack.url, "SCRIPT_USER": user}
    env.pop("ENGRAM_API_KEY", None)
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env, timeout=120)
    assert result.returncode == 0, result.stderr
    lines = dict(line.split(" ", 1) for line in result.stdout.splitlines())
    added = int(lines["added"])
    assert added >= 2  # the offline extractor: at least where Alex lives, and the pizza
    assert "Berlin" in lines["top"] and lines["top"].endswith("True")
    assert lines["all"] == f"{added} {{'source': 'onboarding'}}"
    assert "Berlin" in lines["get"]
    assert lines["update"] == "Lives in Munich"
    assert lines["history"] == "['ADD', 'UPDATE']"
    assert lines["delete"] == "Memory deleted successfully!"
    assert lines["delete_all"] == "Memories deleted successfully!"
    assert lines["left"] == "0"
