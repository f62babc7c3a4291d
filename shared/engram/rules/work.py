"""Work: employer, job title, job changes, studies, retirement."""

from __future__ import annotations

import re

from engram.domain.models import MemoryBank
from engram.domain.steps import CandidateFact
from engram.rules.facts import HISTORY, WORK, Build, Match, Rule, make, one, regex_rule
from engram.rules.vocab import NOT_OCCUPATIONS, OCCUPATIONS, PLACES
from engram.text.clauses import ADV, IM, IVE, Clause, clean_object, has_capital, strip_trailing, title_case
from engram.text.letters import CAPITAL

_W = MemoryBank.WORK
_ARTICLES = ("a", "an", "the")
_NOT_ORGS = frozenset("home it this that them here there work school night nights weekends".split())
_SELF = frozenset({"myself", "me", "my own", "my own company", "my own business"})
_WHERE = re.compile(r"\s+(?:in|near|outside|based\s+in)\s+\S.*$", re.I)


def org_name(raw: str, clause: Clause, allow_article: bool = True) -> tuple[str, bool] | None:
    """An organisation: capitalised, or 'a bank' / 'the government' when articles are allowed."""
    value, complete = clean_object(re.split(r"\s+as\s+", raw, maxsplit=1, flags=re.I)[0], place=True)
    if not re.match(r"(?:a|an|the)\s", value, re.I):  # "Soins Alpins in Sion": the place is not the name
        value = _WHERE.sub("", value)  # (but it is part of a description: "a little place in Dublin")
    words = value.split()
    if not words or len(words) > 6 or value.lower() in _NOT_ORGS:
        return None
    if words[0].lower() in _ARTICLES:
        if not allow_article or len(words) < 2:
            return None
        return value, complete
    if clause.lowercase:
        return title_case(value), complete
    return (value, complete) if has_capital(value) else None


def job_title(raw: str, any_title: bool) -> str | None:
    """A job title; unless the phrase says 'work as', its head must look like an occupation."""
    value = re.sub(r"\s+by\s+(?:profession|trade)$", "", strip_trailing(raw), flags=re.I)
    value = re.sub(r"^(?:an?|the)\s+", "", value, flags=re.I)
    words = value.split()
    if not words or len(words) > 5:
        return None
    head = words[-1].lower()
    if any_title or head in OCCUPATIONS:
        return value
    if head in NOT_OCCUPATIONS:
        return None
    return value if head.endswith(("ist", "ician", "ologist")) else None


def _article(title: str) -> str:
    return "an" if title[:1].lower() in "aeiou" else "a"


def employer_fact(org: str, prep: str = "at") -> CandidateFact:
    if org.lower() in _SELF or org.lower() == "self-employed":
        return make("Is self-employed", "employer", "self-employed", _W, WORK)
    return make(f"Works {prep} {org}", "employer", org, _W, WORK)


def title_fact(title: str) -> CandidateFact:
    if title.lower() == "student":
        return make("Is a student", "job_title", title, _W, WORK)
    return make(f"Works as {_article(title)} {title}", "job_title", title, _W, WORK)


def _former(org: str) -> CandidateFact:
    return make(f"Previously worked at {org}", f"former_employer:{org.lower()}", org, _W, HISTORY)


def _prep(said: str | None, default: str) -> str:
    return said.lower() if said and said.lower() in ("at", "for") else default


def _job(any_title: bool, prep: str = "at") -> Build:
    """Title and/or employer: 'I work at Google as an engineer', 'I'm a nurse at St Mary's'."""

    def build(found: re.Match[str], clause: Clause) -> Match | None:
        groups = found.groupdict()
        facts: list[CandidateFact] = []
        complete = True
        if groups.get("title"):
            title = job_title(groups["title"], any_title)
            if title is None:
                return None
            facts.append(title_fact(title))
        if groups.get("org"):
            raw = groups["org"]
            if strip_trailing(raw).lower() in _SELF:
                facts.append(employer_fact("myself"))
            else:
                org = org_name(raw, clause)
                if org is None:
                    return None
                student = bool(facts) and facts[0].fact_value == "student"
                facts.append(
                    make(f"Studies at {org[0]}", "school", org[0], _W, WORK)
                    if student
                    else employer_fact(org[0], _prep(groups.get("prep"), prep))
                )
                complete = org[1]
        return Match(tuple(facts), complete) if facts else None

    return build


def _change(found: re.Match[str], clause: Clause) -> Match | None:
    """'I left Google for Microsoft': Microsoft is the employer now and Google a former one."""
    old, new = org_name(found.group("old"), clause, False), org_name(found.group("org"), clause)
    if old is None or new is None or old[0].lower() in PLACES or new[0].lower() in PLACES:
        return None  # "I left London for Paris" is a move (rules_identity), not a job change
    return Match((employer_fact(new[0]), _former(old[0])), new[1])


def _left(found: re.Match[str], clause: Clause) -> Match | None:
    old = org_name(found.group("old"), clause, False)
    if old is None:
        return None
    retired = make(f"No longer works at {old[0]}", "employer", old[0], _W, WORK, negated=True)
    return Match((retired, _former(old[0])), old[1])


def _retired(found: re.Match[str], clause: Clause) -> Match | None:
    if strip_trailing(found.group("rest") or ""):
        return None
    return one(make("Is retired", "job_title", "retired", _W, WORK))


def _studies(found: re.Match[str], clause: Clause) -> Match | None:
    field, complete = clean_object(found.group("field"))
    if not field or len(field.split()) > 5:
        return None
    facts = [make(f"Studies {field}", "field_of_study", field, _W, WORK)]
    if found.group("org"):
        org = org_name(found.group("org"), clause)
        if org is None:
            return None
        facts.append(make(f"Studies at {org[0]}", "school", org[0], _W, WORK))
        complete = org[1]
    return Match(tuple(facts), complete)


def _school(found: re.Match[str], clause: Clause) -> Match | None:
    org = org_name(found.group("org"), clause)
    return one(make(f"Studies at {org[0]}", "school", org[0], _W, WORK), org[1]) if org else None


_I = rf"(?:i|{IVE})"
_AS = r"(?:\s+as\s+(?:an?\s+)?(?P<title>.+))?"
_AT = r"(?:\s+(?P<prep>at|for|with)\s+(?P<org>.+))?"
_JOB = r"(?:a\s+|an\s+|the\s+)?(?:new\s+)?(?:job|position|role|offer|gig)"

RULES: tuple[Rule, ...] = (
    regex_rule(
        rf"{_I}\s+{ADV}(?:left|quit)\s+(?P<old>.+?)\s+(?:for|to\s+(?:join|work\s+(?:at|for))|"
        r"and\s+(?:joined|started\s+at|moved\s+to|went\s+to))\s+(?P<org>.+)",
        _change,
    ),
    regex_rule(
        rf"{_I}\s+{ADV}(?:switched|changed\s+jobs|went|jumped)\s+from\s+(?P<old>.+?)\s+to\s+(?P<org>.+)", _change
    ),
    regex_rule(
        rf"{_I}\s+{ADV}(?:left|quit)\s+(?:my\s+(?:job|position|role)\s+at|working\s+(?:at|for))\s+"
        r"(?P<old>.+)",
        _left,
    ),
    # A capitalised name only (the rules compile with IGNORECASE; CAPITAL is not): "I quit smoking" is no employer.
    regex_rule(rf"{_I}\s+{ADV}quit\s+(?P<old>{CAPITAL}.*)", _left),
    regex_rule(r"i\s+(?:no\s+longer|don'?t|do\s+not)\s+work\s+(?:at|for)\s+(?P<old>.+?)(?:\s+any\s?more)?", _left),
    regex_rule(rf"{_I}\s+{ADV}stopped\s+working\s+(?:at|for)\s+(?P<old>.+)", _left),
    regex_rule(rf"(?:i|we)\s+{ADV}work\s+(?P<prep>at|for)\s+(?P<org>.+?){_AS}", _job(True)),
    regex_rule(rf"{IM}\s+{ADV}working\s+(?P<prep>at|for)\s+(?P<org>.+?){_AS}", _job(True)),
    regex_rule(rf"{IVE}\s+{ADV}(?:been\s+working|worked)\s+(?P<prep>at|for)\s+(?P<org>.+?){_AS}", _job(True)),
    regex_rule(rf"{IM}\s+{ADV}employed\s+(?:at|by)\s+(?P<org>.+?){_AS}", _job(True)),
    regex_rule(rf"i\s+{ADV}(?:work|am\s+working|'m\s+working)\s+as\s+(?:an?\s+)?(?P<title>.+?){_AT}", _job(True)),
    regex_rule(
        rf"i\s+{ADV}(?:started|began)\s+(?:a\s+new\s+job\s+|a\s+job\s+|working\s+|work\s+)?(?:at|with|for)\s+"
        rf"(?P<org>.+?){_AS}",
        _job(True),
    ),
    regex_rule(
        rf"{_I}\s+{ADV}(?:got|landed|accepted|took|started)\s+{_JOB}"
        r"(?:\s+as\s+(?:an?\s+)?(?P<title>.+?))?\s+(?:at|with)\s+(?P<org>.+)",
        _job(True),
    ),
    regex_rule(
        rf"{_I}\s+{ADV}(?:got|landed|accepted|took|started)\s+{_JOB}\s+as\s+(?:an?\s+)?(?P<title>.+)", _job(True)
    ),
    regex_rule(rf"(?:i|{IVE}|{IM})\s+{ADV}(?:got|was|been|being)\s+hired\s+(?:at|by)\s+(?P<org>.+?){_AS}", _job(True)),
    regex_rule(rf"{_I}\s+{ADV}joined\s+(?P<org>(?!(?:a|an)\s).+?){_AS}", _job(True)),
    regex_rule(rf"{IM}\s+{ADV}self[- ]employed", lambda f, c: one(employer_fact("myself"))),
    regex_rule(rf"(?:{IM}|i\s+{ADV}work)\s+{ADV}(?:a\s+)?freelance(?:r)?", lambda f, c: one(employer_fact("myself"))),
    regex_rule(
        rf"{IM}\s+{ADV}(?:working\s+as\s+)?(?:an?|the)\s+(?P<title>.+?)(?:\s+(?P<prep>at|for|with|of)\s+"
        r"(?P<org>.+))?",
        _job(False),
    ),
    regex_rule(
        r"my\s+(?:job|profession|occupation|role|position)\s+is\s+(?:an?\s+)?(?P<title>.+?)"
        r"(?:\s+(?P<prep>at|for)\s+(?P<org>.+))?",
        _job(False),
    ),
    regex_rule(r"my\s+job\s+title\s+is\s+(?P<title>.+?)(?:\s+(?P<prep>at|for)\s+(?P<org>.+))?", _job(True)),
    regex_rule(rf"(?:{IM}\s+{ADV}|i\s+{ADV})retired(?P<rest>.*)", _retired),
    regex_rule(
        rf"(?:i\s+{ADV}study|{IM}\s+{ADV}studying|i\s+{ADV}major\s+in|{IM}\s+{ADV}majoring\s+in)\s+"
        r"(?!at\s)(?P<field>.+?)(?:\s+at\s+(?P<org>.+))?",
        _studies,
    ),
    regex_rule(
        rf"(?:i\s+{ADV}(?:study|go\s+to\s+(?:school|college|university|uni))|{IM}\s+{ADV}studying)\s+at\s+"
        r"(?P<org>.+)",
        _school,
    ),
)
