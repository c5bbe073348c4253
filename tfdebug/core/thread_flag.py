"""ThreadFlag: a switch that is on inside a `with flag.set():` block, in the thread that entered it only."""

from __future__ import annotations

import threading
from contextlib import contextmanager
from typing import Iterator


class ThreadFlag:
    """On inside `set()`'s block in this thread (nested blocks restore what was before); off elsewhere."""

    def __init__(self) -> None:
        self._local = threading.local()

    @property
    def on(self) -> bool:
        """Whether a `set()` block of this thread is open."""
        return getattr(self._local, "on", False)

    @contextmanager
    def set(self) -> Iterator[None]:
        """The flag on for the block, in this thread."""
        before = self.on
        self._local.on = True
        try:
            yield
        finally:
            self._local.on = before
