"""A reference pass: the same input on the same model in another dtype or on another device, held for comparing.

    reference = ReferencePass(key, "float32 on cpu")
    # off the GUI thread (tfdebug.sessions.crosscheck.fill_reference): reference.fill(captures, not_kept)
    stepper.reference = reference          # a "diverges" condition compares each stage with it
    reference.tensor(capture, stopped)     # waits until filled (or `stopped()`), then that stage's tensor

It is computed once per model, input and placement (`key`) and its memory is bounded:
its stages are kept on the host (the device is the pass's), within a byte limit in
forward order (the condition looks for the *first* divergent stage, so the early stages
matter most); the stages beyond the limit are `not_kept`, and a condition cannot check
them. Computing a stage on demand instead would
keep a second model beside the pass on screen for the whole session (on a GPU the float32
copy of a bfloat16 model is twice its size) and run it again at every Restart.
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING, Callable, Sequence

from tfdebug.core.phrases import Phrase
from tfdebug.core.recorder import Capture

if TYPE_CHECKING:  # torch loads when a function first needs it, not with the window
    from torch import Tensor

_POLL_S = 0.05  # how often a wait looks whether the pass waiting was stopped


class ReferencePass:
    """The kept stages of one reference pass, filled once from another thread; readers wait for it."""

    def __init__(self, key: tuple, placement: str, limit: int | None = None):
        self.key = key
        #: the reference's dtype and device in words ("float32 on cpu")
        self.placement = placement
        self.limit = limit
        self.captures: list[Capture] = []
        self.not_kept: list[str] = []
        self.error: Phrase | str | None = None
        self._by_name: dict[str, Capture] = {}
        self._done = threading.Event()

    @property
    def ready(self) -> bool:
        """Filled or failed: nothing more will arrive."""
        return self._done.is_set()

    @property
    def held_bytes(self) -> int:
        """What the kept stages hold (their own elements: views of one another counted twice; a recipe
        plane holds nothing of its own)."""
        return sum(c.held_nbytes for c in self.captures)

    def fill(self, captures: Sequence[Capture], not_kept: Sequence[str] = ()) -> None:
        """The kept stages (holding host tensors) and the names of those left out; wakes every reader."""
        self.captures = list(captures)
        self.not_kept = list(not_kept)
        self._by_name = {c.name: c for c in self.captures}
        self._done.set()

    def fail(self, error: Phrase | str) -> None:
        """The reference could not be computed: readers get no tensors (no stage diverges from nothing)."""
        self.error = error
        self._done.set()

    def wait(self, stopped: Callable[[], bool] = lambda: False, timeout: float | None = None) -> bool:
        """Wait until filled or failed; False when `stopped()` turned true (or `timeout` passed) first."""
        waited = 0.0
        while not self._done.wait(_POLL_S):
            waited += _POLL_S
            if stopped() or (timeout is not None and waited >= timeout):
                return False
        return True

    def capture(self, name: str) -> Capture | None:
        """The kept stage `name`, or None (not kept, not floating-point, or not filled yet)."""
        return self._by_name.get(name)

    def tensor(self, capture: Capture, stopped: Callable[[], bool] = lambda: False, wait: bool = True
               ) -> Tensor | None:
        """The reference's tensor of `capture`'s stage; with `wait`, once the pass is filled (a pass's own
        thread waits, the GUI thread walking through history takes what is there)."""
        if wait and not self.wait(stopped):
            return None
        kept = self._by_name.get(capture.name)
        return kept.tensor if kept is not None else None
