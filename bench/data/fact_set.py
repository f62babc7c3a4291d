"""The fact-retrieval set: synthetic users who each state 30+ things about themselves, and natural
questions that each have one expected answer among what they said.

Generated from templates and word lists written for this bench (no dataset text), with a fixed seed,
so the set is the same on every run. Each user's statements cover the kinds of facts the offline
extractor keeps (name, home, origin, work, age, birthday, studies, favourites, diet, allergy, family,
pet, likes, dislikes, reminders); each question names the statement whose memory answers it.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

FIRST_NAMES = (
    "Alice Bruno Chiara Dmitri Elena Farid Greta Hiro Ines Jonas Kira Lars Mona Nils Olga Pavel Quinn Rosa Sven "
    "Tara Umar Vera Wim Xenia Yusuf Zoe Amir Beatriz Colin Dana Emil Fatima Gustav Hana Igor Jana Karim Lena "
    "Mateo Nora Oskar Petra Rafael Selma"
).split()
PEOPLE = (
    "Anna Ben Clara David Eva Felix Gina Henry Ida Jack Kate Leo Mia Noah Olivia Paul Ruth Sam Tom Uma Victor "
    "Wendy Yara Zack"
).split()
PETS = "Max Luna Biscuit Pepper Ziggy Nala Rocky Mochi Olive Bruno Pixel Ginger".split()
CITIES = (
    "Berlin Munich Vienna Lisbon Madrid Turin Graz Oslo Dublin Prague Krakow Lyon Porto Zurich Helsinki Gdansk "
    "Seville Bologna Rotterdam Antwerp"
).split()
COMPANIES = (
    "Siemens Spotify Zalando Adidas Bosch Nokia Philips Airbus Ikea Lego Shopify Canva Figma Atlassian Klarna"
).split()
JOBS = (
    "nurse teacher architect accountant pharmacist engineer designer photographer translator electrician "
    "journalist librarian chef dentist"
).split()
FIELDS = "biology history economics physics linguistics chemistry sociology mathematics philosophy".split()
COLORS = "blue green red purple yellow orange teal maroon".split()
ALLERGENS = "peanuts shellfish penicillin pollen cats gluten".split()
LIKE_PHRASES = (
    "sushi",
    "hiking",
    "jazz",
    "chess",
    "sailing",
    "pottery",
    "gardening",
    "salsa dancing",
    "board games",
    "mountain biking",
    "ramen",
    "climbing",
    "knitting",
    "opera",
    "tennis",
    "baking bread",
    "birdwatching",
    "crosswords",
    "kayaking",
    "yoga",
    "photography",
    "podcasts",
    "camping",
    "dark chocolate",
    "karaoke",
    "surfing",
)
DISLIKE_PHRASES = (
    "cilantro",
    "olives",
    "horror movies",
    "country music",
    "running",
    "mushrooms",
    "crowded beaches",
    "reality shows",
    "liquorice",
    "cold weather",
)
REMINDERS = (
    ("renew my passport", "passport"),
    ("call the plumber", "plumber"),
    ("water the plants", "plants"),
    ("book the dentist appointment", "dentist"),
    ("pay the electricity bill", "electricity bill"),
    ("buy a gift for my nephew", "gift"),
    ("send the tax forms", "tax forms"),
    ("pick up the dry cleaning", "dry cleaning"),
)
RELATIVES = ("sister", "brother", "mother", "father", "daughter", "son", "cousin", "aunt")
MONTHS = "January February March April May June July August September October November December".split()


@dataclass
class Item:
    statement: str
    questions: list[str]


@dataclass
class User:
    user_id: str
    name: str
    items: list[Item] = field(default_factory=list)


def _user(n: int, rng: random.Random) -> User:
    name = FIRST_NAMES[n % len(FIRST_NAMES)]
    user = User(f"fact-user-{n:03d}", name)

    def add(statement: str, *questions: str) -> None:
        user.items.append(Item(statement, list(questions)))

    home, origin = rng.sample(CITIES, 2)
    add(f"My name is {name}.", "What is the user's name?")
    add(f"I live in {home}.", f"Where does {name} live?", f"Which city is {name} based in?")
    add(f"I'm originally from {origin}.", f"Where is {name} from originally?", f"What is {name}'s hometown?")
    company, job = rng.choice(COMPANIES), rng.choice(JOBS)
    add(f"I work at {company}.", f"Where does {name} work?", f"Which company employs {name}?")
    add(f"I'm a {job}.", f"What does {name} do for a living?", f"What is {name}'s job?")
    add(f"I'm {rng.randint(21, 70)} years old.", f"How old is {name}?")
    add(f"My birthday is {rng.choice(MONTHS)} {rng.randint(1, 28)}.", f"When is {name}'s birthday?")
    add(f"I study {rng.choice(FIELDS)}.", f"What does {name} study?")
    add(f"My favorite color is {rng.choice(COLORS)}.", f"What is {name}'s favorite color?")
    allergen = rng.choice(ALLERGENS)
    add(f"I'm allergic to {allergen}.", f"What is {name} allergic to?", f"Does {name} have any allergies?")
    for relative, person in zip(rng.sample(RELATIVES, 3), rng.sample(PEOPLE, 3), strict=True):
        add(f"My {relative} is called {person}.", f"What is the name of {name}'s {relative}?", f"Who is {person}?")
    pet = rng.choice(PETS)
    add(f"I have a dog named {pet}.", f"What is {name}'s dog called?", f"Does {name} have a pet?")
    for thing in rng.sample(LIKE_PHRASES, rng.randint(10, 16)):
        add(
            f"I love {thing}.",
            rng.choice((f"Does {name} like {thing}?", f"How does {name} feel about {thing}?")),
        )
    for thing in rng.sample(DISLIKE_PHRASES, 3):
        add(f"I can't stand {thing}.", f"Does {name} dislike {thing}?")
    for task, topic in rng.sample(REMINDERS, 3):
        add(f"Remind me to {task}.", f"What should I remind {name} about the {topic}?")
    return user


def users(count: int = 42, seed: int = 14) -> list[User]:
    rng = random.Random(seed)
    return [_user(n, rng) for n in range(count)]
