"""`RemoteSession`: a served pass that a window treats like a local DebugSession.

It has what the controller reads of a local session (plan, layout, tokens, texts, title, the
model's name and device, a `stepper`) and a `display` with the methods of
tfdebug.remote.display.LocalDisplay. `RemoteStepper` mirrors the server's Stepper: its
commands go to the server and return once it has applied them (the state they led to is
already here), its history holds the stages' descriptions (no tensors), and its observers
receive the same StepperEvents, from the connection's thread.
"""

from __future__ import annotations

import os
import threading
from pathlib import Path
from typing import Callable, Mapping

import numpy as np
from torch import Tensor

from tfdebug.core.breakpoints import Breakpoint
from tfdebug.core.display import DisplaySlice, Stats
from tfdebug.core.edits import Edit, Region
from tfdebug.core.errors import ExportCancelledError, TfdebugError
from tfdebug.core.layout import PassLayout, build_layout
from tfdebug.core.plan import Plan
from tfdebug.core.recorder import Capture
from tfdebug.core.stages import StageInfo, token_labels
from tfdebug.core.stepper import EXACT, IDLE, PAUSED, RUNNING, StepperEvent
from tfdebug.core.thumbnails import HeadThumbnails
from tfdebug.remote import wire
from tfdebug.remote.client import RemoteClient
from tfdebug.remote.errors import ConnectionLostError, FrameError, from_reply
from tfdebug.remote.protocol import Message, wire_number


class RemoteStepper:
    """The server's stepper as seen from the window: the same commands, state and events."""

    is_live = True

    def __init__(self, session: "RemoteSession"):
        self._session = session
        self._lock = threading.RLock()
        self._observers: list[Callable[[StepperEvent], None]] = []
        self.history: list[Capture] = []
        self._positions: dict[str, int] = {}
        self.state, self.cursor, self.live_index = IDLE, -1, None
        self.breakpoints: frozenset[Breakpoint] = frozenset()
        self.condition_mode = EXACT
        self.error: TfdebugError | None = None
        self.edits_to_undo = 0
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
                self.edits_to_undo, self.condition_mode = int(state["undo"]), str(state["mode"])
                self.breakpoints = frozenset(wire.breakpoint_of(b) for b in state["breakpoints"])
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

    @property
    def dropped(self) -> list[str]:
        return [c.name for c in self.history if c.dropped]

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
        return self._session.request("edit", fields, buffers)["result"]["describe"]

    def add_breakpoint(self, bp: Breakpoint) -> None:
        self._session.request("breakpoint", {"op": "add", **wire.breakpoint_fields(bp)})

    def remove_breakpoint(self, bp: Breakpoint) -> None:
        self._session.request("breakpoint", {"op": "remove", **wire.breakpoint_fields(bp)})

    def clear_breakpoints(self) -> None:
        self._session.request("breakpoint", {"op": "clear"})

    def set_condition_mode(self, mode: str) -> None:
        self._session.request("breakpoint", {"op": "mode", "mode": mode})


class RemoteDisplay:
    """LocalDisplay's questions asked of the server: only the small answers cross."""

    def __init__(self, session: "RemoteSession"):
        self._session = session

    def _view(self, capture: Capture, row: int, col: int, indices: Mapping[int, int], max_size=(1, 1)) -> dict:
        index = self._session.stepper.position_of(capture.name)
        if index is None:
            raise FrameError("Stage {name} is not in the server's history.", id="remote.not_captured",
                             name=capture.name)
        return {"index": index, "row": row, "col": col, "indices": {str(k): int(v) for k, v in indices.items()},
                "max_rows": int(max_size[0]), "max_cols": int(max_size[1])}

    def slice_of(self, capture: Capture, row: int, col: int, indices: Mapping[int, int],
                 max_size: tuple[int, int], moments: bool = True) -> DisplaySlice:
        reply = self._session.request("slice", {**self._view(capture, row, col, indices, max_size),
                                                "moments": moments})
        return wire.slice_of(reply["result"], reply.buffers)

    def moments_of(self, capture: Capture, row: int, col: int, indices: Mapping[int, int], partial: Stats) -> Stats:
        reply = self._session.request("moments", self._view(capture, row, col, indices))
        return wire.stats_of(reply["result"]["stats"], *reply.buffers[:2])

    def heads_of(self, capture: Capture, row: int, col: int, head: int, indices: Mapping[int, int],
                 max_size: tuple[int, int]) -> HeadThumbnails:
        reply = self._session.request("heads", {**self._view(capture, row, col, indices, max_size), "head": head})
        return wire.heads_of(reply["result"], reply.buffers)

    def stats_of(self, capture: Capture) -> Stats:
        index = self._session.stepper.position_of(capture.name)
        reply = self._session.request("stats", {"index": index})
        if len(reply.buffers) != 2:
            raise FrameError("Stats from the server come without their histogram.", id="remote.stats")
        return wire.stats_of(reply["result"]["stats"], *reply.buffers)


class RemoteSession:
    """A pass served by `tfdebug serve`, attached through `client` (connected by `connect`)."""

    def __init__(self, client: RemoteClient):
        self.client = client
        self.stepper = RemoteStepper(self)
        self.display = RemoteDisplay(self)
        self.plan: Plan = Plan()
        self.layout: PassLayout = build_layout([])
        self.pass_info: dict = {}
        self._attached = threading.Event()  # the pass and the state after a hello have arrived
        self.on_pass: Callable[[], None] = lambda: None      # a new pass's metadata arrived
        self.on_lost: Callable[[TfdebugError], None] = lambda e: None
        client.on_message, client.on_lost = self._on_message, lambda e: self.on_lost(e)
        self.verification = None

    @classmethod
    def connect(cls, address: str, token: str, timeout: float = 10.0, **options) -> "RemoteSession":
        """Attach to the server at `address` and wait for its pass's metadata."""
        session = cls(RemoteClient(address, token, **options))
        session.reconnect(timeout)
        return session

    def reconnect(self, timeout: float = 10.0) -> None:
        """Attach (again): the server's pass is where it was; its history and state come anew."""
        self._attached.clear()
        self.client.connect(timeout)
        if not self._attached.wait(timeout):
            raise ConnectionLostError("The server let the window in but sent no pass.", id="remote.no_pass")
        self.stepper.wait(timeout)  # a pass just started runs to its first stage

    def request(self, kind: str, fields: dict | None = None, buffers=(), **options) -> Message:
        return self.client.request(kind, fields, buffers, **options)

    def _on_message(self, message: Message) -> None:
        if message.type == "pass":
            self._take_pass(message["pass"])
            return
        if message["state"] is not None:
            self.stepper.apply(message["state"])
        if message.type == "event":
            event = message["event"] or {}
            self.stepper.emit(event)
            if event.get("type") == "attached":
                self._attached.set()

    def _take_pass(self, data: dict) -> None:
        try:
            plan = Plan(wire.capture_of(e) for e in data["plan"])
            titles = data["titles"]
            layout = build_layout(plan, titles["layer"], titles["site"], titles["stack"])
        except (KeyError, TypeError) as exc:
            raise FrameError("The server's pass cannot be read: {why}", id="remote.pass", why=str(exc)[:200]) from None
        self.plan, self.layout, self.pass_info = plan, layout, data
        self.on_pass()

    # ----- what the controller reads of a session ------------------------------------------------
    @property
    def model_name(self) -> str:
        return str(self.pass_info.get("model", ""))

    @property
    def device(self) -> str:
        """The server's device in words ('cuda:0 (NVIDIA H200)')."""
        return str(self.client.server.get("device") or self.pass_info.get("device", ""))

    @property
    def host(self) -> str:
        return self.client.address[len("tcp://"):].rpartition(":")[0]

    @property
    def tokens(self) -> dict[str, list[str]]:
        return {k: list(v) for k, v in (self.pass_info.get("tokens") or {}).items()}

    @property
    def texts(self) -> dict[str, str]:
        return dict(self.pass_info.get("texts") or {})

    @property
    def title(self) -> str:
        return str(self.pass_info.get("title", ""))

    @property
    def unknown_words(self) -> list[str]:
        return list(self.pass_info.get("unknown") or [])

    @property
    def notes(self) -> list[str]:
        return list(self.pass_info.get("notes") or [])

    @property
    def stages(self):
        return self.pass_info.get("stages")

    def axis_labels(self, info: StageInfo, axis: int) -> list[str] | None:
        if not 0 <= axis < len(info.axes):
            return None
        which = info.tokens.get(info.axes[axis])
        return token_labels(self.tokens, which) if which else None

    def open(self, texts: Mapping[str, str]) -> None:
        """New input texts for the served model: a new pass, paused at its first stage."""
        self.request("open", {"texts": dict(texts)})
        self.stepper.wait()

    # ----- export ----------------------------------------------------------------------------
    def export(self, path: str | os.PathLike, progress: Callable[[int, int], bool | None] | None = None) -> str:
        """Stream the pass as a snapshot into `path` on this machine (atomically); the server's note.

        `progress(done, total)` returning False cancels (no file is left)."""
        path = Path(path)
        temp = path.with_name(f".{path.name}.part")
        state = {"file": open(temp, "wb"), "cancelled": False, "note": ""}

        def on_chunk(message: Message) -> None:
            if message.type == "reply":  # the export has started: what the server says about it
                state["note"] = str((message["result"] or {}).get("note") or "")
                return
            data = message.buffers[0] if message.buffers else np.zeros(0, np.uint8)
            if state["file"].tell() != message["offset"]:
                state["cancelled"] = True
            if not state["cancelled"]:
                state["file"].write(data.tobytes())
                if progress is not None and progress(state["file"].tell(), int(message["total"])) is False:
                    state["cancelled"] = True
        try:
            self.request("export", {"to": "window"}, on_chunk=on_chunk, timeout=3600)
            state["file"].flush()
            os.fsync(state["file"].fileno())
            state["file"].close()
            if state["cancelled"]:
                raise ExportCancelledError("The export was cancelled; no file was written.", id="export.cancelled")
            os.replace(temp, path)
            return state["note"]
        finally:
            state["file"].close()
            if temp.exists():
                temp.unlink()

    def export_on_server(self, name: str) -> dict:
        """Write the snapshot into the server's export folder; {"path", "bytes", "note"} there."""
        return dict(self.request("export", {"to": "server", "path": name})["result"])

    def close(self) -> None:
        """Detach; the server keeps the pass paused for the next window."""
        self.client.close()

