"""Through `make run` over HTTP: one user's adds sent at once reach the worker in batches it runs
together, which no one can tell: identical adds store one memory, every round, and each task's
results list only memories made from its own message."""

from __future__ import annotations

import time
import uuid

import pytest

from tests.e2e.stack_process import Api
from tests.e2e.test_local_races import together
from tests.figures import record

pytestmark = pytest.mark.e2e

CONCURRENT = 20
ROUNDS = 6
# Not read by the offline rules: kept as said (an episode) with infer on, as given with infer off.
SAID = "The weather was nice at the lake yesterday and we talked for hours."


def test_concurrent_identical_adds_leave_one_memory_in_every_round(acme: Api) -> None:
    began, copies = time.monotonic(), []
    for round_ in range(ROUNDS):
        user = f"same-{uuid.uuid4().hex[:12]}"
        infer = round_ % 2 == 0
        task_ids = together([lambda u=user, i=infer: acme.add(u, SAID, infer=i) for _ in range(CONCURRENT)])
        finished = [acme.wait(task_id) for task_id in task_ids]
        assert {t["status"] for t in finished} == {"completed"}
        copies.append(len(acme.memories(user)))
    record(
        "concurrency: rounds of 20 identical adds for one user",
        rounds=ROUNDS,
        rounds_with_copies=sum(n != 1 for n in copies),
        most_memories=max(copies),
        seconds=round(time.monotonic() - began),
    )
    assert copies == [1] * ROUNDS


def test_each_concurrent_add_reports_only_memories_made_from_its_own_message(acme: Api) -> None:
    user = f"own-{uuid.uuid4().hex[:12]}"
    texts = [f"Note {i}: the {word} is in the second drawer." for i, word in enumerate(("key", "map", "pen", "tape"))]
    texts += [f"Reminder {i}: call the {who} on Friday." for i, who in enumerate(("plumber", "dentist", "bank"))]
    task_ids = together([lambda text=text: acme.add(user, text, infer=False) for text in texts])
    finished = {task_id: acme.wait(task_id) for task_id in task_ids}

    source_of = {m["id"]: m["source"]["task_id"] for m in acme.memories(user)}
    assert len(source_of) == len(texts)
    for task_id, text in zip(task_ids, texts, strict=True):
        task = finished[task_id]
        assert task["status"] == "completed"
        assert [(r["event"], r["memory"]) for r in task["results"]] == [("ADD", text)]
        assert [source_of[r["id"]] for r in task["results"]] == [task_id]
        assert task["counts"]["ADD"] == 1
