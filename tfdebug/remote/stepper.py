"""`RemoteStepper`: the server's Stepper as the window sees it (part of tfdebug.remote.session).

Its commands go to the server and return once it has applied them (the state they led to, and
the events they caused, are already here); its history holds the stages' descriptions (no
tensors); its observers receive the same StepperEvents as a local stepper's, from the
connection's thread. Its breakpoints are the window's BreakpointSet (`use_breakpoints`): the
server's stepper is told every change and keeps no set the window reads back.
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING, Callable

import numpy as np
from torch import Tensor

from tfdebug.core.breakpoints import Breakpoint, BreakpointSet
from tfdebug.core.edits import Edit, Region
from tfdebug.core.errors import TfdebugError
from tfdebug.core.recorder import Capture
from tfdebug.core.stepper import IDLE, PAUSED, RUNNING, StepperEvent
from tfdebug.core.stepper_breakpoints import StepperBreakpointsMixin
from tfdebug.remote import wire
from tfdebug.remote.errors import ConnectionLostError, FrameError, from_reply
from tfdebug.remote.protocol import wire_number

if TYPE_CHECKING:
    from tfdebug.remote.session import RemoteSession


class RemoteStepper(StepperBreakpointsMixin):
    """The server's stepper as seen from the window: the same commands, state and events."""

    is_live = True

    def __init__(self, session: "RemoteSession"):
        self._session = session
        self._lock = threading.RLock()
        self._observers: list[Callable[[StepperEvent], None]] = []
        self.history: list[Capture] = []
        self._positions: dict[str, int] = {}
        self.state, self.cursor, self.live_index = IDLE, -1, None
        self._breakpoints = BreakpointSet()  # its own until `use_breakpoints` hands it the window's
        self.error: TfdebugError | None = None
        self.edits_to_undo = 0
        self.held = 0  # bytes the server's captures hold (the window's "captures hold")
        self.output = None  # the model's output stays on the server
        self._pass = 0
        self._settled = threading.Condition(self._lock)

    # ----- state from the server ---------------------------------------------------------------
    def apply(self, state: dict) -> None:
        """Take the server's state (called for every message that carries one, in order)."""
        try:
            with self._lock:
                if state["pass"] != self._pass or state["from"] == 0:
                    self._pass, self.history, self._positions = state["pass"], [], {}
                if state["from"] != len(self.history):
                    raise FrameError("The server's history does not follow on from the window's.", id="remote.gap")
                for data in state["entries"]:
                    capture = wire.capture_of(data)
                    self._positions.setdefault(capture.name, len(self.history))
                    self.history.append(capture)
                for index, data in state["changed"].items():
                    i = int(index)
                    if 0 <= i < len(self.history):
                        self.history[i] = wire.capture_of(data)
                self.state, self.cursor, self.live_index = str(state["state"]), int(state["cursor"]), state["live"]
                self.edits_to_undo = int(state["undo"])
                self.held = int(state.get("held") or 0)
                self.error = from_reply(state["error"]) if state["error"] else None
                self._settled.notify_all()
        except (KeyError, TypeError, ValueError) as exc:
            raise FrameError("The server's state cannot be read: {why}", id="remote.state", why=str(exc)[:200]) from None

    def emit(self, data: dict) -> None:
        """A stepper event the server forwarded, as the StepperEvent a local stepper would emit."""
        kind = data.get("type")
        if kind == "attached":
            kind = "moved" if self.current is not None else None
        if kind is None:
            return
        index = data.get("index", self.cursor if kind == "moved" else None)
        capture = self.history[index] if isinstance(index, int) and 0 <= index < len(self.history) else None
        event = StepperEvent(kind, index if capture is not None else None, capture, reason=data.get("reason"),
                             breakpoint=wire.breakpoint_of(data.get("breakpoint")),
                             error=from_reply(data["error"]) if data.get("error") else None)
        for callback in list(self._observers):
            callback(event)

    # ----- what the controller reads --------------------------------------------------------------
    def subscribe(self, callback: Callable[[StepperEvent], None]) -> None:
        self._observers.append(callback)

    def unsubscribe(self, callback: Callable[[StepperEvent], None]) -> None:
        if callback in self._observers:
            self._observers.remove(callback)

    @property
    def pass_id(self) -> int:
        """The server's count of passes started: a restart or a new pass changes it."""
        return self._pass

    @property
    def alive(self) -> bool:
        return self.state in (RUNNING, PAUSED)

    @property
    def at_live_point(self) -> bool:
        return self.state == PAUSED and self.cursor == self.live_index

    @property
    def current(self) -> Capture | None:
        with self._lock:
            return self.history[self.cursor] if 0 <= self.cursor < len(self.history) else None

    def position_of(self, name: str) -> int | None:
        return self._positions.get(name)

    def captured(self, name: str) -> Capture | None:
        """The stage's description (its tensor stays on the server: ask `RemoteSession.display`)."""
        index = self._positions.get(name)
        return None if index is None else self.history[index]

    def tensor_of(self, capture: Capture) -> Tensor | None:
        return None

    def holds_tensor(self, capture: Capture) -> bool:
        """Whether the server kept the stage's tensor (not dropped by its capture budget): its display can show it."""
        return not capture.dropped

    @property
    def dropped(self) -> list[str]:
        return [c.name for c in self.history if c.dropped]

    @property
    def drop_reasons(self) -> dict:
        """Why each dropped stage was not kept: the server does not send its reasons yet, so none
        (the Stages tree still marks the stage "not kept")."""
        return {}

    def wait(self, timeout: float | None = 10.0) -> str:
        """Block until the server's pass is paused or has ended; returns the state."""
        with self._lock:
            self._settled.wait_for(lambda: self.state != RUNNING or self._session.client.lost is not None, timeout)
            return self.state

    # ----- commands (each returns once the server has applied it) -------------------------------
    def _command(self, op: str, **fields) -> None:
        self._session.request("command", {"op": op, **fields})

    def start(self) -> None:
        self._command("start")

    def step(self) -> None:
        self._command("step")

    def continue_(self) -> None:
        self._command("continue")

    def run_to(self, name: str) -> None:
        self._command("run_to", name=name)

    def step_out(self) -> None:
        self._command("step_out")

    def step_back(self) -> None:
        self._command("step_back")

    def step_forward(self) -> None:
        self._command("step_forward")

    def goto(self, index: int) -> None:
        self._command("goto", index=index)

    def pause(self) -> None:
        self._command("pause")

    def stop(self, timeout: float = 10.0) -> None:
        if self._session.client.connected:
            self._command("stop")

    def restart(self) -> None:
        self._command("restart")

    def undo_replace(self) -> None:
        self._command("undo_replace")

    def forget_history(self) -> None:
        with self._lock:
            self.history, self._positions, self.cursor = [], {}, -1

    def replace(self, tensor: Tensor) -> None:
        """Replace the paused stage's tensor on the server (sent as float32)."""
        array = tensor.detach().float().cpu().numpy()
        self._session.request("replace", {}, [array])

    def edit(self, edit: Edit, region: Region) -> str:
        """Apply `edit` to the paused stage on the server (core.edits.apply_edit there); what it did, in words."""
        fields = {"op": edit.op, "target": edit.target, "value": wire_number(edit.value), "row": edit.row, "col": edit.col,
                  "head": edit.head, "row_axis": region.row_axis, "col_axis": region.col_axis,
                  "indices": {str(k): v for k, v in region.indices.items()}}
        buffers = [np.asarray(edit.values, dtype=np.float64)] if edit.values is not None else []
        return self._session.answer("edit", fields, lambda result, _: str(result["describe"]), buffers)

    # ----- breakpoints: the set is here; the server's stepper is told each change -----------------
    def use_breakpoints(self, breakpoints: BreakpointSet) -> None:
        """Check `breakpoints` (the window's set) from now on: the server's stepper is given the whole set
        (on attaching, and again on reattaching: what changed meanwhile reaches it)."""
        super().use_breakpoints(breakpoints)
        self._breakpoint_request("clear")
        self._breakpoint_request("mode", mode=breakpoints.mode)
        for bp in breakpoints:
            try:
                self._breakpoint_request("add", **wire.breakpoint_fields(bp))
            except ConnectionLostError:
                raise
            except TfdebugError:  # refused there (a stage its model lacks): kept here, it never stops there
                pass

    def _breakpoint_request(self, op: str, **fields) -> None:
        self._session.request("breakpoint", {"op": op, **fields})

    def add_breakpoint(self, bp: Breakpoint) -> None:
        """Add `bp` once the server has taken it (it checks a stage name against its model)."""
        self._breakpoint_request("add", **wire.breakpoint_fields(bp))
        self._breakpoints.add(bp)

    def remove_breakpoint(self, bp: Breakpoint) -> None:
        """Remove `bp` here, then on the server (a lost connection: `use_breakpoints` sets it again on reattach)."""
        super().remove_breakpoint(bp)
        self._breakpoint_request("remove", **wire.breakpoint_fields(bp))

    def clear_breakpoints(self) -> None:
        """Remove every breakpoint here, then on the server."""
        super().clear_breakpoints()
        self._breakpoint_request("clear")

    def set_condition_mode(self, mode: str) -> None:
        """EXACT or FAST, here, then on the server."""
        super().set_condition_mode(mode)
        self._breakpoint_request("mode", mode=mode)


if TYPE_CHECKING:  # the type checker holds the served pass's stepper to the protocol the window uses
    from tfdebug.core.stepper_like import StepperLike

    _CONFORMS: type[StepperLike] = RemoteStepper
