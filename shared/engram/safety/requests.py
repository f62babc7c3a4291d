"""A person's requests about their own memory, said in chat: "please never store anything about my finances",
"forget what I said about my ex", "you can remember things about my health again". Read offline by linear
cues on each sentence the user said: a request verb (don't remember / forget / you can remember) and the
topic after "about". The topic becomes the user's own policy (services/user_requests.py)."""

from __future__ import annotations

import re
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


_TOPIC = r"(?P<topic>[^.!?,;:\n]{2,60})"
_ABOUT = r"(?:about|regarding|concerning|on|related to|to do with)"
_STORE = (
    r"(?:remember(?:ing)?|stor(?:e|ing)|sav(?:e|ing)|keep(?:ing)?|record(?:ing)?|memori[sz](?:e|ing)"
    r"|log(?:ging)?|track(?:ing)?|not(?:e|ing)|writ(?:e|ing) down)"
)
# A request is said to the assistant: it opens the sentence (after "please", "ok", "can you", ...), so "I
# never remember anything about maths" and "my boss told me to forget about it" are not requests.
_OPEN = (
    r"^\s*(?:(?:please|pls|hey|hi|ok|okay|also|and|so|oh|actually|one more thing|btw"
    r"|can you|could you|would you|will you)[,\s]+)*"
)
_THINGS = r"(?:(?:any|anything|everything|things|stuff|info|information|details|notes|what i (?:say|tell you))\s+){0,2}"
_CUES: tuple[tuple[RequestKind, re.Pattern[str]], ...] = (
    (
        RequestKind.FORGET,
        re.compile(
            rf"{_OPEN}(?:forget|delete|erase|remove|wipe)\s+(?:(?:everything|anything|all|what)\s+)?"
            rf"(?:(?:i|i've|i have)\s+(?:said|told you|mentioned|shared)\s+)?(?:\w+\s+)?{_ABOUT}\s+{_TOPIC}",
            re.IGNORECASE,
        ),
    ),
    (
        RequestKind.DONT_REMEMBER,
        re.compile(
            rf"{_OPEN}(?:don'?t|do not|never|stop|no longer|not)\s+(?:ever\s+)?{_STORE}\s+{_THINGS}"
            rf"{_ABOUT}\s+{_TOPIC}",
            re.IGNORECASE,
        ),
    ),
    (
        RequestKind.DONT_REMEMBER,
        re.compile(rf"{_OPEN}i (?:don'?t|do not) want you to {_STORE}\s+{_THINGS}{_ABOUT}\s+{_TOPIC}", re.IGNORECASE),
    ),
    (
        RequestKind.DONT_REMEMBER,  # "keep my bank details out of your memory"
        re.compile(
            rf"{_OPEN}keep\s+{_THINGS}(?:{_ABOUT}\s+)?(?P<topic>[^.!?,;:\n]{{2,60}}?)\s+out of\s+(?:your|the)\s+"
            r"(?:memory|memories|notes)",
            re.IGNORECASE,
        ),
    ),
    (
        RequestKind.ALLOW,
        re.compile(
            rf"{_OPEN}(?:you can|you may|it'?s (?:ok|okay|fine|alright) to|feel free to|go ahead and)\s+(?:now\s+)?"
            rf"(?:start\s+)?{_STORE}\s+{_THINGS}(?:{_ABOUT}\s+)?{_TOPIC}",
            re.IGNORECASE,
        ),
    ),
)
_LEAD = re.compile(r"^(?:(?:my|our|the|his|her|their|me and|any|all)\s+)+", re.IGNORECASE)
_TAIL = re.compile(
    r"(?:\s+(?:anymore|any more|again|from now on|please|for me|ever|at all|either|too|now|then|ok|okay"
    r"|though|thanks))+$",
    re.IGNORECASE,
)
_SENTENCE = re.compile(r"[^.!?\n]{1,1000}")
# "forget about it", "don't worry about that": a pronoun names nothing the screen could read a topic from.
_PRONOUNS = frozenset({"it", "that", "this", "them", "those", "these", "him", "her", "me", "you", "us"})
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


def read_requests(text: str) -> list[MemoryRequest]:
    """The memory requests a user's message makes, in order."""
    found: list[MemoryRequest] = []
    for sentence in _SENTENCE.finditer(text):
        for kind, cue in _CUES:
            match = cue.search(sentence.group())
            if match is None:
                continue
            topic = _topic(match.group("topic"))
            if topic and topic.split()[0].lower() not in _PRONOUNS:
                found.append(MemoryRequest(kind, topic, sentence.group().strip()))
            break
    return found
