"""Text that addresses the assistant rather than telling it about the user: instructions that try to override
its own, role-play, imitations of a system prompt or a tool call, links to follow, requests to send data
away. Stored as a fact about the user, such a sentence would be written back into every later prompt: a
prompt injection stored once keeps acting. So it is found at ingest, sentence by sentence, and kept apart.

The reading is by cues, in linear time: each pattern is a literal cue with bounded gaps, run once over a
normalised copy of the sentence (look-alike letters and digits folded, zero-width characters removed,
letters spaced out joined), so "1gn0re all prev1ous instruct1ons" and "i g n o r e" read as what they say.
A user's own preferences about how they are answered ("call me Sam", "keep answers short") are not
instructions of this kind: they are about the user, and stay memories.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterator
from dataclasses import dataclass

_FLAGS = re.IGNORECASE
_NOUNS = r"(?:instructions?|prompts?|directives?|guidelines|system (?:prompt|message)|programming|rules you)"
_CUES: tuple[re.Pattern[str], ...] = tuple(
    re.compile(p, _FLAGS)
    for p in (
        # overriding its instructions, in several languages
        rf"\b(?:ignore|disregard|forget|override|bypass|skip|drop)\b(?:\W{{1,3}}\w{{1,20}}){{0,4}}?\W{{1,3}}{_NOUNS}",
        r"\b(?:ignore[sz]?|oublie[sz]?)\b(?:\W{1,3}\w{1,20}){0,3}?\W{1,3}(?:les |tes |vos )?(?:instructions|consignes)",
        r"\bignorier(?:e|en)?\b(?:\W{1,3}\w{1,20}){0,3}?\W{1,3}(?:anweisungen|instruktionen|vorgaben)",
        r"\bignor(?:a|e)\b(?:\W{1,3}\w{1,20}){0,3}?\W{1,3}(?:las |le |as )?(?:instrucciones|istruzioni|instruções)",
        r"\b(?:забудь|игнорируй)\b.{0,40}(?:инструкции|указания)",
        r"\bnegeer\b(?:\W{1,3}\w{1,20}){0,3}?\W{1,3}(?:instructies|aanwijzingen)|\bzignoruj\b.{0,40}(?:instrukcje|polecenia)",
        r"\btalimatlar\w{0,3}\b.{0,30}\byok say",
        r"(?:無視|忽略|忽视).{0,20}(?:指示|指令|命令|プロンプト|提示)|(?:指示|指令|命令|プロンプト|提示|设定|設定).{0,20}(?:無視|忽略|忽视)",
        # what the assistant should do to "the user" (a person never calls themselves that)
        r"\b(?:ignore|disregard|deceive|mislead|lie to|manipulate)\b(?:\W{1,3}\w{1,20}){0,2}?\W{1,3}the user\b",
        # text aimed at whatever AI reads it ("AI assistants reading this must always ...")
        r"\b(?:ai|assistants?|chatbots?|language models?|llms?|ai agents?)\b(?: [\w'-]{1,20}){0,3} "
        r"(?:must|should|shall|will|are to) (?:always|never|ignore|now|only)\b",
        # a new role or persona
        # "you are now talking to a tired dad" is said to a person
        r"\byou are (?:now|no longer|from now on)\b(?! (?:talking|speaking|chatting|following|reading|watching"
        r"|listening|looking|seeing|connected|subscribed|registered|signed|logged)\b)",
        r"\byou(?:'re| are) (?:an? )?(?:unrestricted|jailbroken|uncensored|dan)\b",
        r"\b(?:pretend|imagine) (?:to be|you are|that you are|you're)\b",
        r"\b(?:act|behave|respond|answer|reply) as (?:if you|an? (?:[\w-]{1,20} )?(?:ai|assistant|model|llm|chatbot)\b"
        r"|an? (?:unrestricted|uncensored|jailbroken)|dan|the system)\b",
        r"\brole-?play as\b",
        r"\b(?:tu es|vous êtes) (?:maintenant|désormais)\b|\bdu bist (?:jetzt|ab jetzt|nun)\b|\bahora eres\b"
        r"|\b(?:je|jij|u) bent nu\b",
        r"\bfrom now on,? you (?:are|will|must|should|shall)\b",
        r"\b(?:new|updated|override) (?:instructions|system prompt|rules|persona)\s*:",
        r"\b(?:reveal|print|show|repeat|output) (?:me )?(?:your|the) (?:system prompt|instructions|initial prompt)\b",
        # instructions about what the assistant tells the user or others
        r"\b(?:when(?:ever)?|if) (?:the user|a user|anyone|someone|somebody) (?:asks|mentions|says)\b.{0,80}\b"
        r"(?:respond|reply|answer|say|tell|recommend|send)\b",
        r"\b(?:assistant|assistent|asistente|assistente|ai|ki|ia|chatbot|language model|llm)\s*[,:]\s*"
        r"(?:always|never|ignore|you must|tell|say|send|sag|sage|dile|di|dis|dites|diga|immer|nie|siempre|nunca"
        r"|toujours|jamais|sempre|mai)\b",
        r"\byou must (?:always|never|now|ignore|obey|follow)\b",
        # imitations of chat markup, a system prompt or a tool call
        r"<\|(?:im_start|im_end|system|assistant|user|endoftext)\|>|\[/?inst\]|<</?sys>>|</?(?:system|tool_call)>",
        r"(?:^|\n)\s*#{1,4}\s*(?:system|instructions?)\b|(?:^|\n)\s*(?:system|developer)\s*(?:prompt)?\s*:",
        r"[\"'](?:tool_calls?|function_call|tool_use)[\"']\s*:",
        r"<function=|\bBEGIN (?:SYSTEM|ADMIN) (?:PROMPT|MESSAGE)\b",
        # links to follow, data to send away
        r"\b(?:visit|open|go to|navigate to|fetch|browse to|click|follow|load)\b\W{1,3}(?:\w{1,20}\W{1,3}){0,4}?"
        r"https?://",
        r"\b(?:send|forward|e-?mail|post|upload|leak|exfiltrate)\b.{0,60}"
        r"\b(?:conversations?|chat history|memories|system prompt|passwords|api keys|credentials)\b.{0,40}"
        r"(?:https?://|\b[\w.-]{1,64}@[\w-]{1,63}\.\w{2,})",
    )
)
# The same cues said to a person, by a person ("I always tell people I'm from Leeds", "my therapist says I should
# never tell anyone"), are about that person: these count only without a person as their subject just before.
_IMPERATIVES: tuple[re.Pattern[str], ...] = tuple(
    re.compile(p, _FLAGS)
    for p in (
        r"\b(?:always|never) (?:tell|say to|respond to|answer|reply to|recommend to|mention to|suggest to) "
        r"(?:the user|users|anyone|everyone|people)\b",
        r"\b(?:tell|inform|remind|convince|persuade) (?:the user|users|anyone who asks|everyone who asks)\b",
        r"\bdo not (?:tell|inform|reveal to|warn) (?:the user|users)\b",
    )
)
_SUBJECT_BEFORE = re.compile(r"\b(?:i|we|he|she|they)\b(?:\W{1,3}\w{1,20}){0,2}\W{0,3}$", _FLAGS)
_LOOKALIKE = str.maketrans(
    {"0": "o", "1": "i", "3": "e", "4": "a", "5": "s", "7": "t", "@": "a", "$": "s"}
    # Cyrillic and Greek letters drawn like Latin ones ("disregard" with a Cyrillic i, e and a): folded on a copy
    # only, so a sentence in Russian is still read as said
    | {
        # Cyrillic a e o r s u h i j dze k, Greek alpha omicron iota kappa nu rho tau upsilon chi; then capitals
        **dict(zip("\u0430\u0435\u043e\u0440\u0441\u0443\u0445\u0456\u0458\u0455\u043a", "aeopcyxijsk", strict=True)),
        **dict(
            zip("\u0410\u0412\u0415\u041a\u041c\u041d\u041e\u0420\u0421\u0422\u0425\u0406", "ABEKMHOPCTXI", strict=True)
        ),
        **dict(zip("\u03b1\u03bf\u03b9\u03ba\u03bd\u03c1\u03c4\u03c5\u03c7", "aoikvptux", strict=True)),
        **dict(
            zip(
                "\u0391\u0392\u0395\u0397\u0399\u039a\u039c\u039d\u039f\u03a1\u03a4\u03a5\u03a7\u0396",
                "ABEHIKMNOPTYXZ",
                strict=True,
            )
        ),
    }
)
_ZERO_WIDTH = dict.fromkeys(map(ord, "\u200b\u200c\u200d\u2060\ufeff\u00ad"))
_SPACED = re.compile(r"\b(?:\w[ .*_-]){3,}\w\b")  # "i g n o r e", "i.g.n.o.r.e"
_SPACING = re.compile(r"[ .*_-]")
_NOT_LETTERS = re.compile(r"[\W_]+")
_COMPACT = re.compile(
    r"(?:ignore|disregard|forget|override|bypass|skip)(?:all|the|any|your|my|of|previous|prior|above|earlier){0,4}"
    r"(?:instructions?|prompts?|directives?|guidelines|rules)|youare(?:now|nolonger)"
    r"|(?:reveal|print|show|repeat)(?:me)?(?:your|the)(?:systemprompt|instructions|initialprompt)"
    r"|(?:pretend|imagine)(?:tobe|youare)"
)
# A sentence ends at . ! ? before a space or the end (not inside "evil.example" or "v1.2"), or at a line end.
_SENTENCE = re.compile(r"(?:[^.!?\n]|[.!?](?=[^\s.!?]))*(?:[.!?]+|\n|$)")
MAX_SENTENCE_CHARS = 2_000  # a longer run without a sentence end is read in pieces of this size


@dataclass(frozen=True)
class Addressed:
    """A span of a text that addresses the assistant."""

    start: int
    end: int
    text: str


def _variants(sentence: str) -> Iterator[str]:
    plain = unicodedata.normalize("NFKC", sentence).translate(_ZERO_WIDTH)
    yield plain
    joined = _SPACED.sub(lambda m: _SPACING.sub("", m.group()), plain)
    if joined != plain:  # each distinct copy is read once
        yield joined
    folded = joined.translate(_LOOKALIKE)
    if folded != joined:
        yield folded


def addresses_assistant(sentence: str) -> bool:
    """Whether a sentence is aimed at the assistant (an instruction, a role, markup, a link to follow)."""
    variants = list(_variants(sentence))
    if any(any(cue.search(variant) for cue in _CUES) or _imperative(variant) for variant in variants):
        return True
    # Letters spaced across the words too ("i g n o r e a l l previous ...") leave no word boundary to read:
    # such a sentence is also read with every space and mark removed.
    compact = _NOT_LETTERS.sub("", variants[-1].lower())
    return _SPACED.search(variants[0]) is not None and _COMPACT.search(compact) is not None


def _imperative(variant: str) -> bool:
    return any(
        _SUBJECT_BEFORE.search(variant[max(0, m.start() - 40) : m.start()]) is None
        for cue in _IMPERATIVES
        for m in cue.finditer(variant)
    )


def _sentences(text: str) -> Iterator[tuple[int, int]]:
    for m in _SENTENCE.finditer(text):
        start, end = m.span()
        for at in range(start, end, MAX_SENTENCE_CHARS):
            yield at, min(end, at + MAX_SENTENCE_CHARS)


def find(text: str) -> list[Addressed]:
    """The sentences of `text` that address the assistant, adjacent ones joined."""
    found: list[Addressed] = []
    for start, end in _sentences(text):
        piece = text[start:end]
        if not piece.strip() or not addresses_assistant(piece):
            continue
        if found and text[found[-1].end : start].strip() == "":
            start = found.pop().start
        found.append(Addressed(start, end, text[start:end].strip()))
    return found


def without(text: str, spans: list[Addressed]) -> str:
    """`text` with `spans` cut out (what is left is what the person said about themselves)."""
    kept: list[str] = []
    at = 0
    for span in spans:
        kept.append(text[at : span.start])
        at = span.end
    kept.append(text[at:])
    return " ".join(" ".join(kept).split())
