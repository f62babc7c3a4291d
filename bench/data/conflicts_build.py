"""Writes bench/data/conflicts.json, the conflict-resolution set of bench/parts/conflicts.py: facts about
invented people, places and organisations told in order, later facts contradicting earlier ones, with
single-hop and two-hop questions whose answers are the latest values. MemoryAgentBench's FactConsolidation
in shape (it replays MQuAKE's counterfactual edits); MQuAKE's own files were not reachable from here.

    python -m bench.data.conflicts_build        # rewrites the file (deterministic: a fixed seed)

A group is one small story with its own subjects: a first hop edited (the CEO changes, so the CEO's
citizenship changes too), a second hop edited, one fact edited twice, or facts left alone (control
questions: nothing may outdate them). Every third group (g003, g006, ...) is held aside, marked in the
file before any run of the scorer: its facts form a stream of their own, never tuned on. Half the edits
say "now", half restate the attribute plainly, as FactConsolidation's do; an edit always comes after
what it contradicts, with other groups' facts between.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

OUT = Path(__file__).resolve().parent / "conflicts.json"
SEED = 4242
HELD_ASIDE_EVERY = 3  # group numbers 3, 6, 9, ...
rng = random.Random(SEED)

# Each relation: one value at a time. fact/now: the sentence and its "now" edit; ask: the question about
# it, with {s} the subject or a phrase naming it ("the CEO of Norrland Freight"); phrase: how a two-hop
# question names its value; words: the words a graph relation's name holds when it states this relation
# (either direction); value: what kind of thing the value is.
RELATIONS: dict[str, dict[str, Any]] = {
    "ceo": {
        "fact": "The CEO of {s} is {v}.",
        "now": "The CEO of {s} is now {v}.",
        "ask": "Who is the CEO of {s}?",
        "phrase": "the CEO of {s}",
        "words": ["ceo", "chief_executive", "chief executive", "leads", "heads", "runs"],
        "subject": "org",
        "value": "person",
    },
    "chair": {
        "fact": "The chair of {s} is {v}.",
        "now": "The chair of {s} is now {v}.",
        "ask": "Who is the chair of {s}?",
        "phrase": "the chair of {s}",
        "words": ["chair"],
        "subject": "org",
        "value": "person",
    },
    "headquarters": {
        "fact": "The headquarters of {s} is in {v}.",
        "now": "The headquarters of {s} is now in {v}.",
        "ask": "In which city is the headquarters of {s}?",
        "phrase": "the headquarters city of {s}",
        "words": ["headquarter", "hq", "based"],
        "subject": "org",
        "value": "city",
    },
    "coach": {
        "fact": "The coach of {s} is {v}.",
        "now": "The coach of {s} is now {v}.",
        "ask": "Who is the coach of {s}?",
        "phrase": "the coach of {s}",
        "words": ["coach", "trains", "manager"],
        "subject": "team",
        "value": "person",
    },
    "author": {
        "fact": "The author of {s} is {v}.",
        "now": "The author of {s} is now {v}.",
        "ask": "Who is the author of {s}?",
        "phrase": "the author of {s}",
        "words": ["author", "wrote", "written", "writer"],
        "subject": "book",
        "value": "person",
    },
    "mayor": {
        "fact": "The mayor of {s} is {v}.",
        "now": "The mayor of {s} is now {v}.",
        "ask": "Who is the mayor of {s}?",
        "phrase": "the mayor of {s}",
        "words": ["mayor"],
        "subject": "city",
        "value": "person",
    },
    "capital": {
        "fact": "The capital of {s} is {v}.",
        "now": "The capital of {s} is now {v}.",
        "ask": "What is the capital of {s}?",
        "phrase": "the capital of {s}",
        "words": ["capital"],
        "subject": "country",
        "value": "city",
    },
    "located_in": {
        "fact": "{s} is located in {v}.",
        "now": "{s} is now located in {v}.",
        "ask": "In which country is {s} located?",
        "phrase": "the country {s} is located in",
        "words": ["located", "lies", "part_of", "in_country", "country"],
        "subject": "city",
        "value": "country",
    },
    "citizen": {
        "fact": "{s} is a citizen of {v}.",
        "now": "{s} is now a citizen of {v}.",
        "ask": "What is the citizenship of {s}?",
        "phrase": "the country {s} is a citizen of",
        "words": ["citizen", "nationality", "national"],
        "subject": "person",
        "value": "nation",
    },
    "spouse": {
        "fact": "{s} is married to {v}.",
        "now": "{s} is now married to {v}.",
        "ask": "Who is {s} married to?",
        "phrase": "the spouse of {s}",
        "words": ["married", "spouse", "husband", "wife"],
        "subject": "person",
        "value": "person",
    },
    "employer": {
        "fact": "{s} works for {v}.",
        "now": "{s} now works for {v}.",
        "ask": "Which company does {s} work for?",
        "phrase": "the company {s} works for",
        "words": ["works", "work_for", "employ", "employed"],
        "subject": "person",
        "value": "org",
    },
    "lives_in": {
        "fact": "{s} lives in {v}.",
        "now": "{s} now lives in {v}.",
        "ask": "In which city does {s} live?",
        "phrase": "the city {s} lives in",
        "words": ["lives", "live_in", "resides", "resident"],
        "subject": "person",
        "value": "city",
    },
}

# Two-hop chains: (first hop, second hop), the first's value the second's subject.
CHAINS = [
    ("ceo", "citizen"),
    ("ceo", "lives_in"),
    ("ceo", "spouse"),
    ("chair", "citizen"),
    ("coach", "citizen"),
    ("coach", "employer"),
    ("author", "citizen"),
    ("author", "lives_in"),
    ("mayor", "spouse"),
    ("headquarters", "located_in"),
    ("headquarters", "mayor"),
    ("capital", "mayor"),
    ("employer", "ceo"),
    ("employer", "headquarters"),
    ("spouse", "employer"),
]

# fmt: off
# People: given and family names of many countries, some in their own script.
PEOPLE: list[tuple[list[str], list[str]]] = [
    (["Ama", "Kwame", "Akosua", "Kofi", "Yaw", "Efua"], ["Boateng", "Mensah", "Owusu", "Asante", "Appiah"]),
    (["Tomasz", "Agnieszka", "Paweł", "Zofia", "Michał"], ["Wiśniewski", "Kowalczyk", "Zieliński", "Wójcik"]),
    (["Ngozi", "Chinedu", "Adaeze", "Emeka", "Folake"], ["Okonkwo", "Adeyemi", "Eze", "Nwosu", "Balogun"]),
    (["Yuki", "Haruto", "Sakura", "Ren", "Aoi"], ["Tanaka", "Watanabe", "Kobayashi", "Yamamoto"]),
    (["Mei", "Wei", "Jun", "Lian", "Hao"], ["Chen", "Zhou", "Lin", "Huang", "Xu"]),
    (["Min-jun", "Seo-yeon", "Ji-ho", "Ha-eun"], ["Kim", "Park", "Choi", "Jung"]),
    (["Priya", "Arjun", "Ananya", "Rohan", "Kavya"], ["Sharma", "Iyer", "Reddy", "Banerjee", "Nair"]),
    (["João", "Mariana", "Thiago", "Luíza", "Caio"], ["Conceição", "Araújo", "Gonçalves", "Lima"]),
    (["Ximena", "Joaquín", "Renata", "Iñaki", "Lucía"], ["Muñoz", "Ibáñez", "Castañeda", "Ortiz"]),
    (["Ayşe", "Emre", "Zeynep", "Barış", "Elif"], ["Yılmaz", "Öztürk", "Çelik", "Şahin", "Doğan"]),  # noqa: RUF001
    (["Søren", "Astrid", "Björn", "Ingrid", "Åsa"], ["Lindqvist", "Bergström", "Hægland", "Sørensen"]),
    (["Zoë", "Gaëlle", "Étienne", "Chloé", "Loïc"], ["Lefèvre", "Mercier", "Fontaine", "Rousseau"]),
    (["Guðrún", "Sigurður", "Þóra", "Einar"], ["Jónsdóttir", "Magnússon", "Þórsson", "Ólafsdóttir"]),
    (["Nguyễn Thị", "Trần Văn", "Lê Thị", "Phạm Văn"], ["Lan", "Minh", "Hương", "Dũng", "Thảo"]),
    (["Wanjiru", "Otieno", "Achieng", "Kiprono"], ["Kamau", "Odhiambo", "Mwangi", "Chebet"]),
    (["Siobhán", "Pádraig", "Aoife", "Ciarán"], ["Ó Briain", "Mac Cárthaigh", "Ní Dhuibhir", "Kavanagh"]),
    (["Jürgen", "Lena", "Matthias", "Katharina"], ["Schäfer", "Müller-Brandt", "Krüger", "Weiß"]),
    (["Aleksi", "Saara", "Juhani", "Ilona"], ["Mäkinen", "Virtanen", "Häkkinen", "Korhonen"]),
]
# Whole names in their own scripts (their order as that language writes it).
SCRIPT_NAMES = [
    "Алексей Смирнов", "Наталья Волкова", "Дмитрий Орлов", "Ольга Кузнецова", "Игорь Лебедев",
    "李明华", "王晓燕", "张伟", "刘芳", "陈建国",
    "田中由美", "佐藤健", "鈴木花子", "高橋翔",
    "김민준", "이서연", "박지훈", "최유진",
    "Δημήτρης Παπαδόπουλος", "Ελένη Γεωργίου", "Νίκος Αλεξίου",
    "محمد العلي", "فاطمة الزهراء", "يوسف حداد", "ليلى منصور",
    "אורי כהן", "נועה לוי", "דוד מזרחי",
    "अनिल शर्मा", "सुनीता वर्मा", "राहुल गुप्ता",
    "สมชาย ใจดี", "มาลี ศรีสุข",
    "Արամ Պետրոսյան", "ნინო ბერიძე", "Олена Шевченко", "Тарас Бондаренко",  # noqa: RUF001
]

ORG_FIRST = [
    "Norrland", "Kestrel", "Amaru", "Baobab", "Tessera", "Halcyon", "Meridian", "Solvik", "Quetzal", "Ironbark",
    "Lumen", "Saffron", "Tundra", "Corvid", "Marula", "Oriel", "Pampas", "Zephyrine", "Kōwhai", "Ølund",
    "Vantor", "Nakuru", "Sable", "Ardent", "Brightwater", "Calloway", "Drumlin", "Estuary", "Fennec", "Gullwing",
    "Hollin", "Isfjord", "Jacaranda", "Kilner", "Larkspur", "Mistral", "Nettle", "Obsidian", "Pilgrim", "Quarry",
    "São Tomé", "Téléphérique", "Müritz", "Çamlık",  # noqa: RUF001
]
ORG_SECOND = [
    "Freight", "Robotics", "Bank", "Foods", "Textiles", "Airlines", "Pharma", "Energy", "Studios", "Insurance",
    "Shipping", "Dairy", "Logistics", "Ceramics", "Analytics", "Breweries", "Optics", "Mining", "Press", "Telecom",
]
TEAM_SECOND = ["Rovers", "Falcons", "Wanderers", "Athletic", "Herons", "United", "Comets", "Lynx", "Harriers"]
BOOK_ADJ = [
    "Glass", "Salt", "Silent", "Northern", "Paper", "Ninth", "Hollow", "Amber", "Drowned", "Quiet", "Borrowed",
    "Iron", "Winter", "Last", "Scarlet", "Sleeping", "Crooked", "Golden", "Distant", "Lantern",
]
BOOK_NOUN = [
    "Orchard", "Harbour", "Cartographer", "Tide", "Archive", "Mountain", "Garden", "Ferryman", "Letters", "River",
    "Observatory", "Weaver", "Bridge", "Season", "Lighthouse", "Kingdom", "Clockmaker", "Station",
]
BOOKS_OWN_LANGUAGE = [
    "La casa de los vientos", "Das stille Ufer", "Le jardin d'hiver", "O rio sem margens", "Il ponte di sale",
    "De verloren haven", "Śnieg nad Odrą", "Tuulen talo", "Sessiz Liman", "Ljuset över Fjärden",
]
# Invented place names from syllables; countries get a suffix of their own.
ONSETS = ["K", "V", "T", "Qu", "L", "M", "Br", "S", "D", "Z", "R", "N", "Ph", "G", "Ost", "Al", "Er", "Ul"]
NUCLEI = ["a", "e", "i", "o", "u", "ei", "ar", "ol", "en", "ir", "an", "ö", "á", "é"]
CITY_ENDS = ["mor", "vik", "grad", "ford", "polis", "haven", "bury", "ton", "dal", "ria", "stad", "ville", "ksar"]
COUNTRY_ENDS = ["ia", "stan", "land", "ora", "avia", "esh", "onia", "aria"]
# Real countries: citizenships.
NATIONS = [
    "Ghana", "Poland", "Nigeria", "Japan", "China", "South Korea", "India", "Brazil", "Mexico", "Turkey",
    "Sweden", "France", "Iceland", "Vietnam", "Kenya", "Ireland", "Germany", "Finland", "Russia", "Greece",
    "Egypt", "Israel", "Thailand", "Armenia", "Georgia", "Ukraine", "Portugal", "Chile", "Canada", "New Zealand",
]
# fmt: on


class Names:
    """Fresh names of each kind: no subject or person appears in two groups."""

    def __init__(self) -> None:
        self.used: set[str] = set()

    def _fresh(self, make: Any) -> str:
        for _ in range(1000):
            name = str(make())
            if name not in self.used and not any(name in u or u in name for u in self.used if len(u) > 3):
                self.used.add(name)
                return name
        raise RuntimeError("name pool exhausted")

    def person(self) -> str:
        def make() -> str:
            if rng.random() < 0.22:
                return rng.choice(SCRIPT_NAMES)
            given, family = rng.choice(PEOPLE)
            return f"{rng.choice(given)} {rng.choice(family)}"

        return self._fresh(make)

    def org(self) -> str:
        return self._fresh(lambda: f"{rng.choice(ORG_FIRST)} {rng.choice(ORG_SECOND)}")

    def team(self) -> str:
        return self._fresh(lambda: f"{self._place(CITY_ENDS)} {rng.choice(TEAM_SECOND)}")

    def book(self) -> str:
        def make() -> str:
            if rng.random() < 0.15:
                return rng.choice(BOOKS_OWN_LANGUAGE)
            return f"The {rng.choice(BOOK_ADJ)} {rng.choice(BOOK_NOUN)}"

        return self._fresh(make)

    def city(self) -> str:
        return self._fresh(lambda: self._place(CITY_ENDS))

    def country(self) -> str:
        return self._fresh(lambda: self._place(COUNTRY_ENDS))

    def nation(self, besides: list[str]) -> str:
        return rng.choice([n for n in NATIONS if n not in besides])

    def _place(self, ends: list[str]) -> str:
        return rng.choice(ONSETS) + rng.choice(NUCLEI) + rng.choice(ends)

    def of(self, kind: str, besides: list[str] | None = None) -> str:
        if kind == "nation":
            return self.nation(besides or [])
        made: str = getattr(self, kind)()  # kinds are the fixed names above: person, org, team, book, city, country
        return made


names = Names()


def fact(relation: str, subject: str, value: str, edit: bool = False) -> dict[str, Any]:
    spec = RELATIONS[relation]
    wording = "plain"
    if edit and rng.random() < 0.5:
        wording = "now"
    text = (spec["now"] if wording == "now" else spec["fact"]).format(s=subject, v=value)
    text = text[0].upper() + text[1:]
    out = {"text": text, "subject": subject, "relation": relation, "value": value, "edit": edit}
    return out | ({"wording": wording} if edit else {})


def single(relation: str, subject: str, answer: str, old: list[str]) -> dict[str, Any]:
    ask = RELATIONS[relation]["ask"].format(s=subject)
    kind = "single_hop" if old else "unchanged"
    return {"kind": kind, "question": ask, "subject": subject, "hops": [relation], "answer": answer, "old": old}


def two_hop(first: str, second: str, subject: str, answer: str, old: list[str]) -> dict[str, Any]:
    phrase = RELATIONS[first]["phrase"].format(s=subject)
    ask = RELATIONS[second]["ask"].format(s=phrase)
    return {
        "kind": "multi_hop",
        "question": ask,
        "subject": subject,
        "hops": [first, second],
        "answer": answer,
        "old": old,
    }


def first_hop_edit(first: str, second: str) -> dict[str, Any]:
    """Y's first hop changes from X to X2, each with its own second hop: both answers change."""
    a, b = RELATIONS[first], RELATIONS[second]
    y, x, x2 = names.of(a["subject"]), names.of(a["value"]), names.of(a["value"])
    z = names.of(b["value"])
    z2 = names.of(b["value"], [z])
    facts = [fact(first, y, x), fact(second, x, z), fact(second, x2, z2), fact(first, y, x2, edit=True)]
    questions = [
        single(first, y, x2, [x]),
        two_hop(first, second, y, z2, [z]),
        single(second, x, z, []),  # X's own fact is untouched by Y's change
    ]
    return {"kind": "first_hop_edit", "facts": facts, "questions": questions}


def second_hop_edit(first: str, second: str) -> dict[str, Any]:
    """X's second hop changes from Z to Z2: the two-hop answer through the unchanged first hop changes."""
    a, b = RELATIONS[first], RELATIONS[second]
    y, x = names.of(a["subject"]), names.of(a["value"])
    z = names.of(b["value"])
    z2 = names.of(b["value"], [z])
    facts = [fact(first, y, x), fact(second, x, z), fact(second, x, z2, edit=True)]
    questions = [single(second, x, z2, [z]), two_hop(first, second, y, z2, [z]), single(first, y, x, [])]
    return {"kind": "second_hop_edit", "facts": facts, "questions": questions}


def edited_twice(relation: str) -> dict[str, Any]:
    spec = RELATIONS[relation]
    y = names.of(spec["subject"])
    v1 = names.of(spec["value"])
    v2 = names.of(spec["value"], [v1])
    v3 = names.of(spec["value"], [v1, v2])
    facts = [fact(relation, y, v1), fact(relation, y, v2, edit=True), fact(relation, y, v3, edit=True)]
    return {"kind": "edited_twice", "facts": facts, "questions": [single(relation, y, v3, [v1, v2])]}


def left_alone(relations: list[str]) -> dict[str, Any]:
    """Facts nothing contradicts: their questions must still find them current."""
    facts, questions = [], []
    for relation in relations:
        spec = RELATIONS[relation]
        y, v = names.of(spec["subject"]), names.of(spec["value"])
        facts.append(fact(relation, y, v))
        questions.append(single(relation, y, v, []))
    return {"kind": "left_alone", "facts": facts, "questions": questions}


def build_groups() -> list[dict[str, Any]]:
    relations = list(RELATIONS)
    plan: list[dict[str, Any]] = []
    for i in range(60):
        plan.append(first_hop_edit(*CHAINS[i % len(CHAINS)]))
    for i in range(45):
        plan.append(second_hop_edit(*CHAINS[(i * 7) % len(CHAINS)]))
    for i in range(36):
        plan.append(edited_twice(relations[i % len(relations)]))
    for i in range(15):
        plan.append(left_alone([relations[(3 * i + k) % len(relations)] for k in range(3)]))
    rng.shuffle(plan)
    for number, group in enumerate(plan, start=1):
        group["id"] = f"g{number:03d}"
        group["held_aside"] = number % HELD_ASIDE_EVERY == 0
    return plan


def place_in_order(groups: list[dict[str, Any]]) -> None:
    """Each split's facts in one stream: a group's first facts early, each edit after what it contradicts
    (other groups' facts between), the order numbered within the split."""
    for held in (False, True):
        keyed: list[tuple[float, dict[str, Any]]] = []
        for group in (g for g in groups if g["held_aside"] == held):
            latest = 0.0  # the group's latest fact so far: an edit comes after everything before it
            for item in group["facts"]:
                at = latest + rng.uniform(0.15, 0.6) if item["edit"] else rng.uniform(0.0, 1.0)
                latest = max(latest, at)
                keyed.append((at, item))
        for order, (_, item) in enumerate(sorted(keyed, key=lambda pair: pair[0])):
            item["order"] = order


def main() -> None:
    groups = build_groups()
    place_in_order(groups)
    data = {
        "about": "Facts about invented people, places and organisations told in order, later ones contradicting "
        "earlier ones (edits), with single-hop and two-hop questions whose answers are the latest values. "
        "FactConsolidation's shape (MemoryAgentBench, replaying MQuAKE's edits), written for Engram by "
        "bench/data/conflicts_build.py (seed 4242). held_aside: every third group (g003, g006, ...), its facts a "
        "stream of their own, marked before any run of the scorer; never tuned on.",
        "seed": SEED,
        "held_aside_every": HELD_ASIDE_EVERY,
        "relations": {name: {"words": spec["words"], "question": spec["ask"]} for name, spec in RELATIONS.items()},
        "groups": groups,
    }
    OUT.write_text(json.dumps(data, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    facts = [f for g in groups for f in g["facts"]]
    questions = [q for g in groups for q in g["questions"]]
    kinds = {k: sum(q["kind"] == k for q in questions) for k in ("single_hop", "multi_hop", "unchanged")}
    print(
        f"{len(groups)} groups, {len(facts)} facts ({sum(f['edit'] for f in facts)} edits), {kinds}, "
        f"{sum(g['held_aside'] for g in groups)} groups held aside -> {OUT}"
    )


if __name__ == "__main__":
    main()
