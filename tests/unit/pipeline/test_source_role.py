"""Every memory made from a message says who said it: source.role (and name), stored as given or read
by the rules or an LLM, and kept through the index's memory views."""

from __future__ import annotations

from pathlib import Path

from engram.adapters.embedded.index import EmbeddedIndex
from engram.domain.models import AddRequest, Fact, Message, Scope
from tests.fakes import HashEmbedder, ScriptedLLM, facts_json
from tests.unit.pipeline.test_protected import World

SCOPE = Scope(tenant_id="acme", user_id="alice")


def run(world: World, messages: list[Message], task_id: str = "t1", **kw: object) -> dict[str, Fact]:
    request = AddRequest(messages=messages, user_id="alice", **kw)  # type: ignore[arg-type]
    world.pipeline.run(SCOPE, request, task_id)
    return {f.text: f for f in world.current()}


def who(fact: Fact) -> tuple[str | None, str | None, int | None]:
    assert fact.source is not None
    return fact.source.role, fact.source.name, fact.source.message_index


def test_infer_false_keeps_each_message_with_its_speaker(tmp_path: Path) -> None:
    world = World(index=EmbeddedIndex(tmp_path / "index.sqlite", HashEmbedder().dimensions))
    stored = run(
        world,
        [
            Message(role="system", content="You are a travel agent."),
            Message(role="user", content="Book me a flight to Lisbon", name="alice"),
            Message(role="assistant", content="Booked: TAP 1234 on Friday.", name="travelbot"),
            Message(role="tool", content='{"flight": "TP1234", "status": "confirmed"}', name="booking_api"),
            Message(role="user", content="Thanks!"),
        ],
        infer=False,
    )
    # Small talk is kept too (infer=false stores what it is given), but says who said it.
    assert {text: who(f) for text, f in stored.items()} == {
        "Book me a flight to Lisbon": ("user", "alice", 1),
        "Booked: TAP 1234 on Friday.": ("assistant", "travelbot", 2),
        '{"flight": "TP1234", "status": "confirmed"}': ("tool", "booking_api", 3),
        "Thanks!": ("user", None, 4),
    }
    # The search's memory views (kept in the index) carry it too.
    assert isinstance(world.index, EmbeddedIndex)
    views = world.index.views("acme", "alice", [f.id for f in stored.values()])
    assert {who(v) for v in views.values()} == {who(f) for f in stored.values()}


def test_rules_record_the_message_a_fact_was_read_from() -> None:
    world = World()
    stored = run(
        world,
        [
            Message(role="assistant", content="Where do you live?"),
            Message(role="user", content="I live in Berlin", name="alice"),
        ],
    )
    assert who(stored["Lives in Berlin"]) == ("user", "alice", 1)


def test_an_llm_fact_is_the_users_under_the_user_prompt() -> None:
    llm = ScriptedLLM(facts_json("Lives in Berlin"))
    world = World(llm)
    stored = run(
        world, [Message(role="assistant", content="Where do you live?"), Message(role="user", content="Berlin")]
    )
    assert who(stored["Lives in Berlin"]) == ("user", None, 1)


def test_an_llm_fact_under_the_agent_prompt_names_the_assistant_when_it_alone_speaks() -> None:
    llm = ScriptedLLM(facts_json("Name is Ava", "Answers in French"))
    world = World(llm)
    stored = run(
        world,
        [
            Message(role="assistant", content="I'm Ava.", name="ava"),
            Message(role="assistant", content="I answer in French."),
        ],
    )
    assert {who(f) for f in stored.values()} == {("assistant", None, None)}


def test_the_source_is_shown_by_the_service_read() -> None:
    world = World()
    (fact,) = run(world, [Message(role="assistant", content="Noted.")], infer=False).values()
    assert who(world.service.get("acme", fact.id)) == ("assistant", None, 0)


def test_who_said_each_message_is_known_to_the_speaker_step_whatever_made_the_memory(tmp_path: Path) -> None:
    # The message's `name` is the one documented way to say who spoke: raw turns (infer=false) and facts
    # read from one message record it (episodes too: test_episodes), and the index's speaker step finds them by it.
    world = World(index=EmbeddedIndex(tmp_path / "index.sqlite", HashEmbedder().dimensions))
    run(world, [Message(role="user", content="I went to a support group yesterday", name="Caroline")], infer=False)
    run(world, [Message(role="user", content="I live in Berlin", name="Melanie")], task_id="t2")
    run(world, [Message(role="assistant", content="Noted, the mural is finished", name="Jon")], "t3", infer=False)
    stored = {f.text: f.speaker for f in world.current()}
    assert stored["I went to a support group yesterday"] == "Caroline"
    assert stored["Lives in Berlin"] == "Melanie"
    assert stored["Noted, the mural is finished"] == "Jon"
    assert all("speaker" not in f.metadata for f in world.current())  # the client's metadata stays its own
    assert isinstance(world.index, EmbeddedIndex)
    names = ["Caroline", "Melanie", "Jon", "Nobody"]
    assert world.index.speakers_among("acme", "alice", names) == {"Caroline", "Melanie", "Jon"}
    # Kept across a restart of the index (its own file), as repairs and cold starts read it.
    reopened = EmbeddedIndex(tmp_path / "index.sqlite", HashEmbedder().dimensions)
    assert reopened.speakers_among("acme", "alice", names) == {"Caroline", "Melanie", "Jon"}
