"""Questions about several things are split into one sub-query per thing, and what each sub-query
finds can join the ranking of the whole question."""

from __future__ import annotations

from engram.domain.models import ScoredId, SearchFilters
from engram.search.decompose import DecomposingSearcher, decomposing, sub_queries


def test_alternatives_of_a_comparison_become_one_sub_query_each() -> None:
    assert sub_queries("Would Melanie prefer a national park or a theme park?") == [
        "Melanie prefer national park",
        "Melanie prefer theme park",
    ]


def test_a_list_with_commas_gives_every_item() -> None:
    assert sub_queries("Did John go hiking, swimming and running last year?") == [
        "John go last year hiking",
        "John go last year swimming",
        "John go last year running",
    ]


def test_two_people_joined_by_and_are_searched_apart() -> None:
    assert sub_queries("What did Caroline and Melanie paint together?") == [
        "paint together Caroline",
        "paint together Melanie",
    ]


def test_a_question_about_one_thing_has_no_sub_queries() -> None:
    assert sub_queries("What activities has Melanie done with her family?") == []
    assert sub_queries("and or") == []
    assert sub_queries("") == []


def test_long_user_text_is_split_in_linear_time() -> None:
    # Many joins and commas: one pass, and at most MAX_SUBQUERIES sub-queries.
    assert len(sub_queries("a, " * 5000 + "x and y or z " * 5000)) <= 4


class Scripted:
    """A searcher answering each query from a table; records the queries it was asked."""

    def __init__(self, answers: dict[str, list[tuple[str, float]]]) -> None:
        self.answers = answers
        self.asked: list[str] = []

    def search(
        self,
        tenant_id: str,
        user_id: str,
        query: str,
        top_k: int,
        filters: SearchFilters | None = None,
        threshold: float | None = None,
    ) -> list[ScoredId]:
        self.asked.append(query)
        return [ScoredId(id=i, score=s) for i, s in self.answers.get(query, [])][:top_k]


QUESTION = "Would Melanie prefer a national park or a theme park?"


def test_the_second_alternative_s_evidence_joins_the_top_k() -> None:
    inner = Scripted(
        {
            QUESTION: [("np1", 0.9), ("np2", 0.85), ("np3", 0.8)],
            "Melanie prefer national park": [("np1", 0.9)],
            "Melanie prefer theme park": [("tp", 0.95)],
        }
    )
    ranked = DecomposingSearcher(inner, share=0.9).search("t", "u", QUESTION, 3)
    assert [h.id for h in ranked] == ["np1", "tp", "np2"]  # tp: 0.9 x 0.95 = 0.855
    assert inner.asked == [QUESTION, "Melanie prefer national park", "Melanie prefer theme park"]


def test_a_sub_query_never_lowers_a_hit_of_the_question() -> None:
    inner = Scripted({QUESTION: [("a", 0.9)], "Melanie prefer national park": [("a", 0.5)]})
    assert DecomposingSearcher(inner).search("t", "u", QUESTION, 3)[0].score == 0.9


def test_a_question_without_sub_queries_is_one_search() -> None:
    inner = Scripted({"What does Melanie paint?": [("a", 0.9)]})
    assert [h.id for h in DecomposingSearcher(inner).search("t", "u", "What does Melanie paint?", 3)] == ["a"]
    assert inner.asked == ["What does Melanie paint?"]


def test_interleaving_keeps_the_question_s_head_then_gives_each_alternative_a_place() -> None:
    inner = Scripted(
        {
            QUESTION: [("np1", 0.9), ("np2", 0.85), ("np3", 0.8), ("np4", 0.7)],
            "Melanie prefer national park": [("np1", 0.9), ("np5", 0.6)],
            "Melanie prefer theme park": [("tp", 0.5)],
        }
    )
    ranked = DecomposingSearcher(inner, head=1).search("t", "u", QUESTION, 4)
    assert [h.id for h in ranked] == ["np1", "np5", "tp", "np2"]
    assert [h.score for h in ranked] == sorted((h.score for h in ranked), reverse=True)


def test_decomposition_is_off_unless_configured() -> None:
    inner = Scripted({QUESTION: [("np1", 0.9)], "Melanie prefer theme park": [("tp", 0.95)]})
    assert decomposing(inner, 0.0) is inner
    assert [h.id for h in decomposing(inner, 0.9).search("t", "u", QUESTION, 2)] == ["np1", "tp"]
