"""Which aspect of the person a clause speaks of, decided by meaning, and the value it gives it.

An aspect (home, employer, job, partner, pets, allergies, diet, plans) is described by a handful of
plain statements about it; a clause is compared with them by the local embedder, and with
statements about nothing in particular (meals, weather, moods, other people). It is read as that
aspect when its best aspect statement is close enough and clearly closer than anything else, and
the aspect's value (a place, an organisation, a name, ...) is then lifted from its words with the
linear-time text tools of offline/values.py. No value, no reading: precision before recall.

Single-valued aspects (home, employer, job, partner, diet) hold one value at a time, so a newer
statement of another value replaces the older (pipeline/supersede.py); multi-valued ones (pets,
allergies, plans) gather values, so a second pet is not a replacement of the first.
"""

from __future__ import annotations

import re
from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from engram.domain.models import Fact, MemoryBank
from engram.domain.ports import Embedder
from engram.domain.steps import CandidateFact
from engram.rules import values
from engram.rules.keys import family_of
from engram.rules.shorthand import expand
from engram.rules.vocab import ANIMALS, SINGLE_RELATIONS
from engram.text.clauses import is_hypothetical, is_question, is_small_talk, split_clauses, split_sentences


@dataclass(frozen=True)
class Aspect:
    name: str
    single: bool  # one value at a time: a new value replaces the old
    lift: Callable[[str], str | None]
    examples: tuple[str, ...]  # what people say about it, in several registers
    query: str  # the question a user would ask about it (also how older statements of it are found)


def _partner_name(clause: str) -> str | None:
    return values.name(clause)


def _pet_name(clause: str) -> str | None:
    return values.name(clause) if values.animal(clause) or re.search(r"\bpet\b", clause, re.I) else None


ASPECTS: tuple[Aspect, ...] = (
    Aspect(
        "home",
        True,
        values.home_place,
        (
            "I live in this city",
            "my flat is in this town",
            "I moved to a new city",
            "my apartment here in the city",
            "we just relocated to another town",
            "the commute from my place in town",
            "our house in the suburbs of the city",
            "I'm based in this city now",
            "finally made the move to a new city",
            "relocated for work to another city",
            "living in this town has been great",
            "my place in the city has a great view",
        ),
        "where do I live?",
    ),
    Aspect(
        "employer",
        True,
        values.organisation,
        (
            "I work at this company",
            "I started a new job at a firm",
            "the company I work for",
            "I got hired by a company",
            "my employer is a big corporation",
            "I joined a startup",
            "I'm at a new company now",
            "been at the company for years",
            "started at the firm on monday",
            "employed at a company",
            "switched jobs to another company",
            "I'm with a new firm now",
        ),
        "which company do I work for?",
    ),
    Aspect(
        "job",
        True,
        values.job_title,
        (
            "I work as a nurse",
            "my job is being an engineer",
            "I'm a teacher now",
            "I'm a barista at a little cafe",
            "I'm a nurse at the hospital",
            "I became a lawyer",
            "my profession",
        ),
        "what is my job?",
    ),
    Aspect(
        "partner",
        True,
        _partner_name,
        (
            "my boyfriend",
            "my girlfriend and I",
            "my wife said",
            "my husband is",
            "my partner and I are together",
            "I'm dating someone new",
        ),
        "who is my partner?",
    ),
    Aspect(
        "pets",
        False,
        _pet_name,
        (
            "my dog",
            "we adopted a cat",
            "our new puppy",
            "I have a pet rabbit",
            "my kitten is called",
        ),
        "what pets do I have?",
    ),
    Aspect(
        "allergy",
        False,
        values.allergen,
        (
            "I'm allergic to peanuts",
            "shellfish makes me swell up",
            "I have a food allergy",
            "never give me anything with nuts, I react badly",
            "I can't eat gluten, it makes me sick",
        ),
        "what am I allergic to?",
    ),
    Aspect(
        "diet",
        True,
        values.diet,
        (
            "I'm vegetarian",
            "I went vegan",
            "I don't eat meat anymore",
            "my diet is plant based",
        ),
        "what diet do I follow?",
    ),
    Aspect(
        "plans",
        False,
        values.trip_place,
        (
            "I'm going on a trip to a country",
            "we're flying somewhere for our holiday",
            "our vacation next month",
            "I'm visiting a city in the summer",
            "we booked a trip abroad",
        ),
        "where am I travelling?",
    ),
)
BY_NAME = {a.name: a for a in ASPECTS}

# Statements about no aspect: a clause closer to these than to any aspect is not read.
OTHER = (
    "I had pasta for lunch",
    "the weather is awful today",
    "I'm so tired this week",
    "the meeting ran late",
    "I watched a movie last night",
    "I feel stressed about work",
    "I love cooking dinner",
    "that restaurant was great",
    "thanks for the help",
)

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
    table = {"location": "home", "employer": "employer", "job_title": "job", "diet": "diet", "pet": "pets"}
    if family in table:
        return table[family]
    if family == "family" and relation in SINGLE_RELATIONS - {"mother", "father"}:
        return "partner"
    if family == "health" and "allerg" in k:
        return "allergy"
    if family == "trip":
        return "plans"
    return None


class AspectReader:
    """Reads clauses for aspects by meaning (one embedder call per batch of unread clauses)."""

    def __init__(self, embedder: Embedder, threshold: float = THRESHOLD, margin: float = MARGIN) -> None:
        self.embedder = embedder
        self.threshold = threshold
        self.margin = margin
        self._examples: np.ndarray | None = None
        self._owners: list[str | None] = []  # the aspect of each example vector (None: OTHER)
        self._cache: OrderedDict[str, tuple[Reading, ...]] = OrderedDict()
        self._queries: dict[str, list[float]] = {}

    def _prototypes(self) -> np.ndarray:
        if self._examples is None:
            texts = [e for a in ASPECTS for e in a.examples] + list(OTHER)
            self._owners = [a.name for a in ASPECTS for _ in a.examples] + [None] * len(OTHER)
            self._examples = np.asarray(self.embedder.embed(texts), dtype=np.float32)
        return self._examples

    def query_vector(self, aspect: str) -> list[float]:
        if aspect not in self._queries:
            self._queries[aspect] = self.embedder.embed([BY_NAME[aspect].query])[0]
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
            # Shorthand is read as said in full ("my gf is called ana" -> "my girlfriend is called Ana").
            windows = {
                t: _with_heads([w for w in _windows(expand(t)) if _some_value(w[1]) or _some_value(w[2])])
                for t in unread
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
                self._remember(text, tuple(best.values()))
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
            aspect = BY_NAME[name]
            if not _speaks_of_self(aspect, clause) or (aspect.name == "home" and _away(clause, sentence)):
                continue
            value = aspect.lift(clause) or (aspect.lift(sentence) if sentence else None)
            if value:
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


def _some_value(text: str) -> bool:
    return any(aspect.lift(text) for aspect in ASPECTS)


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


def _with_heads(windows: list[tuple[int, str, str]]) -> list[tuple[int, str, str]]:
    """The windows and, for each, the heads of it that end at a value it gives ("my girlfriend Maya"
    of "my girlfriend Maya thinks I drink too much coffee", "I'm with Roche" of "I'm with Roche in
    Basel now"): a value said in passing is stated by the words that lead to it, and the rest of a
    clause (what the partner thinks, how the lab is) would only blur its meaning."""
    out = list(windows)
    seen = {w for _, _, w in windows}
    for sentence, whole, window in windows:
        for head in _heads(window):
            if head not in seen:
                seen.add(head)
                out.append((sentence, whole, head))
    return out


def _heads(window: str) -> list[str]:
    heads: list[str] = []
    for aspect in ASPECTS:
        value = aspect.lift(window)
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
    if aspect.name == "allergy":  # "peanuts make me swell up so never suggest satay": denial is the point
        return bool(_FIRST.search(clause)) and not re.search(r"\b(?:no\s+longer|anymore|outgrew)\b", clause, re.I)
    if _NOT_NOW.search(clause):
        return False
    if aspect.name in ("partner", "pets") and _OWNED_BY_OTHER.search(clause):
        return False
    if aspect.name == "partner":
        return bool(_PARTNER_WORDS.search(clause))
    if aspect.name == "pets":
        return True  # a pet is named after its animal ("our dog Max"): the name cue needs the animal word
    # "my husband Raj works at Infosys" speaks of the husband; "my husband Raj and I live in Pune" of both.
    return not (_OTHERS.search(clause) or _PARTNER_WORDS.search(clause)) or bool(_WITH_ME.search(clause))


def aspect_of_fact(fact: Fact | CandidateFact, readings: tuple[Reading, ...]) -> list[tuple[str, str]]:
    """(aspect, value) pairs a memory states: its key's when it has one, else what its clauses read."""
    aspect = key_aspect(fact.fact_key)
    if aspect is not None and fact.fact_value:
        return [(aspect, fact.fact_value)]
    return [(r.aspect.name, r.value) for r in readings]


# What a reading becomes as a fact: text, key and bank, in the rules' vocabulary (offline/rules_*.py).
def as_candidate(reading: Reading, message_index: int) -> CandidateFact:
    v = reading.value
    name = reading.aspect.name
    if name == "home":
        text, key, bank = f"Lives in {v}", "location", MemoryBank.PERSONAL
    elif name == "employer":
        text, key, bank = f"Works at {v}", "employer", MemoryBank.WORK
    elif name == "job":
        text, key, bank = f"Works as {_article(v)} {v}", "job_title", MemoryBank.WORK
    elif name == "partner":
        relation = _relation(reading.clause)
        text, key, bank = f"Has a {relation} named {v}", f"family:{relation}", MemoryBank.RELATIONSHIPS
    elif name == "pets":
        kind = values.animal(reading.clause) or "pet"
        text, key, bank = f"Has a {kind} named {v}", f"pet:{kind}:{v}", MemoryBank.PERSONAL
    elif name == "allergy":
        text, key, bank = f"Allergic to {v}", f"health:{v} allergy", MemoryBank.HEALTH
    elif name == "diet":
        text, key, bank = f"Is {v}", "diet", MemoryBank.HEALTH
    else:
        text, key, bank = f"Is planning a trip to {v}", f"trip:{v.lower()}", MemoryBank.PERSONAL
    return CandidateFact(
        text=text, fact_key=key, fact_value=v, memory_bank=bank, importance=0.7, message_index=message_index
    )


def _article(word: str) -> str:
    return "an" if word[:1].lower() in "aeiou" else "a"


def _relation(clause: str) -> str:
    found = _PARTNER_WORDS.search(clause)
    word = found.group(0).lower() if found else "partner"
    word = "partner" if word in ("dating", "seeing someone") else word
    short = {"bf": "boyfriend", "gf": "girlfriend", "hubby": "husband", "missus": "wife"}
    return short.get(word, word.replace("é", "e"))
