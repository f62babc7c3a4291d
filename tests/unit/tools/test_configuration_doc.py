"""docs/configuration.md is generated from the settings model (engram_tools/settings_doc.py): it must be exactly what
the generator writes, so a setting added, removed or re-described without `make docs` fails here."""

from __future__ import annotations

from pathlib import Path

import pytest
from pydantic import Field

from engram.settings import Settings
from engram_tools import settings_doc


def test_configuration_md_is_what_the_settings_model_generates() -> None:
    written = settings_doc.TARGET.read_text(encoding="utf-8")
    assert written == settings_doc.render(), "docs/configuration.md is out of date: run `make docs`"


def test_every_setting_is_documented_under_its_environment_variable() -> None:
    text = settings_doc.render()
    for name, field in Settings.model_fields.items():
        line = next(
            (row for row in text.splitlines() if row.startswith(f"| `{settings_doc.env_name(name, field)}` |")), ""
        )
        assert line and str(field.description).split()[0] in line, name
    assert "| `AWS_REGION` |" in text and "| `ENGRAM_SEARCH_MIN_CANDIDATES` | `200` | integer ≥ 1, ≤ 1000 |" in text


def test_a_setting_without_a_description_is_refused() -> None:
    class WithUndocumented(Settings):
        brand_new_knob: int = Field(default=1)

    with pytest.raises(ValueError, match="brand_new_knob"):
        settings_doc.render(WithUndocumented)


def test_each_section_starts_at_a_setting_that_exists() -> None:
    assert set(settings_doc.SECTIONS) <= set(Settings.model_fields), set(settings_doc.SECTIONS) - set(
        Settings.model_fields
    )
    assert next(iter(Settings.model_fields)) in settings_doc.SECTIONS  # no row before the first heading


def test_the_check_mode_reports_a_stale_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    stale = tmp_path / "configuration.md"
    stale.write_text("# Configuration\n\nold\n", encoding="utf-8")
    monkeypatch.setattr(settings_doc, "TARGET", stale)
    assert settings_doc.main(["--check"]) == 1
    assert settings_doc.main([]) == 0
    assert settings_doc.main(["--check"]) == 0
    assert stale.read_text(encoding="utf-8") == settings_doc.render()
