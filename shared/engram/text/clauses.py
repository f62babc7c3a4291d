"""Splitting a message into clauses, and cleaning the phrases the rules capture."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime
from functools import cached_property

from engram.text.letters import CAPITAL, LETTER, is_capital

# Whole clauses that carry no fact: greetings, thanks, acknowledgements, fillers.
SMALL_TALK = frozenset(
    """
    hi hello hey heya hiya howdy yo greetings thanks thank thx ty cheers ok okay k kk sure yes yeah
    yep yup no nope nah cool great nice awesome perfect alright fine good wow oh ah um uh hmm hm
    lol haha hahaha bye goodbye please sorry np welcome also and but so well anyway btw actually
    right indeed exactly true gotcha noted understood agreed done morning evening night afternoon
    """.split()
)
SMALL_TALK_PHRASES = (
    "thank you",
    "thanks a lot",
    "thank you so much",
    "thanks so much",
    "many thanks",
    "got it",
    "sounds good",
    "see you",
    "see ya",
    "talk later",
    "good morning",
    "good afternoon",
    "good evening",
    "good night",
    "nice to meet you",
    "how are you",
    "how are you doing",
    "how's it going",
    "what's up",
    "by the way",
    "no problem",
    "you're welcome",
    "makes sense",
    "that's great",
    "that's nice",
    "that's cool",
    "hi there",
    "hello there",
    "hey there",
    "of course",
    "all good",
    "i see",
    "have a nice day",
    "have a good day",
    "that helps",
    "that's helpful",
)


# Building blocks for the rule families (their patterns compile with IGNORECASE).
IM = r"(?:i'?m|i\s+am)"
IVE = r"(?:i'?ve|i\s+have)"
DONT = r"(?:don'?t|do\s+not)"
CANT = r"(?:can'?t|cannot|can\s+not)"
ANYMORE = r"(?:any\s?more|any\s+longer)"
ADV = (
    r"(?:(?:really|truly|absolutely|totally|just|do|genuinely|actually|also|still|quite|kind\s+of|kinda|"
    r"sort\s+of|definitely|seriously|honestly|so|deeply|simply|now|currently|recently|already|finally|"
    r"even|always|very|certainly|particularly|especially|very\s+much|pretty\s+much)\s+)*"
)


# The rules read clauses up to this long; longer run-on clauses are left to the LLM (or kept as said).
# With the splitting linear in the message, this bounds what any rule's pattern can cost per clause.
MAX_CLAUSE = 300


@dataclass(frozen=True)
class Clause:
    """One statement: cleaned text in its original casing, without terminal punctuation."""

    text: str
    lowercase: bool = False  # the whole message is lower case, so capitals prove nothing
    at: datetime | None = None  # when it was said: relative dates ("next week") resolve against it

    @cached_property
    def stripped(self) -> str:
        """The text without trailing fillers ("lol", "now", a time), worked out once: every rule that
        does not match the text tries it (a hundred rules per clause)."""
        return strip_trailing(self.text)


_QUOTES = str.maketrans({"\u2019": "'", "\u2018": "'", "\u02bc": "'", "\u201c": '"', "\u201d": '"'})
_SENTENCE_END = re.compile(r"(?<=[.!?;])\s+|\s*\n+\s*|\s+[-\u2013\u2014]+\s+")
_TITLE_ABBREV = re.compile(r"\b(?:dr|dra|mr|mrs|ms|st|prof|jr|sr|sra|srta|mme|mlle|dott|mt)\.$", re.I)
_DOTTED_ABBREV = re.compile(rf"\b(?:{LETTER}\.)+{LETTER}\.$|\b(?:etc|approx|vs)\.$", re.I)
_ABBREV_TAIL = 24  # "e.g.", "U.S.A.", "Prof.": abbreviations are short


def normalize(text: str) -> str:
    return re.sub(r"[ \t]+", " ", text.translate(_QUOTES)).strip()


def split_sentences(text: str) -> list[str]:
    """Sentences, keeping their end punctuation (a '?' marks a question)."""
    out: list[list[str]] = []  # each sentence as its pieces, joined once (joining as we go is quadratic)
    for raw in _SENTENCE_END.split(normalize(text)):
        piece = raw.strip()
        if not piece:
            continue
        # "Dr. Smith", "the U.S. now": a dot after an abbreviation does not end the sentence. Only the
        # previous piece's end is looked at, so a run of "Dr. Dr. Dr." stays linear.
        last = out[-1][-1][-_ABBREV_TAIL:] if out else ""
        if out and (_TITLE_ABBREV.search(last) or (_DOTTED_ABBREV.search(last) and piece[0].islower())):
            out[-1].append(piece)
        else:
            out.append([piece])
    return [" ".join(pieces) for pieces in out]


_LEAD = re.compile(
    r"^(?:(?:and|but|also|plus|so|then|oh|ah|well|um+|uh+|btw|by\s+the\s+way|anyway|actually|honestly|"
    r"to\s+be\s+honest|tbh|fyi|ps|p\.s\.|just\s+so\s+you\s+know|for\s+the\s+record|just\s+fyi|okay|ok|"
    r"yes|yeah|yep|hi|hello|hey|hiya|heya|howdy|greetings|good\s+(?:morning|afternoon|evening)|"
    r"right\s+now|these\s+days|nowadays|currently|at\s+the\s+moment|for\s+now|lately|"
    r"(?:please\s+)?(?:remember|note|keep\s+in\s+mind|don'?t\s+forget|do\s+not\s+forget|be\s+aware)\s+that"
    r")(?:\s+there)?\s*[,!:.-]?\s+|no\s*[,!.:]\s*)+",
    re.I,
)


def strip_lead(clause: str) -> str:
    """Drop greetings, fillers and 'remember that' in front of the statement itself."""
    return _LEAD.sub("", clause.strip()).strip()


_QUESTION_START = re.compile(
    r"^(?:(?:what|where|when|who|whom|whose|why|how|which)\b|"
    r"(?:do|does|did|is|are|am|was|were|can|could|would|will|should|shall|have|has|may|might|"
    r"isn'?t|aren'?t|don'?t|doesn'?t|didn'?t|won'?t|wouldn'?t|can'?t|couldn'?t)\s+"
    r"(?:you|i|we|they|he|she|it|my|your|the|this|that|there|anyone|someone)\b)",
    re.I,
)
_HYPOTHETICAL_START = re.compile(
    r"^(?:if|unless|suppose|supposing|imagine|assuming|what\s+if|hypothetically|in\s+theory|"
    r"let'?s\s+say|say|when|once|whenever)\b",
    re.I,
)


def is_question(sentence: str) -> bool:
    body = strip_lead(sentence)
    return body.rstrip().endswith("?") or bool(_QUESTION_START.match(body))


def is_hypothetical(sentence: str) -> bool:
    return bool(_HYPOTHETICAL_START.match(strip_lead(sentence)))


_EXTRA_SMALL_TALK = frozenset("much very a lot again there".split())
_PHRASES = tuple(f" {p} " for p in sorted(SMALL_TALK_PHRASES, key=len, reverse=True))


def is_small_talk(clause: str) -> bool:
    """True for greetings, thanks, acknowledgements, lone fillers ('Just so you know') and clauses
    with no words at all."""
    if _LEAD.fullmatch(clause.strip() + " "):
        return True
    text = " " + " ".join(re.sub(r"[^\w\s']", " ", clause.lower()).split()) + " "
    for phrase in _PHRASES:
        text = text.replace(phrase, " ")
    words = text.split()
    return all(w in SMALL_TALK or w in _EXTRA_SMALL_TALK for w in words) and not (
        words and all(w in _EXTRA_SMALL_TALK for w in words)
    )


_OPENER = re.compile(
    r"^(?:i|i'm|im|i've|i'd|i'll|my|we|we're|we've|remind|please|don'?t\s+let\s+me|do\s+not\s+let\s+me|"
    r"call\s+me|people\s+call|everyone\s+calls|home\s+is|set\s+a\s+reminder|(?:can|could|would|will)\s+you)\b",
    re.I,
)
# A verb with the subject "I" left out: "I live in Berlin and work at Google".
_BARE_VERB = re.compile(
    r"^(?:(?:also|really|just|recently|still|now)\s+)*(?:am|was|work|live|love|enjoy|hate|dislike|have|"
    r"moved|got|grew|started|prefer|adore|can'?t|don'?t|no\s+longer|stopped|left|joined|relocated)\s+\S",
    re.I,
)
_CONJ = re.compile(r"\s+(?:and\s+also|but\s+also|and|but|plus|so|while|whereas|although|though|because|since)\s+", re.I)
_FIRST_PERSON = re.compile(r"^(?:i|i'm|im|i've|we|we're|we've)\b", re.I)
_LOOK = 200  # how far past a conjunction or comma the clause splitter reads


# A comma between clauses or list items, not one inside a number ("30,000", "1,250,000").
_COMMA = re.compile(r"\s*,(?!(?<=\d,)\d)\s*")


def split_clauses(sentence: str) -> list[str]:
    """Clauses of one sentence: "Hi, I'm Alice and I love pizza" -> ["Hi", "I'm Alice", "I love pizza"]."""
    body = sentence.strip().rstrip(".!?;: ")
    parts: list[list[str]] = []  # each clause as its comma-separated segments, joined once at the end
    for raw in _COMMA.split(body):
        segment = raw.strip()
        if not segment:
            continue
        lead = strip_lead(segment)
        if not parts or _OPENER.match(lead) or is_small_talk(segment):
            parts.append([segment])
        elif _BARE_VERB.match(lead) and _FIRST_PERSON.match(strip_lead(parts[-1][0][:_LOOK])):
            parts.append([f"I {lead}"])
        else:  # "Berlin, Germany", "my husband, Tom, ...": the comma did not start a new clause
            parts[-1].append(segment)
    out: list[str] = []
    for clause in (", ".join(segments) for segments in parts):
        for piece in _split_conjunctions(clause):
            kept = piece.strip() if is_small_talk(piece) else strip_lead(piece)
            if kept:
                out.append(kept)
    return out


def _split_conjunctions(clause: str) -> list[str]:
    pieces: list[str] = []
    start, prefix = 0, ""
    for match in _CONJ.finditer(clause):
        # Only the words right after the conjunction decide: a bounded look keeps "and and and …" linear.
        rest = strip_lead(clause[match.end() : match.end() + _LOOK])
        if _OPENER.match(rest):
            next_prefix = ""
        elif _BARE_VERB.match(rest) and _FIRST_PERSON.match(strip_lead(clause[start : start + _LOOK])):
            next_prefix = "I "
        else:
            continue
        pieces.append(prefix + clause[start : match.start()])
        start, prefix = match.end(), next_prefix
    pieces.append(prefix + clause[start:])
    return pieces


_MONTH = (
    r"(?:january|february|march|april|may|june|july|august|september|october|november|december|"
    r"jan|feb|mar|apr|jun|jul|aug|sept?|oct|nov|dec)"
)
_SEASON = r"(?:summer|winter|spring|fall|autumn)"
# When, said after what: "moved to York in May", "started at Soins Alpins in early September".
_WHEN_SAID = (
    rf"(?:in|since|from|until|by|last|this|next)\s+(?:the\s+)?(?:(?:early|late|mid)[\s-]+)?(?:{_MONTH}|{_SEASON})"
    r"(?:\s+(?:19|20)\d\d)?|in\s+(?:19|20)\d\d|on\s+(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday)|"
    r"next\s+(?:week|month|year|weekend)|"
)
_TIME = (
    _WHEN_SAID + r"yesterday|today|earlier|last\s+(?:week|month|year|summer|winter|spring|fall|autumn|weekend)|"
    r"this\s+(?:week|month|year)|(?:a\s+few|a\s+couple\s+of|two|three|several|many|\d+)\s+"
    r"(?:days|weeks|months|years)\s+ago|an?\s+(?:week|month|year)\s+ago|(?:since|in)\s+(?:\d{4}|last\s+\w+)|"
    r"for\s+(?:a\s+few|a\s+couple\s+of|many|several|\d+|two|three|four|five|ten)\s+(?:days|weeks|months|years)|"
    r"for\s+(?:a\s+while|a\s+long\s+time|ages|years)|since\s+i\s+was\s+(?:a\s+)?(?:kid|child|little|young)"
)
# A trailing filler word or time: "…, lol", "… right now", "… last week". It is matched against the last
# _TAIL characters only, and strip_trailing peels fillers and marks off the end one at a time: a nested
# `(filler|marks)+$` pattern backtracks exponentially on a run of "!" before a last word (24 marks took
# longer than 20 s, holding the GIL), while this is linear in the text's length.
_FILLER = re.compile(
    r"[,;]?\s+(?:now|nowadays|these\s+days|lately|recently|currently|at\s+the\s+moment|right\s+now|"
    r"for\s+now|too|as\s+well|also|though|btw|by\s+the\s+way|a\s+lot|so\s+much|very\s+much|a\s+ton|"
    r"honestly|to\s+be\s+honest|tbh|lol|haha+|in\s+general|generally|actually|already|still|at\s+all|"
    r"really|ever\s+since|" + _TIME + r")$",
    re.I,
)
_TAIL = 64  # longer than any filler phrase with its leading comma and a few spaces
_MARKS = frozenset(":;)(!.,")


def _is_mark(ch: str) -> bool:
    """Punctuation and emoji that may trail a statement ("pizza!!! 😀")."""
    return ch in _MARKS or ch.isspace() or "\U0001f300" <= ch <= "\U0001faff" or "\u2600" <= ch <= "\u27bf"


_CUT = re.compile(
    r"[,;]?\s+(?:because|cause|'cause|since|as\s+long\s+as|when|whenever|while|but|though|although|unless|"
    r"if|which|that|so|especially|particularly|except|where|like|such\s+as|including|"
    r"even|than|after|before|until|whereas)\b.*$",
    re.I,
)
_CUT_PLACE = re.compile(r"\s+(?:with|and\s+(?:my|our|the|a|an|i)|to\s+be\s+(?:near|close))\b.*$", re.I)


def strip_trailing(raw: str) -> str:
    """The text without trailing fillers, times, punctuation and emoji, in time linear in its length."""
    text = raw.strip()
    end = len(text)
    while end:
        while end and _is_mark(text[end - 1]):
            end -= 1
        start = max(0, end - _TAIL)
        filler = _FILLER.search(text, start, end)
        if filler is None:
            break
        end = filler.start()
    return text[:end].strip()


def clean_object(raw: str, place: bool = False) -> tuple[str, bool]:
    """The captured phrase without trailing adverbials; `complete` is False when a tail was cut off."""
    text = strip_trailing(raw)
    cut = _CUT.sub("", text)
    if place:
        cut = _CUT_PLACE.sub("", cut)
    complete = cut == text
    return strip_trailing(cut), complete


_COMPOUNDS = (
    "mac and cheese",
    "fish and chips",
    "rock and roll",
    "salt and pepper",
    "bread and butter",
    "peanut butter and jelly",
    "drum and bass",
    "rhythm and blues",
    "sweet and sour",
    "cookies and cream",
    "ham and cheese",
    "rice and beans",
    "bed and breakfast",
    "dungeons and dragons",
    "law and order",
    "black and white",
    "hide and seek",
    "arts and crafts",
    "r&b",
    "pb&j",
    "salt and vinegar",
)
_ITEM_SEP = re.compile(r"(\s*,\s*(?:and\s+|or\s+|&\s+)?|\s+(?:and|or|&|as\s+well\s+as|plus)\s+)", re.I)
_PROPER_PAIR = re.compile(
    rf"^{CAPITAL}[\w'-]*(?:\s+{CAPITAL}[\w'-]*)*\s+(?:and|&)\s+{CAPITAL}[\w'-]*(?:\s+{CAPITAL}[\w'-]*)*$"
)


def split_items(obj: str, names: bool = False) -> list[str]:
    """'pizza, sushi and pasta' -> three items; 'mac and cheese' and 'Simon and Garfunkel' stay whole
    (unless the items are `names` of people: 'Leo and Mia')."""
    if not names and _PROPER_PAIR.match(obj):
        return [obj]
    protected = obj
    for i, compound in enumerate(_COMPOUNDS):
        protected = re.sub(rf"\b{re.escape(compound)}\b", f"\x00{i}\x00", protected, flags=re.I)
    items = []
    for part in _ITEM_SEP.split(protected)[::2]:
        restored = re.sub(r"\x00(\d+)\x00", lambda m: _COMPOUNDS[int(m.group(1))], part).strip()
        if restored:
            items.append(restored)
    return items


_PERSON = (
    (re.compile(r"\bmyself\b", re.I), "themselves"),
    (re.compile(r"\bmy\b", re.I), "their"),
    (re.compile(r"\bmine\b", re.I), "theirs"),
    (re.compile(r"\bme\b", re.I), "them"),
    (re.compile(r"\bI'm\b", re.I), "they're"),
    (re.compile(r"\bI\b"), "they"),
)


def third_person(text: str) -> str:
    """'my kids' in a fact about the user reads 'their kids'."""
    for pattern, replacement in _PERSON:
        text = pattern.sub(replacement, text)
    return text


def has_capital(text: str) -> bool:
    return any(is_capital(word) for word in text.split())


def title_case(text: str) -> str:
    return " ".join(w[:1].upper() + w[1:] for w in text.split())


def sentence_case(text: str) -> str:
    return text[:1].upper() + text[1:]
