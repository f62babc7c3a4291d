"""A long message is kept in parts at sentence boundaries, each saying which characters it keeps, so
the sentence that answers is found and a search answer stays small."""

from __future__ import annotations

import itertools

from hypothesis import given, settings
from hypothesis import strategies as st

from engram.adapters.embedded.index import EmbeddedIndex
from engram.domain.models import AddRequest, Message, Scope, SearchQuery
from engram.pipeline.ingest import IngestPipeline
from engram.pipeline.parts import PART_CHARS, spans
from engram.reconcile.offline import KeyReconciler
from engram.rules.extractor import OfflineExtractor
from tests.unit.search.test_search_views import DIMS, service

FILLER = "We talked about the weather and the traffic on the way to the office that morning. "


def long_message() -> str:
    before = "".join(f"On day {i} {FILLER}" for i in range(300))
    after = "".join(f"On day {i + 300} {FILLER}" for i in range(300))
    return before + "My grandmother's secret lasagne recipe uses nutmeg in the bechamel. " + after


def test_a_long_message_is_kept_in_parts_and_the_answering_sentence_is_found() -> None:
    memories = service(EmbeddedIndex(None, DIMS))
    pipeline = IngestPipeline(
        memories.facts, memories.index, memories.embedder, OfflineExtractor(), KeyReconciler(), keep_episodes=True
    )
    text = long_message()
    for infer in (True, False):
        user = f"alice-{infer}"
        request = AddRequest(messages=[Message(role="user", content=text)], user_id=user, infer=infer)
        pipeline.run(Scope(tenant_id="acme", user_id=user), request, f"t-{infer}")
        kept = memories.facts.list_current("acme", user, limit=1000).items
        assert len(kept) > 10 and all(len(f.text) <= PART_CHARS for f in kept)
        for fact in kept:
            assert fact.source is not None and fact.source.message_index == 0 and fact.source.span is not None
            start, end = fact.source.span
            assert text[start:end] == fact.text
        found = memories.search("acme", SearchQuery(user_id=user, query="What is in the lasagne recipe?", top_k=5))
        assert "nutmeg" in found[0][0].text
        assert sum(len(f.text) for f, _ in found) < 5 * PART_CHARS  # five parts, not five whole messages


def test_a_short_message_is_one_memory_without_a_span() -> None:
    assert spans("  I live in Berlin.  ") == [(2, 19)]


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.sampled_from(["Hi. ", "A sentence of some length here! ", "x" * 700, " ", "\n", "word "]), max_size=80)
)
def test_parts_cover_the_message_in_order_and_stay_under_the_limit(pieces: list[str]) -> None:
    text = "".join(pieces)
    found = spans(text)
    assert all(0 < end - start <= PART_CHARS for start, end in found)
    assert all(a[1] <= b[0] for a, b in itertools.pairwise(found))
    assert "".join(text[a:b] for a, b in found).replace(" ", "").replace("\n", "") == "".join(text.split())
