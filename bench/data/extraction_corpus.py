"""Builds tests/data/offline_corpus.jsonl: first-person statements with the facts a reader would
take from them, for the offline extractor's precision and recall.

Written for this project (no dataset text). Each class of statement has several phrasings; every
third phrasing of a class is held aside ("held"), the rest are "dev" (what rules may be written
against). A fact is (key, value) in the extractor's key scheme; preferences are scored on the
object and on polarity (love/like vs hate/dislike), not on the exact verb.

    python -m bench.data.extraction_corpus   # rewrites the file
"""

from __future__ import annotations

import itertools
import json
from pathlib import Path

OUT = Path(__file__).resolve().parents[2] / "tests" / "data" / "offline_corpus.jsonl"

CITIES = ["Vienna", "Lisbon", "Turin", "Oslo", "Krakow", "Porto", "Ghent", "Bergen"]
ORGS = ["Fernweh", "Nordlicht", "Bosch", "Klarna", "Zeiss", "Miro", "Ottobock", "Sennheiser"]
TITLES = ["UX lead", "data analyst", "product manager", "nurse", "architect", "copywriter", "sous chef", "editor"]
LIKES = ["dumplings", "jazz", "board games", "sailing", "ramen", "pottery", "crosswords", "kayaking"]
DISLIKES = ["olives", "horror movies", "country music", "mushrooms", "liquorice", "karaoke", "cold weather", "traffic"]
THINGS = ["vintage Vespa", "electric bike", "sailboat", "camper van", "grand piano", "3D printer", "telescope", "kayak"]
FIELDS = ["chemistry", "economics", "linguistics", "marine biology", "law", "history", "statistics", "architecture"]
SCHOOLS = ["Leiden University", "Uppsala University", "Bocconi", "Trinity College", "ETH Zurich", "Aalto University"]
NAMES = ["Anna", "Lukas", "Mira", "Jonas", "Petra", "Tomas", "Ines", "Karim"]
ALLERGENS = ["peanuts", "shellfish", "penicillin", "pollen", "sesame", "latex"]

# class -> phrasings: (template, expected facts as (key, value) templates)
Phrasing = tuple[str, list[tuple[str, str]]]
CLASSES: dict[str, tuple[list[str], list[Phrasing]]] = {
    "residence": (
        CITIES,
        [
            ("I live in {x}.", [("location", "{x}")]),
            ("Right now I'm based out of {x}.", [("location", "{x}")]),
            ("My home is in {x} these days.", [("location", "{x}")]),
            ("I moved to {x} last spring.", [("location", "{x}")]),
            ("We relocated to {x} two years ago.", [("location", "{x}")]),
            ("I've been living in {x} since 2020.", [("location", "{x}")]),
            ("I settled in {x} after university.", [("location", "{x}")]),
            ("These days I call {x} home.", [("location", "{x}")]),
            ("I'm currently living in {x}.", [("location", "{x}")]),
        ],
    ),
    "employer": (
        ORGS,
        [
            ("I work at {x}.", [("employer", "{x}")]),
            ("I started at {x} last week.", [("employer", "{x}")]),
            ("I've been working for {x} for a year now.", [("employer", "{x}")]),
            ("I joined {x} in March.", [("employer", "{x}")]),
            ("I'm employed by {x}.", [("employer", "{x}")]),
            ("I got hired at {x}.", [("employer", "{x}")]),
        ],
    ),
    "job change": (
        [f"{o}|{t}" for o, t in zip(ORGS, TITLES, strict=True)],
        [
            ("I left the bank and joined {o} as a {t}.", [("employer", "{o}"), ("job_title", "{t}")]),
            ("I joined {o} as a {t}.", [("employer", "{o}"), ("job_title", "{t}")]),
            ("I quit my old job and started at {o} as a {t}.", [("employer", "{o}"), ("job_title", "{t}")]),
            ("I work at {o} as a {t}.", [("employer", "{o}"), ("job_title", "{t}")]),
            ("I took a job at {o} as a {t}.", [("employer", "{o}"), ("job_title", "{t}")]),
            ("I landed a new job as a {t} at {o}.", [("employer", "{o}"), ("job_title", "{t}")]),
        ],
    ),
    "title": (
        TITLES,
        [
            ("I got promoted to {x}.", [("job_title", "{x}")]),
            ("I work as a {x}.", [("job_title", "{x}")]),
            ("I was promoted to {x} last month.", [("job_title", "{x}")]),
            ("My job title is {x}.", [("job_title", "{x}")]),
            ("I've been promoted to {x}.", [("job_title", "{x}")]),
            ("I'm working as a {x}.", [("job_title", "{x}")]),
        ],
    ),
    "liking": (
        LIKES,
        [
            ("I love {x}.", [("preference:{x}", "love")]),
            ("Nothing beats {x} for me.", [("preference:{x}", "love")]),
            ("I can't get enough of {x}.", [("preference:{x}", "love")]),
            ("I'm a big fan of {x}.", [("preference:{x}", "love")]),
            ("I really enjoy {x}.", [("preference:{x}", "love")]),
            ("I'm a sucker for {x}.", [("preference:{x}", "love")]),
            ("I'm really into {x}.", [("preference:{x}", "love")]),
            ("I absolutely adore {x}.", [("preference:{x}", "love")]),
            ("I'm obsessed with {x}.", [("preference:{x}", "love")]),
        ],
    ),
    "disliking": (
        DISLIKES,
        [
            ("I hate {x}.", [("preference:{x}", "hate")]),
            ("I can't stand {x}.", [("preference:{x}", "hate")]),
            ("{x} is not my thing.", [("preference:{x}", "hate")]),
            ("I really dislike {x}.", [("preference:{x}", "hate")]),
            ("I don't like {x}.", [("preference:{x}", "hate")]),
            ("I honestly detest {x}.", [("preference:{x}", "hate")]),
        ],
    ),
    "trip": (
        CITIES,
        [
            ("I'm heading to {x} next month for a wedding.", [("trip:{x}", "{x}")]),
            ("I'm flying to {x} on Friday.", [("trip:{x}", "{x}")]),
            ("We're going to {x} next week.", [("trip:{x}", "{x}")]),
            ("I'm travelling to {x} tomorrow.", [("trip:{x}", "{x}")]),
            ("I'll be flying to {x} in June.", [("trip:{x}", "{x}")]),
            ("I'm off to {x} this weekend.", [("trip:{x}", "{x}")]),
        ],
    ),
    "event": (
        ["dentist appointment", "job interview", "piano recital", "team presentation", "half marathon"],
        [
            ("I have a {x} on Friday.", [("event:{x}", "{x}")]),
            ("I've got a {x} next week.", [("event:{x}", "{x}")]),
            ("I have a {x} tomorrow.", [("event:{x}", "{x}")]),
        ],
    ),
    "routine": (
        ["go swimming", "play tennis", "do yoga", "go running", "play chess"],
        [
            ("I {x} every morning.", [("routine:{x}", "every morning")]),
            ("I {x} on Saturdays.", [("routine:{x}", "on saturdays")]),
            ("I usually {x} twice a week.", [("routine:{x}", "twice a week")]),
            ("I always {x} every evening.", [("routine:{x}", "every evening")]),
            ("I try to {x} daily.", [("routine:{x}", "daily")]),
            ("I {x} once a week.", [("routine:{x}", "once a week")]),
        ],
    ),
    "possession": (
        THINGS,
        [
            ("I own a {x}.", [("possession:{x}", "a {x}")]),
            ("I bought a {x} last month.", [("possession:{x}", "a {x}")]),
            ("I just bought a {x}.", [("possession:{x}", "a {x}")]),
        ],
    ),
    "education": (
        FIELDS,
        [
            ("I have a degree in {x}.", [("degree:{x}", "{x}")]),
            ("I study {x}.", [("field_of_study", "{x}")]),
            ("I have a master's in {x}.", [("degree:{x}", "{x}")]),
            ("I'm studying {x}.", [("field_of_study", "{x}")]),
            ("I hold a PhD in {x}.", [("degree:{x}", "{x}")]),
            ("I major in {x}.", [("field_of_study", "{x}")]),
        ],
    ),
    "school": (
        SCHOOLS,
        [
            ("I graduated from {x}.", [("alma_mater", "{x}")]),
            ("I study at {x}.", [("school", "{x}")]),
            ("I graduated from {x} in 2015.", [("alma_mater", "{x}")]),
        ],
    ),
    "relationships": (
        NAMES,
        [
            ("My best friend is {x}.", [("friend:best friend:{x}", "{x}")]),
            ("My boss is called {x}.", [("colleague:boss:{x}", "{x}")]),
            ("My sister is called {x}.", [("family:sister:{x}", "{x}")]),
            ("My neighbour is called {x}.", [("friend:neighbour:{x}", "{x}")]),
            ("My mentor is {x}.", [("colleague:mentor:{x}", "{x}")]),
            ("My roommate is called {x}.", [("friend:roommate:{x}", "{x}")]),
        ],
    ),
    "health": (
        ALLERGENS,
        [
            ("I'm allergic to {x}.", [("health:{x} allergy", "{x}")]),
            ("I have a severe {x} allergy.", [("health:{x} allergy", "{x}")]),
            ("I am allergic to {x}.", [("health:{x} allergy", "{x}")]),
        ],
    ),
    "nothing": (
        [""],
        [
            ("Thanks so much, that helps!", []),
            ("What time does the museum open?", []),
            ("If I won the lottery I would buy a boat.", []),
            ("Can you recommend a good book?", []),
            ("Haha, that's funny.", []),
            ("Good morning!", []),
        ],
    ),
}


def rows() -> list[dict[str, object]]:
    out: list[dict[str, object]] = []
    for name, (values, phrasings) in CLASSES.items():
        for n, (template, expected) in enumerate(phrasings):
            split = "held" if n % 3 == 2 else "dev"
            count = len(values) if name != "nothing" else 1
            for value in itertools.islice(itertools.cycle(values), n % len(values), n % len(values) + count):
                fill = {"x": value}
                if "|" in value:
                    fill = dict(zip(("o", "t"), value.split("|"), strict=True))
                text = template.format(**fill)
                facts = [[k.format(**fill).lower(), v.format(**fill)] for k, v in expected]
                out.append({"class": name, "split": split, "text": text[:1].upper() + text[1:], "facts": facts})
    return out


def main() -> None:
    data = rows()
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text("".join(json.dumps(row) + "\n" for row in data))
    print(f"{len(data)} statements, {sum(1 for r in data if r['split'] == 'held')} held aside -> {OUT}")


if __name__ == "__main__":
    main()
