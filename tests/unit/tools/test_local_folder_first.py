"""`ENGRAM_LLM=local make run` on a data folder another stack holds is refused before the local model is
installed or started (the model lives under that folder, and loading it takes seconds to minutes)."""

from __future__ import annotations

from pathlib import Path

import pytest

from engram_tools.local import __main__ as local_main
from engram_tools.local import local_model
from engram_tools.local.data_lock import DataFolderLock


def test_a_folder_in_use_is_refused_before_the_local_model_starts(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    holder = DataFolderLock(tmp_path)
    holder.acquire()
    started: list[Path] = []
    monkeypatch.setattr(local_model, "wanted", lambda: True)
    monkeypatch.setattr(local_model, "start", lambda folder: started.append(folder))
    try:
        code = local_main.main(["--data-dir", str(tmp_path), "--port", "0"])
    finally:
        holder.release()
    assert code == 1
    assert started == []
    assert "is in use by" in caplog.text
