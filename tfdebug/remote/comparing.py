"""Compare over a remote pass: the per-stage comparison runs on the server, where the tensors are.

Only the table crosses (tfdebug.core.compare.Comparison as JSON, a few hundred bytes a stage): the
window's `compare_on_server` asks, the server's `ComparisonJob` makes the other pass and compares on a
thread of its own (a second model loading must not hold the server's loop: the heartbeats go on), and
the server sends the reply when it is done. The other pass is one the server can make: this input in
another dtype or with another attention kernel on the served device (then the reply carries the
transplant too, tfdebug.sessions.transplant, when the served pass is not paused mid-forward), the input
run again without its edits, or a snapshot in the server's export folder. A snapshot on the desktop is not compared: its stages would have to cross whole
(docs/remote.md says why). The server keeps the last two passes it compared, so that the window's Compare
dock can ask for A, B and A − B of a stage (`planes_on_server`: three small planes cross).
"""

from __future__ import annotations

import math
import threading
from functools import partial
from pathlib import Path
from typing import Callable, NamedTuple

from tfdebug.sessions.compare_sides import (
    BEFORE_EDIT,
    FILE,
    INPUT,
    LIVE,
    PLACED,
    Compared,
    Held,
    Side,
    Work,
    before_edit,
    needs_path,
)
from tfdebug.sessions.crosscheck import Placement, fill_reference
from tfdebug.sessions.session import DebugSession
from tfdebug.sessions.transplant import Transplant, transplant_stage
from tfdebug.core.compare import Comparison, compare
from tfdebug.core.compare_planes import ComparedPlanes, compared_planes
from tfdebug.core.errors import CompareError, StepperStateError, TfdebugError
from tfdebug.core.reference import ReferencePass
from tfdebug.io.passes import open_pass
from tfdebug.io.recording import Recording, recording_on_screen
from tfdebug.remote import wire
from tfdebug.remote.errors import FrameError
from tfdebug.remote.protocol import Message



class Made(NamedTuple):
    """A comparison made on the server: the table, the transplant, the passes (A, B), the pass made for it (closed
    with the job), and what else the reply carries (a Patch Stage's numbers)."""

    comparison: Comparison
    transplant: Transplant | None
    passes: tuple
    made: Recording
    fields: dict | None = None


MAX_STAGES = 65536  # rows a reply may carry: about 250 bytes each, well inside the window's header bound


def compare_on_server(session, against: str, atol: float, rtol: float, *, on_screen: str = "a",
                      dtype: str | None = None, path: str | None = None, timeout: float = 3600.0) -> Comparison:
    """Compare the pass `session` (a RemoteSession) serves with another pass the server makes, on the server.

    `against`: "placed" (this input in `dtype`, on the served device), "unedited" (the input run again
    without its edits) or "file" (the snapshot `path`, a bare file name in the server's export folder).
    `on_screen` is the served pass's side ("a": it is the reference, as Compare With… has it by default).
    Returns the same Comparison `tfdebug.core.compare.compare` makes of the two passes here."""
    return divergence_on_server(session, against, atol, rtol, on_screen=on_screen, dtype=dtype, path=path,
                                timeout=timeout)[0]


def divergence_on_server(session, against: str, atol: float, rtol: float, *, on_screen: str = "a",
                         dtype: str | None = None, path: str | None = None, attention: str | None = None,
                         timeout: float = 3600.0) -> tuple[Comparison, Transplant | None]:
    """`compare_on_server`'s comparison (a placed pass also with another `attention` kernel) and the transplant
    the server made at its first divergent stage (None: none was made)."""
    def read(result, _):
        result = result or {}
        return wire.comparison_of(result.get("comparison")), wire.transplant_of(result.get("transplant"))

    return session.answer("compare", {"against": against, "on_screen": on_screen, "dtype": dtype, "path": path,
                                      "attention": attention, "atol": atol, "rtol": rtol}, read, timeout=timeout)


def compare_with_on_server(session, a: Side, b: Side, atol: float, rtol: float, held: Held) -> Work:
    """File ▸ Compare With… over the pass `session` (a RemoteSession) serves: one side is the pass on screen, the
    other a pass its server makes (this input in another placement's dtype and attention kernel on the served
    device, the pass before the last edit, a snapshot named in the server's export folder), compared there
    (`divergence_on_server`): only the table crosses. A side the server cannot make raises its CompareError now."""
    on_screen = "a" if a.kind == LIVE else "b"
    other = b if on_screen == "a" else a
    if LIVE not in (a.kind, b.kind) or other.kind == LIVE:
        raise CompareError("Over a remote pass, one side is the pass on screen and the other a pass the server makes: "
                           "this input in another dtype, the pass before the last edit, or a snapshot in its export "
                           "folder.", id="compare.remote_sides")
    if other.kind == INPUT:
        raise CompareError("Another input is not compared over a remote pass: run it on the server, export it there "
                           "(File ▸ Export Snapshot on Server…) and compare with that snapshot.",
                           id="compare.remote_input")
    if other.kind == FILE and needs_path(other) and Path(other.path).name != other.path:
        raise CompareError("A file on this machine cannot be compared with a remote pass: its tensors stay on the "
                           "server. Put the snapshot in the server's export folder and give its file name alone.",
                           id="compare.remote_local_file")
    if other.kind == BEFORE_EDIT:
        before_edit(held)
    against = {FILE: "file", BEFORE_EDIT: "unedited", PLACED: "placed"}[other.kind]
    placement = other.placement if other.kind == PLACED else None
    dtype, attention = (placement.dtype, placement.attention) if placement is not None else (None, None)
    path = other.path if other.kind == FILE else None

    def work(check: Callable[[], None]) -> Compared:
        result, transplant = divergence_on_server(session, against, atol, rtol, on_screen=on_screen, dtype=dtype,
                                                  path=path, attention=attention)
        return Compared(result, None, [], transplant)
    return work


def planes_on_server(session, name: str, indices_by_name: dict[str, int], max_size: tuple[int, int],
                     timeout: float = 60.0) -> ComparedPlanes:
    """A, B and A − B of stage `name` in the last comparison the server made (tfdebug.core.compare_planes), cut
    there at the window's `indices_by_name`, each at most `max_size`."""
    def read(result, buffers) -> ComparedPlanes:
        slices = tuple(wire.slice_of(f, buffers[3 * i:3 * i + 3]) for i, f in enumerate(result["slices"]))
        if len(slices) != 3:
            raise ValueError(f"{len(slices)} planes, not 3")
        return ComparedPlanes(int(result["row_axis"]), int(result["col_axis"]),
                              {int(k): int(v) for k, v in result["indices"].items()}, slices)

    return session.answer("compared", {"stage": name, "indices": {str(k): int(v) for k, v in indices_by_name.items()},
                                       "max_rows": int(max_size[0]), "max_cols": int(max_size[1])}, read,
                          timeout=timeout)


class ComparisonJob:
    """One comparison made on a thread of the server; the loop sends `reply()` once `ready`, and the two passes
    stay (for `planes`) until `close`."""

    def __init__(self, work: Callable[[], Made]):
        self._result: Made | None = None
        self._error: TfdebugError | None = None
        self._thread = threading.Thread(target=self._run, args=(work,), name="tfdebug-compare", daemon=True)
        self._thread.start()

    def _run(self, work: Callable[[], Made]) -> None:
        try:
            self._result = work()
        except TfdebugError as exc:
            self._error = exc
        except (ValueError, RuntimeError, OSError) as exc:  # torch or the file refusing: a sentence, not a crash
            self._error = CompareError("The server could not compare: {why}", id="remote.compare_failed",
                                       why=str(exc)[:300])

    @property
    def ready(self) -> bool:
        """The comparison is made (or failed): its reply can go."""
        return not self._thread.is_alive()

    def reply(self) -> tuple[dict, list]:
        """The reply's fields (the table), or the TfdebugError that is the refusal."""
        if self._error is not None:
            raise self._error
        assert self._result is not None  # ready with no error: the work made it
        result, transplant = self._result.comparison, self._result.transplant
        if len(result.stages) > MAX_STAGES:
            raise CompareError("The comparison has {n} stages, more than the {limit} one reply may carry: compare "
                               "a shorter pass.", id="remote.compare_size", n=len(result.stages),
                               limit=MAX_STAGES)
        return {"comparison": result.to_dict(),
                "transplant": None if transplant is None else transplant.to_dict(), **(self._result.fields or {})}, []

    def planes(self, m: Message) -> tuple[dict, list]:
        """The reply to a `compared` request: A, B and A − B of its stage in the passes compared."""
        if not self.ready or self._result is None:
            raise CompareError("The server has no comparison to draw yet: compare first.", id="remote.no_comparison")
        a, b = self._result.passes
        planes = compared_planes(a, b, m["stage"], {k: int(v) for k, v in m["indices"].items()},
                                 (m["max_rows"], m["max_cols"]))
        fields, buffers = [], []
        for sl in planes.slices:
            f, bufs = wire.slice_fields(sl)
            fields.append(f)
            buffers.extend(bufs)
        return {"row_axis": planes.row_axis, "col_axis": planes.col_axis,
                "indices": {str(k): v for k, v in planes.indices.items()}, "slices": fields}, buffers

    def close(self) -> None:
        """Release the pass the server made for the comparison (once it is done)."""
        if self.ready and self._result is not None:
            self._result.made.close()
            self._result = None


def start_comparison(session, stepper, server_file: Callable[[str], Path], m: Message) -> ComparisonJob:
    """The comparison `m` (a `compare` request) asks of the served `session` and its `stepper`, started on a
    thread; what can be refused at once (a bad tolerance, the model busy, a name outside the export folder)
    is refused here. `server_file(name)` is the snapshot `name` in the export folder, or its refusal."""
    atol, rtol = m["atol"], m["rtol"]
    if not (0 <= atol < math.inf and 0 <= rtol < math.inf):
        raise FrameError("atol and rtol must be zero or positive numbers.", id="remote.compare_tolerance")
    served, _ = recording_on_screen(stepper, session, None)
    if served is None:
        raise CompareError("There are no stages to compare yet: step into the pass first.", id="remote.compare_empty")
    against = m["against"]
    if against == "file":
        other = partial(open_pass, server_file(m["path"] or ""))  # read on the job's thread: a large file takes time
    elif against == "unedited":
        if stepper.alive:  # the served pass's taps are on the model until it ends
            raise StepperStateError("The served pass is paused mid-forward and holds the model: Continue it to the "
                                    "end (or Stop it), then compare.", id="remote.compare_alive")
        other = partial(_unedited, session)
    else:
        if m["dtype"] is None:
            raise FrameError("A {kind} request needs the field '{field}'.", id="remote.missing_field", kind=m.type,
                             field="dtype")
        other = partial(_placed, session, stepper.reference, served, m["dtype"], m["attention"] or "eager")
    on_screen_first = m["on_screen"] == "a"
    graft = against == "placed" and not stepper.alive  # the transplant runs the served model again

    def work() -> Made:
        made = other()
        try:
            a, b = (served, made) if on_screen_first else (made, served)
            result = compare(a, b, atol=atol, rtol=rtol)
            transplant = transplant_stage(DebugSession(session.adapter, prepared=session.prepared), made, result,
                                          donor_is_a=not on_screen_first) if graft else None
            return Made(result, transplant, (a, b), made)  # kept for the Compare dock's planes until the next one
        except BaseException:
            made.close()
            raise
    return ComparisonJob(work)


def _unedited(session) -> Recording:
    """The served input run again on the served model: the pass without its edits."""
    return Recording.from_session(DebugSession(session.adapter, session.texts))


def served_reference(session, dtype: str, attention: str = "eager") -> ReferencePass:
    """This input on the served model loaded again in `dtype` with `attention` on the served device: the reference
    pass of the divergence condition and of Compare With…, filled on a thread of its own (its readers wait)."""
    adapter = session.adapter
    placement = Placement(dtype, str(adapter.device), attention=attention)
    reference = ReferencePass((adapter.name, tuple(sorted(session.texts.items())), placement), placement.describe())

    def fill() -> None:
        try:
            fill_reference(reference, adapter.name, session.texts, placement, to_host=False)
        except Exception as exc:  # any failure: the readers go on, comparing nothing (as in the window)
            reference.fail(exc.phrase() if isinstance(exc, TfdebugError) else str(exc))
    threading.Thread(target=fill, name="tfdebug-reference", daemon=True).start()
    return reference


def _placed(session, held: ReferencePass | None, served: Recording, dtype: str, attention: str) -> Recording:
    """The reference pass in `dtype` with `attention` as a recording, every stage kept on the served device:
    `held` (the divergence condition's) when it is that one, else a new one."""
    wanted = (dtype, attention)
    reference = (held if held is not None and (held.key[2].dtype, held.key[2].attention) == wanted
                 else served_reference(session, dtype, attention))
    reference.wait()
    if reference.error is not None:
        raise CompareError("The reference pass could not run: {why}", id="remote.reference_failed",
                           why=reference.error)
    return Recording(captures=list(reference.captures), tokens=served.tokens, model_name=served.model_name,
                     dtype=dtype)
