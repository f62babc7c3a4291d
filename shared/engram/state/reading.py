"""The statements a text makes, read offline by meaning (the StatementReader port, domain/statements.py).

Two readings of each text, once (cached):
- the catalogue's attributes of the person (state/aspects.py): each reading of an aspect is a statement of the
  user asserting its value, one value at a time where the catalogue says so;
- any other attribute, of the person or of someone or something named, in the forms people give a value in
  (state/open_reading.py), with its noun made canonical by meaning (state/attributes.py), and endings ("we
  broke up", "cancelled my Netflix"), whose polarity and attribute come from the labelled set
  (state/polarity.py).
Where both read a value in one text, the catalogue's statement stands."""

from __future__ import annotations

import re
from collections import OrderedDict
from collections.abc import Sequence

from engram.domain.statements import USER, Statement
from engram.rules.shorthand import expand
from engram.state.aspects import AspectReader, first_person
from engram.state.attributes import ANY, AttributeMeaning
from engram.state.open_reading import (
    PROVIDER,
    THING,
    Said,
    changed_kind,
    clauses,
    done_with,
    ending_subject,
    forms,
    head,
    named_parts,
    named_subject,
    names_in,
    short,
)
from engram.state.polarity import PolarityReader, Sense, cue, lowered_ending_cues, said_of
from engram.text.match import values_match

CACHE = 4096  # texts read (the same memories are read at add and again as neighbours)
# How close to an example of an ending a clause must be: naming the value it ends ("Miso died", "cancelled my
# Netflix"), naming the attribute ("gave the bike away"), or neither ("we broke up", "handed in my notice").
NAMED_VALUE, NAMED_ATTRIBUTE, STRONG = 0.35, 0.5, 0.7


class StatementReading:
    def __init__(
        self,
        aspects: AspectReader,
        attributes: AttributeMeaning | None = None,
        polarity: PolarityReader | None = None,
    ) -> None:
        self.aspects = aspects
        self.attributes = attributes or AttributeMeaning(aspects.embedder, aspects.aspects)
        self.polarity = polarity or PolarityReader(aspects.embedder)
        self._cache: OrderedDict[str, tuple[Statement, ...]] = OrderedDict()

    def statements(self, texts: Sequence[str]) -> list[tuple[Statement, ...]]:
        unread = list(dict.fromkeys(t for t in texts if t not in self._cache))
        if unread:
            catalogue = dict(zip(unread, self.aspects.read([first_person(t) for t in unread]), strict=True))
            opened = self._open(unread)
            others = self._named(unread)
            for text in unread:
                said = {(r.aspect.name, r.value): r.aspect.single for r in catalogue[text]}  # one statement per value
                mine = [Statement(subject=USER, attribute=a, value=v, single=single) for (a, v), single in said.items()]
                ended = [s for s in opened[text] if s.polarity in ("ended", "denied")]
                mine = [s for s in mine if not _told(s, ended)]  # "switched from BT to Sky": BT is ended, not held
                # An attribute the words name outside the catalogue ("my salary account is with HDFC Bank") is
                # what the value is, not the catalogue's closest aspect (employer).
                named = [s for s in opened[text] if s.polarity == "asserted" and self._named_outside(s.attribute)]
                mine = [s for s in mine if not _told(s, named)]
                mine += [s for s in opened[text] if s.polarity != "asserted" or not _told(s, mine)]
                mine += [s for s in others[text] if not any(_same(s, o) for o in opened[text])]
                unique = {(s.subject, s.attribute, s.value, s.polarity): s for s in mine}  # once each
                self._cache[text] = tuple(unique.values())
                while len(self._cache) > CACHE:
                    self._cache.popitem(last=False)
        return [self._cache[t] for t in texts]

    def _open(self, texts: Sequence[str]) -> dict[str, list[Statement]]:
        """The open statements of each text: the forms' and the endings', with one embedder call for the
        clauses that give a form or may tell an ending."""
        # Each clause with its forms and the parts of it that give none, read once.
        read = {
            t: [
                (c, leads, found, _unread_parts(c, found))
                for c, leads, found in _forms(clauses(expand(first_person(t))))
            ]
            for t in texts
        }
        heads = (head(p) for t in texts for _, _, _, parts in read[t] for p in parts)
        asked = list(dict.fromkeys(h for h in heads if short(h) and self.polarity.may_end(h)))
        senses = dict(zip(asked, self._senses(asked), strict=True))
        out: dict[str, list[Statement]] = {}
        for text in texts:
            statements: list[Statement] = []
            lead = ""
            for clause, leads, found, parts in read[text]:
                lead = clause if leads else lead
                statements += [self._asserted(said) for said in found]
                for n, part in enumerate(parts):
                    sense = senses.get(head(part))
                    if sense is not None:
                        statements += self._ending(head(part), lead if n or not leads else "", sense)
                    statements += _said_ended(head(part), not n and leads)
            out[text] = statements
        return out

    def _named_outside(self, attribute: str) -> bool:
        return attribute not in (ANY, THING, PROVIDER) and self.attributes.single(attribute) is None

    def _named(self, texts: Sequence[str]) -> dict[str, list[Statement]]:
        """What each text says of someone or something named, in the third person, read through the catalogue as
        they would say it of themselves ("Ama Boateng lives in Accra": Ama Boateng's home). Not a hedge, a denial
        or the past."""
        said = {t: [n for n in self._theirs(t) if cue(n[1]) is None] for t in texts}
        facts = list(dict.fromkeys(first_person(fact) for t in texts for _, fact in said[t]))
        read = dict(zip(facts, self.aspects.read(facts), strict=True)) if facts else {}
        return {
            t: [
                Statement(subject=name, attribute=r.aspect.name, value=r.value, single=r.aspect.single)
                for name, fact in said[t]
                for r in read[first_person(fact)]
            ]
            for t in texts
        }

    @staticmethod
    def _theirs(text: str) -> list[tuple[str, str]]:
        """The named subjects of a text's clauses, each with what the clause says of them."""
        return [n for c, _ in clauses(expand(text)) for n in named_parts(c)]

    def _senses(self, clauses_: Sequence[str]) -> list[Sense | None]:
        if not clauses_:
            return []
        return [self.polarity.sense(v) for v in self.aspects.embedder.embed(list(clauses_))]

    def _asserted(self, said: Said) -> Statement:
        """A form's statement, with the polarity its words give ("my old phone was ..." is past). Its meaning
        is not asked: a form is close to the examples of every polarity that share its words."""
        polarity = said.polarity
        if polarity == "asserted":
            polarity = said_of(said.clause, said.value) or "asserted"
        # A provider or a thing whose attribute is not named stays so: by meaning it is no catalogue's aspect.
        attribute = (self.attributes.canonical(said.noun) if said.named else said.noun) if said.noun else ANY
        single = self.attributes.single(attribute)
        return Statement(
            subject=said.subject,
            attribute=attribute,
            value=said.value or ANY,
            polarity=polarity,
            single=said.changed if single is None else single,
        )

    def _ending(self, clause: str, lead: str, sense: Sense) -> list[Statement]:
        """An ending told by meaning ("gave the bike away"): it names its value, or the attribute it ends, or is
        close to how endings are said; and nothing in its words hedges, denies or tells it as long ago. A value
        that leads its clause is what ends ("Kevin left the company", "Miso died"): whatever the person holds
        it as (their manager, their cat), that ends too, the attribute of the closest example being a guess.
        `lead`: the clause that leads its sentence, when this one does not: a clause with no subject of its own
        has its sentence's ("we're off-grid now, closed the British Gas account")."""
        if sense.polarity != "ended" or sense.attribute is None:
            return []
        if cue(clause, asserting=False) not in (None, "ended"):
            return []
        value = done_with(clause)[1] or names_in(clause)  # "Maya and I split up": Maya
        subject = ending_subject(clause, value, not lead)
        if subject is None and lead and ending_subject(clause, None, False) is None:
            subject = ending_subject(lead, None, True)
        if subject is None:
            return []
        attribute = self.attributes.canonical(sense.attribute)
        named = any(w in clause.lower().split() for w in sense.attribute.split())
        if sense.score < (NAMED_VALUE if value else NAMED_ATTRIBUTE if named else STRONG):
            return []
        single = self.attributes.single(attribute)
        ended = Statement(
            subject=subject,
            attribute=attribute,
            value=value or ANY,
            polarity="ended",
            single=True if single is None else single,
        )
        if value and subject == USER and (named_subject(clause) or ("", ""))[0] == value:
            return [ended, ended.model_copy(update={"attribute": ANY, "single": True})]
        return [ended]


def _said_ended(clause: str, leads: bool) -> list[Statement]:
    """An ending the words say of a value they name ("no more Gary the landlord", "Kiri doesn't coach us any
    more"), whatever the clause means as a whole: its polarity is the language's, not its closest example's
    (a name blurs the meaning of a short clause). Of whatever attribute holds that value: it is named."""
    if cue(clause, asserting=False) != "ended":  # "no longer", "no more", "any more", and no hedge or past
        return []
    clause = lowered_ending_cues(clause)  # "No more wahala": its "No" opens no name
    _, with_whom = done_with(clause)
    if with_whom is not None:  # "Sam and I are not together any more": the person's, Sam its value
        return [Statement(subject=USER, attribute=ANY, value=with_whom, polarity="ended", single=True)]
    value = names_in(clause)
    if value is not None and value.split()[0].lower() in _POSSESSIVE:  # "My sister Ana no longer ...": not read
        return []
    if value is not None and clause.startswith(value) and (then := names_in(clause, skip=[value])) is not None:
        return [Statement(subject=value, attribute=ANY, value=then, polarity="ended", single=True)]  # Maria's Leeds
    subject = ending_subject(clause, value, leads) if value else None
    if value is None or subject is None:
        return []
    return [Statement(subject=subject, attribute=ANY, value=value, polarity="ended", single=True)]


_POSSESSIVE = frozenset("my our his her their the".split())


def _forms(said: Sequence[tuple[str, bool]]) -> list[tuple[str, bool, list[Said]]]:
    """Each clause with whether it leads its sentence and the forms it gives, an attribute a clause says was
    changed ("I changed dentists") naming the value of the next that names none ("I now see Dr Cruz")."""
    out: list[tuple[str, bool, list[Said]]] = []
    changed: str | None = None
    for clause, leads in said:
        out.append((clause, leads, forms(clause, changed)))
        changed = changed_kind(clause) or (changed if not leads else None)
    return out


def _unread_parts(clause: str, found: Sequence[Said]) -> list[str]:
    """The comma-separated parts of a clause that give no form, each asked whether it tells an ending: "left
    the Harriers, joined Portobello Running Club" tells one in its first part, which its whole meaning blurs."""
    opening, _ = done_with(clause)  # "Maya and I split up": one part, whose value Maya leads
    parts = [p.strip() for p in _PARTS.split(clause[opening:])]
    parts[0] = f"{clause[:opening]}{parts[0]}" if opening else parts[0]
    if not found:
        return [p for p in parts if p] if len(parts) > 1 else [clause]
    return [p for p in parts if p and not forms(p)]


_PARTS = re.compile(r"[,;]|\s(?:and|but|so)\s")  # "got rid of Telekom and switched to Vodafone"


def _same(statement: Statement, other: Statement) -> bool:
    return statement.subject == other.subject and values_match(statement.value, other.value)


def _told(statement: Statement, others: Sequence[Statement]) -> bool:
    """A value another reading of the text gave (a form read as "my girlfriend is Ana" is the partner)."""
    return any(values_match(statement.value, s.value) for s in others)
