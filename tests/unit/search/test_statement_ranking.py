"""Search reads what memories state, for a question about the person: a memory stating the asked attribute as the
person's own is lifted, one stating only what someone else holds is set back, and a question about someone else
is left as the first ranking has it."""

from __future__ import annotations

from engram.domain.models import Fact
from engram.domain.statements import Statement
from engram.search.statement_ranking import rank_by_statements


def memory(text: str, *statements: Statement) -> Fact:
    return Fact(tenant_id="t", user_id="u", text=text, statements=list(statements))


DENTIST = memory(
    "I changed dentists; I now see Dr. Emiliano Cruz", Statement(attribute="dentist", value="Dr. Emiliano Cruz")
)
DOCTOR = memory(
    "My family doctor is Dr. Ramírez and my dentist is Dra. Torres",
    Statement(attribute="family doctor", value="Dr. Ramírez"),
    Statement(attribute="dentist", value="Dra. Torres", outdated_by="m2"),
)
FATHER = memory("My father switched to Airtel", Statement(subject="my father", attribute="*", value="Airtel"))
MINE = memory("I am on Jio since 2019", Statement(attribute="provider", value="Jio"))
PLAIN = memory("the data is very cheap")


def order(query: str, *hits: tuple[Fact, float]) -> list[str]:
    return [f.text for f, _ in rank_by_statements(query, hits)]


def test_a_memory_stating_the_asked_attribute_as_the_persons_comes_first() -> None:
    assert order("who is my doctor?", (DENTIST, 0.62), (DOCTOR, 0.55))[0] == DOCTOR.text


def test_a_statement_of_the_attribute_that_is_outdated_lifts_nothing() -> None:
    assert order("who is my dentist?", (DOCTOR, 0.6), (DENTIST, 0.55))[0] == DENTIST.text


def test_what_someone_else_holds_ranks_below_the_persons_own() -> None:
    assert order("which mobile network am I on?", (FATHER, 0.30), (MINE, 0.27))[0] == MINE.text


def test_a_question_about_someone_else_keeps_the_first_ranking() -> None:
    assert order("which network is Tom's father on?", (FATHER, 0.30), (MINE, 0.29))[0] == FATHER.text


def test_a_memory_without_statements_keeps_its_score() -> None:
    [(fact, score)] = rank_by_statements("what do I pay for data?", [(PLAIN, 0.4)])
    assert fact is PLAIN and score == 0.4


def test_a_memory_stating_the_asked_attribute_of_someone_the_question_names_comes_first() -> None:
    son = memory("Has a son named Kofi", Statement(attribute="son", value="Kofi"))
    school = memory(
        "Kofi started at Westbrook Academy this week",
        Statement(subject="Kofi", attribute="school", value="Westbrook Academy", single=True),
    )
    assert order("which school does Kofi go to?", (son, 0.5), (school, 0.45))[0] == school.text
    assert order("which school does Ama go to?", (son, 0.5), (school, 0.45))[0] == son.text
