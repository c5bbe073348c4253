"""The Stepper's states and the events it reports (shared by the stepper and its edits)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from tfdebug.core.breakpoints import Breakpoint
from tfdebug.core.errors import TfdebugError
from tfdebug.core.recorder import Capture

IDLE, RUNNING, PAUSED, FINISHED, FAILED, STOPPED = "idle", "running", "paused", "finished", "failed", "stopped"
_ENDED = (FINISHED, FAILED, STOPPED)


@dataclass(frozen=True)
class StepperEvent:
    """Something that happened. type: captured | paused | moved | replaced | finished | failed | stopped.

    `paused` is the live forward stopping at a stage; `moved` is the cursor moving
    through history. `reason` says why it paused ("start", "step", "breakpoint", "run_to", "step_out").
    """

    type: str
    index: int | None = None
    capture: Capture | None = None
    reason: str | None = None
    breakpoint: Breakpoint | None = None
    error: TfdebugError | None = None
    output: Any = None
