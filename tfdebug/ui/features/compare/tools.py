"""File → Compare With…: the Compare tool behind the dialog, the running comparison and the Compare dock.

The dialog (features/compare/dialog) chooses two passes and the tolerance; the comparison (core.compare)
runs as a Job; its result goes to the Compare dock (features/compare/view) and to the Overview's max |Δ|.
A side in another dtype or on another device is the reference pass (features/reference), which the shell
hands in: neither feature imports the other.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable, Protocol

from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication, Qt

from tfdebug.core.compare import DEFAULT_ATOL, DEFAULT_RTOL, SHAPE, Comparison, compare, pass_entries
from tfdebug.core.compare_planes import ComparedPlanes, compared_planes
from tfdebug.core.errors import TfdebugError
from tfdebug.core.reference import ReferencePass
from tfdebug.sessions.crosscheck import Placement
from tfdebug.sessions.source import PassSource as Source
from tfdebug.ui.actions import registry as actions
from tfdebug.ui.actions.context import ActionContext
from tfdebug.ui.features.compare.dialog import BEFORE_EDIT, FILE, INPUT, LIVE, PLACED, CompareDialog, PassSource, describe
from tfdebug.ui.i18n.language import phrase_text, said, shown_text
from tfdebug.ui.features.compare.view import CompareView
from tfdebug.ui.state.controller import DebugController
from tfdebug.ui.state.messages import Message
from tfdebug.ui.workers.jobs import Job
from tfdebug.ui.widgets.deferred import Deferred


@actions.action("tfdebug.compare.with", QT_TRANSLATE_NOOP("actions", "Compare With…"), "Ctrl+Shift+D",
                QT_TRANSLATE_NOOP("actions", "Compare two passes stage by stage and find the first stage where they diverge"),
                enabled=lambda ctl: not ctl.loader.busy, toolbar=False,
                menu="file", group=1, order=10)
def compare_with(ctx: ActionContext) -> None:
    ctx.tools.compare.open_dialog()


class Reference(Protocol):
    """What a comparison asks of the reference pass's tools (features.reference.tools.ReferenceTools)."""

    def ensure(self, placement: Placement) -> ReferencePass:
        """The reference pass in `placement`, computed off the GUI thread when not held yet."""
        ...


class CompareTools:
    """The Compare dialog, the running comparison Job, and the Compare dock with its last result.
    `reference(tools)` makes the reference pass's tools for them (the shell passes ReferenceTools)."""

    def __init__(self, window, reference: Callable[[CompareTools], Reference]):
        self.window = window
        self.ctl: DebugController = window.ctl
        self.atol, self.rtol = DEFAULT_ATOL, DEFAULT_RTOL
        self.result: Comparison | None = None
        self.passes: tuple[Any, Any] | None = None
        self.compared_by: Source | None = None  # the source that compared when `passes` is None: cuts its planes
        #: the last comparison's transplant (tfdebug.sessions.transplant.Transplant), when it had one
        self.transplant = None
        self._opened: list = []  # files this tool opened (the replay's own recording is not among them)
        self.job: Job | None = None
        self.dialog: CompareDialog | None = None
        self.reference = reference(self)  # the same input in another dtype or on another device
        self._view = Deferred(lambda: CompareView(self))  # built when the dock is first shown or `view` read
        self.dock = window.add_dock(QT_TRANSLATE_NOOP("MainWindow", "Compare"), "compare", self._view,
                                 Qt.BottomDockWidgetArea)
        self.dock.hide()

    @property
    def view(self) -> CompareView:
        """The Compare dock's table and heatmaps."""
        return self._view.panel()

    def open_dialog(self) -> CompareDialog:
        self.dialog = CompareDialog(self, self.window)
        self.dialog.show()
        return self.dialog

    def _work(self, source: PassSource):
        """What to run (off the UI thread) for one side; checks that need the UI thread happen now."""
        ctl = self.ctl
        if source.kind == LIVE:
            recording, _ = ctl.recording()
            if recording is None:
                raise TfdebugError(QCoreApplication.translate(
                    "CompareTools", "Nothing is on screen to compare: run a pass or open a snapshot first."))
            return lambda job: recording
        if source.kind == FILE:
            _needs_path(source)
            from tfdebug.io.passes import open_pass
            return lambda job: open_pass(source.path)
        if source.kind == PLACED:
            return self._placed(source)
        if ctl.stepper is not None and ctl.stepper.is_live and ctl.stepper.alive:
            raise TfdebugError(QCoreApplication.translate(
                "CompareTools", "The pass on screen is paused mid-forward and holds the model: Continue it "
                "to the end (or Stop it), then compare."))
        if source.kind == BEFORE_EDIT:
            last = self._last_edit()
            adapter, texts = last.adapter, last.texts
        else:
            if not ctl.capabilities.model_here:
                raise TfdebugError(QCoreApplication.translate(
                    "CompareTools", "No model is loaded: run a pass live to compare another input on it."))
            adapter, texts = ctl.adapter, source.texts

        def run(job: Job):
            from tfdebug.sessions.session import DebugSession
            from tfdebug.io.recording import Recording
            session = DebugSession(adapter, texts)
            captures, _ = session.capture_all()
            return Recording(captures=captures, tokens=session.tokens, model_name=adapter.name)
        return run

    def _last_edit(self):
        """The last edit made (features.edit.dialog.LastEdit); the TfdebugError saying there is none."""
        last = self.window.tools.edit.last_edit
        if last is None:
            raise TfdebugError(QCoreApplication.translate(
                "CompareTools", "No tensor has been edited yet: there is no pass before an edit."))
        return last

    def _placed(self, source: PassSource):
        """The reference pass in `source.placement` (a second model: the pass on screen may stay paused)."""
        reference = self.reference.ensure(source.placement)
        tokens, name = dict(self.ctl.tokens), self.ctl.model_name

        def run(job: Job):
            from tfdebug.io.recording import Recording
            if not reference.wait(lambda: job.cancelled):
                job.check()
            if reference.error is not None:
                raise TfdebugError(QCoreApplication.translate(
                    "CompareTools", "The reference pass could not run: {why}").format(why=reference.error))
            return Recording(captures=list(reference.captures), tokens=tokens, model_name=name,
                             dtype=source.placement.dtype)
        return run

    def start(self, a: PassSource, b: PassSource, atol: float, rtol: float) -> None:
        """Start comparing; raises a TfdebugError (shown by the dialog) for a side that cannot be had."""
        if self.job is not None and self.job.running:
            raise TfdebugError(QCoreApplication.translate("CompareTools", "A comparison is already running."))
        if self.ctl.capabilities.passes_there:  # compared where the pass runs: only the table crosses
            self._start_remote(a, b, atol, rtol)
            return
        work_a, work_b = self._work(a), self._work(b)
        self.run(work_a, work_b, atol, rtol, describe(a, self.window), describe(b, self.window),
                 opened=(FILE == a.kind, FILE == b.kind), transplant=self._transplant(a, b))

    def _transplant(self, a: PassSource, b: PassSource):
        """For the pass on screen against a reference pass: what puts the reference's tensor into this input's
        pass at the first divergent stage and runs on (tfdebug.sessions.transplant), off the UI thread; None
        for other pairs, or while the pass on screen holds the model paused mid-forward."""
        ctl = self.ctl
        if {a.kind, b.kind} != {LIVE, PLACED} or not ctl.capabilities.reruns_here:
            return None
        if ctl.stepper is not None and ctl.stepper.is_live and ctl.stepper.alive:
            return None
        adapter, prepared, donor_is_a = ctl.adapter, ctl.session.prepared, a.kind == PLACED  # a batch's rows too

        def graft(pass_a, pass_b, result, job):
            from tfdebug.sessions.session import DebugSession
            from tfdebug.sessions.transplant import transplant_stage
            donor = pass_a if donor_is_a else pass_b
            return transplant_stage(DebugSession(adapter, prepared=prepared), donor, result, donor_is_a=donor_is_a)
        return graft

    def _start_remote(self, a: PassSource, b: PassSource, atol: float, rtol: float) -> None:
        """Compare a served pass on the server (tfdebug.remote.comparing): only the table crosses."""
        on_screen = "a" if a.kind == LIVE else "b"
        other = b if on_screen == "a" else a
        if LIVE not in (a.kind, b.kind) or other.kind == LIVE:
            raise TfdebugError(QCoreApplication.translate(
                "CompareTools", "Over a remote pass, one side is the pass on screen and the other a pass the server "
                "makes: this input in another dtype, the pass before the last edit, or a snapshot in its export "
                "folder."))
        if other.kind == INPUT:
            raise TfdebugError(QCoreApplication.translate(
                "CompareTools", "Another input is not compared over a remote pass: run it on the server, export it "
                "there (File ▸ Export Snapshot on Server…) and compare with that snapshot."))
        if other.kind == FILE and _needs_path(other) and Path(other.path).name != other.path:
            raise TfdebugError(QCoreApplication.translate(
                "CompareTools", "A file on this machine cannot be compared with a remote pass: its tensors stay on "
                "the server. Put the snapshot in the server's export folder and give its file name alone."))
        if other.kind == BEFORE_EDIT:
            self._last_edit()
        against = {FILE: "file", BEFORE_EDIT: "unedited", PLACED: "placed"}[other.kind]
        served = self.ctl.source
        assert served is not None  # passes_there: a pass is on screen
        dtype = other.placement.dtype if other.kind == PLACED else None
        path = other.path if other.kind == FILE else None

        attention = other.placement.attention if other.kind == PLACED else None

        def work(job: Job):
            result, transplant = served.compare(against, atol, rtol, on_screen=on_screen, dtype=dtype, path=path,
                                                attention=attention)
            return result, None, [], transplant
        self.start_job(work, atol, rtol, describe(a, self.window), describe(b, self.window), None)

    def run(self, work_a, work_b, atol: float, rtol: float, side_a, side_b, opened=(False, False),
            replace: bool = False, select: str | None = None, transplant=None) -> None:
        """Compare the passes `work_a(job)` and `work_b(job)` return (off the UI thread) and show the result;
        `opened`: which of them this tool must close; `replace`: a comparison still running is dropped;
        `select`: the stage the dock shows (default: the first divergent); `transplant(a, b, result, job)`:
        the Transplant shown with the result."""
        def work(job: Job):
            pass_a = work_a(job)
            job.check()
            pass_b = work_b(job)
            job.check()
            try:
                result = compare(pass_a, pass_b, atol=atol, rtol=rtol)
            except BaseException:
                for p, own in zip((pass_a, pass_b), opened):
                    if own:
                        p.close()
                raise
            job.check()
            grafted = transplant(pass_a, pass_b, result, job) if transplant is not None else None
            return result, (pass_a, pass_b), [p for p, own in zip((pass_a, pass_b), opened) if own], grafted
        self.start_job(work, atol, rtol, side_a, side_b, select, replace)

    def show_compared(self, comparison: Comparison, passes: tuple | None, side_a: str, side_b: str,
                      select: str | None = None) -> None:
        """Show a comparison another feature made (the Why dock's corrupted pass against the patched one) in the
        Compare dock, `select` picked: `passes` (A, B) are recordings in this process, or None when they stay on the
        server that compared them (its planes are cut there)."""
        self.start_job(lambda _job: (comparison, passes, [], None), self.atol, self.rtol, side_a, side_b, select,
                       replace=True)

    def start_job(self, work, atol: float, rtol: float, side_a, side_b, select: str | None,
                  replace: bool = False) -> None:
        """Run `work(job)` as the comparison Job and show what it returns: (the Comparison, the two passes or
        None when a server compared them, the passes this tool must close, the Transplant or None); `replace`: a comparison still
        running is dropped; `select`: the stage the dock shows (default: the first divergent)."""
        if replace and self.job is not None and self.job.running:
            self.job.cancel()
        summary = said(lambda: QCoreApplication.translate("CompareTools", "A: {a}   B: {b}   atol {atol}, rtol {rtol}").format(
            a=shown_text(side_a), b=shown_text(side_b), atol=f"{atol:g}", rtol=f"{rtol:g}"))
        self.atol, self.rtol = atol, rtol

        source = self.ctl.source  # the pass the comparison is made of: where its planes are cut, whatever shows next

        def outcome(job: Job):
            return (*work(job), summary, select, source)
        self.job = Job(outcome, name="compare",
                       describe_failure=lambda exc: said(lambda: QCoreApplication.translate(
                           "CompareTools", "The comparison failed; the details say why.")))
        self.job.finished.connect(self._finished)
        self.job.failed.connect(lambda text, details: self.window.show_message(Message("error", text, details)))
        self.job.start()

    def _finished(self, outcome) -> None:
        result, passes, opened, transplant, summary, select, source = outcome
        self._close_passes()
        self.result, self.passes, self._opened, self.transplant = result, passes, opened, transplant
        self.compared_by = source if passes is None else None
        name = result.first_divergent.name if result.first_divergent is not None else None
        verdict = said(lambda: QCoreApplication.translate("CompareTools", "First divergent stage: {name}.").format(
            name=name) if name is not None else QCoreApplication.translate("CompareTools", "No stage diverges."))
        self.view  # built before it is shown: its minimum height is what the window makes room for
        self.window.show_dock_within(self.dock)  # its plots and table at their minimum height, the window its size
        shaped = [r.name for r in result.of_status(SHAPE)]
        if shaped:  # inputs of another length: a divergence of its own, which no delta measures
            verdict = said(lambda v=verdict: QCoreApplication.translate(
                "CompareTools", "{n} stages differ in shape and are not compared cell by cell; the first is {name}."
            ).format(n=len(shaped), name=shaped[0]) + " " + shown_text(v))
        if transplant is not None:
            verdict = said(lambda v=verdict: shown_text(v) + " " + phrase_text(transplant.describe()) + " "
                           + phrase_text(transplant.remaining()))
        self.view.show_result(result, said(lambda: f"{shown_text(summary)}\n{shown_text(verdict)}"))
        if select is not None and select in self.view.rows:
            self.view.select(select)
        self.ctl.inform(verdict)
        self.window.overview.show_comparison(result)

    def _close_passes(self) -> None:
        for recording in self._opened:
            recording.close()  # a snapshot read lazily: release its file
        self._opened = []

    def capture_a(self, name: str):
        """Pass A's capture of stage `name` and pass A's token streams (compared where the pass on screen runs:
        its capture and tokens, the stages' shapes and names being the same in both)."""
        if self.passes is None:
            return self.ctl.stepper.captured(name), dict(self.ctl.tokens)
        captures, _ = pass_entries(self.passes[0])
        return next(c for c in captures if c.name == name), dict(getattr(self.passes[0], "tokens", {}) or {})

    def planes(self, name: str, indices_by_name: dict[str, int], max_size: tuple[int, int]) -> ComparedPlanes:
        """A, B and A − B of stage `name` in the compared passes (tfdebug.core.compare_planes), cut where their
        tensors are: here, or on the server that compared them (only the three planes cross)."""
        if self.passes is None:
            assert self.compared_by is not None  # compared by the pass that was on screen
            return self.compared_by.compared_planes(name, indices_by_name, max_size)
        return compared_planes(*self.passes, name, indices_by_name, max_size)


def _needs_path(source: PassSource) -> bool:
    """True when a file side has its path; else the TfdebugError that asks for it."""
    if not source.path:
        raise TfdebugError(QCoreApplication.translate("CompareTools", "Choose the snapshot or export file to compare."))
    return True


def install(window, reference: Callable[[CompareTools], Reference]) -> CompareTools:
    """File → Compare With… and the Compare dock of `window`: the tools the shell keeps as `window.tools.compare`;
    `reference` makes the reference pass's tools."""
    return CompareTools(window, reference)
