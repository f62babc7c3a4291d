"""Hybrid search: what a user searching their memories gets back, and in which order."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime, timedelta

import numpy as np
import pytest

from engram.adapters.embedded.index import EmbeddedIndex
from engram.domain.index_ports import Timeline
from engram.domain.models import IndexDoc, ScoredId, SearchFilters
from engram.search.hybrid import HybridSearcher, keyword_query

DIMS = 8
T0 = datetime(2024, 5, 1, 12, 0, tzinfo=UTC)


class TableEmbedder:
    """Vectors chosen by the test: each text maps to a fixed direction."""

    dimensions = DIMS
    model_id = "table"

    def __init__(self, table: dict[str, list[float]]) -> None:
        self.table = table

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        return [self.table[t] for t in texts]


def axis(i: int, scale: float = 1.0, rest: float = 0.0) -> list[float]:
    vector = [rest] * DIMS
    vector[i] = scale
    return vector


def doc(doc_id: str, text: str, vector: list[float], minutes: float, **fields: object) -> IndexDoc:
    values: dict[str, object] = {"tenant_id": "t", "user_id": "u", **fields}
    return IndexDoc(
        id=doc_id,
        text=text,
        vector=vector,
        created_at=T0 + timedelta(minutes=minutes),
        **values,  # type: ignore[arg-type]
    )


@pytest.mark.parametrize(
    ("question", "keywords"),
    [
        # a "when" question also looks for turns that say when
        (
            "When did Caroline go to the LGBTQ support group?",
            "Caroline go to the LGBTQ support group yesterday last ago week weekend month year",
        ),
        ("What's Melanie's favourite book?", "Melanie's favourite book"),
        ("Where has Melanie camped?", "Melanie camped"),
        ("What did you do in May?", "in May"),  # "may" is a month as often as a verb; "you" is filler
        ("What kind of car does she drive?", "of car drive"),  # "of": a stop word the tokenizer drops
        ("What is it?", "it"),
        ("How?", "How?"),  # nothing but question words: searched as asked
    ],
)
def test_keyword_query_drops_question_words(question: str, keywords: str) -> None:
    assert keyword_query(question) == keywords


def test_question_words_do_not_decide_the_keyword_ranking() -> None:
    index = EmbeddedIndex(None, DIMS)
    index.upsert(
        [
            doc("chatter", "What did you do? What did she say? Did you?", axis(1), 0),
            doc("answer", "Caroline went to a support group", axis(2), 100),
        ]
    )
    searcher = HybridSearcher(index, TableEmbedder({"When did Caroline go to the support group?": axis(3)}))

    hits = searcher.search("t", "u", "When did Caroline go to the support group?", 1)

    assert [h.id for h in hits] == ["answer"]


def test_a_memory_found_by_one_side_only_is_not_buried() -> None:
    """A memory outside the cosine list still gets the cosine of that list's cut-off, not zero."""
    index = EmbeddedIndex(None, DIMS)
    near = [doc(f"near{i}", "unrelated words", axis(0, 1.0, 0.01 * i), i * 100) for i in range(6)]
    keyword = doc("keyword", "sushi", axis(1), 1000)
    index.upsert([*near, keyword])
    searcher = HybridSearcher(index, TableEmbedder({"sushi": axis(0)}), min_candidates=3, candidates_factor=1)

    hits = searcher.search("t", "u", "sushi", 3)

    assert hits[0].id == "keyword"  # the only BM25 match, with near3's cosine imputed
    assert all(0.0 <= h.score <= 1.0 for h in hits)


def test_the_turn_next_to_a_strong_hit_is_pulled_up() -> None:
    index = EmbeddedIndex(None, DIMS)
    index.upsert(
        [
            doc("question", "Melanie: what did you paint last week?", axis(0), 0.0),
            doc("answer", "Caroline: a sunset over the lake", axis(1), 0.5),
            doc("other", "Caroline: the weather is nice", axis(2, 1.0, 0.1), 50),
            doc("far", "Melanie: I like to paint portraits", axis(3, 1.0, 0.1), 120),
        ]
    )
    embedder = TableEmbedder({"What did Caroline paint?": axis(0, 1.0, 0.15)})

    plain = HybridSearcher(index, embedder, context_weight=0.0, vector_context=0.0).search(
        "t", "u", "What did Caroline paint?", 4
    )
    context = HybridSearcher(index, embedder).search("t", "u", "What did Caroline paint?", 4)

    plain_ids, context_ids = [h.id for h in plain], [h.id for h in context]
    assert plain_ids[-1] == "answer"  # no query word, little cosine: last on its own
    assert context_ids[:2] == ["question", "answer"]
    scores = {h.id: h.score for h in context}
    assert scores["answer"] <= scores["question"] <= 1.0  # pulled towards its neighbour, never past it


def test_context_respects_the_window_and_the_filters() -> None:
    index = EmbeddedIndex(None, DIMS)
    index.upsert(
        [
            doc("hit", "paint sunset", axis(0), 0, memory_bank="Interests"),
            doc("next-other-bank", "unrelated", axis(1), 1, memory_bank="Work"),
            doc("next-same-bank", "unrelated", axis(1), 2, memory_bank="Interests"),
            doc("much-later", "unrelated", axis(1), 50, memory_bank="Interests"),
        ]
    )
    only = SearchFilters(memory_bank="Interests")

    assert index.neighbours("t", "u", ["hit"], only) == {"hit": ["next-same-bank"]}
    assert index.neighbours("t", "u", ["hit"]) == {"hit": ["next-other-bank"]}
    assert index.neighbours("t", "u", ["much-later"], only, within_seconds=60) == {"much-later": []}
    assert index.neighbours("t", "u", ["next-same-bank"], only, within_seconds=3600)["next-same-bank"] == [
        "hit",
        "much-later",
    ]
    hits = HybridSearcher(index, TableEmbedder({"paint": axis(0)})).search("t", "u", "paint", 10, only)
    assert {h.id for h in hits} <= {"hit", "next-same-bank", "much-later"}


def test_recording_order_follows_created_at_through_deletes_and_restarts(tmp_path: object) -> None:
    from pathlib import Path

    path = Path(str(tmp_path)) / "index.sqlite3"
    index = EmbeddedIndex(path, DIMS)
    # Written out of order on purpose: order is by creation time, not by arrival.
    index.upsert([doc(f"m{i}", f"memory {i}", axis(i % DIMS), float(i)) for i in (3, 0, 2, 1, 4, 5)])
    index.delete("t", "u", ["m2"])
    before = index.neighbours("t", "u", ["m0", "m1", "m3", "m5"])
    index.close()

    after = EmbeddedIndex(path, DIMS).neighbours("t", "u", ["m0", "m1", "m3", "m5"])

    assert before == after == {"m0": ["m1"], "m1": ["m0", "m3"], "m3": ["m1", "m4"], "m5": ["m4"]}


def test_searches_without_a_timeline_still_rank() -> None:
    class Plain:
        def __init__(self) -> None:
            self.inner = EmbeddedIndex(None, DIMS)

        def upsert(self, docs: Sequence[IndexDoc]) -> None:
            self.inner.upsert(docs)

        def delete(self, tenant_id: str, user_id: str, memory_ids: Sequence[str]) -> None:
            self.inner.delete(tenant_id, user_id, memory_ids)

        def knn(self, *args: object, **kwargs: object) -> list[ScoredId]:
            return self.inner.knn(*args, **kwargs)  # type: ignore[arg-type]

        def text_search(self, *args: object, **kwargs: object) -> list[ScoredId]:
            return self.inner.text_search(*args, **kwargs)  # type: ignore[arg-type]

        def ids(self, tenant_id: str, user_id: str) -> set[str]:
            return self.inner.ids(tenant_id, user_id)

    index = Plain()
    index.upsert([doc("a", "hiking", axis(0), 0), doc("b", "chess", axis(1), 1)])
    assert not isinstance(index, Timeline)
    assert isinstance(EmbeddedIndex(None, DIMS), Timeline)

    hits = HybridSearcher(index, TableEmbedder({"hiking": axis(0)})).search("t", "u", "hiking", 2)  # type: ignore[arg-type]

    assert [h.id for h in hits] == ["a", "b"]


def test_threshold_and_top_k() -> None:
    index = EmbeddedIndex(None, DIMS)
    vectors = np.eye(DIMS, dtype=np.float32)
    index.upsert([doc(f"m{i}", f"note {i}", vectors[i].tolist(), i * 100) for i in range(DIMS)])
    searcher = HybridSearcher(index, TableEmbedder({"note 3": vectors[3].tolist()}))

    assert len(searcher.search("t", "u", "note 3", 5)) == 5
    assert [h.id for h in searcher.search("t", "u", "note 3", 5, threshold=0.9)] == ["m3"]
    assert searcher.search("t", "u", "note 3", 0) == []


def _turns_of_two_speakers() -> EmbeddedIndex:
    index = EmbeddedIndex(None, DIMS)
    # Evan's turn answers "What car does Evan drive?"; the turn of the person talking to him names him
    # and sits a little closer to the question.
    sam, evan = [0.0] * DIMS, [0.0] * DIMS
    sam[0], sam[1] = 0.72, (1 - 0.72**2) ** 0.5
    evan[0], evan[2] = 0.68, (1 - 0.68**2) ** 0.5
    index.upsert(
        [
            doc("sam", "Sam: Hey Evan, what car do you drive?", sam, 0, metadata={"speaker": "Sam"}),
            doc("evan", "Evan: my car is a Prius, I drive it daily", evan, 600, metadata={"speaker": "Evan"}),
            doc("other", "Evan: lovely weather for a walk", axis(3), 1200, metadata={"speaker": "Evan"}),
        ]
    )
    return index


def test_a_question_naming_a_speaker_ranks_what_that_speaker_said_first() -> None:
    index = _turns_of_two_speakers()
    # The embedding reads the question without the name (the table has no entry for it with the name).
    embedder = TableEmbedder({"What kind of car does drive?": axis(0)})
    searcher = HybridSearcher(index, embedder, context_weight=0.0)
    hits = searcher.search("t", "u", "What kind of car does Evan drive?", 2)
    assert [h.id for h in hits] == ["evan", "sam"]
    assert all(0.0 <= h.score <= 1.0 for h in hits)

    # The speaker step off: the question is embedded as asked, and the closer turn wins.
    embedder.table["What kind of car does Evan drive?"] = axis(0)
    without = HybridSearcher(index, embedder, context_weight=0.0, speaker_lift=0.0)
    assert [h.id for h in without.search("t", "u", "What kind of car does Evan drive?", 2)] == ["sam", "evan"]


def test_speakers_are_known_per_user() -> None:
    index = _turns_of_two_speakers()
    assert index.speakers_among("t", "u", {"Evan", "evan", "Sam", "Drive"}) == {"Evan", "Sam"}
    assert index.speakers_among("t", "someone-else", {"Evan"}) == set()
    assert index.spoken_by("t", "u", ["sam", "evan", "other", "missing"], {"Evan"}) == {"evan", "other"}
    index.delete("t", "u", ["sam"])
    assert index.speakers_among("t", "u", {"Sam", "Evan"}) == {"Evan"}


def test_a_name_that_is_no_speaker_stays_in_the_embedded_question() -> None:
    index = _turns_of_two_speakers()
    embedder = TableEmbedder({"What car does Maria drive?": axis(0)})
    hits = HybridSearcher(index, embedder, context_weight=0.0).search("t", "u", "What car does Maria drive?", 1)
    assert [h.id for h in hits] == ["sam"]
