"""The stepper's breakpoints: a BreakpointSet it reads at every check, never a copy of its own.

A mixin of `Stepper`: it uses the stepper's `_breakpoints` (the set) and `_known` (the stage
names of this pass).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from tfdebug.core.breakpoints import Breakpoint, BreakpointSet
from tfdebug.core.errors import UnknownStageError


class StepperBreakpointsMixin:
    """`use_breakpoints`, the set's breakpoints and mode, and changing them (for this pass and every
    other that shares the set)."""

    if TYPE_CHECKING:  # the Stepper's, for the type checker
        _breakpoints: BreakpointSet
        _known: list[str]

    def use_breakpoints(self, breakpoints: BreakpointSet) -> None:
        """Check `breakpoints` from now on (the window's set, shared by every pass it shows)."""
        self._breakpoints = breakpoints

    @property
    def breakpoints(self) -> frozenset[Breakpoint]:
        """The breakpoints this pass stops at, as they are now."""
        return self._breakpoints.items

    @property
    def condition_mode(self) -> str:
        """EXACT or FAST: how condition breakpoints are checked (the set's mode)."""
        return self._breakpoints.mode

    def add_breakpoint(self, bp: Breakpoint) -> None:
        """Add `bp` to the set; a stage breakpoint must name a stage of this pass (UnknownStageError)."""
        if bp.by == "stage" and bp.value not in self._known:
            raise UnknownStageError("There is no stage named '{name}' in this model.", id="stage.unknown_in_model",
                                    name=bp.value)
        self._breakpoints.add(bp)

    def remove_breakpoint(self, bp: Breakpoint) -> None:
        """Remove `bp` from the set."""
        self._breakpoints.remove(bp)

    def clear_breakpoints(self) -> None:
        """Remove every breakpoint from the set."""
        self._breakpoints.clear()

    def set_condition_mode(self, mode: str) -> None:
        """EXACT (pause at the stage, one sync per stage) or FAST (one sync per forward)."""
        self._breakpoints.set_mode(mode)
