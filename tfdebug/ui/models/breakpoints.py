"""The window's breakpoints as an evented model: one BreakpointSet for the window's lifetime (Qt-free).

`BreakpointsModel` holds the set every pass the window shows checks (`points`, a
`tfdebug.core.breakpoints.BreakpointSet`, handed to each stepper) and tells each change as a psygnal event
with its payload: `added(bp)`, `removed(bp)`, `cleared(those removed)`, `mode_changed(mode)`, and `refused(bp)`
when a change asked for did not happen (a check box the user ticked shows the set again). A change may go
through a stepper that shares the set (it checks a stage name against its model; a served one tells its
server), so the events are worked out from the set itself before and after the change (`changing`), never
from what was asked: what they say is what the stepper will check.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from psygnal import Signal

from tfdebug.core.breakpoints import Breakpoint, BreakpointSet


class BreakpointsModel:
    """The window's breakpoints (`points`) and their events; changed inside `changing()` blocks only."""

    added = Signal(object)  # a Breakpoint now in the set
    removed = Signal(object)  # a Breakpoint no longer in the set (one of a change that was not Clear All)
    cleared = Signal(frozenset)  # Clear All: the frozenset of every Breakpoint it removed
    mode_changed = Signal(str)  # how conditions are checked now: core.breakpoints.EXACT or FAST
    refused = Signal(object)  # a change that did not happen: the Breakpoint asked for (None: a mode or Clear All)

    def __init__(self) -> None:
        self.points = BreakpointSet()  # what every pass checks: handed to each stepper shown

    def __contains__(self, bp: object) -> bool:
        return bp in self.points

    @contextmanager
    def changing(self, asked: Breakpoint | None = None, clearing: bool = False) -> Iterator[None]:
        """Change `points` in the block (directly, or through a stepper sharing them); at its end each change is
        told: the breakpoints added, then those removed (one `cleared` when `clearing` emptied the set), then the
        mode. A block that changed nothing (refused, raised, or asked for what was already so) tells `refused(asked)`
        when it raised."""
        before, mode = self.points.items, self.points.mode
        raised = True
        try:
            yield
            raised = False
        finally:
            after = self.points.items
            gone = before - after
            for bp in sorted(after - before, key=str):
                self.added.emit(bp)
            if clearing and gone and not after:
                self.cleared.emit(gone)
            else:
                for bp in sorted(gone, key=str):
                    self.removed.emit(bp)
            if self.points.mode != mode:
                self.mode_changed.emit(self.points.mode)
            if raised and after == before and self.points.mode == mode:
                self.refused.emit(asked)

    def disconnect_all(self) -> None:
        """No receiver hears this model again (the window that connected them is closing)."""
        for signal in (self.added, self.removed, self.cleared, self.mode_changed, self.refused):
            signal.disconnect()
