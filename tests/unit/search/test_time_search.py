"""Search reads time: a question's time phrase lifts what was said then, `time_range` restricts to it,
outdated text ranks below current knowledge, and "current" questions prefer the newest statement."""

from __future__ import annotations

from datetime import UTC, datetime

from engram.adapters.embedded.index import EmbeddedIndex
from engram.domain.models import AddRequest, Fact, Message, Scope, SearchQuery
from engram.domain.statements import Statement
from engram.pipeline.ingest import IngestPipeline
from engram.reconcile.offline import KeyReconciler
from engram.rules.extractor import OfflineExtractor
from engram.search.query_time import TimeSpan
from engram.search.time_ranking import OUTDATED_SHARE, TimeAsked, rank_by_time
from engram.services.memory import MemoryService
from tests.unit.search.test_search_views import DIMS, remember, service

NOW = datetime(2024, 3, 10, 12, tzinfo=UTC)


def at(year: int, month: int, day: int) -> datetime:
    return datetime(year, month, day, 12, tzinfo=UTC)


def texts(memories: MemoryService, query: str, **kw: object) -> list[str]:
    q = SearchQuery(user_id="alice", query=query, now=NOW, **kw)  # type: ignore[arg-type]
    return [f.text for f, _ in memories.search("acme", q)]


def hikes() -> MemoryService:
    memories = service(EmbeddedIndex(None, DIMS))
    for text, when in [
        ("Went hiking in the Dolomites with friends", at(2022, 6, 4)),
        ("Went hiking in the Alps with my sister", at(2023, 8, 12)),
        ("Went hiking near the lake after work", at(2024, 3, 1)),
        ("Went hiking in Scotland in the rain", at(2021, 9, 1)),
    ]:
        remember(memories, "acme", "alice", text, valid_from=when)
    return memories


def test_a_month_in_the_question_lifts_what_was_said_in_that_month() -> None:
    assert texts(hikes(), "Where did I go hiking in August 2023?")[0] == "Went hiking in the Alps with my sister"


def test_last_week_resolves_against_the_time_of_the_question() -> None:
    assert texts(hikes(), "Where did I go hiking last week?")[0] == "Went hiking near the lake after work"
    two_years = texts(hikes(), "Where did I go hiking two years ago?")
    assert two_years[0] == "Went hiking in the Dolomites with friends"


def test_a_time_range_leaves_out_what_was_said_outside_it() -> None:
    found = texts(hikes(), "hiking", time_range=(at(2022, 1, 1), at(2023, 12, 31)))
    assert sorted(found) == ["Went hiking in the Alps with my sister", "Went hiking in the Dolomites with friends"]


def test_a_question_about_the_current_state_prefers_the_newest_statement() -> None:
    memories = service(EmbeddedIndex(None, DIMS))
    remember(memories, "acme", "alice", "Works as a nurse at the city hospital", valid_from=at(2019, 1, 1))
    remember(memories, "acme", "alice", "Works as a teacher at the city school", valid_from=at(2024, 1, 1))
    assert texts(memories, "What is my current work at the city?")[0] == "Works as a teacher at the city school"


def test_an_outdated_episode_ranks_below_the_fact_that_replaced_it() -> None:
    memories = service(EmbeddedIndex(None, DIMS))
    pipeline = IngestPipeline(
        memories.facts, memories.index, memories.embedder, OfflineExtractor(), KeyReconciler(), keep_episodes=True
    )
    scope = Scope(tenant_id="acme", user_id="alice")
    for task, (text, when) in enumerate(
        [
            ("I live in Hamburg with my husband Tom and our cat Pixel, and I sing in a choir.", at(2023, 5, 8)),
            ("We moved to Munich last month", at(2024, 3, 1)),
        ]
    ):
        request = AddRequest(messages=[Message(role="user", content=text, created_at=when)], user_id="alice")
        pipeline.run(scope, request, f"t{task}")
    q = SearchQuery(user_id="alice", query="Where do I live?", now=NOW)
    found: list[tuple[Fact, float]] = memories.search("acme", q)
    assert found[0][0].text == "Lives in Munich"
    episode = next((f, s) for f, s in found if f.kind == "episode")
    assert episode[0].outdated_by and episode[1] < found[0][1]


def kept_as_said(text: str, replaced_by: str | None, *current: str) -> Fact:
    statements = [Statement(attribute="home", value=text.split()[-1], outdated_by=replaced_by)]
    statements += [Statement(attribute=a, value="x") for a in current]
    return Fact(
        tenant_id="acme",
        user_id="alice",
        text=text,
        kind="episode",
        statements=statements,
        outdated_by=[replaced_by] if replaced_by else [],
    )


def ranked(*hits: tuple[Fact, float]) -> list[tuple[str, float]]:
    return [(f.text, s) for f, s in rank_by_time(hits, TimeAsked(None, False, False))]


def test_a_message_whose_every_statement_was_replaced_ranks_below_its_replacement_however_near_its_words() -> None:
    york = kept_as_said("I moved to York", None)
    leeds = kept_as_said("I live in Leeds", york.id)
    assert [t for t, _ in ranked((leeds, 0.60), (york, 0.48))] == ["I moved to York", "I live in Leeds"]
    # a replacement itself replaced later ranks below its own replacement, and the first below both
    bristol = kept_as_said("I moved to Bristol", None)
    york_then = kept_as_said("I moved to York", bristol.id)
    leeds_then = kept_as_said("I live in Leeds", york_then.id)
    order = [t for t, _ in ranked((leeds_then, 0.70), (york_then, 0.65), (bristol, 0.40))]
    assert order == ["I moved to Bristol", "I moved to York", "I live in Leeds"]


def test_a_message_that_still_says_something_current_keeps_its_place_by_its_words() -> None:
    # "I work at Google and live in Leeds" after "I quit Google": where the person lives is still current
    quit_job = kept_as_said("I quit Google", None)
    both = kept_as_said("I work at Google and live in Leeds", quit_job.id, "job")
    assert ranked((both, 0.60), (quit_job, 0.40))[0] == ("I work at Google and live in Leeds", 0.60 * OUTDATED_SHARE)
    # a wholly outdated message whose replacement was not found: the share of its own score, as before
    assert ranked((kept_as_said("I live in Leeds", "gone"), 0.5)) == [("I live in Leeds", 0.5 * OUTDATED_SHARE)]


def test_a_question_about_the_time_a_replaced_message_was_said_ranks_it_by_its_words() -> None:
    # "where did I live in January 2025?": then, Leeds was what held
    york = kept_as_said("I moved to York", None).model_copy(update={"valid_from": at(2025, 6, 2)})
    leeds = kept_as_said("I live in Leeds", york.id).model_copy(update={"valid_from": at(2025, 1, 10)})
    january = TimeAsked(TimeSpan(at(2025, 1, 1), at(2025, 2, 1)), False, False)
    assert rank_by_time([(leeds, 0.60), (york, 0.48)], january)[0][0].text == "I live in Leeds"


def test_a_question_in_the_past_tense_ranks_a_replaced_message_by_its_words() -> None:
    york = kept_as_said("I moved to York", None)
    leeds = kept_as_said("I live in Leeds", york.id)
    hits = [(leeds, 0.60), (york, 0.45)]
    then = rank_by_time(hits, TimeAsked.of("Where did I live before I moved?", NOW))
    assert then[0][0].text == "I live in Leeds"
    assert rank_by_time(hits, TimeAsked.of("Where do I live now?", NOW))[0][0].text == "I moved to York"


def test_a_question_about_others_only_ranks_a_replaced_message_by_its_words() -> None:
    # a conversation's speakers: what one of them said is asked as said, outdated since or not
    later = kept_as_said("John: we play tough teams calmly now", None)
    said = kept_as_said("John: we handle tough opponents as a team", later.id)
    hits = [(said, 0.60), (later, 0.45)]
    assert rank_by_time(hits, TimeAsked.of("How does John say his team handles tough opponents?", NOW))[0][0] is said
