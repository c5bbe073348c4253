"""The window's breakpoints: one BreakpointSet for the window's lifetime, shared by every pass it shows.

`WindowBreakpoints` is a Qt-free part the controller owns (`ctl.breakpoints`). The set and its events are its
`model` (`tfdebug.ui.models.breakpoints.BreakpointsModel`: `added`, `removed`, `cleared`, `mode_changed`,
`refused`, each with its payload), which the panels and menus that show breakpoints subscribe to; the set itself
is `ctl.breakpoints.points`. A change goes through the stepper on screen when there is one (it checks a stage
name against its model; a remote one tells the server), else straight to the set; a refusal goes to the
screen's `refuse`.
"""

from __future__ import annotations

from typing import Callable, Protocol

from tfdebug.core.breakpoints import Breakpoint, BreakpointSet
from tfdebug.core.errors import TfdebugError
from tfdebug.core.stepper_like import StepperLike
from tfdebug.ui.models.breakpoints import BreakpointsModel


class BreakpointsScreen(Protocol):
    """What `WindowBreakpoints` reads of the window's pass and tells it (the controller is one)."""

    @property
    def stepper(self) -> StepperLike | None:
        """The stepper on screen, or None."""
        ...

    def refuse(self, exc: TfdebugError) -> None:
        """A change was refused: say why."""
        ...


class WindowBreakpoints:
    """Add, remove and replace breakpoints; kept across restarts, new inputs and models.

    `screen` is the pass on screen (its stepper, or None) and whom refusals are told to, on the window's thread."""

    def __init__(self, screen: BreakpointsScreen):
        self.model = BreakpointsModel()  # the set every pass checks, and its events
        self._screen = screen

    @property
    def points(self) -> BreakpointSet:
        """The window's BreakpointSet (the model's): what every pass checks."""
        return self.model.points

    def share_with(self, stepper) -> None:
        """Have `stepper` (a new pass, or a remote one reattached) check the window's set."""
        try:
            stepper.use_breakpoints(self.points)
        except TfdebugError as exc:
            self._screen.refuse(exc)

    def _change(self, through_stepper: Callable, in_set: Callable[[], None], asked: Breakpoint | None = None,
                clearing: bool = False) -> None:
        stepper = self._screen.stepper
        try:  # the model tells what changed, or that nothing did (a check box the user ticked shows the set again)
            with self.model.changing(asked, clearing):
                through_stepper(stepper) if stepper is not None else in_set()
        except TfdebugError as exc:
            self._screen.refuse(exc)

    def set(self, bp: Breakpoint, on: bool) -> None:
        """Add (`on`) or remove a breakpoint; it is kept across restarts and new inputs."""
        if on:
            self._change(lambda s: s.add_breakpoint(bp), lambda: self.points.add(bp), bp)
        else:
            self._change(lambda s: s.remove_breakpoint(bp), lambda: self.points.remove(bp), bp)

    def toggle_stage(self, name: str) -> None:
        """Break on stage `name`, or no longer."""
        bp = Breakpoint.on_stage(name)
        self.set(bp, bp not in self.points)

    def set_condition_mode(self, mode: str) -> None:
        """EXACT or FAST condition checks, for this pass and the next ones."""
        self._change(lambda s: s.set_condition_mode(mode), lambda: self.points.set_mode(mode))

    def set_conditions(self, conditions: list[Breakpoint]) -> None:
        """Replace every condition breakpoint (NaN, Inf, |x| > t) with `conditions`."""
        for bp in [b for b in self.points if b.by == "condition"]:
            self.set(bp, False)
        for bp in conditions:
            self.set(bp, True)

    def clear(self) -> None:
        """Remove every breakpoint."""
        self._change(lambda s: s.clear_breakpoints(), self.points.clear, clearing=True)
