"""The Model View dock: every layer × head of one stage kind (probabilities by default) on one colour scale.

BertViz's model view, live: one row per stage of the chosen kind (a layer's self-attention,
its cross-attention …), one column per head. Each stage is sliced and downsampled where its
tensor lives, on the display worker (`core.thumbnails.head_thumbnails`, as the Heads dock
does), as soon as it has run (on the server for a pass tfdebug serve runs: only the thumbnails
cross); a stage the pass has not reached yet is an empty box. Clicking
a cell shows that stage with that head in the heatmap and every panel. View ▸ Model View
(Ctrl+Shift+M) shows it. The cells grow with the panel (up to MAX_CELL pixels) and follow Scale ▸ Log scale
as the heatmap and the Heads dock do.
"""

from __future__ import annotations

import numpy as np
from PySide6.QtCore import QT_TRANSLATE_NOOP, QEvent, Qt, QTimer
from PySide6.QtWidgets import QComboBox, QHBoxLayout, QLabel, QScrollArea, QVBoxLayout, QWidget

from tfdebug.core.names import parse_name
from tfdebug.core.recorder import Capture
from tfdebug.core.thumbnails import HeadThumbnails, head_plane_axes
from tfdebug.ui.actions import registry as actions
from tfdebug.ui.actions.context import ActionContext
from tfdebug.ui.i18n.language import kind_title
from tfdebug.ui.render import colors
from tfdebug.ui.state.controller import DebugController
from tfdebug.ui.widgets.colour_bar import ColourBar
from tfdebug.ui.widgets.layer_head_grid import GAP, MAX_CELL, LayerHeadGrid

THUMB = (MAX_CELL - GAP, MAX_CELL - GAP)  # what the worker cuts: a cell at its largest
DEFAULT_KIND = "softmax"


class ModelViewPanel(QWidget):
    """Every stage of one kind × every head, drawn as each stage runs; a click shows that stage and head."""

    def __init__(self, ctl: DebugController, parent: QWidget | None = None):
        super().__init__(parent)
        self.ctl = ctl
        self.kind = DEFAULT_KIND
        self.rows: list[str] = []                      # stage names, one per row, in forward order
        self.thumbs: dict[str, HeadThumbnails] = {}    # what the worker drew, by stage
        self.rgba: dict[str, np.ndarray] = {}          # … coloured on the shared scale `_levels`
        self._levels: tuple[float, float] | None = None
        self._lut: np.ndarray | None = None
        self.kinds = QComboBox()
        self.kinds.setToolTip(self.tr("The stage kind drawn: one row per stage of this kind"))
        self.kinds.activated.connect(self._kind_chosen)
        self.note = QLabel("")
        self.note.setTextFormat(Qt.TextFormat.PlainText)  # it names stages
        self.note.setWordWrap(True)
        self.colour_bar = ColourBar()
        self.grid = LayerHeadGrid()
        self.grid.cell_clicked.connect(self.show_cell)
        self._retry = QTimer(self)
        self._retry.setSingleShot(True)
        self._retry.setInterval(50)
        self._retry.timeout.connect(self._pass_moved)
        self.scroll = scroll = QScrollArea()
        scroll.setWidget(self.grid)
        scroll.setWidgetResizable(False)
        scroll.viewport().installEventFilter(self)  # its size sets the cells' (eventFilter)
        top = QHBoxLayout()
        top.addWidget(self.kinds)
        top.addWidget(self.note, 1)
        top.addWidget(self.colour_bar)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addLayout(top)
        layout.addWidget(scroll, 1)
        ctl.session_changed.connect(self._new_pass)
        ctl.state_changed.connect(self._pass_moved)
        ctl.shown.model.stage_shown.connect(self._mark_current)
        ctl.colour_scale_changed.connect(self._recolour)  # Scale ▸ Log scale
        self._new_pass()

    def eventFilter(self, watched, event) -> bool:
        if watched is self.scroll.viewport() and event.type() == QEvent.Type.Resize:
            self._fit()
        return super().eventFilter(watched, event)

    def _fit(self) -> None:
        """Cells as large as the panel lets every row and head be (the images drawn again at that size)."""
        if self.grid.fit(self.scroll.viewport().size()):
            self._paint_all()

    def changeEvent(self, event) -> None:
        if event.type() == QEvent.Type.LanguageChange:
            self._fill_kinds()
            self._say()
        super().changeEvent(event)

    def showEvent(self, event) -> None:
        super().showEvent(event)
        self._pass_moved()

    # ----- which stages -----------------------------------------------------------------
    def _stages(self) -> list[Capture]:
        """Every stage of the pass (planned or run) in forward order: the plan, then stages it did not list."""
        ctl, seen, out = self.ctl, set(), []
        history = ctl.stepper.history if ctl.stepper is not None else []
        for capture in (*ctl.plan, *history):
            if capture.name not in seen:
                seen.add(capture.name)
                out.append(capture)
        return out

    def _drawable(self, capture: Capture) -> bool:
        return head_plane_axes(self.ctl.axes.names(capture)) is not None

    def _fill_kinds(self) -> None:
        kinds = list(dict.fromkeys(c.info.kind for c in self._stages() if self._drawable(c)))
        self.kinds.blockSignals(True)
        self.kinds.clear()
        for kind in kinds:
            self.kinds.addItem(f"{kind_title(kind)} ({kind})", kind)
        if self.kind not in kinds and kinds:
            self.kind = DEFAULT_KIND if DEFAULT_KIND in kinds else kinds[0]
        self.kinds.setCurrentIndex(max(0, self.kinds.findData(self.kind)))
        self.kinds.blockSignals(False)

    def _new_pass(self) -> None:
        self._forget()
        self.rows = []
        self._fill_kinds()
        self._rebuild_rows()

    def _kind_chosen(self, index: int) -> None:
        kind = self.kinds.itemData(index)
        if kind and kind != self.kind:
            self.kind = kind
            self._forget()
            self._rebuild_rows()
            self._pass_moved()

    def _rebuild_rows(self) -> None:
        stages = [c for c in self._stages() if c.info.kind == self.kind and self._drawable(c)]
        rows = [c.name for c in stages]
        if rows != self.rows or not self.grid.row_labels and rows:
            heads = max((c.shape[head_plane_axes(self.ctl.axes.names(c))[2]] for c in stages), default=0)
            self.rows = rows
            self.grid.set_shape([parse_name(n).block_id for n in rows], heads)
            self.grid.fit(self.scroll.viewport().size())
            self._paint_all()
        self._say()

    # ----- drawing --------------------------------------------------------------------
    def _pass_moved(self) -> None:
        """New stages may have run: draw those not drawn yet (one worker job at a time, so that a job is
        never dropped for a newer one while the pass keeps moving)."""
        if not self.isVisible() or self.ctl.stepper is None:
            return
        if len(self.rows) < len([c for c in self._stages() if c.info.kind == self.kind]) or not self.kinds.count():
            self._fill_kinds()
            self._rebuild_rows()
        if self.ctl.display.busy("model"):
            self._retry.start()  # after the job on the worker now (its result, or its drop when cancelled)
            return
        stepper, ctl = self.ctl.stepper, self.ctl
        # The source's display cuts each thumbnail where the tensor is (a served pass: on the server, only they cross).
        display = ctl.source.display
        todo = []
        for name in self.rows:
            index = stepper.position_of(name)
            if name in self.thumbs or index is None:
                continue
            capture = stepper.history[index]
            if not display.holds(capture):
                continue  # dropped by the budget, or not kept (a stage of any size: each head on a strided grid)
            row, col, head = head_plane_axes(ctl.axes.names(capture))
            todo.append((capture, row, col, head, ctl.axes.indices(capture)))
        if not todo:
            return

        cached, kind, shown, log = dict(self.thumbs), self.kind, self._levels, self.ctl.log_scale_for(self.kind)

        def compute():  # a replay reads each stage (and the mask its softmax read) here, off the GUI thread
            new = {capture.name: display.heads_of(capture, row, col, head, indices, THUMB)
                   for capture, row, col, head, indices in todo}
            every = {**cached, **new}
            lut, levels = colors.thumbnail_scale(kind, np.concatenate([t.mins for t in every.values()]),
                                                 np.concatenate([t.maxs for t in every.values()]))
            # Coloured here too: every stage again only when the shared scale moved.
            again = every if levels != shown else new
            return new, lut, levels, _coloured(again, lut, levels, log)

        def drawn(result):
            new, lut, levels, rgba = result
            if stepper is self.ctl.stepper and kind == self.kind and all(name in self.rows for name in new):
                self.thumbs.update(new)
                self.rgba.update(rgba)
                self._levels, self._lut = levels, lut
                self._paint_all()
                self._say()
            QTimer.singleShot(0, self, self._pass_moved)  # stages that ran meanwhile (once this job is off the worker)

        ctl.display.submit("model", compute, drawn, lambda exc: self.note.setText(str(exc)))

    def _forget(self) -> None:
        """No stage drawn (a new pass, another kind): a job for the old ones may still arrive and is ignored."""
        self.thumbs, self.rgba = {}, {}
        self._levels, self._lut = None, None

    def _paint_all(self) -> None:
        """Every drawn stage's images (coloured on the worker, on one scale) into the grid."""
        if not self.rgba:
            self.colour_bar.setVisible(False)
            self._mark_current()
            return
        for row, name in enumerate(self.rows):
            if name in self.rgba:
                self.grid.set_row_images(row, self.rgba[name])
        scale = _scale(self._levels, self.ctl.log_scale_for(self.kind))
        self.colour_bar.set_scale(self._lut, self._levels, scale.log_decades(self._levels) if scale.log else None)
        self.colour_bar.setVisible(True)
        self._mark_current()

    def _recolour(self) -> None:
        """Scale ▸ Log scale turned on or off: every drawn stage coloured again under it (small images)."""
        if self.thumbs and self._levels is not None:
            self.rgba = _coloured(self.thumbs, self._lut, self._levels, self.ctl.log_scale_for(self.kind))
            self._paint_all()

    def _mark_current(self) -> None:
        capture = self.ctl.current
        if capture is None or capture.name not in self.rows:
            self.grid.set_selected(None)
            return
        axes = head_plane_axes(self.ctl.axes.names(capture))
        head = self.ctl.axes.indices(capture).get(axes[2], 0) if axes is not None else 0
        self.grid.set_selected((self.rows.index(capture.name), head))

    def _say(self) -> None:
        if not self.rows:
            self.note.setText(self.tr("No stage of this pass has a head axis to draw.") if self.ctl.stepper
                              is not None else self.tr("Nothing to show yet."))
            return
        self.note.setText(self.tr("{stages} stages × {heads} heads; {drawn} of the stages drawn (empty: not run "
                                  "yet) · one colour scale · click a cell to show that stage and head").format(
            stages=len(self.rows), heads=self.grid.heads, drawn=sum(n in self.thumbs for n in self.rows)))

    # ----- the user's click -------------------------------------------------------------
    def show_cell(self, row: int, head: int) -> None:
        """Show stage `row` (of this view) with head `head` in the heatmap and every panel."""
        if not 0 <= row < len(self.rows):
            return
        self.ctl.axes.set_index("head", head)
        self.ctl.steps.run_to(self.rows[row])

    def cell_of(self, name: str, head: int) -> tuple[int, int]:
        """The (row, head) cell that shows head `head` of stage `name`."""
        return self.rows.index(name), head


def _scale(levels: tuple[float, float], log: bool) -> colors.ColourScale:
    """The colour scale of thumbnails between `levels` under Scale ▸ Log scale (`log`): as the heatmap's, log
    for a non-negative kind, linear for a signed one."""
    return colors.ColourScale(log=log and colors.applies_log(levels[0] < 0))


def _coloured(thumbs: dict[str, HeadThumbnails], lut, levels, log: bool) -> dict[str, np.ndarray]:
    """Each stage's thumbnails as RGBA images on the shared `levels`."""
    scale = _scale(levels, log)
    return {name: colors.to_rgba(t.values, lut, levels, scale) for name, t in thumbs.items()}


@actions.action("tfdebug.view.model", QT_TRANSLATE_NOOP("actions", "Model View"), "Ctrl+Shift+M",
                QT_TRANSLATE_NOOP("actions", "Show or hide every layer × head of one stage kind as thumbnails"),
                toolbar=False)
def toggle_model_view(ctx: ActionContext) -> None:
    window = ctx.window
    dock = window.docks["model_view"]
    if dock.isVisible():
        dock.hide()
    else:
        window.show_dock_within(dock)  # side docks tabbed rather than the window grown off the screen
        # A dock opened at the bottom gets the strip left over (two rows of a 30-layer model); rows of
        # thumbnails need a share of the window's height. A larger height the user gave it is kept.
        wanted = int(MODEL_VIEW_SHARE * window.height())
        if not dock.isFloating() and dock.height() < wanted and not window.tabifiedDockWidgets(dock):
            window.resizeDocks([dock], [wanted], Qt.Orientation.Vertical)
            QTimer.singleShot(0, dock, lambda: _tab_when_squeezed(window, dock, wanted))


def _tab_when_squeezed(window, dock, wanted: int) -> None:
    """Where the side columns' docks leave the bottom too little height (a small screen), the Model View
    becomes a tab beside the heatmap, with the heatmap's room; the heatmap is one click away on its tab."""
    if dock.isVisible() and not dock.isFloating() and dock.height() < 0.9 * wanted:
        window.tabifyDockWidget(window.docks["heatmap"], dock)
        dock.raise_()


MODEL_VIEW_SHARE = 0.45  # of the window's height, the least the Model View dock opens with


def install(window) -> ModelViewPanel:
    """Add the Model View dock (hidden until View ▸ Model View or Ctrl+Shift+M)."""
    panel = ModelViewPanel(window.ctl)
    window.add_dock(QT_TRANSLATE_NOOP("MainWindow", "Model View"), "model_view", panel,
                    Qt.DockWidgetArea.BottomDockWidgetArea,
                 action_id="tfdebug.view.model")
    return panel
