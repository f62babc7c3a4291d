"""No memory text in any log line: what a user adds, searches and reads through the local stack never
appears in the stack's output (stdout and stderr of `python -m engram_tools.local`) or in a log file it
writes, while the same calls do leave log lines there (tenants, ids, timings)."""

from __future__ import annotations

import time

from tests.e2e.stack_process import Api, StackProcess

# Words no log line could hold by chance; each must reach the memories for the check to mean anything.
TEXT = "My violin teacher Quillonbeck moved to Marrowgate Lane and I adore zephyrine tea"
MARKERS = ("Quillonbeck", "Marrowgate", "zephyrine")


def logs(stack: StackProcess) -> str:
    """The stack's output and its log files. Under <data_dir>/moto are the emulated AWS services'
    data (a table's <table>.log is its journal of items, shared/engram_tools/local/table_log.py): that is
    where memories are meant to be, as in DynamoDB, so it is not searched."""
    moto = stack.data_dir / "moto"
    files = [p for p in stack.data_dir.rglob("*.log") if moto not in p.parents]
    return "\n".join(path.read_text(errors="replace") for path in [stack.log_path, *files] if path.is_file())


def test_memory_text_stays_out_of_the_logs(stack: StackProcess, acme: Api) -> None:
    user = f"logs-{time.time_ns()}"
    before = len(logs(stack))
    task = acme.remember(user, TEXT)
    stored = " ".join(m["memory"] for m in acme.memories(user))
    assert any(marker in stored for marker in MARKERS), stored  # the text did reach the store
    assert acme.search(user, "Where did Quillonbeck move to?")
    memory_id = acme.memories(user)[0]["id"]
    assert acme.request("GET", f"/v1/memories/{memory_id}").status_code == 200
    assert acme.request("GET", f"/v1/memories/{memory_id}/history").status_code == 200
    time.sleep(0.5)  # the worker's log lines of the task are flushed with the process's output

    text = logs(stack)
    assert len(text) > before, "the calls left no log line at all: nothing was checked"
    assert task["task_id"] in text or user in text or "acme" in text[before:]
    leaked = [m for m in MARKERS if m.lower() in text.lower()]
    assert leaked == [], f"memory text in the stack's logs: {leaked}"
