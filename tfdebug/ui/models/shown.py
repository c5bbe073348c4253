"""The shown stage as an evented model: which capture the window shows, its slice and its stats (Qt-free).

`ShownModel` holds the one record of what is on screen and emits a typed event with its payload whenever
a field changes (psygnal signals, the way napari's models do), so a panel is handed what changed and never
reads the controller back. Who works the fields out (the display worker, a served pass's display) is the
Qt side's business (`tfdebug.ui.state.shown.ShownStage`); this module imports no Qt and is tested without
an application.

Two rhythms: `stage_changed` and `slice_changed` are emitted at once (the heatmap draws the new picture
alone, first); `followed` (and `stage_shown` before it, when another stage is shown) gathers every change
since the last one into one `ShownEvent`, emitted once per turn of the host's event loop (`later`), so
every other panel fills in and the window paints once.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Callable, Optional

from psygnal import Signal

from tfdebug.core.display import DisplaySlice
from tfdebug.core.stats import Stats
from tfdebug.core.recorder import Capture

@dataclass(frozen=True)
class ShownEvent:
    """What changed about the shown stage since the last event, and what it is now.

    `capture`, `slice` and `stats` are the shown stage, its slice and its whole-tensor stats (each None until
    known); `changed` holds "stage" (another stage is shown: everything about it is new), "slice" (its slice or
    the slice's mean and std) and/or "stats" (its whole-tensor stats arrived)."""

    capture: Optional[Capture]
    slice: Optional[DisplaySlice]
    stats: Optional[Stats]
    changed: frozenset

    @property
    def new_stage(self) -> bool:
        """Another stage is shown."""
        return "stage" in self.changed

    @property
    def new_slice(self) -> bool:
        """Another stage, or its slice (axes, indices, mean and std) changed."""
        return bool(self.changed & {"stage", "slice"})

    @property
    def new_stats(self) -> bool:
        """Another stage, or its whole-tensor stats arrived."""
        return bool(self.changed & {"stage", "stats"})


class ShownModel:
    """The shown stage (`current`, at history position `index`), its slice (`slice`) and stats (`stats`).

    `later(fn)` runs `fn` on the host's next event-loop turn (the window passes a zero-delay Qt timer; a
    test can pass a list's `append` and drain it). Fields change only through the methods below, each of
    which emits its event."""

    stage_changed = Signal(object)  # another stage is shown (cursor moved, paused, replaced): its Capture or None
    slice_changed = Signal(object)  # the shown slice changed: the new DisplaySlice or None
    stage_shown = Signal(ShownEvent)  # a ShownEvent with another stage, just before `followed`: for the panels
                                      # that follow the stage only
    followed = Signal(ShownEvent)   # a ShownEvent, one event-loop turn after the changes it gathers

    def __init__(self, later: Callable[[Callable[[], None]], None]):
        self._later = later
        self._shown: tuple[int, Capture] | None = None
        self.slice: DisplaySlice | None = None
        self.stats: Stats | None = None
        self._changes: set[str] = set()
        self._pending = False

    @property
    def current(self) -> Capture | None:
        """The stage on screen, or None."""
        return self._shown[1] if self._shown is not None else None

    @property
    def index(self) -> int:
        """The history position of `current` (-1 when nothing is shown)."""
        return self._shown[0] if self._shown is not None else -1

    @property
    def pending(self) -> bool:
        """Whether changes wait for their `followed` event."""
        return self._pending

    def show(self, index: int, capture: Capture | None) -> None:
        """Another stage is on screen (None: nothing): its slice and stats are not known yet."""
        self._shown = (index, capture) if capture is not None else None
        self.stats = None
        self.stage_changed.emit(capture)
        self._gather("stage")

    def forget(self) -> None:
        """Another pass goes on screen: nothing is shown until its first stage."""
        self._shown, self.slice, self.stats = None, None, None

    def set_slice(self, sl: DisplaySlice | None) -> None:
        """The shown stage's slice (None: none can be shown)."""
        self.slice = sl
        self.slice_changed.emit(sl)
        self._gather("slice")

    def fill_moments(self, sl: DisplaySlice, stats: Stats) -> DisplaySlice | None:
        """`sl`'s complete stats (mean and std) arrived: the same slice with its numbers filled in, when `sl`
        is still shown (returned), else None and nothing changes. The picture is the same: only `followed`
        says so."""
        if self.slice is not sl:
            return None
        self.slice = replace(sl, stats=stats)
        self._gather("slice")
        return self.slice

    def tensor_read(self) -> None:
        """The shown stage, drawn from one part of it, was read whole: the panels that read the whole (its
        heads, its checks) follow it as a stage shown anew; the heatmap's picture stays."""
        self._gather("stage")

    def set_stats(self, stats: Stats) -> None:
        """The shown stage's whole-tensor stats."""
        self.stats = stats
        self._gather("stats")

    def _gather(self, change: str) -> None:
        self._changes.add(change)
        if not self._pending:
            self._pending = True
            self._later(self._emit_followed)

    def _emit_followed(self) -> None:
        changed, self._changes, self._pending = frozenset(self._changes), set(), False
        if not changed:
            return
        event = ShownEvent(self.current, self.slice, self.stats, changed)
        if event.new_stage:
            self.stage_shown.emit(event)
        self.followed.emit(event)

    def disconnect_all(self) -> None:
        """No receiver hears this model again (the window that connected them is closing)."""
        for signal in (self.stage_changed, self.slice_changed, self.stage_shown, self.followed):
            signal.disconnect()
