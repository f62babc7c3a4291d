"""Relations between other people and places without an LLM: the common third-person sentence shapes.

A sentence is a subject, then one or more predicates joined by "and"/"but":
  subject    "Maren" | "My sister(,) Maren(,)" | "Maren, my sister," | "Tom's sister(,) Anna" |
             "Tom's sister" (an unnamed person, kept under that name) | "my brother's wife Anna" (the
             user's sister-in-law) | "My aunt Mary's son Paul" | "She"/"He" (the last person named in
             the message) | "Her husband Tom"
  predicate  adverbs ("now", "recently", "still", ...) then a verb phrase ("lives in", "moved to",
             "works at/for", "studies at", "was born in", "loves", "is a <job>") and its object, then
             "as a <job>" and a trailing time ("now", "last year").
Questions are skipped. Every pattern is anchored where the previous one ended and a sentence longer
than MAX_SENTENCE is not read, so the work is linear in the message's length."""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field

from engram.domain.graph import USER_ENTITY_TYPE, Triple
from engram.domain.models import Message
from engram.rules.vocab import OCCUPATIONS, RELATIONS
from engram.text.letters import CAPITAL, LETTER

USER = "user"  # stands for the user's own entity until resolution maps it to the user id
MAX_SENTENCE = 300

_IN_LAW = r"(?:brother|sister|mother|father|son|daughter)-in-law"
_REL = "|".join([_IN_LAW, *sorted((re.escape(w) for w in RELATIONS), key=len, reverse=True)])
# Names and objects of any script ("Łucja", "Škoda", "Дарья"), each word starting as a name does.
_WORD = rf"(?:(?:Mr|Mrs|Ms|Dr)\.\s+)?{CAPITAL}[\w-]*(?:'{CAPITAL}[\w-]*)?"  # "O'Brien", not "Tom's"
_NAME = rf"{_WORD}(?:\s+{CAPITAL}[\w-]*)*"
_OBJ = rf"{CAPITAL}[\w.&-]*(?:'s)?(?:\s+(?:of\s+|de\s+)?{CAPITAL}[\w.&-]*)*"
_NOT_SUBJECTS = frozenset(
    "I We You They It The This That These Those There Here Nobody Everyone Someone Somebody Everybody "
    "What Who Where When Why How Yesterday Today Tomorrow Tell Please Maybe Also And But So "
    "My Our Your His Her Their".split()
)

_S = r"\s*,?\s+"  # a space, or a comma and a space (appositions)
_SUBJECTS = [
    # My aunt Mary's son Paul
    ("chain", re.compile(rf"[Mm]y\s+(?P<rel>{_REL})\s+(?P<mid>{_NAME})'s\s+(?P<rel2>{_REL})\s+(?P<name>{_NAME})")),
    # my brother's wife(,) Anna(,)
    ("composed", re.compile(rf"[Mm]y\s+(?P<rel>{_REL})'s\s+(?P<rel2>{_REL}){_S}(?P<name>{_NAME})(?:\s*,)?")),
    # My sister(,) Maren(,)
    ("mine", re.compile(rf"[Mm]y\s+(?P<rel>{_REL}){_S}(?P<name>{_NAME})(?:\s*,)?")),
    # Her husband Tom
    ("theirs", re.compile(rf"(?:Her|His)\s+(?P<rel>{_REL}){_S}(?P<name>{_NAME})(?:\s*,)?")),
    # Tom's sister(,) Anna(,) / Tom's sister
    ("possessive", re.compile(rf"(?P<owner>{_NAME})'s\s+(?P<rel>{_REL})(?:{_S}(?P<name>{_NAME}))?(?:\s*,)?")),
    # Maren, my sister, / Giulia, Luca's wife,
    (
        "apposition",
        re.compile(rf"(?P<name>{_NAME}),\s+(?:[Mm]y\s+(?P<rel>{_REL})|(?P<owner>{_NAME})'s\s+(?P<rel2>{_REL})),"),
    ),
    ("pronoun", re.compile(r"(?:She|He)\b")),
    ("plain", re.compile(rf"(?P<name>{_NAME})")),
]
_RELATIVE = re.compile(r"\s*,?\s*who\s+[^,]{1,60},")  # "My aunt Rosa, who is lovely, lives in ..."

_ADVERBS = r"(?:(?:now|recently|still|currently|also|just|finally|already|actually|happily)\s+){0,3}"
_VERBS: list[tuple[str, str, str]] = [
    (r"(?:lives|is\s+living|resides|is\s+based|lived)\s+in", "lives_in", "place"),
    (r"(?:has\s+)?(?:moved|relocated)\s+to", "lives_in", "place"),
    (
        r"(?:(?:works|is\s+working|has\s+started\s+working|started\s+working)\s+(?:at|for)|(?:has\s+)?joined)",
        "works_at",
        "organization",
    ),
    (r"(?:studies|is\s+studying|studied)\s+at", "studies_at", "organization"),
    (r"was\s+born\s+in", "born_in", "place"),
    (r"is\s+(?:now\s+)?married\s+to", "spouse", "person"),
    (r"(?:loves|likes|enjoys|adores)", "likes", "thing"),
    (r"(?:hates|dislikes)", "dislikes", "thing"),
]
_PREDICATES = [
    (re.compile(rf"{_ADVERBS}(?P<neg>no\s+longer\s+)?{verb}\s+(?:the\s+)?(?P<obj>{_OBJ})"), rel, kind)
    for verb, rel, kind in _VERBS
]
_JOB = re.compile(rf"{_ADVERBS}(?:works\s+as|is)\s+an?\s+(?P<job>{LETTER}+(?:\s+{LETTER}+)?)")
_AS_JOB = re.compile(rf"\s+as\s+an?\s+(?P<job>{LETTER}+(?:\s+{LETTER}+)?)")
_TIME = re.compile(r"\s+(?:now|too|again|last\s+(?:year|month|week)|this\s+(?:year|month))\b")
_JOIN = re.compile(r"\s*,?\s+(?:and|but)\s+")
_SPACE = re.compile(r"\s+")
# Sentence ends, not the dot of "Mr. Okafor"; a question keeps its "?" and is not read.
_SENTENCES = re.compile(r"(?<![MD]r\.)(?<!Mrs\.)(?<!Ms\.)(?<=[.!?;])\s+|\n+")

# The user's relative of a relative: (my X)'s Y.
_PARTNERS = ("wife", "husband", "partner", "spouse")
_COMPOSED: dict[tuple[str, str], str] = {
    **{(p, r): f"{r}_in_law" for p in _PARTNERS for r in ("mother", "father", "sister", "brother")},
    **{(p, r): "aunt" if r == "sister" else "uncle" for p in ("mother", "father") for r in ("sister", "brother")},
    **{(p, r): f"grand{r}" for p in ("mother", "father") for r in ("mother", "father")},
    **{(p, r): "nephew" if r == "son" else "niece" for p in ("brother", "sister") for r in ("son", "daughter")},
    **{(p, r): f"grand{r}" for p in ("son", "daughter") for r in ("son", "daughter")},
    **{(p, r): "cousin" for p in ("aunt", "uncle") for r in ("son", "daughter", "child", "kid")},
    ("brother", "wife"): "sister_in_law",
    ("sister", "husband"): "brother_in_law",
    ("son", "wife"): "daughter_in_law",
    ("daughter", "husband"): "son_in_law",
}


def _relation(word: str) -> str:
    word = word.lower()
    return word.replace("-", "_") if word.endswith("-in-law") else RELATIONS[word][1]


def _link(source: str, relation: str, destination: str) -> Triple:
    kind = USER_ENTITY_TYPE if source == USER else "person"
    return Triple(
        source=source, source_type=kind, relation=relation, destination=destination, destination_type="person"
    )


@dataclass
class _Reader:
    """One message: the last person named, for "She"/"He"/"Her <relative>"."""

    last: str | None = None
    triples: list[Triple] = field(default_factory=list)

    def sentence(self, text: str) -> None:
        if len(text) > MAX_SENTENCE or text.endswith("?"):
            return
        text = text.rstrip(".!;").strip()
        found = self._subject(text)
        if found is None:
            return
        subject, links, end = found
        relative = _RELATIVE.match(text, end)
        end = relative.end() if relative else end
        said = list(self._predicates(subject, text, end))
        self.triples += said + links  # the sentence's own relations first, as before the shapes grew
        if links or said:  # "Paris is lovely. She ..." does not make Paris a she
            self.last = subject

    def _subject(self, text: str) -> tuple[str, list[Triple], int] | None:
        for shape, pattern in _SUBJECTS:
            m = pattern.match(text)
            if m is None:
                continue
            groups = m.groupdict()
            name = groups.get("name")
            if name in _NOT_SUBJECTS or (groups.get("owner") or "").split(" ")[0] in _NOT_SUBJECTS:
                continue
            if shape == "pronoun":
                return (self.last, [], m.end()) if self.last else None
            if shape == "plain":
                return (m["name"], [], m.end()) if m["name"].split()[0] not in _NOT_SUBJECTS else None
            rel = _relation(m["rel"]) if groups.get("rel") else None
            if shape == "chain":
                rel2 = _relation(m["rel2"])
                links = [_link(USER, rel or "", m["mid"]), _link(m["mid"], rel2, m["name"])]
                composed = _COMPOSED.get((rel or "", rel2))
                return m["name"], links + ([_link(USER, composed, m["name"])] if composed else []), m.end()
            if shape == "composed":
                composed = _COMPOSED.get((rel or "", _relation(m["rel2"])))
                return m["name"], [_link(USER, composed, m["name"])] if composed else [], m.end()
            if shape == "mine":
                return m["name"], [_link(USER, rel or "", m["name"])], m.end()
            if shape == "theirs":
                if self.last is None:
                    return None
                return m["name"], [_link(self.last, rel or "", m["name"])], m.end()
            if shape == "possessive":
                person = name or f"{m['owner']}'s {m['rel']}"
                return person, [_link(m["owner"], rel or "", person)], m.end()
            if shape == "apposition":
                if m["owner"]:
                    return m["name"], [_link(m["owner"], _relation(m["rel2"]), m["name"])], m.end()
                return m["name"], [_link(USER, rel or "", m["name"])], m.end()
        return None

    def _predicates(self, subject: str, text: str, at: int) -> Iterator[Triple]:
        """The subject's predicates, each where the one before ended ("... and works at ...")."""
        space = _SPACE.match(text, at)
        if space is None:
            return
        at = space.end()
        while True:
            found = self._predicate(subject, text, at)
            if found is None:
                return
            triples, at = found
            yield from triples
            time = _TIME.match(text, at)
            join = _JOIN.match(text, time.end() if time else at)
            if join is None:
                return
            at = join.end()

    def _predicate(self, subject: str, text: str, at: int) -> tuple[list[Triple], int] | None:
        for pattern, relation, kind in _PREDICATES:
            m = pattern.match(text, at)
            if m is None:
                continue
            triples = [
                Triple(
                    source=subject,
                    source_type="person",
                    relation=relation,
                    destination=m["obj"],
                    destination_type=kind,
                    negated=bool(m["neg"]),
                )
            ]
            end = m.end()
            job = _AS_JOB.match(text, end)
            if job is not None and _occupation(job["job"]):
                triples.append(_job(subject, _occupation(job["job"]) or ""))
                end = job.end()
            return triples, end
        m = _JOB.match(text, at)
        if m is not None and _occupation(m["job"]):
            return [_job(subject, _occupation(m["job"]) or "")], m.end()
        return None


def _occupation(words: str) -> str | None:
    """The job in "a software engineer" / "a doctor" (its last word a known occupation)."""
    parts = words.split()
    for n in (len(parts), 1):
        if parts[n - 1] in OCCUPATIONS:
            return " ".join(parts[:n])
    return None


def _job(subject: str, job: str) -> Triple:
    return Triple(source=subject, source_type="person", relation="works_as", destination=job, destination_type="job")


def third_person_triples(messages: Sequence[Message]) -> list[Triple]:
    """Relations the user's messages state about other people (and the user's links to them)."""
    triples: list[Triple] = []
    for message in messages:
        if message.role != "user":
            continue
        reader = _Reader()
        for sentence in _SENTENCES.split(message.content):
            reader.sentence(sentence.strip())
        triples += reader.triples
    return triples
