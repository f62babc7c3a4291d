"""The aspects are data (state/catalogue.json): attributes beyond the eight (a phone, a car, a manager,
an electricity or broadband supplier) are read and superseded like the eight, and an aspect is added
by an entry, with no code (issue 42)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from engram.adapters.onnx.embedder import OnnxEmbedder
from engram.state.aspects import ASPECTS, CATALOGUE, AspectReader, load_catalogue
from tests.unit.state.test_aspects import World


@pytest.fixture(scope="module")
def reader() -> AspectReader:
    return AspectReader(OnnxEmbedder())


def read(reader: AspectReader, text: str) -> set[tuple[str, str]]:
    return {(r.aspect.name, r.value) for r in reader.read([text])[0]}


def test_the_eight_aspects_are_entries_of_the_catalogue() -> None:
    single = {a.name: a.single for a in ASPECTS}
    eight = {"home", "employer", "job", "partner", "diet", "pets", "allergy", "plans"}
    assert eight <= set(single)
    assert {n for n in eight if single[n]} == {"home", "employer", "job", "partner", "diet"}


def test_an_aspect_is_added_by_an_entry(tmp_path: Path, reader: AspectReader) -> None:
    data = json.loads(CATALOGUE.read_text(encoding="utf-8"))
    data["aspects"].append(
        {
            "name": "bike",
            "single": True,
            "value": "product",
            "question": "what bike do I ride?",
            "fact": "Rides a {value}",
            "key": "bike",
            "bank": "Personal",
            "words": ["bike", "bicycle", "cycling"],
            "examples": ["I ride a bike to work", "I got a new bicycle", "my road bike", "sold my old bike"],
        }
    )
    path = tmp_path / "catalogue.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    mine = AspectReader(reader.embedder, catalogue=load_catalogue(path))
    assert ("bike", "Brompton") in {(r.aspect.name, r.value) for r in mine.read(["just got a new bike, a Brompton"])[0]}


def test_an_entry_without_a_way_to_lift_its_value_is_refused_at_load(tmp_path: Path) -> None:
    data = json.loads(CATALOGUE.read_text(encoding="utf-8"))
    data["aspects"][0]["value"] = "colour"
    path = tmp_path / "catalogue.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(ValueError, match="colour"):
        load_catalogue(path)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("got a new phone, a Pixel 9, so much faster", ("phone", "Pixel 9")),
        ("swapped my iPhone for a Pixel 9", ("phone", "Pixel 9")),
        ("sold the Golf, we got a Tesla Model 3 last week, best car we've had", ("car", "Tesla Model 3")),
        ("my new manager is Priya, she seems great", ("manager", "Priya")),
        ("switched to Octopus for electricity", ("electricity", "Octopus")),
        ("we changed our broadband to Virgin Media", ("broadband", "Virgin Media")),
        ("bought a new laptop, a MacBook Air", ("laptop", "MacBook Air")),
    ],
)
def test_changes_beyond_the_eight_are_read(reader: AspectReader, text: str, expected: tuple[str, str]) -> None:
    assert expected in read(reader, text)


@pytest.mark.parametrize(
    "text",
    [
        "my brother just got a new phone, an iPhone 16",  # someone else's
        "might switch to Octopus for electricity next year",  # a maybe
        "went to the Tesla showroom to look at the Model 3",  # a visit
        "her manager is Priya",  # someone else's
        "thinking about getting a Pixel 9",  # a hope
        # Said in LoCoMo's conversations: a capitalised name in a clause of having is not a device or a car.
        "Way to go! I just got a new addition to the family, this is Max!",
        "Congratulations on the new Ferrari, that's incredible!",
        "I have a setup with a gaming PC, keyboard and mouse",
        "We were given a new game for the console last week, it is Battlefield 1",
        "I actually have something new, Samantha and I have decided to move in together!",
        "I attended a Weight Watchers meeting yesterday, I have some new tips",
    ],
)
def test_non_changes_beyond_the_eight_are_not_read(reader: AspectReader, text: str) -> None:
    beyond = ("phone", "laptop", "car", "manager", "electricity", "broadband")
    assert not {a for a in read(reader, text) if a[0] in beyond}


CHANGES = [
    ("my phone is a Pixel 7, the battery is dying", "got a new phone, a Pixel 9, so much faster", "Pixel 9", "Pixel 7"),
    ("I drive a VW Golf", "sold the Golf, we got a Tesla Model 3 last week, best car we've had", "Tesla", "VW Golf"),
    ("my manager is Tom, he's fine", "my new manager is Priya, she seems great", "Priya", "Tom"),
    ("our electricity is with British Gas", "switched to Octopus for electricity", "Octopus", "British Gas"),
    ("our broadband is with BT", "we changed our broadband to Virgin Media", "Virgin Media", "BT"),
]


@pytest.mark.parametrize(("before", "after", "new", "old"), CHANGES)
def test_a_change_beyond_the_eight_outdates_the_older_value(
    reader: AspectReader, before: str, after: str, new: str, old: str
) -> None:
    world = World(reader)
    world.say(before, "2025-01-10")
    world.say(after, "2025-07-10")
    assert world.live(new)
    assert not [f for f in world.live(old) if new not in f.text]


NON_CHANGES = [
    ("my phone is a Pixel 7, the battery is dying", "I also bought a MacBook Air for work", "Pixel 7"),  # an addition
    ("my phone is a Pixel 7, the battery is dying", "my brother just got a new phone, an iPhone 16", "Pixel 7"),
    ("our electricity is with British Gas", "might switch to Octopus for electricity next year", "British Gas"),
    ("I drive a VW Golf", "went to the Tesla showroom to look at the Model 3", "VW Golf"),  # a visit
]


@pytest.mark.parametrize(("before", "after", "kept"), NON_CHANGES)
def test_a_non_change_outdates_nothing(reader: AspectReader, before: str, after: str, kept: str) -> None:
    world = World(reader)
    world.say(before, "2025-01-10")
    world.say(after, "2025-07-10")
    assert world.live(kept)
    assert not any(f.outdated_by for f in world.current())
