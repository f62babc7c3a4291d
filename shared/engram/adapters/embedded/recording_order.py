"""The order in which one user's memories were recorded, for the embedded index's neighbours().

Rows are the embedded index's row numbers. Sorting by (created, arrival) happens lazily and only
again after a change the cheap path cannot absorb: the usual write, a memory newer than every
other, is appended to the order in place.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

TimeArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.intp]
BoolArray = npt.NDArray[np.bool_]

SCAN_LIMIT = 64  # rows skipped at most while looking for a neighbour that matches the filters


class RecordingOrder:
    def __init__(self) -> None:
        self.created: TimeArray = np.empty(0, dtype=np.float64)  # epoch seconds per row
        self.arrival: TimeArray = np.empty(0, dtype=np.float64)  # breaks ties of `created`
        self._arrivals = 0
        self._size = 0
        self._order: IntArray | None = None  # rows in recording order; None: sort when next asked
        self._position: IntArray | None = None  # row -> index in _order

    def reserve(self, capacity: int) -> None:
        if capacity <= self.created.shape[0]:
            return
        for name in ("created", "arrival"):
            grown = np.empty(capacity, dtype=np.float64)
            old = getattr(self, name)
            grown[: old.shape[0]] = old
            setattr(self, name, grown)

    def append(self, row: int, created: float) -> None:
        """A new row (always the next row number)."""
        self.created[row] = created
        self.arrival[row] = self._arrivals
        self._arrivals += 1
        self._size = row + 1
        order, position = self._order, self._position
        if order is None or position is None:
            return
        if order.size and created < self.created[order[-1]]:
            self._forget()  # recorded out of order: sort when next asked
            return
        self._order = np.append(order, np.intp(row))
        position = np.resize(position, row + 1)
        position[row] = order.size
        self._position = position

    def change(self, row: int, created: float) -> None:
        if self.created[row] != created:
            self.created[row] = created
            self._forget()

    def move_last(self, row: int, last: int) -> None:
        """The last row fills the hole at `row` (a delete); the size shrinks by one."""
        self.created[row] = self.created[last]
        self.arrival[row] = self.arrival[last]
        self._size = last
        self._forget()

    def drop_last(self) -> None:
        self._size -= 1
        self._forget()

    def neighbours(self, row: int, mask: BoolArray | None, within: float) -> list[int]:
        """The rows recorded just before and just after `row` that pass `mask`, at most `within`
        seconds away from it."""
        order, position = self._ordering()
        found: list[int] = []
        for step in (-1, 1):
            at = int(position[row]) + step
            for _ in range(SCAN_LIMIT):
                if not 0 <= at < order.size:
                    break
                other = int(order[at])
                if abs(self.created[other] - self.created[row]) > within:
                    break
                if mask is None or mask[other]:
                    found.append(other)
                    break
                at += step
        return found

    def ordered(self) -> tuple[IntArray, TimeArray]:
        """Rows in recording order and their times in that order."""
        order, _ = self._ordering()
        return order, self.created[order]

    def _ordering(self) -> tuple[IntArray, IntArray]:
        if self._order is None or self._position is None:
            n = self._size
            order = np.lexsort((self.arrival[:n], self.created[:n])).astype(np.intp)
            position = np.empty(n, dtype=np.intp)
            position[order] = np.arange(n, dtype=np.intp)
            self._order, self._position = order, position
        return self._order, self._position

    def _forget(self) -> None:
        self._order = self._position = None
