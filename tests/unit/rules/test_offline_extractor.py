"""The offline extractor: what a user without an LLM gets from first-person statements.

Case tables hold one statement per line; columns are separated by '|'.
"""

from __future__ import annotations

import pytest

from engram.domain.models import ExtractionPrompt, MemoryBank, Message, Scope
from engram.domain.steps import CandidateFact
from engram.rules.extractor import OfflineExtractor
from engram.rules.keys import signature

SCOPE = Scope(tenant_id="t1", user_id="u1")
extractor = OfflineExtractor()


def rows(table: str) -> list[tuple[str, ...]]:
    return [tuple(cell.strip() for cell in line.split("|")) for line in table.strip().splitlines()]


def lines(table: str) -> list[str]:
    return [line.strip() for line in table.strip().splitlines()]


def user(*texts: str) -> list[Message]:
    return [Message(role="user", content=t) for t in texts]


def facts_of(*texts: str) -> list[CandidateFact]:
    facts, usage = extractor.extract(user(*texts), ExtractionPrompt.USER, SCOPE)
    assert usage.llm_calls == 0 and usage.prompt_tokens == 0
    return facts


def only(text: str) -> CandidateFact:
    facts = facts_of(text)
    assert len(facts) == 1, [f.text for f in facts]
    return facts[0]


# --- one statement, one fact: every family, several phrasings ------------------------------------
# Rows are "said | text | key | value"; a "[family] bank importance" line sets them for the rows below.
SINGLE_FACTS = """
    [name] Personal 0.9
    my name is Alice                  | Name is Alice           | name     | Alice
    My name's Alice.                  | Name is Alice           | name     | Alice
    Hi, I'm Alice                     | Name is Alice           | name     | Alice
    I am Alice!                       | Name is Alice           | name     | Alice
    Hello! I'm called Alice           | Name is Alice           | name     | Alice
    my name is alice                  | Name is Alice           | name     | Alice
    Hey there, my first name is Alice | Name is Alice           | name     | Alice
    My name is Alice Smith            | Name is Alice Smith     | name     | Alice Smith
    call me Al                        | Prefers to be called Al | nickname | Al
    You can call me Al.               | Prefers to be called Al | nickname | Al
    People call me Al                 | Goes by Al              | nickname | Al
    Everyone calls me Al              | Goes by Al              | nickname | Al
    I go by Al                        | Goes by Al              | nickname | Al
    [location] Personal 0.8
    I live in Berlin                       | Lives in Berlin           | location | Berlin
    I'm based in Berlin                    | Lives in Berlin           | location | Berlin
    I moved to Berlin                      | Lives in Berlin           | location | Berlin
    I relocated to Berlin last year        | Lives in Berlin           | location | Berlin
    I just moved to Berlin                 | Lives in Berlin           | location | Berlin
    Home is Berlin                         | Lives in Berlin           | location | Berlin
    We live in Berlin                      | Lives in Berlin           | location | Berlin
    I've been living in Berlin for 5 years | Lives in Berlin           | location | Berlin
    I am currently living in Berlin        | Lives in Berlin           | location | Berlin
    i live in berlin                       | Lives in Berlin           | location | Berlin
    I'm based in Lisbon, Portugal          | Lives in Lisbon, Portugal | location | Lisbon, Portugal
    [origin] Personal 0.7
    I'm from Spain            | Is from Spain     | hometown    | Spain
    I'm originally from Spain | Is from Spain     | hometown    | Spain
    I come from Spain         | Is from Spain     | hometown    | Spain
    I grew up in Spain        | Grew up in Spain  | hometown    | Spain
    My hometown is Spain      | Hometown is Spain | hometown    | Spain
    I'm German                | Is German         | nationality | German
    [work] Work 0.8
    I work at Google                   | Works at Google              | employer  | Google
    I work for Google                  | Works for Google             | employer  | Google
    I just started at Google           | Works at Google              | employer  | Google
    I got a job at Google              | Works at Google              | employer  | Google
    I joined Google                    | Works at Google              | employer  | Google
    I was hired by Google              | Works at Google              | employer  | Google
    I'm working at Google              | Works at Google              | employer  | Google
    i work at google                   | Works at Google              | employer  | Google
    I'm a software engineer            | Works as a software engineer | job_title | software engineer
    I am a software engineer           | Works as a software engineer | job_title | software engineer
    I work as a software engineer      | Works as a software engineer | job_title | software engineer
    I'm working as a software engineer | Works as a software engineer | job_title | software engineer
    My job title is software engineer  | Works as a software engineer | job_title | software engineer
    [preference] Interests 0.6
    I love pizza                     | Loves pizza             | preference:pizza       | love
    I really like hiking             | Likes hiking            | preference:hiking      | like
    I enjoy jazz                     | Enjoys jazz             | preference:jazz        | like
    I adore cats                     | Loves cats              | preference:cats        | love
    I prefer tea over coffee         | Prefers tea over coffee | preference:tea         | prefer
    I'm a big fan of jazz            | Is a big fan of jazz    | preference:jazz        | love
    I'm into climbing                | Is into climbing        | preference:climbing    | like
    I'm passionate about photography | Loves photography       | preference:photography | love
    I love pizza so much lol         | Loves pizza             | preference:pizza       | love
    I hate olives                    | Hates olives            | preference:olives      | hate
    I dislike olives                 | Dislikes olives         | preference:olives      | dislike
    I can't stand olives             | Can't stand olives      | preference:olives      | hate
    I don't like olives              | Dislikes olives         | preference:olives      | dislike
    I'm not a fan of olives          | Dislikes olives         | preference:olives      | dislike
    I'm not into football            | Dislikes football       | preference:football    | dislike
    my favorite food is sushi        | Favorite food is sushi  | favorite:food          | sushi
    Sushi is my favourite food       | Favorite food is Sushi  | favorite:food          | Sushi
    [family] Relationships 0.8
    my sister Anna                 | Has a sister named Anna      | family:sister:Anna | Anna
    My sister's name is Anna       | Has a sister named Anna      | family:sister:Anna | Anna
    I have a sister named Anna     | Has a sister named Anna      | family:sister:Anna | Anna
    my older sister is called Anna | Has a sister named Anna      | family:sister:Anna | Anna
    my wife's name is Maria        | Has a wife named Maria       | family:wife        | Maria
    My mom's name is Linda         | Mother's name is Linda       | family:mother      | Linda
    I'm married to Tom             | Is married to Tom            | family:spouse      | Tom
    my son is 5                    | Has a son who is 5 years old | family:son:age     | 5 years
    I have a sister                | Has a sister                 | family:sister      | 1
    [pet] Relationships 0.7
    I have a dog named Max     | Has a dog named Max  | pet:dog:Max  | Max
    My dog's name is Max       | Has a dog named Max  | pet:dog:Max  | Max
    my dog is called Max       | Has a dog named Max  | pet:dog:Max  | Max
    We adopted a dog named Max | Has a dog named Max  | pet:dog:Max  | Max
    my cat is called Luna      | Has a cat named Luna | pet:cat:Luna | Luna
    [health] Health 0.9
    I'm allergic to peanuts               | Allergic to peanuts     | health:peanut allergy      | peanuts
    I am severely allergic to peanuts     | Allergic to peanuts     | health:peanut allergy      | peanuts
    Remember that I'm allergic to peanuts | Allergic to peanuts     | health:peanut allergy      | peanuts
    I have an allergy to peanuts          | Allergic to peanuts     | health:peanut allergy      | peanuts
    I have a peanut allergy               | Has a peanut allergy    | health:peanut allergy      | peanut
    I've got a peanut allergy             | Has a peanut allergy    | health:peanut allergy      | peanut
    I have asthma                         | Has asthma              | health:asthma              | asthma
    I suffer from asthma                  | Has asthma              | health:asthma              | asthma
    I'm asthmatic                         | Has asthma              | health:asthma              | asthma
    I'm diabetic                          | Has diabetes            | health:diabetes            | diabetes
    I have diabetes                       | Has diabetes            | health:diabetes            | diabetes
    I have high blood pressure            | Has high blood pressure | health:high blood pressure | high blood pressure
    I'm lactose intolerant                | Is lactose intolerant   | health:lactose intolerance | lactose
    I have lactose intolerance            | Is lactose intolerant   | health:lactose intolerance | lactose
    [reminder] Events 0.7
    remind me to call mom tomorrow           | Reminder: call mom tomorrow | reminder:call mom | call mom tomorrow
    Please remind me to call my mom tomorrow | Reminder: call mom tomorrow | reminder:call mom | call mom tomorrow
    Can you remind me to call mom tomorrow?  | Reminder: call mom tomorrow | reminder:call mom | call mom tomorrow
    Don't let me forget to call mom tomorrow | Reminder: call mom tomorrow | reminder:call mom | call mom tomorrow
    Set a reminder to call mom tomorrow      | Reminder: call mom tomorrow | reminder:call mom | call mom tomorrow
"""


def single_fact_cases(table: str) -> list[object]:
    cases: list[object] = []
    bank, importance, family = MemoryBank.GENERAL, 0.0, ""
    for line in lines(table):
        if line.startswith("["):
            family, bank_name, weight = line.replace("[", "").replace("]", "").split()
            bank, importance = MemoryBank(bank_name), float(weight)
        else:
            cells = line.split("|")
            row = tuple(cell.strip() for cell in cells)
            cases.append(pytest.param(*row, bank, importance, id=f"{family}: {row[0]}"))
    return cases


@pytest.mark.parametrize(("said", "text", "key", "value", "bank", "importance"), single_fact_cases(SINGLE_FACTS))
def test_one_statement_one_fact(
    said: str, text: str, key: str, value: str, bank: MemoryBank, importance: float
) -> None:
    fact = only(said)
    assert (fact.text, fact.fact_key, fact.fact_value, fact.negated) == (text, key, value, False)
    assert (fact.memory_bank, fact.importance) == (bank, importance)


# Rows are "said | key": the statement must not produce a fact of that family.
NOT_THIS_FAMILY = """
    I'm tired                           | name
    I'm Tired.                          | name
    I'm Happy                           | name
    I'm Very Tired                      | name
    i'm alice                           | name
    Call me tomorrow                    | nickname
    My name is not important            | name
    I'm from Spain                      | name
    I'm German                          | name
    I live in an apartment              | location
    I'm moving to Berlin next month     | location
    I lived in Berlin for 3 years       | location
    I might move to Berlin              | location
    My mom lives in Berlin              | location
    I'm thinking about moving to Berlin | location
    I'm a morning person                | job_title
    I'm a perfectionist                 | job_title
    I work from home                    | employer
    I have a meeting tomorrow           | health:
    I have a dog                        | health:
"""


@pytest.mark.parametrize(("said", "key"), rows(NOT_THIS_FAMILY))
def test_statements_that_are_not_of_a_family(said: str, key: str) -> None:
    assert all(not (f.fact_key or "").startswith(key) for f in facts_of(said))


# --- job changes, retirements and several facts at once -----------------------------------------

JOB_CHANGES = """
    I left Google for Microsoft
    I left Google last month to join Microsoft
    I quit Google and joined Microsoft
    I switched from Google to Microsoft
"""


@pytest.mark.parametrize("said", lines(JOB_CHANGES))
def test_job_change_names_the_new_employer_and_notes_the_old(said: str) -> None:
    assert {(f.text, f.fact_key, f.fact_value) for f in facts_of(said)} == {
        ("Works at Microsoft", "employer", "Microsoft"),
        ("Previously worked at Google", "former_employer:google", "Google"),
    }


def test_quitting_retires_the_employer() -> None:
    by_key = {f.fact_key: f for f in facts_of("I quit my job at Google")}
    assert by_key["employer"].negated and by_key["employer"].fact_value == "Google"
    assert not by_key["former_employer:google"].negated


# Rows are "said | text of the retirement | key it retires".
RETIREMENTS = """
    I don't like pizza anymore                  | No longer likes pizza      | preference:pizza
    I don't like pizza any more                 | No longer likes pizza      | preference:pizza
    I no longer like pizza                      | No longer likes pizza      | preference:pizza
    I stopped liking pizza                      | No longer likes pizza      | preference:pizza
    I'm not into pizza anymore                  | No longer likes pizza      | preference:pizza
    I'm no longer into pizza                    | No longer likes pizza      | preference:pizza
    I've gone off pizza                         | No longer likes pizza      | preference:pizza
    I don't really love pizza anymore, honestly | No longer likes pizza      | preference:pizza
    I'm no longer allergic to cats              | No longer allergic to cats | health:cat allergy
    I don't have asthma anymore                 | No longer has asthma       | health:asthma
    I'm not vegan anymore                       | Is no longer vegan         | diet
"""


@pytest.mark.parametrize(("said", "text", "key"), rows(RETIREMENTS))
def test_retirements(said: str, text: str, key: str) -> None:
    fact = only(said)
    assert (fact.text, fact.fact_key, fact.negated) == (text, key, True)


def test_diets_and_no_longer_eating_something() -> None:
    facts = facts_of("I don't eat meat anymore")  # retires the taste and records the diet
    assert [(f.fact_key, f.negated) for f in facts] == [("preference:meat", True), ("diet:meat", False)]
    assert facts[1].text == "Does not eat meat" and facts[1].memory_bank is MemoryBank.HEALTH
    assert (only("I'm a vegetarian").text, only("I'm vegan").fact_key) == ("Is vegetarian", "diet")
    assert only("I don't eat pork").text == "Does not eat pork"


REMINDER_DELETIONS = """
    please delete my reminder about buying milk
    Cancel the reminder to buy milk
    Could you remove my reminder about buying milk?
    I no longer need the reminder to buy milk
"""


@pytest.mark.parametrize("said", lines(REMINDER_DELETIONS))
def test_deleting_a_reminder(said: str) -> None:
    fact = only(said)
    assert fact.negated and fact.memory_bank is MemoryBank.EVENTS
    assert fact.fact_key is not None and signature(fact.fact_key) == signature("reminder:buy milk")


MULTI = """
    I love pizza and I hate pineapple.                    | Loves pizza | Hates pineapple
    I love pizza and sushi                                | Loves pizza | Loves sushi
    I love pizza, sushi, and pasta                        | Loves pizza | Loves sushi | Loves pasta
    I don't like olives or anchovies                      | Dislikes olives | Dislikes anchovies
    I love mac and cheese                                 | Loves mac and cheese
    I live in Berlin and work at Google                   | Lives in Berlin | Works at Google
    I live in Berlin, work at Google, and love pizza      | Lives in Berlin | Works at Google | Loves pizza
    Hi, I'm Alice and I live in Berlin. I work at Google. | Name is Alice | Lives in Berlin | Works at Google
    I'm originally from Brazil but I live in Lisbon       | Is from Brazil | Lives in Lisbon
    I'm allergic to shellfish and penicillin              | Allergic to shellfish | Allergic to penicillin
    My husband, Tom, loves hiking                         | Has a husband named Tom
    I have two kids, Leo and Mia                          | Has a kid named Leo | Has a kid named Mia
    I moved from Berlin to Munich                         | Lives in Munich | Previously lived in Berlin
    I left London for Paris                               | Lives in Paris | Previously lived in London
    I'm a nurse at St. Mary's Hospital                    | Works as a nurse | Works at St. Mary's Hospital
    I work for Microsoft as an accountant                 | Works as an accountant | Works for Microsoft
"""


@pytest.mark.parametrize(("said", "texts"), [(r[0], list(r[1:])) for r in rows(MULTI)])
def test_multi_fact_statements(said: str, texts: list[str]) -> None:
    assert [f.text for f in facts_of(said)] == texts


def test_within_one_conversation_the_last_statement_wins() -> None:
    assert [f.text for f in facts_of("I live in Berlin.", "Actually, I just moved to Munich.")] == ["Lives in Munich"]
    facts = facts_of("I love pizza. Hmm, no, I don't like pizza anymore.")
    assert [(f.fact_key, f.negated) for f in facts] == [("preference:pizza", True)]


# --- what is not the user's fact ------------------------------------------------------------------

NOT_FACTS = """
    Do you know where I live?
    What's my name?
    Where do I work?
    Do I like pizza?
    I love pizza, right?
    my friend loves sushi
    My wife loves sushi
    She lives in Paris
    Tom works at Google
    My sister lives in Paris and loves cats
    If I lived in Paris, I would love croissants
    I wish I lived in Paris
    I might move to Paris
    I'd love to visit Japan
    Imagine I loved sushi
    I like it
    I love you
    I think I love sushi
"""


@pytest.mark.parametrize("said", lines(NOT_FACTS))
def test_questions_hypotheticals_and_other_people_yield_nothing(said: str) -> None:
    assert facts_of(said) == []
    assert extractor.understands(user(said)) is False


def test_assistant_messages_are_not_mined_for_the_user() -> None:
    messages = [
        Message(role="user", content="hi"),
        Message(role="assistant", content="Hello! My name is Nova. I love pizza and I live in Paris."),
        Message(role="system", content="I am a system prompt. I live in Berlin."),
    ]
    assert extractor.extract(messages, ExtractionPrompt.USER, SCOPE)[0] == []


def test_agent_prompt_mines_only_the_assistants_identity() -> None:
    messages = [
        Message(role="user", content="I live in Paris. What's your name?"),
        Message(role="assistant", content="I am an AI assistant named Nova. I love helping people."),
    ]
    facts, usage = extractor.extract(messages, ExtractionPrompt.AGENT, SCOPE)
    assert [(f.text, f.fact_key) for f in facts] == [("Name is Nova", "name")]
    assert usage.llm_calls == 0
    chat = [Message(role="assistant", content="Happy to help!")]
    assert extractor.extract(chat, ExtractionPrompt.AGENT, SCOPE)[0] == []


# --- understands: the preference shortcut ---------------------------------------------------------

UNDERSTOOD = """
    hi
    thanks!
    ok
    Hi, my name is Alice. I love pizza.
    I love pizza | thanks
    Yes, I live in Seattle.
    Hey there! I'm Sam, nice to meet you.
"""


@pytest.mark.parametrize("said", rows(UNDERSTOOD))
def test_understood_messages(said: tuple[str, ...]) -> None:
    assert extractor.understands(user(*said)) is True
    assert extractor.shortcut(user(*said)) == facts_of(*said)


NOT_UNDERSTOOD = """
    I love pizza. What's the weather like?
    I went hiking with my sister Anna yesterday
    I love pizza because it reminds me of Italy
    My husband, Tom, loves hiking
    I live in Chicago with my husband
"""


@pytest.mark.parametrize("said", [*lines(NOT_UNDERSTOOD), "x" * 400])
def test_partly_understood_messages_need_the_llm(said: str) -> None:
    assert extractor.understands(user(said)) is False
    assert extractor.shortcut(user(said)) is None


def test_partly_understood_messages_still_yield_what_was_understood() -> None:
    assert [f.text for f in facts_of("I went hiking with my sister Anna yesterday")] == ["Has a sister named Anna"]
    assert [f.text for f in facts_of("I love pizza because it reminds me of Italy")] == ["Loves pizza"]


def test_understands_ignores_what_the_assistant_said() -> None:
    messages = [
        Message(role="user", content="I love pizza"),
        Message(role="assistant", content="Great choice, the Neapolitan kind is wonderful when fresh."),
    ]
    assert extractor.understands(messages) is True
