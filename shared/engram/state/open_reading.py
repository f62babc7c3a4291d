"""Statements of any attribute, read offline from the forms people give a value in, outside the catalogue too:
"my new X is Y", "my X is now Y", "switched (my X) (from Y) to Z", "got a new X: Y", "I now go to Y gym",
"<Name>'s X is Y", "my daughter Ines's school is Y", "The X of Y is Z"; and endings, read by meaning ("we broke
up", "gave the bike away", "cancelled my Netflix").

A form gives the attribute's noun (made canonical by meaning, state/attributes.py) and a whole value: a named
thing, product, organisation, place or person, starting as a name does in any script (text/letters.py), never
its first word only. A value in lower case ("my new job is exhausting") is not read: a wrong statement is worse
than none. Cardinality: the catalogue's, else one value at a time when the language tells a change ("new",
"now", "switched"), else many. Polarity: the clause's cues and its meaning (state/polarity.py).

Every pattern is linear: bounded repetitions, one clause of at most MAX_CLAUSE characters at a time."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from engram.domain.statements import USER, Polarity
from engram.rules.vocab import PLURAL_RELATIONS, RELATIONS
from engram.text.clauses import MAX_CLAUSE, is_question, split_clauses, split_sentences, strip_lead
from engram.text.letters import CAPITAL, LOWER

_NAMEWORD = rf"(?:{CAPITAL}|\d|i(?={CAPITAL}))[\w'\u2019.&+-]*"
_JOIN = r"(?:of|de|la|le|van|von|du|des|and|&|the|da|do|di)"
VALUE = rf"{_NAMEWORD}(?:\s+(?:{_JOIN}\s+)?{_NAMEWORD}){{0,5}}"
_NOUN = rf"{LOWER}[\w-]*"
_WORD = rf"(?:{_NOUN}|(?-i:[A-Z]{{2,4}})\b)"  # a noun, or an initialism ("GP", "ISP")
ATTR = rf"{_WORD}(?:\s+{_WORD}){{0,2}}?"
_ARTICLE = r"(?:(?i:a|an|the|my|our)\s+)?"
_CUE = r"(?P<cue>(?i:new|current))\s+"
_IS = r"\s+(?i:is|are|'s|\u2019s)\s+(?:(?P<now>(?i:now))\s+)?"
_REL = rf"(?P<rel>{_NOUN})"
_NAME = rf"(?P<s>{CAPITAL}[\w-]*(?:\s+{CAPITAL}[\w-]*)?)"

# A title said in lower case ("dr Shah"), and a value introduced by its kind ("a company called Grainger").
_TITLE = r"(?:(?:dr|dra|mr|mrs|ms|prof)\.?\s+)?"
_KIND = rf"(?:(?i:a|an)\s+{_NOUN}\s+(?i:called|named)\s+)?"
_MY_X_IS = re.compile(rf"\b(?i:my|our)\s+(?:{_CUE})?(?P<a>{ATTR}){_IS}{_ARTICLE}{_KIND}{_TITLE}(?P<v>{VALUE})")
# A new value written in lower case ("my new phone is a pixel 8", "our new car is a vw id.3"): read only when it
# names a model by its number, so a word that describes ("my new job is exhausting") is no value.
_MY_NEW_LOWER = re.compile(
    rf"\b(?i:my|our)\s+(?i:new)\s+(?P<a>{ATTR}){_IS}{_ARTICLE}(?P<v>{LOWER}[\w.+-]*(?:\s+[\w.+-]+){{0,3}})"
)
_THEIR_X_IS = re.compile(
    rf"(?:\b(?i:my|our)\s+{_REL}\s+)?{_NAME}['\u2019]s\s+(?:{_CUE})?(?P<a>{ATTR}){_IS}{_ARTICLE}(?P<v>{VALUE})"
)
_X_OF_Y = re.compile(
    rf"^(?i:the)\s+(?P<a>{ATTR})\s+(?i:of)\s+{_ARTICLE}(?P<s>{VALUE}){_IS}(?:(?P<where>(?i:in|at|on))\s+)?{_ARTICLE}(?P<v>{VALUE})"
)
# Someone named in a role of something named, the whole clause: "Ayşe Çelik is (now) a citizen of South Korea"
# (hers, one at a time when told as a change), "Jane Okafor is the CEO of Kōwhai Foods" (the one CEO of Kōwhai
# Foods: a definite description), "Дмитрий Волков is now married to Juhani Mäkinen" (the participle names it).
_NAMED_ROLE = re.compile(
    rf"^(?P<s>{VALUE}){_IS}(?:(?P<art>(?i:a|an|the))\s+(?P<a>{_WORD}(?:\s+{_WORD})?)\s+(?i:of)"
    rf"|(?P<p>{LOWER}[\w-]*ed)\s+(?i:to))\s+{_ARTICLE}(?P<v>{VALUE})"
)
# A value in lower case, read only between "from" and "to" ("switched from tennis to padel"), where the form
# says it is the old value.
_LOWER_VALUE = rf"{_NOUN}(?:\s+{_NOUN})?"
_SWITCHED = re.compile(
    rf"\b(?P<cue>(?i:switched|changed|swapped|moved|shifted|transferred|ported))\s+"
    rf"(?:(?i:my|our)\s+(?P<a>{ATTR})\s+|(?P<p>{_NOUN})s\s+|(?P<b>{_WORD})\s+(?=(?i:from)\b)"
    rf"|(?P<who>{CAPITAL}[\w'\u2019-]*)\s+(?=(?i:from)\b))?"
    rf"(?:(?i:from)\s+{_ARTICLE}(?P<o>{VALUE}|{_LOWER_VALUE})\s+)?(?i:to|for)\s+{_ARTICLE}(?:(?P<v>{VALUE})|{_NOUN})"
)
_GOT_NEW = re.compile(
    rf"\b(?i:got|bought|have|has|hired|found|picked\s+up)\s+(?i:a|an|my|our)\s+(?P<cue>(?i:new))\s+(?P<a>{ATTR})"
    rf"(?:(?:\s+(?i:this|that|last|next)\s+{_NOUN})?\s*[:,!\u2013-]+\s*|\s+(?i:it's|it\s+is|called|named|from)\s+|\s+)"
    rf"(?:(?i:it's|it\s+is)\s+)?{_ARTICLE}{_TITLE}(?P<v>{VALUE})"
)
_GO_TO = re.compile(
    rf"\b(?i:i|we)\s+(?:(?P<cue>(?i:now|currently))\s+)?(?i:go\s+to|attend|train\s+at|use|bank\s+with|see)\s+"
    rf"{_ARTICLE}(?P<v>{VALUE})(?:\s+(?P<a>{_NOUN}))?"
)
# "ditched the Kindle for a Kobo", "left Fitness First for Nuffield Health": the old value is the object.
_SWAP = re.compile(
    rf"\b(?i:ditched|traded|replaced|swapped|left|dropped|exchanged|sold)\s+{_ARTICLE}(?P<o>{VALUE})"
    rf"(?:\s+(?i:in))?\s+(?i:for|with)\s+{_ARTICLE}(?P<v>{VALUE})"
)
# A provider one is on or with ("I'm on Three", "we're with Octopus for our energy", "on Lyca, ..."), its
# attribute named after "for" or else "provider"; a sentence that starts with "on" names no time ("on Monday").
_PROVIDER = re.compile(
    rf"^(?:(?i:i'm|i\s+am|we're|we\s+are|i|we)\s+(?:(?i:now|still|fully|currently)\s+)?(?P<verb>(?i:on|with|bank\s+with))"
    rf"|(?i:on))\s+(?P<v>{VALUE})(?:\s+(?i:for)\s+{_ARTICLE}(?P<a>{ATTR})\b)?"
)
_MY_X_WITH = re.compile(
    rf"(?:\b(?i:my|our)\s+|^)(?P<a>{ATTR})\s+(?i:is|are)\s+(?:(?i:now)\s+)?(?i:with)\s+(?P<v>{VALUE})"
)
# Someone in a role, the role's noun before the name ("our plumber Mr Haddad", "my solicitor, Priya Nair",
# "we hired a new nanny, Gosia"); a relative ("my brother Tomasz") is the catalogue's or no attribute.
_ROLE_NAME = re.compile(
    rf"\b(?:(?i:my|our)|(?i:a|an|our|my)\s+(?P<cue>(?i:new)))\s+(?P<a>{_NOUN}(?:\s+{_NOUN})?)\s*,?\s+{_TITLE}(?P<v>{VALUE})"
)
# A thing of one's own named by its make and model ("my Vespa Primavera", "my Pixel 8"): two words or a number,
# so a day or a language ("my Monday meeting", "my Spanish class") is no thing.
_MY_THING = re.compile(rf"\b(?i:my|our)\s+(?:(?i:old|(?P<cue>new)|trusty)\s+)?(?P<v>{VALUE})")
# The value before the role, the whole clause ("Dr Ruiz is my new dentist", "Marco is my ex now"): a relative is
# the catalogue's ("Tom is my brother"); an ex is the partner, ended.
_IS_MY = re.compile(
    rf"^(?P<v>{VALUE})\s+(?i:is|'s|\u2019s)\s+(?:(?P<now>(?i:now))\s+)?(?i:my|our)\s+(?:(?P<cue>(?i:new))\s+)?"
    rf"(?P<a>(?P<ex>(?i:ex)(?:[\s-]+{_NOUN})?)|{ATTR})(?:\s+(?P<later>(?i:now)))?\s*$"
)
# Someone or something introduced by its role and name, as facts are stored ("Has a boss named Kevin") and as
# people say it ("I have a landlord called Gary").
_HAS_NAMED = re.compile(
    rf"^(?:(?i:i|we)\s+)?(?i:has|have|got)\s+(?i:a|an)\s+(?P<a>{ATTR})\s+(?i:named|called)\s+{_TITLE}(?P<v>{VALUE})"
)
# The new one of something, said without whose ("the new landlord is a company called Grainger"): the person's.
_THE_NEW_X_IS = re.compile(rf"(?:\b(?i:the)\s+|^)(?i:new)\s+(?P<a>{ATTR}){_IS}{_ARTICLE}{_KIND}{_TITLE}(?P<v>{VALUE})")
# An attribute of two or three words that opens a sentence, its value after "is (with)" ("Home internet is Zuku",
# "Car insurance is with Admiral"): the person's. One word may be a name ("Tom is with Sarah"): not read.
_X_IS_OPENING = re.compile(
    rf"^(?P<a>{CAPITAL}{LOWER}+(?:\s+{_NOUN}){{1,2}})\s+(?i:is|are)\s+(?:(?i:now)\s+)?(?:(?i:with)\s+)?"
    rf"{_ARTICLE}(?P<v>{VALUE})"
)
# Someone in a role, introduced and named after a comma ("working with a personal trainer, Sade, ...").
_A_ROLE_NAME = re.compile(rf"\b(?i:a|an)\s+(?P<a>{_NOUN}(?:\s+{_NOUN})?)\s*,\s+{_TITLE}(?P<v>{VALUE})")
# A place someone goes to, whose name says what it is ("is in year 2 at St Mary's Primary", "started at Oakwood
# Academy", "attends Leeds Grammar School"): the place's kind is the attribute, the one said of the clause's
# subject. The words between the verb and the place are bounded.
_AT_VENUE = re.compile(
    rf"\b(?P<verb>(?i:is|are|am|'s|started|starts|starting|goes|go|going|attends|attend|attending|joined|joins|"
    rf"moved|moving|switched))\b[^,;]{{0,40}}?(?:\s(?i:at|to)\s+|(?<=attends)\s+|(?<=attend)\s+)"
    rf"{_ARTICLE}(?P<v>{VALUE})"
)
# Kinds of place a name may end with, and the attribute each is (a primary and an academy are both schools).
_VENUE_KINDS = {"primary": "school", "academy": "school", "nursery": "school", "kindergarten": "school"}
_VENUE_CHANGE = re.compile(r"\b(?i:started|starts|starting|moved|moving|switched|joined|joins|now|new)\b")
THING, PROVIDER = "thing", "provider"
_ABOUT = frozenset("about around only just like over under nearly almost roughly some".split())
_FUNCTION = frozenset("from to at in on with for of by is are was and or but as new old current".split())
_TIMES = frozenset(  # a day or a month is no name ("on Monday")
    "monday tuesday wednesday thursday friday saturday sunday january february march april may june july august "
    "september october november december christmas easter".split()
)
# What a place one goes to is, when its name says it ("Riverside Gym", "St Mary's School").
_VENUE = re.compile(
    r"(?i:gym|school|club|surgery|clinic|practice|church|pool|studio|college|university|nursery|academy|centre|center|"
    r"primary|kindergarten)$"
)
# Words that are no attribute ("my name", "my god") or end a value rather than name it.
_NOT_ATTRIBUTES = frozenset("name god goodness bad fault turn treat pleasure guess point day week life".split())
_RELATIVES = frozenset(w for w in RELATIONS if " " not in w) | set(PLURAL_RELATIONS)
_PEOPLE = "|".join(sorted({w for w in RELATIONS if " " not in w} | set(PLURAL_RELATIONS), key=len, reverse=True))
# Someone else leads the clause ("my sister quit", "he retired", "Tom's wife left"): their ending, not the person's.
_OTHERS = re.compile(rf"^(?i:he|she|they|his|her|their|(?:my|our)\s+(?:{_PEOPLE}))\b")
# A clause that starts with its verb ("gave the bike away", "handed in my notice") is said of oneself.
_SUBJECTLESS = re.compile(
    rf"^(?!(?i:he|she|they|it|his|her|their|its|the|a|an|this|that|these|those|your|you|there)\b){LOWER}+\b"
)
_FIRST = re.compile(r"^(?i:i|i'm|i've|we|we're|we've|me|my|our)\b")
_PRONOUN = re.compile(r"^(?i:he|she|they)\b")
_TRAILING = ".,;:!?'\u2019"
MAX_ENDING_WORDS = 8  # an ending is said briefly ("we broke up", "cancelled my Netflix"); longer clauses are not asked


@dataclass(frozen=True)
class Said:
    """One statement as the words give it, before its attribute is made canonical."""

    subject: str
    noun: str  # the attribute as named ("mobile"); "" for an ending whose attribute its meaning gives
    value: str | None  # None: an ending that names no value ("we broke up")
    polarity: Polarity
    changed: bool  # the language tells a change: one value at a time
    clause: str

    @property
    def named(self) -> bool:
        """Whether the words name the attribute (made canonical by meaning), not `provider` or `thing`."""
        return self.noun not in (PROVIDER, THING)


def clauses(text: str) -> list[tuple[str, bool]]:
    """The bounded clauses of a text, its questions left out, each with whether it leads its sentence (a later
    clause with no subject of its own has its sentence's: "my sister quit and broke up with Tom")."""
    out: list[tuple[str, bool]] = []
    for sentence in split_sentences(text):
        if is_question(sentence):
            continue
        parts = [p for p in (strip_lead(c)[:MAX_CLAUSE] for c in split_clauses(sentence)) if p]
        if len(parts) > 1 and _ONLY_A_NAME.fullmatch(parts[0]) and _FIRST.match(parts[1]):
            parts[:2] = [f"{parts[0]} and {parts[1]}"]  # "Maya and I split up": done with Maya, its value
        out += [(c, i == 0) for i, c in enumerate(parts)]
    return out


_ONLY_A_NAME = re.compile(rf"{CAPITAL}[\w'\u2019-]*(?:\s{CAPITAL}[\w'\u2019-]*){{0,2}}")
_WITH_ME = re.compile(rf"(?P<name>{_ONLY_A_NAME.pattern})\s+and\s+(?:I|we)\b")


def done_with(clause: str) -> tuple[int, str | None]:
    """Where "<name> and I" (or "and we") that opens a clause ends, and the name; else (0, None): what follows
    is done with them ("Maya and I split up")."""
    found = _WITH_ME.match(clause)
    return (found.end(), found["name"]) if found else (0, None)


def _value(raw: str | None) -> str | None:
    if not raw:
        return None
    words = raw.strip().rstrip(_TRAILING).split()
    while words and words[-1].lower() in ("and", "of", "the", "&", "de", "la", "le"):
        words.pop()
    value = " ".join(words)
    return value or None


def _noun(raw: str | None) -> str | None:
    noun = " ".join((raw or "").lower().split())
    return noun if noun and noun not in _NOT_ATTRIBUTES else None


_NEAREST = re.compile(r"(?:[,;]|\s(?:so|and|but|because|since|while|then))\s+(?=(?i:i|we|my|our)\b)")


def _whose(lead: str) -> str:
    """Whose statement a form is, by the words before it: "my brother just got a new phone" is the brother's;
    "Marcus moved to Leeds so our club found a new coach" is the person's (the nearest subject says)."""
    words = lead[:MAX_CLAUSE].strip()
    nearest = [m.end() for m in _NEAREST.finditer(words)]
    words = words[nearest[-1] :] if nearest else words
    if not words or (_FIRST.match(words) and not _OTHERS.match(words)):
        return USER
    if _OTHERS.match(words) or _PRONOUN.match(words):
        return _someone(words)
    name = re.match(rf"{CAPITAL}[\w'-]*", words)
    return name.group(0) if name and name.group(0) != "I" and not _opens(name.group(0)) else USER


def whose_value(text: str, value: str) -> str | None:
    """Whose the text says a value is, by the words before it in the clause that names it: the person's (USER) or
    someone else's as said ("my brother just became a pilot with Ryanair": "my brother"); a later clause with no
    subject of its own is its sentence's ("my sister quit and joined Deloitte"). The person's where any clause
    naming it is; None where no clause names it (a value a model put in its own words)."""
    wanted = " ".join(value.split()).casefold()
    if not wanted:
        return None
    owners: list[str] = []
    lead = ""
    for clause, leads in clauses(text):
        lead = clause if leads else lead
        at = clause.casefold().find(wanted)
        if at < 0:
            continue
        owner = _whose(clause[:at])
        if owner == USER and not leads and _SUBJECTLESS.match(clause) and not _FIRST.match(clause):
            owner = _whose(lead)
        owners.append(owner)
    if not owners:
        return None
    return USER if USER in owners else owners[0]


def _opens(word: str) -> bool:
    """A word that opens a sentence with no subject of its own ("Working with ...", "Finally ..."): no name."""
    lead = word.lower()
    return lead in _OPENERS or lead in _TIMES or (len(lead) > 4 and lead.endswith(("ing", "ly")))


# A change of the attribute told in its own clause, its new value in the next ("I changed dentists; I now see Dr
# Cruz", "switched gyms, I go to CityFit now").
_CHANGED_KIND = re.compile(
    rf"\b(?i:switched|changed|swapped|moved)\s+(?:(?i:my|our)\s+)?(?P<p>{_NOUN}(?:\s+{_NOUN})?)s\s*$"
)


def changed_kind(clause: str) -> str | None:
    """The attribute a clause says was changed, naming no value ("I changed dentists"): "dentist"."""
    found = _CHANGED_KIND.search(clause)
    return _noun(found["p"]) if found else None


def forms(clause: str, changed: str | None = None) -> list[Said]:
    """The statements a clause gives in one of the forms, asserted (the polarity is read after). `changed`: the
    attribute an earlier clause of the sentence said was changed, for a value this one names without it."""
    said: list[Said] = []
    now = re.search(r"\b(?i:now)\b", clause) is not None
    for found in _MY_X_IS.finditer(clause):
        noun, value = _noun(found["a"]), _value(found["v"])
        if noun and value:
            said.append(Said(USER, noun, value, "asserted", bool(found["cue"] or found["now"]) or now, clause))
    if not said:
        said += _lower_models(clause)
    for found in _THEIR_X_IS.finditer(clause):
        noun, value, name = _noun(found["a"]), _value(found["v"]), found["s"]
        if noun and value and name.lower() not in ("my", "our", "the", "i"):
            subject = f"my {found['rel'].lower()} {name}" if found["rel"] else name
            said.append(Said(subject, noun, value, "asserted", bool(found["cue"] or found["now"]) or now, clause))
    world = _X_OF_Y.search(clause)
    if world and (noun := _noun(world["a"])) and (value := _value(world["v"])) and (of := _value(world["s"])):
        # A definite description in the singular ("the CEO of X is") names the one value it has at a time.
        one = re.search(r"\b(?i:are)\b", world.group(0)) is None
        # "The headquarters of X is in Oslo" says where it is: "the CEO of X is in Tokyo" is not who the CEO is.
        said.append(Said(of, f"{noun} location" if world["where"] else noun, value, "asserted", one or now, clause))
    said += _named_role(clause, now)
    for found in _SWITCHED.finditer(clause):
        noun, value, old = _noun(found["a"] or found["p"] or found["b"]), _value(found["v"]), _value(found["o"])
        whose = found["who"] or _whose(clause[: found.start()])  # "shifted Aarav from X to Y": Aarav's
        if value:  # with no attribute named ("switched to a Garmin Venu 3"), resolved by its kind (supersede.py)
            said.append(Said(whose, noun or changed or "", value, "asserted", True, clause))
        if old:  # the old value ends, even where the attribute cannot be named
            said.append(Said(whose, noun or "", old, "ended", True, clause))
    for found in _GOT_NEW.finditer(clause):
        noun, value = _noun(found["a"]), _value(found["v"])
        if noun and value:
            said.append(Said(_whose(clause[: found.start()]), noun, value, "asserted", True, clause))
    for found in _SWAP.finditer(clause):
        old = _value(found["o"])
        if old and _value(found["v"]):  # the old value ends; the new one's attribute is not named
            said.append(Said(_whose(clause[: found.start()]), "", old, "ended", True, clause))
    for found in _HAS_NAMED.finditer(clause):
        if (noun := _noun(found["a"])) and (value := _value(found["v"])):
            said.append(Said(USER, noun, value, "asserted", False, clause))
    opening = _X_IS_OPENING.match(clause)
    if opening and not said and (noun := _noun(opening["a"])) and (value := _named(_value(opening["v"]))):
        said.append(Said(USER, noun, value, "asserted", now, clause))
    for found in _THE_NEW_X_IS.finditer(clause):
        if (noun := _noun(found["a"])) and (value := _value(found["v"])):
            said.append(Said(USER, noun, value, "asserted", True, clause))
    said += _services(clause)
    if not said:
        said += _venues(clause)
    for found in _GO_TO.finditer(clause):
        value = _value(found["v"])
        venue = _VENUE.search(value or "")
        named = _noun(found["a"]) if found["a"] and found["a"].lower() not in _FUNCTION else None
        noun = named or (venue.group(0).lower() if venue else None) or changed
        if not found["cue"] and not (venue or (named and _VENUE.search(named))):
            continue  # "I go to Paris every summer": said without "now", only a place named by its kind
        if noun and value:
            said.append(Said(_whose(clause[: found.start()]), noun, value, "asserted", bool(found["cue"]), clause))
    return said


# A clause about someone or something named, in the third person ("Ama Boateng now works for Halcyon Mining",
# "Norrland Freight is headquartered in Oslo"): read as they would say it of themselves (state/reading.py). A name
# of one word leads a sentence as any word does ("Finally moved to Leeds"), so it is taken only before a verb in
# the third person present ("Tom lives in Paris"); a name of two words or more before any verb.
_NAMED = re.compile(
    rf"^(?P<s>{CAPITAL}[\w\u2019.-]*(?:\s+{CAPITAL}[\w\u2019.-]*){{0,3}})\s+(?:(?i:now|still|currently|also)\s+)?"
    rf"(?P<verb>{LOWER}[\w-]*)(?P<rest>\s+\S.*)$"
)
_NOT_NAMES = frozenset("i the a an my our we he she they it this that these those there his her their your you".split())
# A one-word name before a verb in the past ("Tom moved to Paris", "Kevin left the company") is told from a word
# that opens a sentence ("Finally moved to Leeds") by that word: an adverb of time or manner, or any "-ly" word.
_OPENERS = frozenset(
    "just then also today yesterday tonight once still already even soon later never always again now so well "
    "ok okay anyway actually basically honestly last first next after before since when while".split()
)
_PAST = re.compile(
    r"(?i:[\w-]+ed|left|quit|went|got|took|began|became|came|won|lost|sold|bought|found|ran|split|broke|gave|"
    r"made|met|paid|told|sent|drove|flew|wrote|fell|rejoined|retired)$"
)


def named_subject(clause: str) -> tuple[str, str] | None:
    """The named subject of a third-person clause and the clause as a fact about them ("Lives in Accra")."""
    found = _NAMED.match(clause)
    if found is None:
        return None
    words = found["s"].split()
    if any(w.lower() in _NOT_NAMES or w.endswith(("'s", "\u2019s")) for w in words):
        return None
    verb = found["verb"]
    if verb.lower() in _FUNCTION and verb.lower() not in ("is", "are", "was"):  # "Started as a nurse": no verb
        return None
    if _TO_ME.match(found["rest"]):  # "Heineken hired me": said of the person
        return None
    if len(words) == 1 and not (verb.endswith("s") and not verb.endswith("ss")) and not _one_name_past(words[0], verb):
        return None
    return found["s"], verb[0].upper() + verb[1:] + found["rest"]


_TO_ME = re.compile(r"\s+(?i:me|us)\b")


def _one_name_past(word: str, verb: str) -> bool:
    lead = word.lower()
    return _PAST.match(verb) is not None and lead not in _OPENERS and lead not in _TIMES and not lead.endswith("ly")


def named_parts(clause: str) -> list[tuple[str, str]]:
    """The named subjects of a clause's comma-separated parts ("..., Γιώργος moved back to Thessaloniki"), each with
    its part as a fact about them."""
    parts = (p.strip() for p in re.split(r"[,;]\s+", clause[:MAX_CLAUSE]))
    return [n for p in parts if p and (n := named_subject(p)) is not None]


def names_of_own(text: str, value: str) -> bool:
    """Whether a text names `value` (whole words, as written) in a clause of the person's own: not one that
    someone else leads ("my sister works at Google", "he sold the Corsa") or a named other's ("Tom's Corsa")."""
    if len(value) < 2 or not any(c.isalpha() for c in value):
        return False
    word = re.compile(rf"(?<![\w]){re.escape(value)}(?![\w])")
    for clause, _ in clauses(text):
        at = word.search(clause)
        if at is None or _OTHERS.match(clause) or _PRONOUN.match(clause):
            continue
        if any(name != value and value in fact for name, fact in named_parts(clause)):
            continue
        if clause[: at.start()].rstrip().endswith(("'s", "\u2019s")):  # "Tom's Corsa": another's
            continue
        return True
    return False


def listed_with(text: str, value: str) -> list[str]:
    """The names a text lists with `value` in a clause of the person's own ("we pay for Netflix and Disney+":
    Disney+ with Netflix), each a whole name: of the same kind, and not changed when `value` is."""
    found: list[str] = []
    for clause, _ in clauses(text):
        if _OTHERS.match(clause) or _PRONOUN.match(clause):
            continue
        for at in re.finditer(VALUE, clause):
            names = [n for n in (_value(p) for p in re.split(r"\s+and\s+", at.group(0))) if n]
            if len(names) > 1 and value in names:
                found += [n for n in names if n != value and n not in found]
    return found


def ending_subject(clause: str, value: str | None, leads: bool = True) -> str | None:
    """Whose ending a clause tells: the person's ("we broke up", "handed in my notice", "Miso died": the value
    leads), another's ("he retired", "my sister quit": kept apart by name), or None when it cannot tell."""
    if _FIRST.match(clause) and not _OTHERS.match(clause):
        return USER
    if value and clause.startswith(value):
        return USER
    if _PRONOUN.match(clause) or _OTHERS.match(clause):  # someone else's: apart from the person's
        return _someone(clause)
    if _SUBJECTLESS.match(clause) or _opened_by_verb(clause):
        return USER if leads else None
    return None


_SOMEONE = re.compile(
    rf"(?:(?i:my|our|his|her|their)\s+)?(?:{LOWER}+|(?i:he|she|they))(?:\s+{CAPITAL}[\w'\u2019-]*(?:\s+{CAPITAL}[\w'\u2019-]*)?)?"
)


def _someone(lead: str) -> str:
    """Someone else who leads a clause, as said: "he", "my sister", "my daughter Isla" (her name kept as
    written, by which she is one subject with "Isla": domain/statements.py `same_subject`)."""
    found = _SOMEONE.match(lead.strip())
    words = (found.group(0) if found else lead).split()[:4]
    kin = 2 if words[0].lower() in ("my", "our", "his", "her", "their") else 1
    return " ".join([w.lower() for w in words[:kin]] + [w for w in words[kin:] if w[:1].isupper()])


def _opened_by_verb(clause: str) -> bool:
    """A clause whose first word, capitalised as a sentence's is, is no name: an adverb ("Finally got rid of
    ...") or a verb before a determiner ("Sold the Golf")."""
    words = clause.split()[:2]
    return bool(words) and (_opens(words[0]) or (len(words) == 2 and words[1].lower() in _DETERMINER))


def short(clause: str) -> bool:
    return 2 <= len(clause.split()) <= MAX_ENDING_WORDS


def head(clause: str) -> str:
    """What of a clause is read for an ending: its first MAX_ENDING_WORDS words, where its subject and verb are
    ("Kevin left the company last week and nobody has replaced him": "Kevin left the company ...")."""
    return " ".join(clause.split()[:MAX_ENDING_WORDS])


def names_in(clause: str, skip: Sequence[str] = ()) -> str | None:
    """The first whole name in a clause (not its first word, unless it is the value: "Miso died")."""
    for found in re.finditer(VALUE, clause):
        value = _value(found.group(0))
        if value and "I" in value.split():  # "Abeg I don close ...": what leads "I" is no value
            continue
        if value and found.start() == 0:
            value = _unopened(value)
        if value and value not in skip and value.lower() not in ("i", "i'm", "i've", "we"):
            return value
    return None


_DETERMINER = frozenset("the a an my our his her their".split())


def _unopened(value: str) -> str | None:
    """A value found at the start of a clause without the word that opens the sentence: a verb before a
    determiner ("Sold the Golf": the Golf), an adverb ("Finally"); a name ("Miso died") stays."""
    words = value.split()
    if _opens(words[0]) or (len(words) > 2 and words[1].lower() in _DETERMINER):
        words = words[2:] if len(words) > 2 and words[1].lower() in _DETERMINER else words[1:]
    return " ".join(words) or None


def _named_role(clause: str, now: bool) -> list[Said]:
    found = _NAMED_ROLE.match(clause)
    if found is None or (name := _value(found["s"])) is None or (value := _value(found["v"])) is None:
        return []
    if name.split()[0].lower() in _NOT_NAMES:  # "This is a photo of Paris"
        return []
    if found["p"]:  # the participle names the attribute ("married": the partner, one at a time by the catalogue)
        return [Said(name, found["p"].lower(), value, "asserted", bool(found["now"]) or now, clause)]
    noun = _noun(found["a"])
    if noun is None:
        return []
    if found["art"].lower() == "the":  # "X is the CEO of Y": the CEO of Y is X
        return [Said(value, noun, name, "asserted", True, clause)]
    return [Said(name, noun, value, "asserted", bool(found["now"]) or now, clause)]


def _venues(clause: str) -> list[Said]:
    """Places someone goes to, named with their kind: a school, a gym, a club (its kind the attribute)."""
    said: list[Said] = []
    for found in _AT_VENUE.finditer(clause):
        value = _named(_value(found["v"]))
        venue = _VENUE.search(value or "")
        if value is None or venue is None:
            continue
        kind = venue.group(0).lower()
        lead = clause[: found.start("verb")]
        changed = _VENUE_CHANGE.search(clause[: found.start("v")]) is not None
        said.append(Said(_whose(lead), _VENUE_KINDS.get(kind, kind), value, "asserted", changed, clause))
    return said


def _lower_models(clause: str) -> list[Said]:
    said: list[Said] = []
    for found in _MY_NEW_LOWER.finditer(clause):
        words = found["v"].split()
        numbered = [i for i, w in enumerate(words) if any(c.isdigit() for c in w)]
        named = words[: numbered[-1] + 1] if numbered else []
        # A make before its number ("pixel 8"), not a quantity ("3 stops away", "about 20 minutes").
        if not named or not any(c.isalpha() for c in named[0]) or named[0].lower() in _ABOUT:
            continue
        if _FUNCTION.intersection(w.lower() for w in named):
            continue
        if (noun := _noun(found["a"])) and (value := _value(" ".join(named))):
            said.append(Said(_whose(clause[: found.start()]), noun, value, "asserted", True, clause))
    return said


def _named(value: str | None) -> str | None:
    """A value that is a name, not a day or a month ("on Monday")."""
    return value if value and value.split()[0].lower() not in _TIMES else None


def _services(clause: str) -> list[Said]:
    """Providers, people in a role and named things of the person's own, each many-valued unless told new."""
    said = _providers(clause) + _roles(clause)
    if said:
        return said
    return [
        Said(USER, THING, value, "asserted", bool(found["cue"]), clause)  # "my new X": one of its kind at a time
        for found in _MY_THING.finditer(clause)
        if (value := _named(_value(found["v"])))
        and (" " in value or any(c.isdigit() for c in value))
        and _whose(clause[: found.start()]) == USER
    ]


def _providers(clause: str) -> list[Said]:
    said: list[Said] = []
    found = _PROVIDER.search(clause)
    if found and (value := _named(_value(found["v"]))):
        noun = _noun(found["a"]) or ("bank" if "bank" in (found["verb"] or "").lower() else PROVIDER)
        said.append(Said(USER, noun, value, "asserted", False, clause))
    for with_ in _MY_X_WITH.finditer(clause):
        if (named := _noun(with_["a"])) and (held := _named(_value(with_["v"]))):
            said.append(Said(USER, named, held, "asserted", False, clause))
    return said


def _roles(clause: str) -> list[Said]:
    said: list[Said] = []
    mine = _IS_MY.match(clause)
    if mine and (value := _named(_value(mine["v"]))) and (noun := _noun(mine["a"])):
        changed = bool(mine["now"] or mine["cue"] or mine["later"])
        if mine["ex"]:
            said.append(Said(USER, "partner", value, "ended", True, clause))
        elif not _RELATIVES.intersection(noun.split()):
            said.append(Said(USER, noun, value, "asserted", changed, clause))
    for found in _ROLE_NAME.finditer(clause):
        noun, value = _noun(found["a"]), _named(_value(found["v"]))
        if noun is None or value is None or noun.split()[0] in _RELATIVES or _FUNCTION.intersection(noun.split()):
            continue
        if _whose(clause[: found.start()]) == USER:
            said.append(Said(USER, noun, value, "asserted", bool(found["cue"]), clause))
    for found in _A_ROLE_NAME.finditer(clause):
        noun, value = _noun(found["a"]), _named(_value(found["v"]))
        if noun is None or value is None or noun.split()[0] in _RELATIVES or _FUNCTION.intersection(noun.split()):
            continue
        if _whose(clause[: found.start()]) == USER and not any(s.value == value for s in said):
            said.append(Said(USER, noun, value, "asserted", False, clause))
    return said
