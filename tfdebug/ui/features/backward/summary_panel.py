"""The Backward dock: what a backward says beside its gradients, shown when Debug ▸ Backward has run.

- Saliency: each token's label with its ‖gradient × embedding‖₂ drawn over it (the cell's colour, strongest
  token darkest) and Σ gradient × embedding beneath; a token's tooltip gives both.
- Picture: for a vision model, each patch of the picture the model saw coloured by its token's
  ‖gradient × embedding‖₂, when the saliency's tokens are the patches (after a [CLS] … or not); for a speech
  model, each frame of its spectrogram coloured by ‖gradient × activation‖₂ of the first stage along frames
  (Whisper's first convolution's output).
- Parameters: a plot of the parameters' gradient norm per layer and module kind (`norms_plot`: a click goes to
  that layer's first gradient), beside the norm per layer (or module outside the layers) in the model's order, each
  with a bar scaled to the largest, and the largest parameter gradients by name, largest first.

The numbers come with the source's `Backwarded.summary` (`sessions.gradient_session.BackwardSummary`), computed
where the model ran, here or on the server.
"""

from __future__ import annotations

import math

import numpy as np
from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication, QEvent, Qt
from PySide6.QtGui import QColor
from PySide6.QtWidgets import (QHeaderView, QLabel, QSplitter, QTableWidget, QTableWidgetItem, QTabWidget,
                               QVBoxLayout, QWidget)

from tfdebug.ui.features.backward.norms_plot import NormsPlot, first_stage, norms_at_stages
from tfdebug.ui.panels.image_view import PatchCanvas

BAR = 24  # characters of the longest norm bar
FRAME_ALPHA = 110  # a spectrogram's most salient frame's tint (a picture's patch: the canvas's own)


def _finite(value: float) -> float:
    return value if math.isfinite(value) else 0.0


class BackwardPanel(QWidget):
    """The last backward's saliency per token and its parameters' gradient norms."""

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.summary = None
        self.choice = None  # the objective last chosen (objective_dialog.Choice): Backward's dialog opens on it
        self.over_frames = False  # the Picture tab colours a spectrogram's frames, not a picture's patches
        self.note = QLabel()
        self.note.setWordWrap(True)
        self.tokens = QTableWidget(2, 0)  # row 0: ‖g × e‖₂ over each token's label; row 1: Σ g × e
        self.tokens.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        self.layers = QTableWidget(0, 2)
        self.layers.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        self.layers.horizontalHeader().setSectionResizeMode(1, QHeaderView.ResizeMode.Stretch)
        self.largest = QTableWidget(0, 2)
        self.largest.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        self.largest.horizontalHeader().setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        self.norms = NormsPlot()  # per layer and module kind; a click goes to the layer's first gradient
        tables = QSplitter(Qt.Orientation.Vertical)
        tables.addWidget(self.layers)
        tables.addWidget(self.largest)
        parameters = QSplitter(Qt.Orientation.Horizontal)
        parameters.addWidget(self.norms)
        parameters.addWidget(tables)
        parameters.setStretchFactor(0, 3)
        parameters.setStretchFactor(1, 2)
        self.picture = PatchCanvas()  # the saliency over the picture the model saw
        self.picture_note = QLabel()
        self.picture_note.setWordWrap(True)
        over_picture = QWidget()
        picture_column = QVBoxLayout(over_picture)
        picture_column.setContentsMargins(0, 0, 0, 0)
        picture_column.addWidget(self.picture_note)
        picture_column.addWidget(self.picture, 1)
        self.tabs = QTabWidget()
        self.tabs.addTab(self.tokens, "")
        self.tabs.addTab(over_picture, "")
        self.tabs.addTab(parameters, "")
        layout = QVBoxLayout(self)
        layout.addWidget(self.note)
        layout.addWidget(self.tabs, 1)
        self.retranslate_ui()

    def show_summary(self, summary, image=None, titles: dict[str, str] | None = None) -> None:
        """Show `summary` (a BackwardSummary; None: nothing to show) and, with the `image` the pass read
        (`core.images.InputImage`), its saliency over that picture's patches or that spectrogram's frames; the
        plot titles the stacks by `titles` (the adapter's) where it has them."""
        self.summary = summary
        self._fill_tokens(summary.tokens if summary else [], summary.saliency if summary else [])
        self._fill_picture(image, summary.saliency if summary else [], summary.frames if summary else [])
        self.norms.show_rows(summary.modules if summary else [], titles)
        self._fill_layers(summary.layers if summary else [])
        self._fill_largest(summary.largest if summary else [])
        self.retranslate_ui()

    def _fill_tokens(self, labels: list[str], saliency: list[tuple[float, float]]) -> None:
        table = self.tokens
        table.setColumnCount(len(labels))
        table.setHorizontalHeaderLabels(labels)
        top = max((_finite(norm) for _, norm in saliency), default=0.0) or 1.0
        for column, (label, (total, norm)) in enumerate(zip(labels, saliency)):
            strength = _finite(norm) / top
            for row, value in ((0, norm), (1, total)):
                item = QTableWidgetItem(f"{value:.3g}")
                item.setToolTip(f"{label}: ‖g×e‖₂ {norm:.5g}, Σ g×e {total:.5g}")
                if row == 0:  # the norm drawn over the token: the strongest token darkest
                    item.setBackground(QColor(214, 39, 40, int(30 + 200 * strength)))
                    white, black = QColor(Qt.GlobalColor.white), QColor(Qt.GlobalColor.black)
                    item.setForeground(white if strength > 0.55 else black)
                table.setItem(row, column, item)
        table.resizeColumnsToContents()

    def _fill_picture(self, image, saliency: list[tuple[float, float]], frames: list[tuple[float, float]]) -> None:
        """Each patch coloured by its token's ‖g × e‖₂ (largest: strongest), when the saliency's tokens are the
        picture's patches (with its prefix before them or not); a spectrogram's frames by their ‖g × a‖₂ (one
        column each) when the summary has them; the tab is off otherwise."""
        self.over_frames = bool(image is not None and image.seconds is not None and frames)
        if self.over_frames:
            self.tabs.setTabEnabled(1, True)
            self.picture.set_image(image)
            norms = np.array([_finite(norm) for _, norm in frames], dtype=np.float64)
            top = float(norms.max()) if norms.max() > 0 else 1.0
            self.picture.set_overlay((norms / top).reshape(1, -1), None)
            self.picture.set_trace(norms / top, FRAME_ALPHA)  # the spectrogram stays readable under its tint
            return
        rows, cols = image.grid if image is not None else (0, 0)
        # the patches alone (a patch embedding, before [CLS] joins), or the prefix then the patches
        skip = {rows * cols: 0, len(image.prefix) + rows * cols: len(image.prefix)}.get(len(saliency)) \
            if image is not None and rows * cols else None
        self.tabs.setTabEnabled(1, skip is not None)
        self.picture.set_image(image if skip is not None else None)
        self.picture.set_trace(None)
        if skip is None:
            return
        norms = np.array([_finite(norm) for _, norm in saliency[skip:]], dtype=np.float64)
        top = float(norms.max()) if norms.size and norms.max() > 0 else 1.0
        self.picture.set_overlay((norms / top).reshape(rows, cols), None)

    def _fill_layers(self, layers: list[tuple[str, float]]) -> None:
        table = self.layers
        table.setRowCount(len(layers))
        top = max((_finite(norm) for _, norm in layers), default=0.0) or 1.0
        for row, (name, norm) in enumerate(layers):
            table.setItem(row, 0, QTableWidgetItem(name))
            bar = "█" * max(1, round(BAR * _finite(norm) / top)) if _finite(norm) > 0 else ""
            table.setItem(row, 1, QTableWidgetItem(f"{norm:.4g}  {bar}"))
        table.resizeColumnToContents(0)

    def _fill_largest(self, largest: list[tuple[str, float]]) -> None:
        table = self.largest
        table.setRowCount(len(largest))
        for row, (name, norm) in enumerate(largest):
            table.setItem(row, 0, QTableWidgetItem(name))
            table.setItem(row, 1, QTableWidgetItem(f"{norm:.4g}"))

    def changeEvent(self, event) -> None:
        if event.type() == QEvent.Type.LanguageChange:
            self.retranslate_ui()
        super().changeEvent(event)

    def retranslate_ui(self) -> None:
        """Texts in the window's language."""
        self.tabs.setTabText(0, self.tr("Saliency"))
        self.tabs.setTabText(1, self.tr("Picture"))
        self.tabs.setTabText(2, self.tr("Parameters"))
        if getattr(self, "over_frames", False):
            self.picture_note.setText(self.tr("Each frame of the spectrogram the model heard, coloured by ‖gradient × "
                                              "activation‖₂ of its first convolution's output there: the stronger, "
                                              "the more the loss depends on that moment."))
        else:
            self.picture_note.setText(self.tr("Each patch of the picture the model saw, coloured by its token's "
                                              "‖gradient × embedding‖₂: the stronger, the more the loss depends on "
                                              "that patch."))
        self.tokens.setVerticalHeaderLabels([self.tr("‖g × e‖₂"), self.tr("Σ g × e")])
        self.layers.setHorizontalHeaderLabels([self.tr("Layer"), self.tr("Gradient norm")])
        self.largest.setHorizontalHeaderLabels([self.tr("Largest parameter gradients"), self.tr("Norm")])
        summary = self.summary
        if summary is None:
            self.note.setText(self.tr("Debug ▸ Backward (Ctrl+Shift+B) on a finished pass fills this."))
        elif not summary.saliency:
            self.note.setText(self.tr("No embedding stage has a gradient: no saliency per token."))
        else:
            self.note.setText(self.tr("Each token's gradient × embedding (its first embedding stage, batch row "
                                      "0): the darker, the more the loss depends on it."))


def go_to_place(ctl, place) -> str | None:
    """Go to the first stage at `place` (a `norms_plot` place) of the backward on screen, in its order (logits
    first); the stage's name, or None (and a sentence in the status bar) when the pass on screen is not a
    backward or has no stage there."""
    from tfdebug.core.gradients import is_gradient
    from tfdebug.ui.i18n.language import said

    plan = ctl.plan
    if ctl.source is None or not len(plan) or not is_gradient(plan[0].info):
        ctl.fail(said(lambda: QCoreApplication.translate(
            "BackwardPanel", "The pass on screen is not a backward: run Debug ▸ Backward again to step its gradients.")))
        return None
    name = first_stage([(c.name, c.info.kind) for c in plan], place)
    if name is None:
        ctl.fail(said(lambda: QCoreApplication.translate(
            "BackwardPanel", "The backward on screen has no stage there.")))
        return None
    ctl.steps.run_to(name)
    return name


def install(window) -> BackwardPanel:
    """Add the Backward dock, hidden until a backward has run (or View ▸ Backward); a click on the norms plot goes
    to that layer's first gradient."""
    panel = BackwardPanel()
    dock = window.add_dock(QT_TRANSLATE_NOOP("MainWindow", "Backward"), "backward", panel,
                           Qt.DockWidgetArea.BottomDockWidgetArea)
    dock.hide()
    panel.norms.picked.connect(lambda place: go_to_place(window.ctl, place))
    window.ctl.session_changed.connect(lambda: show_saved_summary(window, panel, dock))
    return panel


def show_saved_summary(window, panel: BackwardPanel, dock) -> bool:
    """When the pass on screen is a replayed backward whose manifest carries its summary (a reopened snapshot,
    `io.backward_summary`), show that summary and the dock; whether it did. A summary that cannot be read is
    left out: the gradients still step."""
    from tfdebug.io.backward_summary import summary_parts
    from tfdebug.sessions.gradient_session import BackwardSummary

    ctl = window.ctl
    if ctl.stepper is None or ctl.stepper.is_live:
        return False
    recording, _ = ctl.recording()
    entry = getattr(recording, "backward", None)
    if not isinstance(entry, dict) or "summary" not in entry:
        return False
    try:
        summary = BackwardSummary(**summary_parts(entry["summary"]))
    except (KeyError, TypeError, ValueError):
        return False
    panel.show_summary(summary, getattr(recording, "image", None), getattr(ctl.adapter, "stack_titles", None))
    show_in_overview(window, summary)
    window.show_dock_within(dock)
    return True


def show_in_overview(window, summary) -> None:
    """Hand the Overview the parameters' gradient norm per layer of `summary` (a BackwardSummary), each at that
    layer's first gradient in the backward on screen (`norms_plot.norms_at_stages`)."""
    stages = [(c.name, c.info.kind) for c in window.ctl.plan]
    window.overview.show_parameter_norms(norms_at_stages(stages, summary.modules if summary is not None else []))
