"""The controller's breakpoints: kept across restarts and new inputs, handed to each pass's stepper.

`BreakpointsMixin` is part of `DebugController`; it uses the controller's `stepper`,
`_breakpoints`, `condition_mode` and its `error` and `breakpoints_changed` signals.
"""

from __future__ import annotations

from tfdebug.core.breakpoints import Breakpoint
from tfdebug.core.errors import TfdebugError
from tfdebug.ui.i18n.language import error_phrase


class BreakpointsMixin:
    """Add, remove and replace breakpoints; the stepper of the pass on screen gets them too."""

    @property
    def breakpoints(self) -> frozenset[Breakpoint]:
        return self._breakpoints

    def _try_add(self, bp: Breakpoint) -> bool:
        if self.stepper is None:
            return True
        try:
            self.stepper.add_breakpoint(bp)
        except TfdebugError as exc:
            self.error.emit(error_phrase(exc))
            return False
        return True

    def set_breakpoint(self, bp: Breakpoint, on: bool) -> None:
        """Add or remove a breakpoint; it is kept across restarts and new inputs."""
        if on:
            if not self._try_add(bp):
                return
            self._breakpoints = self._breakpoints | {bp}
        else:
            self._breakpoints = self._breakpoints - {bp}
            if self.stepper is not None:
                self.stepper.remove_breakpoint(bp)
        self.breakpoints_changed.emit()

    def toggle_stage_breakpoint(self, name: str) -> None:
        bp = Breakpoint.on_stage(name)
        self.set_breakpoint(bp, bp not in self._breakpoints)

    def set_condition_mode(self, mode: str) -> None:
        """EXACT or FAST condition checks, for this pass and the next ones."""
        self.condition_mode = mode
        if self.stepper is not None:
            self.stepper.set_condition_mode(mode)

    def set_conditions(self, conditions: list[Breakpoint]) -> None:
        """Replace every condition breakpoint (NaN, Inf, |x| > t) with `conditions`."""
        for bp in [b for b in self._breakpoints if b.by == "condition"]:
            self.set_breakpoint(bp, False)
        for bp in conditions:
            self.set_breakpoint(bp, True)

    def clear_breakpoints(self) -> None:
        self._breakpoints = frozenset()
        if self.stepper is not None:
            self.stepper.clear_breakpoints()
        self.breakpoints_changed.emit()
