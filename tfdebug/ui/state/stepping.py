"""Moving through the pass on screen: Step, Continue, Step Out, Step Back, Pause, Restart, Stop, Run to
Stage, and a generation's Next Token, Run to Token and going to a step.

`Stepping` is a part the controller owns (`ctl.steps`). It holds no Qt object: it is handed the screen (the
controller, as a `SteppingScreen`), reads the stepper on screen, the source, the plan and whether a model is
loading there, and tells it what happened (`fail(sentence)` for a refused command; each command runs inside
`announcing_command()` so actions re-check themselves: once per step, with the event that shows where the command went). A live generation is a source whose `is_generation` is true; a recorded one is
recognised by its `gen.{t}.` stage names.
"""

from __future__ import annotations

from contextlib import AbstractContextManager
from typing import Any, Callable, Protocol

from PySide6.QtCore import QCoreApplication

from tfdebug.core.errors import TfdebugError
from tfdebug.core.names import parse_name
from tfdebug.core.plan import Plan
from tfdebug.core.stepper import PAUSED, RUNNING, StepperEvent
from tfdebug.core.stepper_like import StepperLike
from tfdebug.ui.i18n.language import error_phrase, said
from tfdebug.ui.state.loading import LoadState


class _Jumps(Protocol):
    def read_before_jump(self, name: str, move: Callable[[], bool]) -> bool: ...

    def settled(self) -> bool: ...


class _Cancels(Protocol):
    def cancel(self, kind: str | None = None) -> None: ...


class SteppingScreen(Protocol):
    """What `Stepping` reads of the window's pass and tells it (the controller is one): the stepper, source and
    plan on screen, whether a model loads (`loader.busy`), the shown stage's jumps (`shown`: a replayed stage read
    ahead before a jump, whether the display has shown the last stage) and the display worker (`display`, whose
    "jump" reads a new command cancels)."""

    @property
    def stepper(self) -> StepperLike | None:
        """The stepper on screen, or None."""
        ...

    @property
    def source(self) -> Any:
        """The pass source on screen, or None."""
        ...

    @property
    def plan(self) -> Plan:
        """The plan of the pass on screen."""
        ...

    @property
    def loader(self) -> LoadState:
        """The Loader (`busy` while a model loads)."""
        ...

    @property
    def shown(self) -> _Jumps:
        """The shown stage (reads a replayed stage ahead of a jump; settled once drawn)."""
        ...

    @property
    def display(self) -> _Cancels:
        """The display worker (its "jump" reads a new command cancels)."""
        ...

    def fail(self, content: str) -> None:
        """A command was refused: say why."""
        ...

    def announcing_command(self) -> AbstractContextManager[None]:
        """A command runs inside: actions re-check themselves once after it (with the stepper's event it brought, or
        soon if none came)."""
        ...

    def restarted(self) -> None:
        """A Restart applied: what was said about the last run no longer applies."""
        ...


class Stepping:
    """The stepper commands of the window, with key-repeat queueing of Step.

    `screen` is the pass on screen (`SteppingScreen`): its shown stage reads a replayed stage ahead before a
    jump goes there (`shown.read_before_jump(name, move)`, True when it took the jump over), and says whether
    the display has shown the last stage (`shown.settled()`); `restarted()` is told after a Restart applied."""

    def __init__(self, screen: SteppingScreen):
        self._screen = screen
        self._in_flight = False  # a live Step runs and its pause has not been shown yet
        self.queued_steps = 0    # Steps asked for meanwhile (key repeat): one runs per pause

    def command(self, func: Callable, *args) -> bool:
        """Call a stepper command; a TfdebugError goes to `failed`. True when it applied."""
        with self._screen.announcing_command():
            try:
                func(*args)
            except TfdebugError as exc:
                self._screen.fail(error_phrase(exc))
                return False
        return True

    def _on_stepper(self, command: Callable[[StepperLike], None]) -> bool:
        self._in_flight, self.queued_steps = False, 0  # any other command ends a run of steps
        self._screen.display.cancel("jump")  # and a jump still reading its stage
        stepper = self._screen.stepper
        if stepper is None:
            self._screen.fail(said(lambda: QCoreApplication.translate("Stepping", "Nothing is loaded yet: press Run.")))
            return False
        return self.command(lambda: command(stepper))

    def step(self) -> bool:
        """One stage on (through history first, else the live forward runs one stage).

        Asked again before the window has shown the stage a live step ran to (presses faster
        than stages run), the step is queued and runs once that pause arrives: one stage per
        press, none dropped. A held key's repeats are dropped before they get here
        (tfdebug.ui.actions.key_repeat).
        """
        if self._in_flight:
            self.queued_steps += 1
            return True
        queued = self.queued_steps

        def step_and_note(stepper: StepperLike) -> None:
            stepper.step()
            # Set before the actions re-check themselves: Step stays enabled while it runs.
            self._in_flight = stepper.state == RUNNING

        def move() -> bool:
            ok = self._on_stepper(step_and_note)
            self.queued_steps = queued
            return ok
        return self._read_first(1, move)

    def step_being_shown(self) -> bool:
        """Whether the last step is still running or being drawn (a held key's repeat then waits)."""
        return self._in_flight or not self._screen.shown.settled()

    def can_step(self) -> bool:
        """Step applies: the pass can advance, or a step runs (the new one is queued)."""
        return self.can_advance() or self._in_flight

    def on_event(self, event: StepperEvent) -> None:
        """A pause, the end or a failure of the pass on screen: the next queued Step runs, or the queue ends."""
        if event.type not in ("paused", "finished", "failed", "stopped"):
            return
        self._in_flight = False
        if event.type == "paused" and event.reason == "step" and self.queued_steps:
            self.queued_steps -= 1
            self.step()
        else:
            self.queued_steps = 0  # a breakpoint, the end or a failure: the rest of the run is dropped

    def continue_(self) -> bool:
        """On to the next breakpoint (or the end)."""
        return self._on_stepper(lambda s: s.continue_())

    def step_out(self) -> bool:
        """On to the end of the block the shown stage is in."""
        return self._on_stepper(lambda s: s.step_out())

    def step_back(self) -> bool:
        """One stage back through the history."""
        return self._read_first(-1, lambda: self._on_stepper(lambda s: s.step_back()))

    def _read_first(self, offset: int, move: Callable[[], bool]) -> bool:
        """`move()` to the stage `offset` from the cursor; in a replay, one not read yet is read on the display
        worker first, as a jump is (`shown.read_before_jump`): F10 onto an 8k-token stage of a snapshot would
        otherwise read its gigabytes on the GUI thread, and no key would answer meanwhile."""
        stepper = self._screen.stepper
        if stepper is not None and not stepper.is_live and 0 <= stepper.cursor + offset < len(stepper.history):
            return self._screen.shown.read_before_jump(stepper.history[stepper.cursor + offset].name, move) or move()
        return move()

    def pause(self) -> bool:
        """Pause a running pass at the next stage."""
        return self._on_stepper(lambda s: s.pause())

    def restart(self) -> bool:
        """The same pass again; what was said about the last run (its failure, its verification) no longer applies."""
        ok = self._on_stepper(lambda s: s.restart())
        if ok:
            self._screen.restarted()
        return ok

    def stop(self) -> bool:
        """End the pass (its captured stages stay viewable)."""
        return self._on_stepper(lambda s: s.stop())

    def run_to(self, name: str) -> bool:
        """To stage `name`; a replayed stage not read yet is read on the display worker first."""
        def move() -> bool:
            return self._on_stepper(lambda s: s.run_to(name))
        return self._screen.shown.read_before_jump(name, move) or move()

    def next_token(self) -> bool:
        """Run to the end of this generation step: the next step reads the token just chosen."""
        session = self._screen.source.session
        return self._on_stepper(lambda s: session.next_token())

    def run_to_token(self, n: int) -> bool:
        """Run until generated token `n` (1 = the first) has been chosen."""
        session = self._screen.source.session
        return self._on_stepper(lambda s: session.run_to_token(n))

    def goto_step(self, step: int) -> bool:
        """Show the first stage of generation step `step` (live or recorded): through history when
        it has run, else run to it."""
        name = next((n for n in self._screen.plan.names() if parse_name(n).step == step), None)
        if name is None:
            self._screen.fail(said(lambda: QCoreApplication.translate(
                "Stepping", "This generation has no step {0}.").format(step)))
            return False
        return self.run_to(name)

    def can_advance(self) -> bool:
        """Whether Step, Continue or Run to can move on (nothing loading, not running, somewhere to go)."""
        s = self._screen.stepper
        if s is None or self._screen.loader.busy or s.state == RUNNING:
            return False
        return s.state == PAUSED or s.cursor < len(s.history) - 1

    def can_step_back(self) -> bool:
        """Whether there is a stage behind the shown one (and nothing runs)."""
        s = self._screen.stepper
        return s is not None and s.state != RUNNING and s.cursor > 0

    def is_running(self) -> bool:
        """Whether the forward is running (between pauses)."""
        s = self._screen.stepper
        return s is not None and s.state == RUNNING

    def is_alive(self) -> bool:
        """Whether the pass's forward has not ended (it can still run)."""
        s = self._screen.stepper
        return s is not None and s.alive

    def reached(self, name: str) -> int | None:
        """History index of the stage called `name`, or None when it has not run yet."""
        s = self._screen.stepper
        return s.position_of(name) if s is not None else None
