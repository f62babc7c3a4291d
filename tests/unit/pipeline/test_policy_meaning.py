"""include/exclude by meaning (issue 33): every clause of every message is screened against the banks'
descriptions and free topics with the embedder, close calls exclude, the kept messages lose what was
excluded, and what cannot be honoured offline (instructions) is said, not ignored.

A fixed embedder places texts where a test needs them when the decision, not the meaning, is under
test; the real MiniLM reads the labelled set (bench/data/policy_clauses.json) at the end."""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from functools import cache
from typing import Any

import pytest

from engram.domain.models import AddRequest, Fact, MemoryBank, MemorySource, Message, Task
from engram.domain.policy import ConfigAnswer, MemoryPolicy, TenantConfig
from engram.pipeline.clauses import clauses, segments
from engram.pipeline.ingest import IngestPipeline
from engram.pipeline.llm_extractor import LLMFactExtractor
from engram.pipeline.policy_screen import PolicyScreen
from engram.pipeline.topic_descriptions import BANK_DESCRIPTIONS
from engram.pipeline.topic_meaning import THRESHOLDS, TopicMeaning
from engram.reconcile.llm import LLMReconciler
from engram.reconcile.offline import KeyReconciler
from engram.rules.extractor import OfflineExtractor
from engram.services.tenant_config import INSTRUCTIONS_NEED_AN_LLM, NO_MEANING, TenantConfigs, warnings
from engram.services.worker import ExtractionWorker
from tests.fakes import MemoryConfigStore, MemoryFactStore, MemoryIndex, MemoryTaskStore, ScriptedLLM

BANKS = list(MemoryBank)
STATEMENTS = [text for lines in BANK_DESCRIPTIONS.values() for text in lines]
# one axis per bank, one for a free topic, one for "nothing in particular", one per bank statement
DIMS = len(BANKS) + 2 + len(STATEMENTS)


def _unit(weights: dict[int, float]) -> list[float]:
    vector = [0.0] * DIMS
    for axis, weight in weights.items():
        vector[axis] = weight
    norm = math.sqrt(sum(v * v for v in vector)) or 1.0
    return [v / norm for v in vector]


class PlacedEmbedder:
    """Each bank's description statements between the bank's axis and one of their own (a bank's statements
    are alike, not one point: a clause is read against their usual nearness); a test's clauses where
    `places` says (bank -> weight, "topic" or "nothing" -> that axis); anything else on the axis of nothing in
    particular."""

    model_id = "placed-test"
    dimensions = DIMS

    def __init__(self, places: dict[str, dict[MemoryBank | str, float]] | None = None) -> None:
        self.places = {text.lower(): where for text, where in (places or {}).items()}
        self.texts: list[str] = []
        self._descriptions = {text: bank for bank, lines in BANK_DESCRIPTIONS.items() for text in lines}

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        self.texts += texts
        return [self._place(t) for t in texts]

    def _place(self, text: str) -> list[float]:
        if text in self._descriptions:
            return _unit({BANKS.index(self._descriptions[text]): 1.0, len(BANKS) + 2 + STATEMENTS.index(text): 1.0})
        if text.lower() in self.places:
            where = self.places[text.lower()]
            axes = {"topic": len(BANKS), "nothing": len(BANKS) + 1}
            return _unit({(BANKS.index(k) if isinstance(k, MemoryBank) else axes[k]): w for k, w in where.items()})
        if text.lower().startswith(("crypto", "talking about crypto", "i bought")):
            return _unit({len(BANKS): 1.0})
        return _unit({len(BANKS) + 1: 1.0})


def screen(places: dict[str, dict[MemoryBank | str, float]], **policy: Any) -> PolicyScreen:
    return PolicyScreen(MemoryPolicy(**policy), TopicMeaning(PlacedEmbedder(places)))


def redacted(screen: PolicyScreen, text: str) -> tuple[str, list[tuple[str, str]]]:
    request = AddRequest(messages=[Message(role="user", content=text)], user_id="alice")
    out, skipped = screen.redact(request)
    return out.messages[0].content, [(s.text, s.reason) for _, s in skipped]


HEALTH = {MemoryBank.HEALTH: 1.0}
WORK = {MemoryBank.WORK: 1.0}


# --- the decision --------------------------------------------------------------------------------------
def test_a_clause_near_an_excluded_bank_is_cut_and_the_rest_of_the_message_kept() -> None:
    places: dict[str, dict[MemoryBank | str, float]] = {
        "the meds are kicking in": HEALTH,
        "the new job is going great": WORK,
    }
    text, skipped = redacted(screen(places, exclude=["Health"]), "The meds are kicking in, the new job is going great!")
    assert text == "the new job is going great!"
    assert skipped == [("a clause of 23 characters", "excluded: Health")]  # its words are kept nowhere


def test_a_message_whose_every_clause_is_excluded_is_left_empty() -> None:
    places: dict[str, dict[MemoryBank | str, float]] = {"the meds are kicking in": HEALTH}
    text, skipped = redacted(screen(places, exclude=["Health"]), "The meds are kicking in.")
    assert text == "" and len(skipped) == 1


def test_a_close_call_excludes_and_does_not_include() -> None:
    # as near health as work (within the health margin): excluding either cuts it, including work keeps nothing
    both = {MemoryBank.HEALTH: 1.0, MemoryBank.WORK: 1.0}
    places: dict[str, dict[MemoryBank | str, float]] = {"the night shifts wreck my sleep": both}
    said = "The night shifts wreck my sleep."
    assert redacted(screen(places, exclude=["Health"]), said)[0] == ""
    assert redacted(screen(places, exclude=["Work"]), said)[0] == ""
    candidate = episode(said)
    kept, skipped = screen(places, include=["Work"]).screen([candidate])
    assert kept == [] and [s.reason for _, s in skipped] == ["not included"]
    clear = {MemoryBank.WORK: 1.0, MemoryBank.HEALTH: 0.2}
    kept, _ = screen({"the night shifts wreck my sleep": clear}, include=["Work"]).screen([candidate])
    assert [k.text for k in kept] == [said]


def test_a_bank_further_than_its_margin_from_the_nearest_is_not_excluded() -> None:
    mostly_work = {MemoryBank.WORK: 1.0, MemoryBank.HEALTH: 0.3}
    places: dict[str, dict[MemoryBank | str, float]] = {"my shift starts at six": mostly_work}
    assert redacted(screen(places, exclude=["Health"]), "My shift starts at six.")[0] == "My shift starts at six."


def test_a_vague_clause_goes_with_the_excluded_clause_it_continues() -> None:
    places: dict[str, dict[MemoryBank | str, float]] = {
        "broke my wrist again": HEALTH,
        "the job is fine": WORK,
    }  # "cast for six weeks" is placed on no bank: it says nothing on its own
    text, skipped = redacted(
        screen(places, exclude=["Health"]), "Broke my wrist again, cast for six weeks. The job is fine."
    )
    assert text == "The job is fine." and len(skipped) == 2


def test_a_free_topic_is_its_own_description_with_the_configs_examples() -> None:
    places: dict[str, dict[MemoryBank | str, float]] = {"i bought more coins": {"topic": 1.0}, "my cat is ill": HEALTH}
    text, skipped = redacted(screen(places, exclude=["crypto"]), "I bought more coins, my cat is ill.")
    assert text == "my cat is ill." and skipped[0][1] == "excluded: crypto"
    seen = PlacedEmbedder(places)
    PolicyScreen(
        MemoryPolicy(exclude=["Crypto"], examples={"crypto": ["I bought bitcoin"]}), TopicMeaning(seen)
    ).redact(AddRequest(messages=[Message(role="user", content="I bought more coins")], user_id="alice"))
    assert "I bought bitcoin" in seen.texts  # the examples describe the topic (any case of its name)


def test_all_clauses_of_an_add_are_read_in_one_embedder_call_and_system_messages_never() -> None:
    seen = PlacedEmbedder()
    meaning = TopicMeaning(seen)
    meaning.score(["warm"])  # the descriptions, once per process
    before = len(seen.texts)
    request = AddRequest(
        messages=[
            Message(role="system", content="You are helpful, and you never lie."),
            Message(role="user", content="My back hurts, the job is fine. I live in Oslo."),
            Message(role="assistant", content="Sorry to hear that, Oslo is lovely."),
        ],
        user_id="alice",
    )
    PolicyScreen(MemoryPolicy(exclude=["Health"]), meaning).redact(request)
    assert sorted(seen.texts[before:]) == sorted(
        ["My back hurts", "the job is fine", "I live in Oslo", "Sorry to hear that", "Oslo is lovely"]
    )


def test_clauses_are_cut_at_commas_dashes_and_conjunctions_and_put_back_together() -> None:
    said = "Work is insane but the meds help - I walk the dog, then I sleep. Salt and pepper please"
    assert clauses(said) == [
        "Work is insane",
        "the meds help",
        "I walk the dog",
        "then I sleep",
        "Salt and pepper please",
    ]
    assert clauses("I've been down since the winter started tbh") == ["I've been down since the winter started tbh"]
    rebuilt = " ".join("".join(s + c for s, c in parts) + end for end, parts in segments(said))
    assert rebuilt == said


def test_a_short_piece_paired_by_a_bare_and_goes_with_the_clause_after_it() -> None:
    # cut as "..., and born" + "raised in Cork", the place of birth was a clause about nothing and leaked
    assert clauses("my sister just had a baby girl, and born and raised in Cork") == [
        "my sister just had a baby girl",
        "born and raised in Cork",
    ]
    # after a comma "and" starts a new clause: the short piece stays with the one before
    assert clauses("turns out I'm lactose intolerant, who knew, and I'm a nurse on nights") == [
        "turns out I'm lactose intolerant, who knew",
        "I'm a nurse on nights",
    ]


# --- through the pipeline: kept messages, infer=false, the LLM path --------------------------------------
def episode(text: str) -> Any:
    from engram.domain.steps import CandidateFact

    return CandidateFact(text=text, kind="episode", message_index=0)


def pipeline(places: dict[str, dict[MemoryBank | str, float]], llm: ScriptedLLM | None = None) -> IngestPipeline:
    extractor: Any = LLMFactExtractor(llm) if llm is not None else OfflineExtractor()
    reconciler: Any = LLMReconciler(llm) if llm is not None else KeyReconciler()
    return IngestPipeline(
        MemoryFactStore(),
        MemoryIndex(),
        PlacedEmbedder(places),
        extractor,
        reconciler,
        keep_episodes=True,
        meaning=TopicMeaning(PlacedEmbedder(places)),
    )


def run(pipe: IngestPipeline, text: str, **fields: Any) -> tuple[list[str], Task]:
    tasks = MemoryTaskStore()
    configs = TenantConfigs(MemoryConfigStore())
    configs.put("acme", TenantConfig(exclude=["Health"], instructions="Never store medical details."))
    request = AddRequest(messages=[Message(role="user", content=text)], user_id="alice", **fields)
    task = Task(tenant_id="acme", user_id="alice", request=request)
    tasks.create(task)
    done = ExtractionWorker(tasks, pipe, configs=configs).process("acme", task.task_id)
    texts = [f.text for f in pipe.facts.list_current("acme", "alice", 100).items]
    return texts, done


PLACES: dict[str, dict[MemoryBank | str, float]] = {
    "the therapist says it's burnout": HEALTH,
    "we adopted a puppy called Rolo": {MemoryBank.PERSONAL: 1.0},
}
SAID = "The therapist says it's burnout, we adopted a puppy called Rolo."


def test_offline_a_kept_message_loses_the_excluded_clause_and_the_task_says_instructions_need_an_llm() -> None:
    texts, task = run(pipeline(PLACES), SAID)
    assert texts and not any("therapist" in t.lower() or "burnout" in t.lower() for t in texts)
    assert "need an LLM" in (task.note or "")
    assert "therapist" not in json.dumps(task.model_dump(mode="json")).lower()  # nor in its kept input


def test_infer_false_stores_the_message_minus_its_excluded_clause() -> None:
    texts, _ = run(pipeline(PLACES), SAID, infer=False)
    assert texts == ["we adopted a puppy called Rolo."]


def test_on_the_llm_path_the_screen_runs_after_the_llm_and_the_input_loses_what_it_cut() -> None:
    answer = json.dumps(
        {
            "facts": [
                {"text": "Is in therapy for burnout", "memory_bank": "Personal", "importance": 0.6},
                {"text": "Adopted a puppy called Rolo", "memory_bank": "Personal", "importance": 0.5},
            ]
        }
    )
    places = {**PLACES, "Is in therapy for burnout": HEALTH, "Adopted a puppy called Rolo": {MemoryBank.PERSONAL: 1.0}}
    # the meaning does not see the clause as health (a case it misses): the LLM's fact, read by meaning, is
    # still dropped, and the clause that stated it leaves the stored input
    places["the therapist says it's burnout"] = {MemoryBank.PERSONAL: 1.0}
    texts, task = run(pipeline(places, ScriptedLLM(answer)), SAID)
    assert "Is in therapy for burnout" not in texts and "Adopted a puppy called Rolo" in texts
    assert task.note is None or "need an LLM" not in task.note  # an LLM reads the instructions here
    assert "burnout" not in json.dumps(task.model_dump(mode="json")).lower()


# --- the config's answer ---------------------------------------------------------------------------------
def test_the_config_answer_warns_of_what_this_deployment_cannot_honour() -> None:
    config = TenantConfig(exclude=["Health", "crypto"], instructions="Never store medical details.")
    assert warnings(config, llm=False, meaning=True) == [INSTRUCTIONS_NEED_AN_LLM]
    assert warnings(config, llm=True, meaning=True) == []
    assert warnings(config, llm=True, meaning=False) == [NO_MEANING]
    odd = TenantConfig(exclude=["Health"], examples={"crypto": ["I bought bitcoin"], "health": ["x"]})
    assert [w.split(":")[0] for w in warnings(odd, llm=True, meaning=True)] == [
        "examples given for topics neither included nor excluded",
        "examples for a memory bank are not used (a bank has its own description)",
    ]
    # the answer, read back and put again, is a valid configuration (its warnings are not part of it)
    answer = ConfigAnswer(**config.model_dump(), warnings=[INSTRUCTIONS_NEED_AN_LLM])
    assert TenantConfig.model_validate(answer.model_dump()) == config


def test_a_topic_known_by_other_words_in_brackets_is_cut_by_any_of_them() -> None:
    # a request to forget "my daughter" left "Isla starts school on Monday" stored: the name is the topic too
    screen = PolicyScreen(MemoryPolicy(exclude=["daughter (Isla, Izzy)"]))
    assert redacted(screen, "Isla starts school on Monday, and I live in York")[0] == "I live in York"
    assert redacted(screen, "Izzy loves swimming")[0] == ""
    assert redacted(screen, "Islands are lovely in June")[0] == "Islands are lovely in June"  # whole words only


def test_what_the_same_message_said_of_an_excluded_clause_goes_with_it_and_nothing_else() -> None:
    def memory(text: str, task: str) -> Fact:
        return Fact(tenant_id="t", user_id="u", text=text, source=MemorySource(task_id=task, message_index=0))

    said = memory("I live in Leeds and we're buying a flat in Hackney", "t1")
    hackney, leeds = memory("Lives in Hackney", "t1"), memory("Lives in Leeds", "t1")
    elsewhere = memory("Hackney", "t2")
    screen = PolicyScreen(MemoryPolicy(exclude=["flat"]))
    assert screen.said_with([said], [hackney, leeds, elsewhere]) == [hackney]


# --- the real embedder on the labelled set -----------------------------------------------------------------
@cache
def minilm() -> TopicMeaning:
    from engram.adapters.onnx.embedder import OnnxEmbedder
    from engram.adapters.recent_embeddings import RecentEmbeddings

    return TopicMeaning(RecentEmbeddings(OnnxEmbedder(), size=2_048))


def labelled() -> list[tuple[str, set[str]]]:
    """Issue 33's 124 clauses (the set's first; bench/data/policy_clauses_build.py keeps them): what this
    guarantee was measured on. The whole set's rates per bank and topic are the bench's (docs/policy.md)."""
    from bench.data.policy_clauses_build import KEPT
    from bench.parts.policy_leaks import DATA

    data = json.loads(DATA.read_text(encoding="utf-8"))
    return [(c["text"], set(c["about"])) for c in data["clauses"][:KEPT]]


def test_with_minilm_no_health_clause_of_the_labelled_set_is_kept_and_few_others_are_cut() -> None:
    health = PolicyScreen(MemoryPolicy(exclude=["Health"]), minilm())
    leaked, cut, others = [], 0, 0
    for text, about in labelled():
        stored = redacted(health, text)[0]
        if "Health" in about:
            leaked += [text] if stored else []
        else:
            others += 1
            cut += not stored
    assert leaked == []
    assert cut / others <= 0.10, f"{cut} of {others} clauses about other things cut"


@pytest.mark.parametrize(
    ("said", "kept"),
    [
        (
            "My doc upped my dose again, anyway the new flat in Porto is lovely",
            "anyway the new flat in Porto is lovely",
        ),
        ("Been seeing a counsellor since the divorce. We're off to Crete in May!", "We're off to Crete in May!"),
        ("i take metformin twice a day and i coach my son's football team", "i coach my son's football team"),
    ],
)
def test_with_minilm_health_in_a_persons_own_words_is_cut_from_a_mixed_message(said: str, kept: str) -> None:
    assert redacted(PolicyScreen(MemoryPolicy(exclude=["Health"]), minilm()), said)[0] == kept


@pytest.mark.parametrize(
    ("excluded", "said"),
    [
        ("Relationships", "my father-in-law has lung cancer"),
        ("Relationships", "my sister is in hospital after a car accident"),
        ("Health", "my dad can't walk since the stroke"),
        ("Health", "I'm caring for my mother who has Alzheimer's"),
    ],
)
def test_with_minilm_a_clause_is_cut_for_its_second_bank_too(excluded: str, said: str) -> None:
    # a relative's illness is nearest Health or Relationships and about both: the best single cosine left
    # the other bank too far behind; the mean of each bank's nearest statements reads it near both
    assert redacted(PolicyScreen(MemoryPolicy(exclude=[excluded]), minilm()), said)[0] == ""


@pytest.mark.parametrize("said", ["I live in Edinburgh", "I go to a climbing gym on tuesdays"])
def test_with_minilm_excluding_relationships_keeps_a_clause_about_no_one(said: str) -> None:
    assert redacted(PolicyScreen(MemoryPolicy(exclude=["Relationships"]), minilm()), said)[0] == said


@pytest.mark.parametrize(
    ("topic", "about", "other"),
    [
        ("medical", "my GP started me on statins", "I go running every morning"),
        ("medical", "the nurse took my blood pressure", "I'm a carpenter"),
        ("mental health", "my therapist says I'm doing better", "I coach a kids' football team"),
    ],
)
def test_with_minilm_a_topic_inside_a_bank_is_not_outweighed_by_that_bank(topic: str, about: str, other: str) -> None:
    # "medical" lies in Health: a clause reading nearest Health is more likely about it, not less; measured
    # against Health itself these clauses read "Health, not medical" and were kept against the person's request
    policy = PolicyScreen(MemoryPolicy(exclude=[topic]), minilm())
    assert redacted(policy, about)[0] == ""
    assert redacted(policy, other)[0] == other


@pytest.mark.parametrize(
    ("topic", "examples", "about", "same_shape"),
    [
        (
            "politics",
            ["I went to a protest"],
            "I went to the climate march on Saturday",
            "we went to the zoo on Saturday",
        ),
    ],
)
def test_with_minilm_a_free_topic_is_read_by_contrast_not_by_the_shape_of_its_examples(
    topic: str, examples: list[str], about: str, same_shape: str
) -> None:
    # MiniLM puts sentences of one shape near each other whatever they are about: a tenant's short example
    # ("I went to a protest") must not cut every "I went to ..." clause
    policy = PolicyScreen(MemoryPolicy(exclude=[topic], examples={topic: examples}), minilm())
    assert redacted(policy, about)[0] == ""
    assert redacted(policy, same_shape)[0] == same_shape


def test_the_bench_figures_are_those_of_the_thresholds_in_use() -> None:
    # The banks' rules are an earlier choice of the bench, kept: refitted on exact int8 arithmetic they run to the
    # grid's edge and leak (docs/policy.md); the bench reports its fit beside them (`chosen`, `in_use_is_chosen`).
    from bench.parts.policy_leaks import _plain
    from bench.report.report import RESULTS

    results = json.loads((RESULTS / "policy_screen.json").read_text(encoding="utf-8"))
    assert results["in_use"] == _plain(THRESHOLDS)


@pytest.mark.parametrize(
    ("topic", "about", "other"),
    [
        ("career", "I'm hoping to make partner at the law firm next year", "My sister got married in June"),
        ("exercise", "I do a spin class three mornings a week", "my cousin lives in Dublin"),
        ("my meds", "the GP switched me to a stronger painkiller", "I'm going to Lisbon in May"),
    ],
)
def test_with_minilm_a_topic_named_without_examples_is_read_by_what_people_say_of_it(
    topic: str, about: str, other: str
) -> None:
    # what a person asks in chat not to be remembered comes with no examples: its name alone missed these
    policy = PolicyScreen(MemoryPolicy(exclude=[topic]), minilm())
    assert redacted(policy, about)[0] == ""
    assert redacted(policy, other)[0] == other


@pytest.mark.parametrize(
    ("topic", "about", "look_alike"),
    [
        # the catalogue's politics statements spoke of an immigration law, of being left-wing and of party
        # membership: a clause about a residence permit, a left hand or a club was cut as politics
        ("politics", "I'm canvassing for the Greens this weekend", "my residence permit came through at last"),
        ("politics", "I always vote for the socialists", "I'm left-handed, so scissors are a pain"),
        ("politics", "I'm canvassing for the Greens this weekend", "I'm a member of the chess club"),
        # read by its best cosine against the nearest bank's, "I am afraid of being deported" made a fear of
        # spiders an immigration status
        ("immigration status", "my work permit runs out in June", "I'm afraid of spiders"),
        ("politics", "I'm canvassing for the Greens this weekend", "I'm learning to paint"),
    ],
)
def test_with_minilm_a_catalogue_topic_keeps_a_clause_that_shares_only_a_word_or_a_shape_with_it(
    topic: str, about: str, look_alike: str
) -> None:
    policy = PolicyScreen(MemoryPolicy(exclude=[topic]), minilm())
    assert redacted(policy, about)[0] == ""
    assert redacted(policy, look_alike)[0] == look_alike


@pytest.mark.parametrize(
    "said",
    [
        "I'm on a spouse visa while my papers are processed",
        "I'm bisexual and my friends all know",
        "I'm gay, my family has known for years",
    ],
)
def test_with_minilm_excluding_personal_cuts_who_the_person_is_by_residence_and_orientation(said: str) -> None:
    # Personal's statements said nothing of a person's right to live where they do or of whom they love: these
    # read nearer other banks and were stored under exclude: ["Personal"]
    assert redacted(PolicyScreen(MemoryPolicy(exclude=["Personal"]), minilm()), said)[0] == ""


def test_a_catalogue_topic_reads_the_statements_of_the_topics_it_takes_in() -> None:
    from engram.pipeline.topic_meaning import catalogue_examples

    legal, immigration = set(catalogue_examples("legal matters")), set(catalogue_examples("immigration status"))
    assert immigration and immigration <= legal
    assert not legal <= immigration  # one way: a court case is no immigration status


@pytest.mark.parametrize("said", ["my work permit runs out in June", "I have a spouse visa and it needs renewing soon"])
def test_with_minilm_excluding_legal_matters_cuts_an_immigration_status(said: str) -> None:
    assert redacted(PolicyScreen(MemoryPolicy(exclude=["legal matters"]), minilm()), said)[0] == ""
