"""A conversation longer than the extractor's window is read whole, window by window."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from engram.domain.models import ExtractionPrompt, Message, Scope
from engram.pipeline.llm_extractor import LLMFactExtractor
from engram.pipeline.windows import split_text, windows
from tests.fakes import ScriptedLLM, facts_json


def test_a_long_message_is_split_at_sentence_ends_and_nothing_is_lost() -> None:
    text = " ".join(f"Sentence number {i} is here." for i in range(500))
    pieces = split_text(text, 1000)
    assert all(len(p) <= 1000 for p in pieces)
    assert all(p.endswith(".") for p in pieces)
    assert " ".join(pieces) == text


@given(
    st.lists(
        st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00"), min_size=1, max_size=300),
        min_size=1,
        max_size=30,
    ),
    st.integers(min_value=20, max_value=400),
)
def test_windows_keep_every_character_in_order_and_respect_the_limit(contents: list[str], limit: int) -> None:
    messages = [Message(role="user", content=c) for c in contents]
    found = windows(messages, limit)
    assert all(sum(len(m.content) for m in w) <= limit for w in found)
    kept = "".join(m.content for w in found for m in w)
    # Only whitespace at the cuts may go.
    assert "".join(kept.split()) == "".join("".join(contents).split())


def test_the_llm_extractor_reads_every_window_of_a_long_conversation() -> None:
    llm = ScriptedLLM(facts_json("Lives in Oslo"), facts_json("Has a cat named Ivo"))
    messages = [
        Message(role="user", content="I live in Oslo. " + "Filler words here. " * 40),
        Message(role="user", content="I have a cat named Ivo. " + "More filler here. " * 40),
    ]
    facts, usage = LLMFactExtractor(llm, window_chars=800).extract(
        messages, ExtractionPrompt.USER, Scope(tenant_id="t", user_id="u")
    )
    assert [f.text for f in facts] == ["Lives in Oslo", "Has a cat named Ivo"]
    assert usage.llm_calls == 2
    assert "cat named Ivo" in llm.calls[1]["user"] and "cat named Ivo" not in llm.calls[0]["user"]
