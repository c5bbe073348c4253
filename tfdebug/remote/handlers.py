"""What the server does with each request: the served DebugSession's stepper, display and exports.

No sockets here (tfdebug.remote.server moves the messages): `ServedSession.handle(message)`
returns a reply's fields and buffers or raises a TfdebugError the reply carries.
"""

from __future__ import annotations

import os
import tempfile
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Mapping

import numpy as np
import torch

from tfdebug.sessions.generation import GenerationSession
from tfdebug.sessions.session import DebugSession
from tfdebug.core.stats import Stats
from tfdebug.core.edits import Edit, Region
from tfdebug.core.overview import stage_statistics
from tfdebug.core.errors import (CompareError, DisplayError, EditError, ExportError, InputError, ReplacementError,
                                 StepperStateError, TfdebugError)
from tfdebug.core.stepper import Stepper, StepperEvent
from tfdebug.core.view import ViewSelection, axis_names
from tfdebug.io.recording import recording_on_screen
from tfdebug.io.snapshot import save_snapshot
from tfdebug.models.sampling import DecodingSettings
from tfdebug.remote import wire
from tfdebug.remote.comparing import ComparisonJob, served_reference, start_comparison
from tfdebug.remote.backwards import ServedBackward
from tfdebug.remote.explaining import ServedWhy
from tfdebug.sessions.display import LocalDisplay
from tfdebug.remote.errors import FrameError
from tfdebug.remote.protocol import MAX_FILL_VALUES, Message

if TYPE_CHECKING:
    from tfdebug.core.recorder import Capture
    from tfdebug.sessions.gradient_session import GradientSession

    #: what a server serves: one pass, a generation, or a backward's gradients (`ServedSession.show`)
    Served = DebugSession | GenerationSession | GradientSession

Reply = tuple[dict, list[np.ndarray]]
SUFFIX = ".safetensors"  # a snapshot's file name ends so


class ServedSession:
    """One DebugSession served to the attached window; `pass_id` counts the passes it has started.

    `make_session(texts, settings)` builds a session for new input texts (None: the first inputs), a
    GenerationSession when `settings` (DecodingSettings) are given;
    `export_dir` is the only folder the server writes snapshots into when asked to.
    `on_event(event)` hears every stepper event (from the forward's thread).
    """

    def __init__(self, make_session: Callable[[Mapping[str, str] | None, DecodingSettings | None],
                                              DebugSession | GenerationSession],
                 export_dir: str | Path,
                 on_event: Callable[[StepperEvent], None]):
        self._make_session = make_session
        self.export_dir = Path(export_dir)
        self._on_event = on_event
        self.pass_id = 0
        # the window's view, when it follows: (view, max size, moments, whole-tensor stats up to this many bytes)
        self.follow: tuple[ViewSelection, tuple[int, int], bool, int] | None = None
        self.exports: dict[int | None, "ExportJob"] = {}
        # by request id (None for a request without one): answered when made (the loop looks)
        self.comparisons: dict[int | None, ComparisonJob] = {}
        self.compared: ComparisonJob | None = None  # the last comparison: its passes draw the Compare dock's planes
        self.reference_dtype: str | None = None  # the divergence condition's reference pass: this input in it
        #: called now and then during long work in a handler (the server sends its heartbeat from it)
        self.keepalive: Callable[[], None] = lambda: None
        self.explaining = ServedWhy(self)  # Why This Output of the finished pass: why, lens, attribute …
        self.backwards = ServedBackward(self)  # Debug ▸ Backward: the gradients become the served pass
        self._start(self._make_session(None, None))

    # ----- the pass --------------------------------------------------------------------------
    def _start(self, session: Served) -> None:
        self.session = session
        session.stepper.subscribe(self._on_event)
        live = session.stepper.is_live  # a backward's gradients are a replay: nothing runs
        if live and self.reference_dtype is not None and not self.generating and session.stepper.reference is None:
            # the divergence condition's reference pass, of these texts
            session.stepper.reference = served_reference(session, self.reference_dtype)
        self.display = LocalDisplay(session.stepper)
        self.pass_id += 1
        if live:
            session.stepper.start()

    def show(self, session: GradientSession) -> None:
        """Serve `session` (a backward's `GradientSession`) as the pass from now on; the pass before is closed."""
        self.close()
        self._start(session)

    @property
    def stepper(self) -> Stepper:
        return self.session.stepper

    def pass_fields(self) -> dict:
        """What a window needs once per pass: stage metadata, tokens, texts, titles, model and device."""
        session, adapter = self.session, self.session.adapter
        return {"pass": self.pass_id, "model": adapter.name, "device": str(adapter.device),
                "dtype": str(adapter.dtype).removeprefix("torch."), "title": session.title,
                "tokens": session.tokens, "texts": session.texts, "unknown": session.unknown_words,
                "notes": [str(n) for n in session.notes], "stages": session.stages,
                "inputs": [[f.key, f.label, f.placeholder] for f in adapter.inputs],
                "chat": bool(adapter.chat), "can_chat": adapter.can_chat(),
                "titles": {"layer": dict(adapter.layer_titles), "site": dict(adapter.site_titles),
                           "stack": dict(adapter.stack_titles)},
                "plan": [wire.entry(c) for c in session.plan],
                "image": wire.image_fields(getattr(session.prepared, "image", None)),
                "generation": session.settings.describe() if isinstance(session, GenerationSession) else None,
                "gradients": not session.stepper.is_live}

    @property
    def generating(self) -> bool:
        """Whether the served pass is a generation (a GenerationSession)."""
        return isinstance(self.session, GenerationSession)

    def generation_fields(self) -> dict | None:
        """A generation's growing token streams and token strip (None for one pass): small, sent with each state."""
        session = self.session
        if not isinstance(session, GenerationSession):  # self.generating
            return None
        return {"tokens": session.tokens, "entries": [wire.token_entry(e) for e in session.entries()]}

    def close(self) -> None:
        if self.compared is not None:
            self.compared.close()
        self.session.stepper.unsubscribe(self._on_event)
        self.session.close()

    # ----- requests --------------------------------------------------------------------------
    def handle(self, message: Message) -> Reply | None:
        """The reply to one request from the attached window (a TfdebugError is the refusal); None when it is
        answered later (a comparison: `comparisons`)."""
        handler = (getattr(self, "_on_" + message.type, None) or getattr(self.backwards, "on_" + message.type, None)
                   or getattr(self.explaining, "on_" + message.type))
        try:
            return handler(message)
        except (ValueError, IndexError, RuntimeError) as exc:  # display math refusing a view: a sentence
            raise DisplayError("The server cannot do that: {why}", id="remote.server_refused", why=str(exc)) from None

    def _on_command(self, m: Message) -> Reply:
        stepper, op = self.stepper, m["op"]
        if op == "start" and stepper.alive:
            return {}, []
        if op in ("start", "restart"):
            self.pass_id += 1
        calls = {"start": stepper.start, "step": stepper.step, "continue": stepper.continue_,
                 "step_out": stepper.step_out, "step_back": stepper.step_back, "step_forward": stepper.step_forward,
                 "pause": stepper.pause, "stop": stepper.stop, "restart": stepper.restart,
                 "undo_replace": stepper.undo_replace,
                 "next_token": lambda: self._generation().next_token(),
                 "run_to_token": lambda: self._generation().run_to_token(_needed(m, "index")),
                 "run_to": lambda: stepper.run_to(_needed(m, "name")),
                 "goto": lambda: stepper.goto(_needed(m, "index"))}
        calls[op]()
        return {}, []

    def _generation(self) -> GenerationSession:
        session = self.session
        if not isinstance(session, GenerationSession):  # self.generating
            raise StepperStateError("The served pass is not a generation: press Generate to generate token by token.",
                                    id="remote.not_generating")
        return session

    def _on_breakpoint(self, m: Message) -> Reply:
        stepper, op = self.stepper, m["op"]
        if op == "clear":
            stepper.clear_breakpoints()
        elif op == "mode":
            stepper.set_condition_mode(_needed(m, "mode"))
        elif op == "reference":
            self._set_reference(m["dtype"])
        else:
            bp = wire.breakpoint_of({"by": _needed(m, "by"), "value": _needed(m, "value"), "threshold": m["threshold"],
                                     "rtol": m["rtol"]})
            assert bp is not None  # its fields are given: a breakpoint, or breakpoint_of raised FrameError
            stepper.add_breakpoint(bp) if op == "add" else stepper.remove_breakpoint(bp)
        return {}, []

    def _set_reference(self, dtype: str | None) -> None:
        """The divergence condition compares each stage with this input in `dtype` (None: with nothing), computed
        here on a thread of its own; each new pass of other texts gets its own (`_start`)."""
        if dtype is not None and self.generating:
            raise StepperStateError("The divergence condition needs one pass of a model: a generation has none.",
                                    id="remote.reference_generation")
        self.reference_dtype = dtype
        current = self.stepper.reference
        if dtype is not None and current is not None and current.key[2].dtype == dtype and current.error is None:
            return  # this pass's reference in that dtype is held already
        self.stepper.reference = served_reference(self.session, dtype) if dtype is not None else None

    def _capture(self, index: int):
        history = self.stepper.history
        if not 0 <= index < len(history):
            raise StepperStateError("No captured stage at position {index}.", id="stepper.no_position", index=index)
        return history[index]

    @staticmethod
    def _view(m: Message) -> tuple[int, int, dict[int, int], tuple[int, int]]:
        return m["row"], m["col"], {int(k): v for k, v in m["indices"].items()}, (m["max_rows"], m["max_cols"])

    def _on_slice(self, m: Message) -> Reply:
        row, col, indices, size = self._view(m)
        return wire.slice_fields(self.display.slice_of(self._capture(m["index"]), row, col, indices, size,
                                                       moments=m["moments"]))

    def _on_moments(self, m: Message) -> Reply:
        row, col, indices, _ = self._view(m)
        capture = self._capture(m["index"])
        partial = self.display.slice_of(capture, row, col, indices, (1, 1), moments=False).stats
        return self._stats_reply(self.display.moments_of(capture, row, col, indices, partial))

    def _on_heads(self, m: Message) -> Reply:
        row, col, indices, size = self._view(m)
        return wire.heads_fields(self.display.heads_of(self._capture(m["index"]), row, col, m["head"], indices, size))

    def _on_tile(self, m: Message) -> Reply:
        row, col, indices, size = self._view(m)
        rows, cols = m["rows"], m["cols"]
        if len(rows) != 2 or len(cols) != 2:
            raise FrameError("A tile names a first and a last row and column.", id="remote.tile_range")
        # A region outside the slice is read_tile's ValueError: `handle` says it in a sentence.
        return wire.tile_fields(self.display.tile_of(self._capture(m["index"]), row, col, indices, tuple(rows),
                                                     tuple(cols), size, row_max=m["row_max"]))

    def _on_stats(self, m: Message) -> Reply:
        return self._stats_reply(self.display.stats_of(self._capture(m["index"])))

    def _on_checks(self, m: Message) -> Reply:
        """The stage's live checks (tfdebug.core.checks), made here where its tensor is."""
        return {"checks": [wire.check(c) for c in self.display.checks_of(self._capture(m["index"]))]}, []

    def _on_overview(self, m: Message) -> Reply:
        """The Overview's statistic of each stage asked for, computed where the tensors are (NaN: not kept)."""
        captures = [self._capture(i) for i in m["indices"]]
        values = stage_statistics(captures, m["statistic"], self.stepper.tensor_of, tick=self.keepalive)
        return {}, [np.asarray(values, dtype=np.float64)]

    @staticmethod
    def _stats_reply(stats: Stats) -> Reply:
        fields, buffers = wire.stats_fields(stats)
        return {"stats": fields}, buffers

    def _paused_capture(self) -> Capture:
        stepper = self.stepper
        if not stepper.at_live_point:
            raise stepper._not_replaceable()
        capture = stepper.current
        assert capture is not None  # paused at the live point: the stage it is paused at
        return capture

    def _on_replace(self, m: Message) -> Reply:
        capture = self._paused_capture()
        if len(m.buffers) != 1 or tuple(m.buffers[0].shape) != capture.shape:
            got = tuple(m.buffers[0].shape) if len(m.buffers) == 1 else None
            raise ReplacementError("The replacement has shape {got}; stage {name} needs {shape}.", id="replace.shape",
                                   got=got, name=capture.name, shape=capture.shape)
        self.stepper.replace(torch.from_numpy(np.array(m.buffers[0])))
        return {}, []

    def _on_edit(self, m: Message) -> Reply:
        self._paused_capture()
        values = _fill_values(m)
        edit = Edit(m["op"], m["target"], m["value"], m["row"], m["col"], m["head"], values)
        region = Region(m["row_axis"], m["col_axis"], {int(k): v for k, v in m["indices"].items()})
        return {"describe": self.stepper.edit(edit, region)}, []

    def _on_follow(self, m: Message) -> Reply:
        """The window's view: from now on each stage it pauses or moves to comes with its slice."""
        if not m["on"]:
            self.follow = None
            return {}, []
        pinned = (m["pinned"][0], m["pinned"][1]) if m["pinned"] and len(m["pinned"]) == 2 else None
        view = ViewSelection(dict(m["indices"]), pinned)
        self.follow = (view, (m["max_rows"], m["max_cols"]), m["moments"], m["stats_up_to"] or 0)
        return {}, []

    def pushed_slice(self, index: int) -> Reply | None:
        """The slice of history[index] in the followed view, as the window's `slice` request would get it
        (None when not following, or the stage has no tensor)."""
        history = self.stepper.history
        if self.follow is None or not 0 <= index < len(history) or history[index].tensor is None:
            return None
        view, size, moments, stats_up_to = self.follow
        capture = history[index]
        view.fit(capture.info.axes, capture.shape)
        indices = view.indices(axis_names(capture.info.axes, capture.shape), capture.shape)
        fields, buffers = wire.slice_fields(self.display.slice_of(capture, view.row_axis, view.col_axis, indices,
                                                                  size, moments=moments))
        if capture.nbytes <= stats_up_to:  # what the window asks next: no round trip for it
            fields["whole"], whole = wire.stats_fields(self.display.stats_of(capture))
            buffers = [*buffers, *whole]
        return {**fields, "view": {"index": index, "row": view.row_axis, "col": view.col_axis,
                                   "indices": {str(k): v for k, v in indices.items()}, "max_rows": size[0],
                                   "max_cols": size[1], "moments": moments}}, buffers

    def _on_open(self, m: Message) -> Reply:
        """New input texts: a new session of the same model (its pass starts paused at the first stage).

        The texts are checked first (the model's own tokenizer and limits, here on the server): texts it
        refuses leave the pass where it is. Only the model's input fields are taken."""
        fields = {f.key for f in self.session.adapter.inputs}
        unknown = sorted(set(m["texts"]) - fields)
        if unknown:
            raise FrameError("The model takes no input named {name}.", id="remote.unknown_input", name=unknown[0])
        texts = dict(m["texts"])
        settings = DecodingSettings(**m["generate"]) if m["generate"] is not None else None  # typed InputErrors
        adapter, chat_before = self.session.adapter, self.session.adapter.chat
        if m["chat"] and not adapter.can_chat():
            raise InputError("The Chat toggle needs a model whose tokenizer has a chat template; {name} has none.",
                             id="remote.no_chat_template", name=adapter.name)
        if m["chat"] is not None:
            adapter.chat = m["chat"]
        try:
            adapter.prepare(texts)  # a typed InputError here: nothing changed
        except TfdebugError:
            adapter.chat = chat_before
            raise
        old = self.session
        self.close()  # planning the new pass runs the model: the old pass's hooks must be gone
        try:
            new = self._make_session(texts, settings)
        except TfdebugError:
            adapter.chat = chat_before
            self._start(old)  # the new pass could not be planned: the old inputs run again, from their first stage
            raise
        self._start(new)
        return {}, []

    def server_file(self, name: str) -> Path:
        """The snapshot `name` in the export folder: the only files a window may have the server write or read."""
        if os.path.basename(name) != name or not name.endswith(SUFFIX) or name.startswith("."):
            raise ExportError("On the server, snapshots are written into and read from its export folder only: "
                              "give a file name ending in {suffix}, without a folder.", id="remote.export_name",
                              suffix=SUFFIX)
        return self.export_dir / name

    def _on_compare(self, m: Message) -> None:
        """Start the comparison on a thread of its own; its reply goes when it is made (`comparisons`)."""
        self.begin_comparison(m, lambda: start_comparison(self.session, self.stepper, self.server_file, m))

    def begin_comparison(self, m: Message, start: Callable[[], ComparisonJob]) -> None:
        """Start the comparison job `start()` makes for request `m` (a `compare`, or a `patch_stage` answered as
        one); refused while another is being made. Its reply goes when it is made, and its passes draw the Compare
        dock's planes until the next one."""
        if self.comparisons:
            raise CompareError("The server is already comparing: wait for that comparison first.",
                               id="remote.compare_busy")
        job = start()
        if self.compared is not None:
            self.compared.close()
        self.compared = self.comparisons[m.id] = job

    def _on_compared(self, m: Message) -> Reply:
        """A, B and A − B of a stage in the last comparison, cut here (tfdebug.remote.comparing.planes_on_server)."""
        if self.compared is None:
            raise CompareError("The server has no comparison to draw yet: compare first.", id="remote.no_comparison")
        return self.compared.planes(m)

    def _on_export(self, m: Message) -> Reply:
        recording, note = recording_on_screen(self.stepper, self.session, getattr(self.session, "replayed", None))
        if recording is None:
            raise ExportError("There are no stages to export yet: step into the pass first.", id="remote.export_empty")
        if m["to"] == "server":
            path = self.server_file(_needed(m, "path"))
            save_snapshot(recording, path)
            return {"path": str(path), "bytes": path.stat().st_size, "note": str(note)}, []
        job = ExportJob(recording)
        self.exports[m.id] = job
        return {"note": str(note)}, []


class ExportJob:
    """A snapshot written to a temporary file on a thread, then read out in chunks to the window."""

    def __init__(self, recording):
        self._dir = tempfile.TemporaryDirectory(prefix="tfdebug-export-")
        self.path = Path(self._dir.name) / ("export" + SUFFIX)
        self.error: TfdebugError | None = None
        self.offset = 0     # bytes sent
        self.received = 0   # bytes the window has said it wrote
        self._file = None
        self._thread = threading.Thread(target=self._write, args=(recording,), name="tfdebug-export", daemon=True)
        self._thread.start()

    def _write(self, recording) -> None:
        try:
            save_snapshot(recording, self.path, durable=False)
        except TfdebugError as exc:
            self.error = exc
        except OSError as exc:
            self.error = ExportError("The server could not write the snapshot: {why}", id="remote.export_failed",
                                     why=exc.strerror or str(exc))

    @property
    def ready(self) -> bool:
        return not self._thread.is_alive()

    @property
    def total(self) -> int:
        return self.path.stat().st_size

    def next_chunk(self, size: int) -> bytes:
        if self._file is None:
            self._file = open(self.path, "rb")
        data = self._file.read(size)
        self.offset += len(data)
        return data

    def rewind(self, offset: int) -> None:
        """Read from `offset` again (a chunk that could not be sent)."""
        assert self._file is not None  # next_chunk opened it
        self._file.seek(offset)
        self.offset = offset

    def close(self) -> None:
        if self._file is not None:
            self._file.close()
        self._dir.cleanup()


def _fill_values(m: Message) -> tuple[tuple[float, ...], ...] | None:
    """An edit's fill_csv values: its one float64 buffer of rows × columns (None: no buffer came)."""
    if not m.buffers:
        return None
    values = m.buffers[0]
    if m["op"] != "fill_csv" or values.dtype != np.float64 or values.ndim != 2 or values.size > MAX_FILL_VALUES:
        raise EditError("An edit's values come as one float64 array of rows × columns (at most {n} values), for "
                        "fill_csv only; this one is {dtype} of shape {shape} for {op}.", id="remote.edit_values",
                        n=MAX_FILL_VALUES, dtype=str(values.dtype), shape=tuple(values.shape), op=m["op"])
    return tuple(tuple(row) for row in values.tolist())


def _needed(m: Message, field: str):
    value = m[field]
    if value is None:
        raise FrameError("A {kind} request needs the field '{field}'.", id="remote.missing_field", kind=m.type,
                         field=field)
    return value

