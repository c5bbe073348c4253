"""The window's breakpoints: one BreakpointSet for the window's lifetime, shared by every pass it shows.

`BreakpointsMixin` is part of `DebugController`; it uses the controller's `stepper`, `breakpoints`
(the set) and its `error` and `breakpoints_changed` signals. A change goes through the stepper on
screen when there is one (it checks a stage name against its model; a remote one tells the server),
else straight to the set.
"""

from __future__ import annotations

from typing import Callable

from tfdebug.core.breakpoints import Breakpoint
from tfdebug.core.errors import TfdebugError
from tfdebug.ui.i18n.language import error_phrase


class BreakpointsMixin:
    """Add, remove and replace breakpoints; kept across restarts, new inputs and models."""

    def share_breakpoints(self, stepper) -> None:
        """Have `stepper` (a new pass, or a remote one reattached) check the window's set."""
        try:
            stepper.use_breakpoints(self.breakpoints)
        except TfdebugError as exc:
            self.error.emit(error_phrase(exc))

    def _change(self, through_stepper: Callable, in_set: Callable[[], None]) -> None:
        try:
            through_stepper(self.stepper) if self.stepper is not None else in_set()
        except TfdebugError as exc:
            self.error.emit(error_phrase(exc))
        finally:  # a refused change too: a check box the user ticked shows the set again
            self.breakpoints_changed.emit()

    def set_breakpoint(self, bp: Breakpoint, on: bool) -> None:
        """Add or remove a breakpoint; it is kept across restarts and new inputs."""
        if on:
            self._change(lambda s: s.add_breakpoint(bp), lambda: self.breakpoints.add(bp))
        else:
            self._change(lambda s: s.remove_breakpoint(bp), lambda: self.breakpoints.remove(bp))

    def toggle_stage_breakpoint(self, name: str) -> None:
        bp = Breakpoint.on_stage(name)
        self.set_breakpoint(bp, bp not in self.breakpoints)

    def set_condition_mode(self, mode: str) -> None:
        """EXACT or FAST condition checks, for this pass and the next ones."""
        self._change(lambda s: s.set_condition_mode(mode), lambda: self.breakpoints.set_mode(mode))

    def set_conditions(self, conditions: list[Breakpoint]) -> None:
        """Replace every condition breakpoint (NaN, Inf, |x| > t) with `conditions`."""
        for bp in [b for b in self.breakpoints if b.by == "condition"]:
            self.set_breakpoint(bp, False)
        for bp in conditions:
            self.set_breakpoint(bp, True)

    def clear_breakpoints(self) -> None:
        self._change(lambda s: s.clear_breakpoints(), self.breakpoints.clear)
