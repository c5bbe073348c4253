"""The Compare dock: two passes stage by stage, the first divergent stage, and A, B, A − B side by side.

File → Compare With… (Ctrl+Shift+D) opens CompareDialog; the comparison (core.compare)
runs as a Job and lands here: a table in forward order with the first divergent stage
highlighted and a button that goes to it, and for the selected stage three heatmaps — A,
B and A − B on a diverging map centred on 0, cells masked in both in grey.
"""

from __future__ import annotations

import math
from typing import Any

import pyqtgraph as pg
from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication, QEvent, QRectF, Qt
from PySide6.QtGui import QBrush, QColor, QFont
from PySide6.QtWidgets import (
    QAbstractItemView,
    QLabel,
    QPushButton,
    QSplitter,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from tfdebug.core.compare import (
    COMPARED,
    DEFAULT_ATOL,
    DEFAULT_RTOL,
    SHAPE,
    Comparison,
    compare,
    difference,
    format_delta,
    pass_entries,
)
from tfdebug.core.display import display_slice
from tfdebug.core.errors import TfdebugError
from tfdebug.core.view import ViewSelection, axis_names
from tfdebug.ui.actions import registry as actions
from tfdebug.ui.dialogs.compare import (
    BEFORE_EDIT,
    FILE,
    LIVE,
    CompareDialog,
    PassSource,
    describe,
)
from tfdebug.ui.i18n.language import (
    axis_title,
    error_text,
    phrase_text,
    said,
    shown_text,
)
from tfdebug.ui.render import colors
from tfdebug.ui.state.controller import DebugController
from tfdebug.ui.state.messages import Message
from tfdebug.ui.widgets.heatmap_axes import MAX_INDEX_TICKS, tick_step
from tfdebug.ui.workers.jobs import Job

COLUMNS = (QT_TRANSLATE_NOOP("CompareView", "Stage"), QT_TRANSLATE_NOOP("CompareView", "Status"), "max |Δ|", "mean |Δ|",
           QT_TRANSLATE_NOOP("CompareView", "rel err"), QT_TRANSLATE_NOOP("CompareView", "over tol"))
FIRST_BG = QColor(255, 200, 120)
DIVERGES_FG = QColor(176, 0, 32)
PANEL_SIZE = (256, 256)
MAX_TOKEN_TICKS = 32
SMALL_PLOT_TICKS = 5  # labels that fit under a third of the dock's width


@actions.action("tfdebug.compare.with", QT_TRANSLATE_NOOP("actions", "Compare With…"), "Ctrl+Shift+D",
                QT_TRANSLATE_NOOP("actions", "Compare two passes stage by stage and find the first stage where they diverge"),
                enabled=lambda ctl: not ctl.busy, toolbar=False)
def compare_with(ctl: DebugController) -> None:
    if ctl.tools.compare is not None:
        ctl.tools.compare.open_dialog()


class CompareView(QWidget):
    """The table of a Comparison and the A / B / A − B heatmaps of the selected stage."""

    def __init__(self, tools: "CompareTools", parent: QWidget | None = None):
        super().__init__(parent)
        self.tools = tools
        self._summary: str | None = None  # what the summary says once a comparison is shown (a Said)
        self.summary = QLabel()
        self.summary.setWordWrap(True)
        self.summary.setTextFormat(Qt.PlainText)
        self.table = QTableWidget(0, len(COLUMNS))
        self.table.setEditTriggers(QAbstractItemView.NoEditTriggers)
        self.table.setSelectionBehavior(QAbstractItemView.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SingleSelection)
        self.table.verticalHeader().setVisible(False)
        self.table.itemSelectionChanged.connect(self._selected)
        self.table.itemDoubleClicked.connect(lambda item: self.go(self.table.item(item.row(), 0).text()))
        self.go_button = QPushButton()
        self.go_button.setEnabled(False)
        self.go_button.clicked.connect(self.go_first)
        self.caption = QLabel("")
        self.caption.setTextFormat(Qt.PlainText)
        self.graphics = pg.GraphicsLayoutWidget()
        self.plots, self.images = [], []
        for col, title in enumerate(("A", "B", "A − B")):
            plot = self.graphics.addPlot(row=0, col=col, title=title)
            plot.invertY(True)
            plot.setMenuEnabled(False)
            plot.setAspectLocked(False)
            image = pg.ImageItem(axisOrder="row-major")
            plot.addItem(image)
            self.plots.append(plot)
            self.images.append(image)
        left = QWidget()
        left_layout = QVBoxLayout(left)
        left_layout.setContentsMargins(0, 0, 0, 0)
        left_layout.addWidget(self.table, 1)
        left_layout.addWidget(self.go_button)
        right = QWidget()
        right_layout = QVBoxLayout(right)
        right_layout.setContentsMargins(0, 0, 0, 0)
        right_layout.addWidget(self.caption)
        right_layout.addWidget(self.graphics, 1)
        split = QSplitter()
        split.addWidget(left)
        split.addWidget(right)
        split.setSizes([600, 700])
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(self.summary)
        layout.addWidget(split, 1)
        self.rows: dict[str, int] = {}
        self.retranslate_ui()

    def retranslate_ui(self) -> None:
        """Texts, the verdicts of the table and the caption of the stage shown, in the current language."""
        self.table.setHorizontalHeaderLabels([self.tr(c) for c in COLUMNS])
        self.go_button.setText(self.tr("Go to First Divergent Stage"))
        self.summary.setText(shown_text(self._summary) if self._summary is not None
                             else self.tr("Compare two passes with File → Compare With…."))
        result = self.tools.result
        if result is not None and self.rows:
            for row in result.stages:
                item = self.table.item(self.rows[row.name], 1)
                if item is not None:
                    item.setText(phrase_text(row.verdict))
            self._selected()

    def changeEvent(self, event) -> None:
        if event.type() == QEvent.LanguageChange:
            self.retranslate_ui()
        super().changeEvent(event)

    def show_result(self, result: Comparison, summary: str) -> None:
        """Fill the table in forward order, highlight the first divergent stage and select it.
        `summary` is a Message content (a Said follows a language switch)."""
        self._summary = summary
        self.summary.setText(shown_text(summary))
        first = result.first_divergent
        self.table.setRowCount(len(result.stages))
        self.rows = {}
        bold = QFont()
        bold.setBold(True)
        for i, row in enumerate(result.stages):
            share = "" if row.over_share is None else f"{100 * row.over_share:.1f}%"
            cells = (row.name, phrase_text(row.verdict), format_delta(row.max_abs), format_delta(row.mean_abs),
                     format_delta(row.rel_error), share)
            for col, text in enumerate(cells):
                item = QTableWidgetItem(text)
                if row is first:
                    item.setBackground(QBrush(FIRST_BG))
                    item.setFont(bold)
                if row.diverges:
                    item.setForeground(QBrush(DIVERGES_FG))
                self.table.setItem(i, col, item)
            self.rows[row.name] = i
        self.table.resizeColumnsToContents()
        self.go_button.setEnabled(first is not None)
        if first is not None:
            self.select(first.name)
        elif result.stages:
            self.select(result.stages[0].name)

    def select(self, name: str) -> None:
        """Select the stage's row (its heatmaps follow) and scroll to it."""
        i = self.rows[name]
        self.table.selectRow(i)
        self.table.scrollToItem(self.table.item(i, 0), QAbstractItemView.PositionAtCenter)

    def selected_stage(self) -> str | None:
        rows = self.table.selectionModel().selectedRows()
        return self.table.item(rows[0].row(), 0).text() if rows else None

    def go_first(self) -> None:
        first = self.tools.result.first_divergent if self.tools.result is not None else None
        if first is not None:
            self.select(first.name)
            self.go(first.name)

    def go(self, name: str) -> None:
        """Show `name` in the window (from history when it has run, else the pass runs to it)."""
        ctl = self.tools.ctl
        if name not in ctl.plan:
            ctl.error.emit(said(lambda: self.tr("The pass on screen has no stage {name}.").format(name=name)))
            return
        actions.trigger("tfdebug.step.run_to", ctl, name)

    def _selected(self) -> None:
        name = self.selected_stage()
        if name is not None:
            self.show_stage(name)

    def show_stage(self, name: str) -> None:
        """Draw A, B and A − B of stage `name` (its last two axes, other axes at the window's indices)."""
        for image in self.images:
            image.clear()
        row = self.tools.result[name]
        if row.status != COMPARED or not row.cells:
            self.caption.setText(self.tr("{name}: {verdict} — nothing to draw side by side.").format(
                name=name, verdict=phrase_text(row.verdict)))
            return
        try:
            a, b, kind, axes = self.tools.tensors(name)
            view = ViewSelection()
            view.indices_by_name = dict(self.tools.ctl.view.indices_by_name)
            view.fit(axes, tuple(a.shape))
            indices = view.indices(axes, tuple(a.shape))
            slices = [display_slice(t, view.row_axis, view.col_axis, indices, PANEL_SIZE)
                      for t in (a, b, difference(a, b, kind))]
        except (TfdebugError, ValueError, RuntimeError) as exc:
            self.caption.setText(self.tr("Cannot draw {name}: {why}").format(
                name=name, why=error_text(exc) if isinstance(exc, TfdebugError) else exc))
            return
        names = axis_names(axes, tuple(a.shape))
        self._label_axes(name, view.row_axis, view.col_axis, slices[0].source_shape)
        cmap, levels, _ = colors.scheme(kind, slices[0].stats)
        m = max(abs(slices[2].stats.min), abs(slices[2].stats.max))
        m = m if m == m and m > 0 else 1.0
        schemes = ((cmap, levels), (cmap, levels), (colors.diverging(), (-m, m)))
        for image, plot, sl, (scheme_map, lv) in zip(self.images, self.plots, slices, schemes):
            lut = scheme_map.getLookupTable(0.0, 1.0, colors.LUT_SIZE)
            image.setImage(colors.to_rgba(sl.values, lut, lv), autoLevels=False)
            rows, cols = sl.source_shape
            image.setRect(QRectF(0, 0, cols, rows))
            plot.setRange(xRange=(0, cols), yRange=(0, rows), padding=0)
        fixed = ", ".join(f"{axis_title(names[a])} {i}" for a, i in indices.items())
        shown = (f"{axis_title(names[view.row_axis])} × {axis_title(names[view.col_axis])}" if len(names) >= 2
                 else self.tr("values"))
        at = self.tr(" at {fixed}").format(fixed=fixed) if fixed else ""
        self.caption.setText(self.tr("{name}: {shown}{at} · A − B from {lo} to {hi}, masked in both in grey").format(
            name=name, shown=shown, at=at, lo=f"{-m:.3g}", hi=f"{m:.3g}"))


    def _label_axes(self, name: str, row_axis: int, col_axis: int, shape: tuple[int, int]) -> None:
        """Token strings (of pass A) on token axes, integer ticks at cell centres elsewhere."""
        capture, tokens = self.tools.capture_a(name)
        names = axis_names(capture.info.axes, capture.shape)
        for side, axis, n in (("left", row_axis, shape[0]), ("bottom", col_axis, shape[1])):
            stream = capture.info.tokens.get(names[axis]) if 0 <= axis < len(names) else None
            labels = tokens.get(stream) if stream else None
            words = labels if labels and len(labels) == n <= MAX_TOKEN_TICKS else [str(i) for i in range(n)]
            for plot in self.plots:
                plot.getAxis(side).setTicks(_small_plot_ticks(words))
                plot.setLabel(side, axis_title(names[axis]) if 0 <= axis < len(names) else "")


def _small_plot_ticks(words: list[str]) -> list[list[tuple[float, str]]]:
    """Tick levels for one of the three plots (a third of the dock wide): at most SMALL_PLOT_TICKS labels
    always drawn, the others in a second level pyqtgraph draws only when they fit (as the plot grows)."""
    step = tick_step(math.ceil(len(words) * MAX_INDEX_TICKS / SMALL_PLOT_TICKS))  # n / step ≤ SMALL_PLOT_TICKS
    major = [(i + 0.5, w) for i, w in enumerate(words) if i % step == 0]
    minor = [(i + 0.5, w) for i, w in enumerate(words) if i % step]
    return [major, minor] if minor else [major]


class CompareTools:
    """The Compare dialog, the running comparison Job, and the Compare dock with its last result."""

    def __init__(self, window):
        self.window = window
        self.ctl: DebugController = window.ctl
        self.atol, self.rtol = DEFAULT_ATOL, DEFAULT_RTOL
        self.result: Comparison | None = None
        self.passes: tuple[Any, Any] | None = None
        self._opened: list = []  # files this tool opened (the replay's own recording is not among them)
        self.job: Job | None = None
        self.dialog: CompareDialog | None = None
        self.view = CompareView(self)
        self.dock = window._dock(QT_TRANSLATE_NOOP("MainWindow", "Compare"), "compare", self.view, Qt.BottomDockWidgetArea)
        self.dock.hide()
        window.file_menu.addAction(window.actions_by_id["tfdebug.compare.with"])

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
            if not source.path:
                raise TfdebugError(QCoreApplication.translate("CompareTools", "Choose the snapshot or export file to compare."))
            from tfdebug.io.passes import open_pass
            return lambda job: open_pass(source.path)
        if ctl.stepper is not None and ctl.stepper.is_live and ctl.stepper.alive:
            raise TfdebugError(QCoreApplication.translate(
                "CompareTools", "The pass on screen is paused mid-forward and holds the model: Continue it "
                "to the end (or Stop it), then compare."))
        if source.kind == BEFORE_EDIT:
            last = ctl.tools.edit.last_edit if ctl.tools.edit is not None else None
            if last is None:
                raise TfdebugError(QCoreApplication.translate(
                    "CompareTools", "No tensor has been edited yet: there is no pass before an edit."))
            adapter, texts = last.adapter, last.texts
        else:
            adapter, texts = ctl.adapter, source.texts
            if adapter is None:
                raise TfdebugError(QCoreApplication.translate(
                    "CompareTools", "No model is loaded: run a pass live to compare another input on it."))

        def run(job: Job):
            from tfdebug.adapters.session import DebugSession
            from tfdebug.io.recording import Recording
            session = DebugSession(adapter, texts)
            captures, _ = session.capture_all()
            return Recording(captures=captures, tokens=session.tokens, model_name=adapter.name)
        return run

    def start(self, a: PassSource, b: PassSource, atol: float, rtol: float) -> None:
        """Start comparing; raises a TfdebugError (shown by the dialog) for a side that cannot be had."""
        if self.job is not None and self.job.running:
            raise TfdebugError(QCoreApplication.translate("CompareTools", "A comparison is already running."))
        work_a, work_b = self._work(a), self._work(b)
        opened = [FILE == a.kind, FILE == b.kind]
        side_a, side_b = describe(a, self.window), describe(b, self.window)
        summary = said(lambda: f"A: {shown_text(side_a)}   B: {shown_text(side_b)}   atol {atol:g}, rtol {rtol:g}")
        self.atol, self.rtol = atol, rtol

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
            return result, (pass_a, pass_b), [p for p, own in zip((pass_a, pass_b), opened) if own], summary
        self.job = Job(work, name="compare",
                       describe_failure=lambda exc: said(lambda: QCoreApplication.translate(
                           "CompareTools", "The comparison failed; the details say why.")))
        self.job.finished.connect(self._finished)
        self.job.failed.connect(lambda text, details: self.window.show_message(Message("error", text, details)))
        self.job.start()

    def _finished(self, outcome) -> None:
        result, passes, opened, summary = outcome
        self._close_passes()
        self.result, self.passes, self._opened = result, passes, opened
        name = result.first_divergent.name if result.first_divergent is not None else None
        verdict = said(lambda: QCoreApplication.translate("CompareTools", "First divergent stage: {name}.").format(
            name=name) if name is not None else QCoreApplication.translate("CompareTools", "No stage diverges."))
        self.dock.show()
        self.dock.raise_()
        shaped = [r.name for r in result.of_status(SHAPE)]
        if shaped:  # inputs of another length: a divergence of its own, which no delta measures
            verdict = said(lambda v=verdict: QCoreApplication.translate(
                "CompareTools", "{n} stages differ in shape and are not compared cell by cell; the first is {name}."
            ).format(n=len(shaped), name=shaped[0]) + " " + shown_text(v))
        self.view.show_result(result, said(lambda: f"{shown_text(summary)}\n{shown_text(verdict)}"))
        self.ctl.info.emit(verdict)
        self.ctl.state_changed.emit()  # the overview's max |Δ| follows

    def _close_passes(self) -> None:
        for recording in self._opened:
            recording.close()  # a snapshot read lazily: release its file
        self._opened = []

    def capture_a(self, name: str):
        """Pass A's capture of stage `name` and pass A's token streams."""
        captures, _ = pass_entries(self.passes[0])
        return next(c for c in captures if c.name == name), dict(getattr(self.passes[0], "tokens", {}) or {})

    def tensors(self, name: str):
        """(A's tensor, B's tensor, kind, axes) of stage `name` in the compared passes."""
        (captures_a, get_a), (captures_b, get_b) = (pass_entries(p) for p in self.passes)
        ca = next(c for c in captures_a if c.name == name)
        cb = next(c for c in captures_b if c.name == name)
        return get_a(ca), get_b(cb), ca.info.kind, tuple(ca.info.axes)


def install(window) -> CompareTools:
    """Give `window` File → Compare With… and the Compare dock."""
    window.compare_tools = window.ctl.tools.compare = CompareTools(window)
    return window.compare_tools
