"""File → Compare With…: the Compare tool behind the dialog, the running comparison and the Compare dock.

The dialog (features/compare/dialog) chooses two passes and the tolerance; the comparison (core.compare)
runs as a Job; its result goes to the Compare dock (features/compare/view) and to the Overview's max |Δ|.
The pass on screen's source makes the two sides (`PassSource.compare_with`: here, or a served pass's other side
on its server); a side in another dtype or on another device is the reference pass (features/reference), which
the shell hands in and the tool hands to the source: neither feature imports the other.
"""

from __future__ import annotations

from typing import Any, Callable, Protocol

from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication, Qt

from tfdebug.core.compare import DEFAULT_ATOL, DEFAULT_RTOL, SHAPE, Comparison, pass_entries
from tfdebug.core.compare_planes import ComparedPlanes, compared_planes
from tfdebug.core.errors import TfdebugError
from tfdebug.core.reference import ReferencePass
from tfdebug.sessions.compare_sides import Held, Side, compare_here
from tfdebug.sessions.crosscheck import Placement
from tfdebug.sessions.source import PassSource as Source
from tfdebug.ui.actions import registry as actions
from tfdebug.ui.actions.context import ActionContext
from tfdebug.ui.features.compare.dialog import CompareDialog, describe
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
        """Show File ▸ Compare With…'s dialog (not blocking)."""
        self.dialog = CompareDialog(self, self.window)
        self.dialog.show()
        return self.dialog

    def start(self, a: Side, b: Side, atol: float, rtol: float) -> None:
        """Start comparing; raises a TfdebugError (shown by the dialog) for a side that cannot be had. The pass on
        screen's source makes the sides (`PassSource.compare_with`: here, or a served pass's other side on its
        server); with nothing on screen, both are made here."""
        if self.job is not None and self.job.running:
            raise TfdebugError(QCoreApplication.translate("CompareTools", "A comparison is already running."))
        edit = self.window.tools.edit
        last = edit.last_edit if edit is not None else None  # features.edit.dialog.LastEdit: the pass it was made in
        held = Held(self.reference.ensure, (last.adapter, last.texts) if last is not None else None)
        source = self.ctl.source
        work = (source.compare_with(a, b, atol, rtol, held) if source is not None
                else compare_here(None, a, b, atol, rtol, held))
        self.start_job(lambda job: work(job.check), atol, rtol, describe(a, self.window), describe(b, self.window),
                       None)

    def show_compared(self, comparison: Comparison, passes: tuple | None, side_a: str, side_b: str,
                      select: str | None = None) -> None:
        """Show a comparison another feature made (the Why dock's corrupted pass against the patched one) in the
        Compare dock, `select` picked: `passes` (A, B) are recordings in this process, or None when they stay on the
        server that compared them (its planes are cut there)."""
        self.start_job(lambda _job: (comparison, passes, [], None), self.atol, self.rtol, side_a, side_b, select,
                       replace=True)

    def start_job(self, work, atol: float, rtol: float, side_a, side_b, select: str | None,
                  replace: bool = False) -> None:
        """Run `work(job)` as the comparison Job and show what it returns (a `sessions.compare_sides.Compared`: the
        Comparison, the two passes or None when a server compared them, the passes this tool must close, the
        Transplant or None); `replace`: a comparison still running is dropped; `select`: the stage the dock shows
        (default: the first divergent)."""
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


def install(window, reference: Callable[[CompareTools], Reference]) -> CompareTools:
    """File → Compare With… and the Compare dock of `window`: the tools the shell keeps as `window.tools.compare`;
    `reference` makes the reference pass's tools."""
    return CompareTools(window, reference)
