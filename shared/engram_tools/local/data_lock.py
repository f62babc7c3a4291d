"""One local stack per data folder: an exclusive lock on `<data folder>/engram.lock`, held while the
stack runs. Two stacks on one folder would each snapshot their own moto state over the other's (an add
answered 202 by one lost when the other saved). flock is released by the kernel when its holder dies,
so the folder of a killed stack (kill -9) is taken over at the next start; the pid written in the file
only names the holder in the refusal."""

from __future__ import annotations

import fcntl
import os
from pathlib import Path
from typing import IO

LOCK_FILE = "engram.lock"


class DataFolderInUse(Exception):
    """Another running stack holds the data folder."""

    def __init__(self, folder: Path, holder: str) -> None:
        who = f"process {holder}" if holder else "another process"
        super().__init__(
            f"the data folder {folder} is in use by {who} (another `make run` / python -m engram_tools.local): "
            "stop that one first, or give this one its own folder with --data-dir or ENGRAM_DATA_DIR"
        )
        self.folder = folder
        self.holder = holder


class DataFolderLock:
    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self._file: IO[str] | None = None

    @property
    def held(self) -> bool:
        return self._file is not None

    def acquire(self) -> None:
        """Takes the folder, or raises DataFolderInUse naming the process that holds it."""
        self.folder.mkdir(parents=True, exist_ok=True)
        handle = (self.folder / LOCK_FILE).open("a+", encoding="utf-8")
        try:
            fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            handle.seek(0)
            holder = handle.read().strip()
            handle.close()
            raise DataFolderInUse(self.folder, holder) from None
        handle.seek(0)
        handle.truncate()
        handle.write(f"{os.getpid()}\n")
        handle.flush()
        self._file = handle

    def release(self) -> None:
        if self._file is not None:
            self._file.truncate(0)
            fcntl.flock(self._file.fileno(), fcntl.LOCK_UN)
            self._file.close()
            self._file = None
