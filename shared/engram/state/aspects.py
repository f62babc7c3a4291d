"""Which aspect of the person a clause speaks of, decided by meaning, and the value it gives it.

The aspects are data: state/catalogue.json holds one entry per aspect (home, employer, job, partner,
pets, allergy, diet, plans, and attributes such as phone, car, manager, electricity supplier), each
with a handful of plain statements about it, the kind of value it holds, whether it holds one value at
a time, its question, and the fact a reading becomes. Adding an aspect is adding an entry. A clause is
compared by the local embedder with the entries' statements, and with statements about nothing in
particular (meals, weather, moods). It is read as an aspect when its best statement is close enough
and clearly closer than anything else, and the aspect's value (a place, an organisation, a name, a
product, ...) is then lifted from its words with the linear-time text tools of rules/values.py. No
value, no reading: precision before recall.

Single-valued aspects (home, employer, job, partner, diet, phone, ...) hold one value at a time, so a
newer statement of another value replaces the older (state/supersede.py); multi-valued ones (pets,
allergies, plans) gather values, so a second pet is not a replacement of the first.
"""

from __future__ import annotations

import json
import re
from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from engram.domain.models import Fact, MemoryBank
from engram.domain.ports import Embedder
from engram.domain.steps import CandidateFact
from engram.rules import values
from engram.rules.keys import family_of
from engram.rules.shorthand import expand
from engram.rules.vocab import ANIMALS, SINGLE_RELATIONS
from engram.state.open_reading import named_parts
from engram.text.clauses import is_hypothetical, is_question, is_small_talk, split_clauses, split_sentences
from engram.text.match import values_match


@dataclass(frozen=True)
class Aspect:
    name: str
    single: bool  # one value at a time: a new value replaces the old
    kind: str  # the kind of value (a key of VALUE_KINDS)
    examples: tuple[str, ...]  # what people say about it, in several registers
    query: str  # the question a user would ask about it (also how older statements of it are found)
    fact: str  # the fact a reading becomes, e.g. "Lives in {value}"
    key: str  # its key, e.g. "location", "pet:{animal}:{value}"
    bank: MemoryBank
    words: re.Pattern[str] | None = None  # one of these must be in the sentence ("phone", "mobile", ...)
    terms: tuple[str, ...] = ()  # those words and its "nouns": what people name it by (state/attributes.py)

    def lift(self, clause: str) -> str | None:
        return VALUE_KINDS[self.kind](clause)


def _partner_name(clause: str) -> str | None:
    return values.name(clause)


def _pet_name(clause: str) -> str | None:
    return values.name(clause) if values.animal(clause) or re.search(r"\bpet\b", clause, re.I) else None


# How each kind of value is lifted from a clause (rules/values.py). The catalogue names one per aspect.
VALUE_KINDS: dict[str, Callable[[str], str | None]] = {
    "home": values.home_place,
    "organisation": values.organisation,
    "job_title": values.job_title,
    "partner": _partner_name,
    "pet": _pet_name,
    "allergen": values.allergen,
    "diet": values.diet,
    "trip": values.trip_place,
    "product": values.product,
    "person": values.person,
    "provider": values.provider,
}
CATALOGUE = Path(__file__).with_name("catalogue.json")


def load_catalogue(path: Path = CATALOGUE) -> tuple[tuple[Aspect, ...], tuple[str, ...]]:
    """The aspects of the catalogue, and its statements about nothing in particular. An entry naming a
    kind of value there is no lifting for is refused here, at start, not met on a user's message."""
    data = json.loads(path.read_text(encoding="utf-8"))
    aspects = []
    for entry in data["aspects"]:
        if entry["value"] not in VALUE_KINDS:
            raise ValueError(f"catalogue aspect {entry['name']!r}: no value kind {entry['value']!r}")
        aspects.append(
            Aspect(
                name=entry["name"],
                single=bool(entry["single"]),
                kind=entry["value"],
                examples=tuple(entry["examples"]),
                query=entry["question"],
                fact=entry["fact"],
                key=entry["key"],
                bank=MemoryBank(entry["bank"]),
                words=_any_word(entry.get("words", ())),
                terms=tuple(w.lower() for w in [*entry.get("words", ()), *entry.get("nouns", ())]),
            )
        )
    return tuple(aspects), tuple(data["nothing"])


def _any_word(words: Sequence[str]) -> re.Pattern[str] | None:
    if not words:
        return None
    return re.compile(r"(?<!\w)(?:" + "|".join(re.escape(w) for w in words) + r")(?!\w)", re.I)


# Statements about no aspect (OTHER): a clause closer to these than to any aspect is not read.
ASPECTS, OTHER = load_catalogue()
BY_NAME = {a.name: a for a in ASPECTS}
# Keys that name one aspect whole ("location", "phone"); keys with fields ("pet:{animal}:{value}") are
# matched by their family in key_aspect.
_FIXED_KEYS = {a.key: a.name for a in ASPECTS if "{" not in a.key}

THRESHOLD = 0.38  # cosine of a clause to its aspect's closest statement (chosen on the bench's tuning thirds)
MARGIN = 0.04  # over the closest statement of anything else
WHOLE_WORDS = 25  # a sentence this short is read whole too ("switched jobs, I'm at Spotify now")
CACHE = 4096  # clause readings kept (the same messages are read at add and again as neighbours)

# The clause speaks of the person (first person), not only of someone else ("my sister lives in ...").
_FIRST = re.compile(r"\b(?:i|i'm|im|i've|ive|i'd|me|my|mine|we|we're|we've|our|ours|us)\b", re.I)
_OTHERS = re.compile(
    r"\b(?:sister|brother|mum|mom|mother|dad|father|parents|friend|friends|colleague|coworker|boss|son|daughter|"
    r"cousin|aunt|uncle|grandma|grandpa|neighbou?r|roommate|flatmate|he|she|they|his|her|their)\b",
    re.I,
)
# Past, hedged, sought or denied: "used to live in", "might move to", "interviewed at Google", "not at Google
# anymore" say no current value.
_NOT_NOW = re.compile(
    r"\b(?:used\s+to|grew\s+up|born|was\s+living|lived|previously|formerly|former|ex|before\s+that|back\s+when|"
    r"might|maybe|perhaps|thinking\s+(?:about|of)|considering|would|could|should|hope|hoping|wish|someday|"
    r"if|unless|not|n't|never|no\s+longer|anymore|quit|left|leaving|fired|laid\s+off|broke\s+up|dumped|split|"
    r"originally|hometown|i'?m\s+from|come\s+from|comes\s+from|"
    r"passed\s+away|died|interview\w*|applied|applying)\b",
    re.I,
)
_PARTNER_WORDS = re.compile(
    r"\b(?:"
    + "|".join(sorted(SINGLE_RELATIONS - {"mother", "father"}))
    + r"|hubby|missus|bf|gf|dating|seeing\s+someone|fianc[eé]e?)\b",
    re.I,
)

# Someone else's partner or pet ("my sister's boyfriend Tom", "her dog Rex"): the relation word is owned by another.
_OWNED_BY_OTHER = re.compile(
    r"(?:['\u2019]s|\b(?:his|her|their))\s+(?:new\s+|old\s+|little\s+)?(?:"
    + "|".join(sorted(SINGLE_RELATIONS - {"mother", "father"}))
    + r"|hubby|missus|bf|gf|fianc[eé]e?|"
    + "|".join(sorted(ANIMALS, key=len, reverse=True))
    + r")s?\b",
    re.I,
)
# A person in a role of the person's ("my new manager", "our GP"), not of someone else's ("her boss").
_MY_ROLE = re.compile(rf"\b(?:my|our)\s+(?:new\s+|current\s+)?{values.ROLES}\b", re.I)
_ROLE_OF_OTHER = re.compile(rf"(?:['\u2019]s|\b(?:his|her|their))\s+(?:new\s+|current\s+)?{values.ROLES}\b", re.I)
# The person is one of a clause's subjects ("my partner Alex and I live in ...", "me and my sister moved to ...").
_WITH_ME = re.compile(r"\b(?:and\s+i|and\s+me|me\s+and|and\s+myself)\b", re.I)


# Memories are written in the third person ('User lives in Hamburg'); the examples above are what
# people say, so a memory is read in the first person ('I live in Hamburg').
_SUBJECT = re.compile(r"(?:the\s+)?user\b(?!')\s*", re.IGNORECASE)
_OWNER = re.compile(r"(?:the\s+)?user's\s+", re.IGNORECASE)
_ADVERB = re.compile(r"(?:now|currently|still|recently|just|also|finally)\s+", re.IGNORECASE)
_VERB = re.compile(r"([^\W\d_]+)\b", re.IGNORECASE)
# Verbs a memory without a subject starts with ("Lives in Leeds"); after "User" any -s verb counts.
_BARE_VERBS = frozenset("lives works has is owns studies teaches runs drives likes loves plays eats".split())
_IRREGULAR = {"is": "am", "has": "have", "does": "do", "was": "was"}
# A later verb of the same subject: "... and now works as a nurse" -> "... and I now work as a nurse".
_LATER = re.compile(
    r"\b(and|but)\s+((?:now|currently|still|also)\s+)?(" + "|".join(sorted(_BARE_VERBS)) + r")\b", re.IGNORECASE
)


@dataclass(frozen=True)
class Reading:
    aspect: Aspect
    value: str
    clause: str
    score: float


def key_aspect(key: str | None) -> str | None:
    """The aspect a fact key of the rules (or an LLM) belongs to."""
    if not key:
        return None
    k = key.lower()
    family = family_of(k)
    relation = k.split(":")[1] if ":" in k else ""
    if family in _FIXED_KEYS:
        return _FIXED_KEYS[family]
    if family == "colleague" and relation in _FIXED_KEYS:  # the rules' "colleague:manager:Tom"
        return _FIXED_KEYS[relation]
    if family == "pet":
        return "pets"
    if family == "family" and relation in SINGLE_RELATIONS - {"mother", "father"}:
        return "partner"
    if family == "health" and "allerg" in k:
        return "allergy"
    if family == "trip":
        return "plans"
    return None


class AspectReader:
    """Reads clauses for aspects by meaning (one embedder call per batch of unread clauses)."""

    def __init__(
        self,
        embedder: Embedder,
        threshold: float = THRESHOLD,
        margin: float = MARGIN,
        catalogue: tuple[tuple[Aspect, ...], tuple[str, ...]] = (ASPECTS, OTHER),
    ) -> None:
        self.embedder = embedder
        self.threshold = threshold
        self.margin = margin
        self.aspects, self.other = catalogue
        self.by_name = {a.name: a for a in self.aspects}
        self._lifts = tuple(VALUE_KINDS[k] for k in dict.fromkeys(a.kind for a in self.aspects))
        self._examples: np.ndarray | None = None
        self._owners: list[str | None] = []  # the aspect of each example vector (None: OTHER)
        self._cache: OrderedDict[str, tuple[Reading, ...]] = OrderedDict()
        self._queries: dict[str, list[float]] = {}

    def _prototypes(self) -> np.ndarray:
        if self._examples is None:
            texts = [e for a in self.aspects for e in a.examples] + list(self.other)
            self._owners = [a.name for a in self.aspects for _ in a.examples] + [None] * len(self.other)
            self._examples = np.asarray(self.embedder.embed(texts), dtype=np.float32)
        return self._examples

    def query_vector(self, aspect: str) -> list[float]:
        if aspect not in self._queries:
            self._queries[aspect] = self.embedder.embed([self.by_name[aspect].query])[0]
        return self._queries[aspect]

    def candidates(self, messages: Sequence[tuple[int, str]], read: Sequence[CandidateFact]) -> list[CandidateFact]:
        """Facts of the aspects the clauses of these (index, user message) pairs state that the facts
        already `read` from the same message do not cover."""
        covered = {(c.message_index, key_aspect(c.fact_key)) for c in read}
        out: list[CandidateFact] = []
        for (index, _), readings in zip(messages, self.read([text for _, text in messages]), strict=True):
            for reading in readings:
                if (index, reading.aspect.name) in covered:
                    continue
                covered.add((index, reading.aspect.name))
                out.append(as_candidate(reading, index))
        return out

    def read(self, texts: Sequence[str]) -> list[tuple[Reading, ...]]:
        """The readings of each text: per sentence, at most one per aspect (the window of it that
        reads as the aspect most clearly and gives it a value)."""
        unread = list(dict.fromkeys(t for t in texts if t not in self._cache))
        if unread:
            # Only windows that give some aspect a value are embedded: no value, no reading.
            # Shorthand is read as said in full ("my gf is called ana" -> "my girlfriend is called Ana"), and
            # a memory as the person would say it ("Drives a VW Golf" -> "I drive a VW Golf").
            lifts = self._lifts
            said = {t: _windows(expand(first_person(t))) for t in unread}
            # Each sentence and window is asked once whether it gives a value, not once per window of it.
            gives: dict[str, bool] = {}

            def some_value(text: str) -> bool:
                if text not in gives:
                    gives[text] = _some_value(text, lifts)
                return gives[text]

            windows = {
                t: _with_heads([w for w in said[t] if some_value(w[1]) or some_value(w[2])], lifts) for t in unread
            }
            flat = list(dict.fromkeys(w for t in unread for _, _, w in windows[t]))
            vectors = dict(zip(flat, self.embedder.embed([_for_meaning(w) for w in flat]), strict=True)) if flat else {}
            for text in unread:
                best: dict[tuple[int, str], Reading] = {}
                for sentence, whole, window in windows[text]:
                    for reading in self._classify(window, vectors[window], whole):
                        slot = (sentence, reading.aspect.name)
                        if slot not in best or reading.score > best[slot].score:
                            best[slot] = reading
                self._remember(text, _one_aspect_per_value(best))
        return [self._cache[t] if t in self._cache else () for t in texts]

    def single_values(self, memories: Sequence[str]) -> list[list[tuple[str, str]]]:
        """The single-valued aspects (with values) each memory's text states, read in the first person."""
        readings = self.read([first_person(t) for t in memories])
        return [[(r.aspect.name, r.value) for r in rs if r.aspect.single] for rs in readings]

    def _remember(self, text: str, readings: tuple[Reading, ...]) -> None:
        self._cache[text] = readings
        while len(self._cache) > CACHE:
            self._cache.popitem(last=False)

    def scores(self, vector: Sequence[float]) -> dict[str | None, float]:
        """The closeness of a clause to each aspect (its closest example) and to OTHER (None)."""
        examples = self._prototypes()  # sets the owners on first use
        cosines = examples @ np.asarray(vector, dtype=np.float32)
        best: dict[str | None, float] = {}
        for owner, score in zip(self._owners, cosines.tolist(), strict=True):
            best[owner] = max(best.get(owner, -1.0), score)
        return best

    def _classify(self, clause: str, vector: Sequence[float], sentence: str = "") -> list[Reading]:
        """Each aspect the clause is close to, above the threshold and clearly above anything else
        that is not an aspect, whose value the clause gives (or else its sentence: "I'm seeing
        someone new, his name is Daniel"). One clause may state two ("Started as a school nurse at
        St Anne's": a job and an employer)."""
        best = self.scores(vector)
        other = best.pop(None, -1.0)
        readings: list[Reading] = []
        for name, score in sorted(best.items(), key=lambda p: -p[1]):
            if name is None or score < self.threshold or score - other < self.margin:
                break
            aspect = self.by_name[name]
            if not _speaks_of_self(aspect, clause) or (aspect.name == "home" and _away(clause, sentence)):
                continue
            if aspect.words is not None and not aspect.words.search(sentence or clause):
                continue  # "this is Max!" names no car: the sentence must say what the aspect is about
            value = aspect.lift(clause)
            if not value and sentence and _speaks_of_self(aspect, sentence):  # the sentence's, of the person too
                value = aspect.lift(sentence)
            if value and not any(values_match(value, r.value) for r in readings):  # one value, one aspect
                readings.append(Reading(aspect, value, clause, score))
                readings.append(Reading(aspect, value, clause, score))
        return readings


def _away(clause: str, sentence: str) -> bool:
    """A stay, a visit or a work week told in the sentence ("I'm in Tokyo, here for a conference"):
    where the person is, not where they live, unless the clause tells a move that happened."""
    return values.stays(sentence or clause) and not values.moved_to(clause)


# The local embedder reads English: a word of another script ("Дарья", "美咲") tells it nothing but
# blurs the clause's meaning, so it is read as a plain name. Latin letters with accents are kept.
_WORDS = re.compile(r"\w+")
_PLAIN_NAME = "Alex"


def _for_meaning(window: str) -> str:
    return _WORDS.sub(lambda m: _PLAIN_NAME if _foreign(m.group(0)) else m.group(0), window)


def _foreign(word: str) -> bool:
    return any(ch.isalpha() and ord(ch) > 0x24F and not 0x1E00 <= ord(ch) <= 0x1EFF for ch in word)


def _one_aspect_per_value(best: dict[tuple[int, str], Reading]) -> tuple[Reading, ...]:
    """Per sentence, a value read as several aspects ("Pixel 9" as a phone and a laptop) is the one
    it reads as most clearly."""
    kept: dict[tuple[int, str], tuple[str, Reading]] = {}
    for (sentence, name), reading in best.items():
        slot = (sentence, reading.value.lower())
        if slot not in kept or reading.score > kept[slot][1].score:
            kept[slot] = (name, reading)
    return tuple(reading for _, reading in kept.values())


def first_person(text: str) -> str:
    """'User lives in Hamburg' -> 'I live in Hamburg'; "User's wife is Anna" -> 'My wife is Anna'."""
    stripped = text.strip()
    owner = _OWNER.match(stripped)
    if owner:
        return "My " + stripped[owner.end() :]
    subject = _SUBJECT.match(stripped)
    rest = stripped[subject.end() :] if subject else stripped
    adverb = _ADVERB.match(rest)
    lead = rest[: adverb.end()] if adverb else ""
    verb = _VERB.match(rest, len(lead))
    if verb is None:
        return stripped
    word = verb.group(1).lower()
    if subject is None and word not in _BARE_VERBS:
        return stripped
    tail = _LATER.sub(lambda m: f"{m.group(1)} {_said(m.group(2) or '', m.group(3))}", rest[verb.end() :])
    return _said(lead, word) + tail


def _said(lead: str, verb: str) -> str:
    """'I live', 'I now work'; 'I'm' as people say it ('I'm a nurse')."""
    phrase = f"I {lead.lower()}{_plain(verb)}"
    return "I'm" if phrase == "I am" else phrase


def _plain(verb: str) -> str:
    """The first-person form of a third-person verb ('lives' -> 'live')."""
    word = verb.lower()
    if word in _IRREGULAR:
        return _IRREGULAR[word]
    if word.endswith("ies") and len(word) > 4:
        return word[:-3] + "y"
    if word.endswith("s") and not word.endswith("ss") and len(word) > 3:
        return word[:-1]
    return word


Lift = Callable[[str], str | None]


def _some_value(text: str, lifts: Sequence[Lift]) -> bool:
    return any(lift(text) for lift in lifts)


# "and" joining the person to another ("me and my boyfriend Tom", "Omar and I") joins subjects: no segment there.
_SEGMENT = re.compile(
    r"\s*[,:]\s*|(?<!\bme)\s+and\s+(?!(?:i|me|myself)\b)|\s+(?:but|so|because|though|while|plus)\s+", re.I
)


def _windows(text: str) -> list[tuple[int, str, str]]:
    """(sentence number, sentence, text) of what is read: each clause that could state something of
    the person now, each segment of a long one, and a short sentence of several clauses whole."""
    out: list[tuple[int, str, str]] = []
    for number, sentence in enumerate(split_sentences(text)):
        if is_question(sentence) or is_hypothetical(sentence):
            continue
        whole = sentence.strip().rstrip(".!?")
        clauses = [c for c in split_clauses(sentence) if len(c.split()) >= 2 and not is_small_talk(c)]
        for clause in clauses:
            out.append((number, whole, clause))
            segments = [s.strip() for s in _SEGMENT.split(clause)]
            if len(segments) > 1:
                out += [(number, whole, s) for s in segments if len(s.split()) >= 2]
        # Several clauses, or the person joined to another subject that clause splitting cut off ("me and ...").
        several = len(clauses) > 1 or (bool(_WITH_ME.search(whole)) and whole not in clauses)
        if several and len(whole.split()) <= WHOLE_WORDS:
            out.append((number, whole, whole))
    return out


def _with_heads(windows: list[tuple[int, str, str]], lifts: Sequence[Lift]) -> list[tuple[int, str, str]]:
    """The windows and, for each, the heads of it that end at a value it gives ("my girlfriend Maya"
    of "my girlfriend Maya thinks I drink too much coffee", "I'm with Roche" of "I'm with Roche in
    Basel now"): a value said in passing is stated by the words that lead to it, and the rest of a
    clause (what the partner thinks, how the lab is) would only blur its meaning."""
    out = list(windows)
    seen = {w for _, _, w in windows}
    for sentence, whole, window in windows:
        for head in _heads(window, lifts):
            if head not in seen:
                seen.add(head)
                out.append((sentence, whole, head))
    return out


def _heads(window: str, lifts: Sequence[Lift]) -> list[str]:
    heads: list[str] = []
    for lift in lifts:
        value = lift(window)
        at = window.find(value) if value else -1
        if value is None or at < 0:
            continue
        head = window[: at + len(value)].strip()
        if head != window.strip() and len(head.split()) >= 2:
            heads.append(head)
    return heads


def _speaks_of_self(aspect: Aspect, clause: str) -> bool:
    """A user's message speaks of the user unless a clause names someone else ("my sister lives in
    ...") or says the value is past, hoped for or denied. People drop the subject ("been at Siemens
    three years", "same flat in Glasgow"), so the first person is not required."""
    if aspect.kind == "allergen":  # "peanuts make me swell up so never suggest satay": denial is the point
        return bool(_FIRST.search(clause)) and not re.search(r"\b(?:no\s+longer|anymore|outgrew)\b", clause, re.I)
    if _NOT_NOW.search(clause):
        return False
    if aspect.kind in ("partner", "pet") and _OWNED_BY_OTHER.search(clause):
        return False
    if aspect.kind == "partner":
        return bool(_PARTNER_WORDS.search(clause))
    if aspect.kind == "pet":
        return True  # a pet is named after its animal ("our dog Max"): the name cue needs the animal word
    if aspect.kind == "person":  # "my new manager is Priya": the person's own, not "her manager"
        return bool(_MY_ROLE.search(clause)) and not _ROLE_OF_OTHER.search(clause)
    if named_parts(clause):  # "Caroline moved to Austin", "..., Γιώργος moved back to Thessaloniki": theirs
        return False
    # "my husband Raj works at Infosys" speaks of the husband; "my husband Raj and I live in Pune" of both.
    return not (_OTHERS.search(clause) or _PARTNER_WORDS.search(clause)) or bool(_WITH_ME.search(clause))


def aspect_of_fact(fact: Fact | CandidateFact, readings: tuple[Reading, ...]) -> list[tuple[str, str]]:
    """(aspect, value) pairs a memory states: its key's when it has one, else what its clauses read."""
    aspect = key_aspect(fact.fact_key)
    if aspect is not None and fact.fact_value:
        return [(aspect, fact.fact_value)]
    return [(r.aspect.name, r.value) for r in readings]


# What a reading becomes as a fact: text, key and bank from the catalogue, in the rules' key vocabulary.
def as_candidate(reading: Reading, message_index: int) -> CandidateFact:
    v = reading.value
    aspect = reading.aspect
    fields = {
        "value": v,
        "value_lower": v.lower(),
        "article": _article(v),
        "relation": _relation(reading.clause) if aspect.kind == "partner" else "",
        "animal": (values.animal(reading.clause) or "pet") if aspect.kind == "pet" else "",
    }
    return CandidateFact(
        text=aspect.fact.format(**fields),
        fact_key=aspect.key.format(**fields),
        fact_value=v,
        memory_bank=aspect.bank,
        importance=0.7,
        message_index=message_index,
    )


def _article(word: str) -> str:
    return "an" if word[:1].lower() in "aeiou" else "a"


def _relation(clause: str) -> str:
    found = _PARTNER_WORDS.search(clause)
    word = found.group(0).lower() if found else "partner"
    word = "partner" if word in ("dating", "seeing someone") else word
    short = {"bf": "boyfriend", "gf": "girlfriend", "hubby": "husband", "missus": "wife"}
    return short.get(word, word.replace("é", "e"))
