"""An import under `exclude` (pipeline/import_screen.py): what the policy leaves out of an add is left out of an
import's versions, history and relations, and nothing else is (the rules and words decide here: no embedder)."""

from __future__ import annotations

from typing import Any

from engram.domain.imports import ImportRequest
from engram.domain.policy import MemoryPolicy
from engram.pipeline.import_screen import screen_import

T0, T1 = "2026-01-01T00:00:00+00:00", "2026-02-01T00:00:00+00:00"


def request(*memories: dict[str, Any], relations: list[dict[str, Any]] | None = None) -> ImportRequest:
    return ImportRequest.model_validate({"user_id": "u", "memories": list(memories), "relations": relations or []})


def relation(destination: str, memory_ids: list[str]) -> dict[str, Any]:
    return {
        "id": f"r-{destination}",
        "relation": "likes",
        "source_entity": {"id": "s", "name": "user"},
        "destination_entity": {"id": f"d-{destination}", "name": destination},
        "valid_from": T0,
        "memory_ids": memory_ids,
    }


def test_a_memory_whose_last_version_is_excluded_goes_with_its_earlier_versions() -> None:
    sent = request(
        {"id": "m1", "memory": "Likes climbing", "version": 1, "valid_from": T0, "valid_to": T1},
        {"id": "m1", "memory": "Takes insulin for diabetes", "memory_bank": "Health", "version": 2, "valid_from": T1},
        {"id": "m2", "memory": "Works at Siemens"},
    )
    screened = screen_import(MemoryPolicy(exclude=["Health"]), None, sent)
    assert [m.memory for m in screened.request.memories] == ["Works at Siemens"]
    assert screened.left_out == 2


def test_an_excluded_earlier_version_is_left_out_and_blanked_in_the_history_the_rest_is_kept() -> None:
    history = [
        {"id": "e1", "event": "ADD", "new_memory": "Prays at the mosque on Fridays", "created_at": T0},
        {
            "id": "e2",
            "event": "UPDATE",
            "old_memory": "Prays at the mosque on Fridays",
            "new_memory": "Plays football on Fridays",
            "version": 2,
            "created_at": T1,
        },
    ]
    sent = request(
        {"id": "m1", "memory": "Prays at the mosque on Fridays", "version": 1, "valid_from": T0, "valid_to": T1},
        {"id": "m1", "memory": "Plays football on Fridays", "version": 2, "valid_from": T1, "history": history},
        relations=[relation("mosque", ["m1"]), relation("football", ["m1"])],
    )
    screened = screen_import(MemoryPolicy(exclude=["mosque"]), None, sent)
    [kept] = screened.request.memories
    assert kept.memory == "Plays football on Fridays"
    assert [(h.old_memory, h.new_memory) for h in kept.history] == [
        (None, None),
        (None, "Plays football on Fridays"),
    ]
    assert [r.destination_entity.name for r in screened.request.relations] == ["football"]
    assert (screened.left_out, screened.relations_left_out) == (1, 1)


def test_without_exclude_or_with_include_only_the_import_is_untouched() -> None:
    sent = request({"memory": "Has a daughter named Ines", "memory_bank": "Relationships"})
    for policy in (MemoryPolicy(), MemoryPolicy(include=["Work"])):
        screened = screen_import(policy, None, sent)
        assert screened.request == sent and screened.left_out == 0
