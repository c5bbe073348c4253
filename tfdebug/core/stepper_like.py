"""What a pass's stepper offers the window, the sessions and the server: `StepperLike`.

Two classes implement it: `core.stepper.Stepper` runs a pass here (or replays a snapshot), and
`remote.stepper.RemoteStepper` drives a served pass's stepper over the wire. `sessions.source.PassSource.stepper`
is typed by this Protocol, so the type checker holds both to it; neither copies the other's methods.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable, Protocol

if TYPE_CHECKING:
    from torch import Tensor

    from tfdebug.core.breakpoints import Breakpoint, BreakpointSet
    from tfdebug.core.edits import Edit, Region
    from tfdebug.core.errors import TfdebugError
    from tfdebug.core.phrases import Phrase
    from tfdebug.core.recorder import Capture
    from tfdebug.core.stepper_state import StepperEvent


class StepperLike(Protocol):
    """A pass's stages in forward order (`history`, the one on screen at `cursor`), its state (idle, running,
    paused, finished, stopped, failed), the commands that move it, edits of the paused stage, breakpoints, and
    events to subscribers."""

    history: list[Capture]
    cursor: int
    state: str
    live_index: int | None
    error: TfdebugError | None
    output: Any

    @property
    def is_live(self) -> bool:
        """False for a replay: nothing can run, restart or be edited."""
        ...

    @property
    def alive(self) -> bool:
        """Whether the pass can still move forward (started and not ended)."""
        ...

    @property
    def current(self) -> Capture | None:
        """The stage at the cursor."""
        ...

    @property
    def dropped(self) -> list[str]:
        """The stages a capture budget left out, in order."""
        ...

    @property
    def drop_reasons(self) -> dict[str, Phrase]:
        """Why each dropped stage was left out."""
        ...

    @property
    def edits_to_undo(self) -> int:
        """How many replacements of the paused stage Undo can take back."""
        ...

    # ----- what it holds
    def position_of(self, name: str) -> int | None:
        """The index of stage `name` in `history`, None when it has not run."""
        ...

    def captured(self, name: str) -> Capture | None:
        """Stage `name`'s capture, None when it has not run."""
        ...

    def tensor_of(self, capture: Capture) -> Tensor | None:
        """A capture's tensor (read now where it is not in memory), None when it was dropped."""
        ...

    def forget_history(self) -> None:
        """Drop every capture held (the window keeps nothing of a pass it no longer shows)."""
        ...

    # ----- events
    def subscribe(self, callback: Callable[[StepperEvent], None]) -> None:
        """Call `callback` with every event from now on."""
        ...

    def unsubscribe(self, callback: Callable[[StepperEvent], None]) -> None:
        """Stop calling `callback`."""
        ...

    # ----- commands
    def start(self) -> None:
        """Start the pass, pausing at its first stage."""
        ...

    def stop(self, timeout: float = 10.0) -> None:
        """Stop the pass and wait up to `timeout` seconds for it to end."""
        ...

    def restart(self) -> None:
        """Run the pass again from its first stage."""
        ...

    def wait(self, timeout: float | None = 10.0) -> str:
        """Block until the pass is paused or has ended; the state."""
        ...

    def step(self) -> None:
        """Move to the next stage."""
        ...

    def continue_(self) -> None:
        """Run to the next breakpoint or the end."""
        ...

    def run_to(self, name: str) -> None:
        """Run (or move back) to stage `name`."""
        ...

    def step_out(self) -> None:
        """Run to the end of the block the cursor is in."""
        ...

    def step_back(self) -> None:
        """Move to the stage before."""
        ...

    def step_forward(self) -> None:
        """Move to the stage after, through history first."""
        ...

    def goto(self, index: int) -> None:
        """Move to `history[index]`."""
        ...

    def pause(self) -> None:
        """Pause a running pass at the stage it reaches next."""
        ...

    # ----- edits of the paused stage
    def replace(self, tensor: Tensor) -> None:
        """Replace the paused stage's tensor; what follows reads it."""
        ...

    def edit(self, edit: Edit, region: Region) -> str:
        """Apply `edit` to the paused stage; what it did, in words."""
        ...

    def undo_replace(self) -> None:
        """Take back the last replacement of the paused stage."""
        ...

    # ----- breakpoints
    def use_breakpoints(self, breakpoints: BreakpointSet) -> None:
        """Check `breakpoints` (the window's set) from now on."""
        ...

    @property
    def breakpoints(self) -> frozenset[Breakpoint]:
        """The breakpoints checked."""
        ...

    def add_breakpoint(self, bp: Breakpoint) -> None:
        """Add `bp`."""
        ...

    def remove_breakpoint(self, bp: Breakpoint) -> None:
        """Remove `bp`."""
        ...

    def clear_breakpoints(self) -> None:
        """Remove every breakpoint."""
        ...

    def set_condition_mode(self, mode: str) -> None:
        """How conditions are checked: EXACT or FAST."""
        ...
