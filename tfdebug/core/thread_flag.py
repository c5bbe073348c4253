"""ThreadFlag: a switch that is on inside a `with flag.set():` block, in the thread that entered it only."""

from __future__ import annotations

import threading
from contextlib import contextmanager
from typing import Iterator


class _Local(threading.local):
    """One thread's flag: off until that thread sets it (a class default, so reading it raises nothing)."""

    on = False


class ThreadFlag:
    """On inside `set()`'s block in this thread (nested blocks restore what was before); off elsewhere."""

    def __init__(self) -> None:
        self._local = _Local()

    @property
    def on(self) -> bool:
        """Whether a `set()` block of this thread is open."""
        return self._local.on

    @contextmanager
    def set(self) -> Iterator[None]:
        """The flag on for the block, in this thread."""
        before = self.on
        self._local.on = True
        try:
            yield
        finally:
            self._local.on = before
