"""Which of the user's relations close with the memories a later statement outdated (graph/outdated.py)."""

from __future__ import annotations

from datetime import UTC, datetime

from engram.domain.graph import Relation
from engram.domain.outdated import Outdated
from engram.graph.outdated import ended_relations

USER = "user-alice"
AT = datetime(2025, 6, 2, tzinfo=UTC)


def relation(source_id: str, name: str, destination: str, memory_ids: list[str], source: str = "alice") -> Relation:
    return Relation(
        tenant_id="acme",
        user_id="alice",
        source_entity_id=source_id,
        relation=name,
        destination_entity_id=f"e-{destination}",
        source=source,
        destination=destination,
        memory_ids=memory_ids,
    )


def test_a_partner_relation_resting_on_an_outdated_memory_closes() -> None:
    julien = relation(USER, "boyfriend", "Julien", ["m1", "e1"])
    ended = [Outdated("m1", "partner", ("Julien",), "m2", AT, True)]
    assert ended_relations(USER, [julien], ended) == [julien]


def test_what_the_outdated_memory_says_of_others_or_of_another_aspect_stays() -> None:
    chef = relation("e-Julien", "works_as", "chef", ["e1"], source="Julien")  # Julien's, not the user's
    leeds = relation(USER, "lives_in", "Leeds", ["e1"])  # the home did not change
    other = relation(USER, "boyfriend", "Tom", ["e1"])  # another value than the one replaced
    unlinked = relation(USER, "boyfriend", "Julien", [])  # stated by no known memory
    ended = [Outdated("e1", "partner", ("Julien",), "m2", AT, False)]
    assert ended_relations(USER, [chef, leeds, other, unlinked], ended) == []


def test_a_relation_of_a_memory_not_outdated_stays() -> None:
    google = relation(USER, "works_at", "Google", ["m7"])
    ended = [Outdated("m1", "employer", ("Google",), "m2", AT, True)]
    assert ended_relations(USER, [google], ended) == []
