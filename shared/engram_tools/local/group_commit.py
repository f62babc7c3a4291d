"""Group commit: callers that need "everything before my call is saved" share one save.

A caller arriving while a save runs cannot rely on it (it may have started before the caller's
change), so it waits for the next one; every caller waiting then is served by that single next save.
"""

from __future__ import annotations

import threading
from collections.abc import Callable


class GroupCommit:
    def __init__(self, save: Callable[[], None]) -> None:
        self._save = save
        self._lock = threading.Condition()
        self._started = self._finished = 0
        self._saving = False

    def __call__(self) -> None:
        """Returns once a save that started after this call has finished (or raised)."""
        with self._lock:
            needed = self._started + 1
            while self._finished < needed:
                if self._saving:
                    self._lock.wait()
                    continue
                self._saving = True
                self._started += 1
                generation = self._started
                self._lock.release()
                try:
                    self._save()
                finally:
                    self._lock.acquire()
                    self._saving = False
                    self._finished = generation
                    self._lock.notify_all()
