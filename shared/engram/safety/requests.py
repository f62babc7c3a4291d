"""A person's requests about their own memory, said in chat: "please never store anything about my finances",
"forget what I said about my ex", "you can remember things about my health again". Read offline by linear
cues on each sentence the user said, and on each part of one after a comma, a semicolon, a spaced dash or an
"and please": a request verb (don't remember / forget / you can remember, in their common forms, typos and
text speak included) and the topic after "about". The topic becomes the user's own policy
(services/user_requests.py)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum


class RequestKind(StrEnum):
    DONT_REMEMBER = "dont_remember"  # exclude the topic from now on
    FORGET = "forget"  # exclude it, and close what is remembered of it
    ALLOW = "allow"  # lift the user's own exclusion of it


@dataclass(frozen=True)
class MemoryRequest:
    kind: RequestKind
    topic: str
    text: str  # the sentence that asked
    span: tuple[int, int] = (0, 0)  # the characters [start, end) of the message that ask, to its sentence's end


_TOPIC = r"(?P<topic>[^.!?,;:\n]{2,60})"
_ABOUT = r"(?:about|abt|regarding|re|concerning|on|related to|to do with|with regard to|in regard to|when it comes to)"
_OF = rf"(?:{_ABOUT}|of)"  # "keep track of my spending", "take note of my address"
_STORE_BASE = (
    r"(?:remember|store|save|keep(?:\s+(?:track|notes|a note|a record|records))?|record|memori[sz]e|log|track|note"
    r"|write down|retain|hold on to|take notes?)"
)
_STORE_ING = (
    r"(?:remembering|storing|saving|keeping(?:\s+(?:track|notes|a note|a record|records))?|recording|memori[sz]ing"
    r"|logging|tracking|noting|writing down|retaining|holding on to|taking notes?)"
)
_YOU = r"(?:you|u|ya)"
# A request is said to the assistant: it opens its sentence or part (after "please", "ok", "can you", ...), so
# "I never remember anything about maths" and "my boss told me to forget about it" are not requests.
_OPEN = (
    r"^\s*(?:(?:please|pls|plz|kindly|hey|hi|ok|okay|also|and|but|so|oh|um|well|actually|one more thing|btw"
    r"|from now on|going forward|moving forward|in (?:the )?future|from here on(?: out)?|on second thought"
    rf"|(?:can|could|would|will) {_YOU}|if {_YOU} could)[,\s]+)*"
)
_THINGS = (
    r"(?:(?:any|anything|everything|nothing|things|stuff|info|information|details|notes|data|more|else"
    r"|what i (?:say|tell you|said|told you))\s+){0,2}"
)
_WANT = rf"i (?:want|need|would like|'d like|d like) {_YOU} to"
_DONT = (  # "don't store", "stop storing", "I'd rather you didn't store", "would you mind not storing"
    rf"(?:(?:don'?t|dont|do not|never|no longer|not|no need to|{_WANT} (?:not|never))\s+(?:ever\s+)?{_STORE_BASE}"
    rf"|(?:stop|quit|avoid|refrain from|cease|{_WANT} stop|(?:would|do) {_YOU} mind not)\s+{_STORE_ING}"
    rf"|i (?:don'?t|dont|do not) want {_YOU}\s+(?:to\s+(?:ever\s+)?{_STORE_BASE}|{_STORE_ING})"
    rf"|i'?d (?:rather|prefer(?: it)? if|prefer that|appreciate it if|like it if) {_YOU} (?:didn'?t|did not|don'?t"
    rf"|do not|wouldn'?t|would not|never)\s+{_STORE_BASE}"
    rf"|make sure (?:that )?{_YOU} (?:don'?t|do not|never)\s+{_STORE_BASE})"
)
_FORGET = (
    rf"(?:(?:{_WANT}\s+)?(?:forget|delete|erase|remove|wipe|scrub|clear|purge|discard|get rid of|drop)"
    rf"|(?:would|do) {_YOU} mind (?:forgetting|deleting|erasing|removing|wiping|clearing|getting rid of))"
)
_WHAT = (
    r"(?:everything|anything|all(?: of)?(?: that| the (?:stuff|things|info))?|what|wat|wht|whatever|the stuff"
    r"|the things|things|stuff)"
)
_SAID = (
    r"(?:(?:i|i've|ive|i have|i'd|i had)\s+(?:ever\s+|just\s+)?(?:said|told|mentioned|shared|written|wrote|talked)"
    rf"(?:\s+{_YOU})?(?:\s+(?:earlier|before|previously|so far))?"
    rf"|{_YOU}\s+(?:know|have|remember|stored|saved|got|learned|learnt)(?:\s+(?:now|so far))?)"
)
_ALLOWED = (
    rf"{_YOU} (?:can|may|could)|(?:you'?re|you are|ur) (?:welcome|free|allowed) to"
    r"|it(?:'?s| is) (?:ok|okay|fine|alright|all right) (?:for you )?to|feel free to|go ahead and|please do"
    rf"|i don'?t mind if {_YOU}|you have my permission to"
)
_CUES: tuple[tuple[RequestKind, re.Pattern[str]], ...] = (
    (
        RequestKind.FORGET,
        re.compile(rf"{_OPEN}{_FORGET}\s+(?:{_WHAT}\s+)?(?:{_SAID}\s+)?(?:\w+\s+)?{_ABOUT}\s+{_TOPIC}", re.I),
    ),
    (RequestKind.DONT_REMEMBER, re.compile(rf"{_OPEN}{_DONT}\s+{_THINGS}{_OF}\s+{_TOPIC}", re.I)),
    (
        RequestKind.DONT_REMEMBER,  # said without "about", of something of the person's own: "don't save my address"
        re.compile(rf"{_OPEN}{_DONT}\s+(?:any(?:thing)?\s+of\s+)?(?P<topic>(?:my|our)\s[^.!?,;:\n]{{2,60}})", re.I),
    ),
    (
        RequestKind.DONT_REMEMBER,  # "keep my bank details out of your memory"
        re.compile(
            rf"{_OPEN}(?:keep|leave)\s+{_THINGS}(?:{_ABOUT}\s+)?(?P<topic>[^.!?,;:\n]{{2,60}}?)\s+out of\s+"
            r"(?:your|the|ur)\s+(?:memory|memories|notes|records)",
            re.I,
        ),
    ),
    (
        RequestKind.ALLOW,
        re.compile(
            rf"{_OPEN}(?:{_ALLOWED})\s+(?:now\s+|again\s+|also\s+)?(?:(?:start|go back to)\s+{_STORE_ING}"
            rf"|(?:start to\s+)?{_STORE_BASE})\s+{_THINGS}"
            r"(?:" + _OF + r"\s+" + _TOPIC + r"|(?P<own>(?:my|our)\s[^.!?,;:\n]{2,60}))",
            re.I,
        ),
    ),
)
_STORING = re.compile(rf"(?:{_STORE_ING}|{_STORE_BASE})\s+{_THINGS}{_OF}\s+", re.I)
_LEAD = re.compile(r"^(?:(?:my|our|the|his|her|their|me and|any|all|own|of)\s+)+", re.IGNORECASE)
_TAIL = re.compile(
    r"(?:\s+(?:anymore|any more|again|from now on|going forward|in (?:the )?future|please|pls|plz|for me|ever|at all"
    r"|either|too|now|then|ok|okay|though|thanks|thank you|thx|ty|mate|lol|stuff|things|info|information|and stuff"
    r"|and all that|and so on|etc|if you can|if you don'?t mind|if that'?s ok(?:ay)?))+$",
    re.IGNORECASE,
)
_SENTENCE = re.compile(r"[^.!?\n]{1,1000}")
# Where a request may start inside a sentence: after a comma, a semicolon or colon, a spaced dash, or an "and" /
# "but" / "so" that goes on with "please" ("I live in Leeds and please don't store my address").
_PART = re.compile(
    r"[,;:]|\s[-\u2013\u2014]+\s|\b(?:and|but|so)\s+(?=(?:please|pls|plz|kindly|can you|could you|would you)\b)",
    re.IGNORECASE,
)
_PARTS = 8  # at most this many starts per sentence are read: each reads the rest of a bounded sentence
# Someone else's words reported ("my boss said, forget about the deadline") are not said to the assistant.
_REPORTED = re.compile(
    r"\b(?:says?|said|tells?|told|asks?|asked|writes?|wrote|reads?|quote|goes|went like|was like)\b", re.IGNORECASE
)
# "forget about it", "don't worry about that": a pronoun names nothing the screen could read a topic from.
_PRONOUNS = frozenset({"it", "that", "this", "them", "those", "these", "him", "her", "me", "you", "us", "u"})
_WORD = re.compile(r"\w+")
_NOT_TOPIC_WORDS = frozenset({"my", "our", "the", "his", "her", "their", "any", "all", "about", "of"})


def same_topic(a: str, b: str) -> bool:
    """Whether two topics name the same thing in more or fewer words ("travel plans" and "travel"): what a
    "you can remember X" lifts."""
    words_a = {w for w in _WORD.findall(a.lower()) if w not in _NOT_TOPIC_WORDS}
    words_b = {w for w in _WORD.findall(b.lower()) if w not in _NOT_TOPIC_WORDS}
    return bool(words_a and words_b) and (words_a <= words_b or words_b <= words_a)


def _topic(raw: str) -> str:
    return _TAIL.sub("", _LEAD.sub("", raw.strip())).strip()


def _starts(sentence: str) -> list[int]:
    """Where a request may start in a sentence: its beginning, and each part's up to the first reported
    speech ("she told me, ..."), at most _PARTS."""
    starts = [0]
    for boundary in _PART.finditer(sentence):
        if len(starts) >= _PARTS or _REPORTED.search(sentence, 0, boundary.start()):
            break
        starts.append(boundary.end())
    return starts


def _read(part: str) -> tuple[RequestKind, str] | None:
    for kind, cue in _CUES:
        match = cue.search(part)
        if match is None:
            continue
        said = match.groupdict()
        topic = _topic(said.get("topic") or said.get("own") or "")
        inner = _STORING.match(topic)
        if inner is not None:  # "forget about remembering anything on my kids": not to remember them
            kind, topic = RequestKind.DONT_REMEMBER, _topic(topic[inner.end() :])
        if topic and topic.split()[0].lower() not in _PRONOUNS:
            return kind, topic
        return None
    return None


def read_requests(text: str) -> list[MemoryRequest]:
    """The memory requests a user's message makes, in order (one per sentence at most)."""
    found: list[MemoryRequest] = []
    for sentence in _SENTENCE.finditer(text):
        said = sentence.group()
        for start in _starts(said):
            read = _read(said[start:])
            if read is not None:
                end = sentence.end()
                while end < len(text) and text[end] in ".!?":  # with its full stop or question mark
                    end += 1
                found.append(MemoryRequest(read[0], read[1], said.strip(), (sentence.start() + start, end)))
                break
    return found


def _undangled(before: str) -> str:
    """What a request part leaves behind it when cut, without its joint: "I live in Leeds and" -> "I live in
    Leeds" (a joint is short: only the last 100 characters are looked at)."""
    head, tail = before[:-100], before[-100:]
    while True:
        trimmed = tail.rstrip(" \t,;:-\u2013\u2014")
        word = trimmed.rsplit(None, 1)[-1].lower() if trimmed.strip() else ""
        if word in ("and", "but", "so"):
            trimmed = trimmed[: len(trimmed) - len(word)]
        if trimmed == tail:
            return head + tail
        tail = trimmed


def unsaid(text: str) -> str:
    """The message without its requests: they are said to the memory, not about the person ("I live in Leeds and
    please don't store my address" keeps "I live in Leeds."); what is left is the rest, as it was said."""
    requests = read_requests(text)
    if not requests:
        return text
    kept, at = [], 0
    for request in requests:
        start, end = request.span
        before = _undangled(text[at:start])
        kept.append(before + ("." if before.strip() and not before.rstrip().endswith((".", "!", "?")) else ""))
        at = end
    kept.append(text[at:])
    return " ".join(" ".join(k.split()) for k in kept if k.strip())


# The people a person names by their role ("my daughter Isla", "has a husband named Raj", "Ana, my ex"): a topic
# that names a role is about them, whether or not a later message says the role again ("Isla starts school").
_ROLES = frozenset(
    "daughter son husband wife partner boyfriend girlfriend ex ex-wife ex-husband ex-boyfriend ex-girlfriend fiance"
    " fiancee mum mom mother dad father brother sister stepson stepdaughter stepmum stepdad grandma grandmother"
    " grandad grandpa grandfather aunt uncle cousin niece nephew boss manager friend coworker colleague flatmate"
    " roommate landlord therapist baby child kid".split()
)
_NOT_NAMES = frozenset(
    "The And But So He She They We It His Her My Our Is Was Has Had Who When This That From In At On Mr Mrs Ms Dr"
    " Just Also Now Still".split()
)
_MAX_PEOPLE = 3


def _named_by(role: str) -> re.Pattern[str]:
    """ "my daughter Isla", "my ex is Daniel", "a son named Max", "Ana, my ex": the role's word any case, the name
    capitalised."""
    said = re.escape(role)
    return re.compile(
        rf"(?i:\b{said})(?:'s)?,?\s+(?:(?i:is|was)\s+)?(?:(?i:called|named)\s+)?(?P<name>[A-Z][a-z]{{1,30}})\b"
        rf"|\b(?P<before>[A-Z][a-z]{{1,30}}),\s+(?i:my|our)\s+(?i:{said})\b"
    )


def roles(topic: str) -> list[str]:
    """The roles a topic names ("my husband's job" -> ["husband"])."""
    return [w for w in (w.removesuffix("'s") for w in topic.lower().split()) if w in _ROLES]


def is_person(topic: str) -> bool:
    """Whether a topic is only someone named by role ("my ex", "daughter"), not something of theirs."""
    return bool(topic.split()) and len(roles(topic)) == len(topic.split())


def people(topic: str, said: Sequence[str]) -> list[str]:
    """The names the user gave the people a topic's roles name, in what they said (at most _MAX_PEOPLE)."""
    found: dict[str, None] = {}
    for role in roles(topic):
        cue = _named_by(role)
        for text in said:
            for match in cue.finditer(text[:2_000]):
                name = match.group("name") or match.group("before")
                if name not in _NOT_NAMES:
                    found[name] = None
    return list(found)[:_MAX_PEOPLE]
