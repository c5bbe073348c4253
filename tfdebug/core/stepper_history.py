"""The history a Stepper keeps: what is in it, reading a replay's tensors, and moving the cursor through it.

A mixin of `Stepper` (tfdebug.core.stepper): it uses the stepper's lock, history, cursor, budget and events.
Moving through history runs nothing; a replay's stage is read when first shown (`tensor_of`), or in part
(`part_of`) where a picture needs one plane of it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Callable

from tfdebug.core.budget import drop_reason
from tfdebug.core.errors import StepperStateError
from tfdebug.core.stepper_state import PAUSED, StepperEvent

if TYPE_CHECKING:  # torch loads when a function first needs it, not with the window
    import threading

    from torch import Tensor

    from tfdebug.core.budget import CaptureBudget
    from tfdebug.core.phrases import Phrase
    from tfdebug.core.recorder import Capture


class HistoryMixin:
    """The history of a Stepper: its reads (`tensor_of`, `part_of`, `captured` …) and its moves (`step_back`,
    `step_forward`, `goto`)."""

    if TYPE_CHECKING:  # the Stepper's, for the type checker: what this mixin reads and sets
        _lock: threading.Condition
        _load_lock: threading.Lock
        history: list[Capture]
        _positions: dict[str, int]
        cursor: int
        live_index: int | None
        state: str
        max_capture_bytes: int | None
        _budget: CaptureBudget
        _load: Callable[..., Tensor] | None
        _part: Callable[[Capture, tuple[int, ...]], Tensor | None] | None
        _read_later: set[str]

        def _emit(self, event: StepperEvent) -> None: ...

    def tensor_of(self, capture: Capture, stop: Callable[[], bool] | None = None) -> Tensor | None:
        """The tensor of a captured stage, read now when a replay has not read it yet (None when dropped).
        `stop()`, asked as a replay's stage is read, ends the read early (ReadStoppedError) when true."""
        return self._ensure_tensor(capture, stop).tensor

    def part_of(self, capture: Capture, leading: tuple[int, ...]) -> Tensor | None:
        """`capture`'s tensor at the fixed leading indices `leading` (one plane of a (batch, head, query, key)
        stage), read alone from a replay's file while the whole stage is not read; None where no part can be
        read so (a live pass, a stage read already, a recipe stage)."""
        if capture.tensor is not None or self._part is None:
            return None
        return self._part(capture, leading)

    def read_later(self, capture: Capture) -> None:
        """The next move onto replayed stage `capture` shows it unread (its picture was cut from a part): the
        whole is read by the first `tensor_of`, off the caller's thread, not by the move."""
        self._read_later.add(capture.name)

    def _ensure_tensor(self, capture: Capture, stop: Callable[[], bool] | None = None) -> Capture:
        if capture.tensor is None and self._load is not None:
            with self._load_lock:  # the window's display worker reads neighbouring stages ahead
                if capture.tensor is None:
                    capture.tensor = self._load(capture) if stop is None else self._load(capture, stop=stop)
        return capture

    @property
    def current(self) -> Capture | None:
        """The capture shown at the cursor, or None when there is none."""
        return self.history[self.cursor] if 0 <= self.cursor < len(self.history) else None

    def forget_history(self) -> None:
        """Drop every captured tensor (the pass has ended; its memory goes back)."""
        with self._lock:
            self.history = []
            self._positions = {}
            self.cursor = -1
            self._budget.let_go()  # it held every capture it admitted: without this none of them went back

    def position_of(self, name: str) -> int | None:
        """Index of the stage called `name` in the history, or None when it has not run yet."""
        return self._positions.get(name)

    def captured(self, name: str) -> Capture | None:
        """The stage called `name` from the history with its tensor (a replay loads it), or None."""
        index = self._positions.get(name)
        return None if index is None else self._ensure_tensor(self.history[index])

    @property
    def dropped(self) -> list[str]:
        """Names of the stages this pass left out of the history (beyond the capture budget)."""
        return list(self._budget.dropped)

    @property
    def drop_reasons(self) -> dict[str, Phrase]:
        """Why each stage in `dropped` left the history (too large, farther from the focus …), by name."""
        reasons, far = dict(self._budget.reasons), dict(self._budget.distances)  # copies: the pass may be adding
        return {name: drop_reason(code, self.max_capture_bytes, far.get(name)) for name, code in reasons.items()}

    @property
    def at_live_point(self) -> bool:
        """Whether the pass is paused and the cursor is at the stage it is paused at."""
        return self.state == PAUSED and self.cursor == self.live_index

    def step_back(self) -> None:
        """Previous captured stage (history; nothing runs again)."""
        with self._lock:
            if self.cursor <= 0:
                raise StepperStateError("Already at the first stage.", id="stepper.at_first")
            self._move(self.cursor - 1)

    def step_forward(self) -> None:
        """Next captured stage in history (nothing runs)."""
        with self._lock:
            if self.cursor >= len(self.history) - 1:
                raise StepperStateError("Already at the last captured stage.", id="stepper.at_last")
            self._move(self.cursor + 1)

    def goto(self, index: int) -> None:
        """Show the captured stage at `index` of the history."""
        with self._lock:
            if not 0 <= index < len(self.history):
                raise StepperStateError("No captured stage at position {index}.", id="stepper.no_position", index=index)
            self._move(index)

    def _move(self, index: int) -> None:
        self.cursor = index
        capture = self.history[index]
        if capture.name in self._read_later:
            self._read_later.discard(capture.name)
        else:
            self._ensure_tensor(capture)
        self._emit(StepperEvent("moved", index, capture))
