"""Image view: the picture a vision model saw, its patch grid, and one query's attention drawn over it.

A Vision Transformer's tokens are `[CLS]` (and other learned tokens) and one patch each
(`core.images.InputImage`). At a stage whose shown slice is queries × keys over the image's
tokens (scores, probabilities …), this view reads the query's row of that slice on the display
worker (`request_tile`, the head and stage the heatmap shows) and colours each patch by its
weight: the row of the query picked in the heatmap or here, else `[CLS]`'s. A click on a patch,
or the arrow keys, picks that patch's row (`pick_row`, as a click on a heatmap row does); Home
picks `[CLS]`.

A speech model's spectrogram is drawn the same way (`InputImage.seconds` set): one 'patch' per
encoder position along time, a time axis in seconds under it, and at a cross-attention stage the
picked decoder token's attention over the audio's time (Left/Right, or a click on a heatmap row,
picks another token).
"""

from __future__ import annotations

import numpy as np
from PySide6.QtCore import QT_TRANSLATE_NOOP, QPointF, QRectF, Qt, Signal
from PySide6.QtGui import QColor, QImage, QPainter, QPen
from PySide6.QtWidgets import QLabel, QVBoxLayout, QWidget

from tfdebug.core.images import InputImage
from tfdebug.core.names import parse_token_ref
from tfdebug.core.tiles import Tile
from tfdebug.ui.actions import registry as actions
from tfdebug.ui.actions.context import ActionContext
from tfdebug.ui.render import colors
from tfdebug.ui.state.controller import DebugController
from tfdebug.ui.widgets.when_seen import WhenSeen

OVERLAY_RGB = (255, 120, 0)
OVERLAY_ALPHA = 200  # a patch with the row's largest weight; the smallest is clear
QUERY_RGB = (0, 200, 255)
TRACE_RGB = (120, 230, 255)  # a line of values along a spectrogram's time
AXIS_HEIGHT = 18  # the time axis under a spectrogram
MAX_GRID_LINES = 64  # a finer grid (a spectrogram's positions) would hide the picture
TIME_STEPS = (0.02, 0.05, 0.1, 0.2, 0.5, 1.0, 2.0, 5.0, 10.0, 30.0, 60.0, 300.0)


class PatchCanvas(QWidget):
    """The picture scaled to fit (pixels kept square and sharp), its patch grid, the weights of one query
    over the patches as a coloured overlay, and the query's own patch outlined. `picked(token)` on a click
    or an arrow key."""

    picked = Signal(int)

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.image: InputImage | None = None
        self.row = 0  # which picture of the batch is drawn
        self._qimage: QImage | None = None
        self.weights: np.ndarray | None = None  # (rows, cols) in 0…1, or None: no overlay
        self.query: int | None = None           # the token whose row is drawn
        # the number of query rows when the queries are not the picture's tokens (cross-attention), else None
        self.rows: int | None = None
        self.keys = 0  # the tokens of the shown row (a vision-language prompt's text follows the patches)
        self.overlay_alpha = OVERLAY_ALPHA  # the alpha of a cell of the largest weight
        self.trace: np.ndarray | None = None  # values in 0…1 drawn as a line along the picture's width, or None
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self.setMinimumSize(160, 160)

    def set_image(self, image: InputImage | None, row: int = 0) -> None:
        """Draw picture `row` of `image` (none: a blank canvas; a snapshot may carry only the first pictures)."""
        if image is self.image and row == self.row:
            return
        self.image, self.row = image, row
        picture = image.picture(row) if image is not None else None
        if picture is None:
            self._qimage = None
        else:
            pixels = np.ascontiguousarray(picture)
            height, width = pixels.shape[:2]
            self._qimage = QImage(pixels.data, width, height, 3 * width, QImage.Format.Format_RGB888).copy()
        self.weights, self.query, self.trace = None, None, None
        self.update()

    def set_trace(self, values: np.ndarray | None, alpha: int = OVERLAY_ALPHA) -> None:
        """Draw `values` (in 0…1, evenly along the picture's width: a spectrogram's frames) as a line over the
        picture, 0 at its bottom, 1 near its top, and the overlay's cells at most `alpha` opaque; None: no line."""
        self.trace, self.overlay_alpha = values, alpha
        self.update()

    @property
    def has_picture(self) -> bool:
        """Whether a picture is drawn (a snapshot may carry only the first pictures of a batch)."""
        return self._qimage is not None

    def set_overlay(self, weights: np.ndarray | None, query: int | None, rows: int | None = None,
                    keys: int = 0) -> None:
        """Colour the picture by `weights` (in 0…1: one per patch of its grid, or any (rows, cols) grid of cells
        spread over the picture, such as one per spectrogram frame; None: no overlay) with `query`'s patch
        outlined."""
        self.weights, self.query, self.rows, self.keys = weights, query, rows, keys
        self.update()

    def picture_rect(self) -> QRectF:
        """Where the picture is drawn: as large as fits, centred, its aspect kept (a spectrogram fills the width
        above its time axis)."""
        if self.image is None:
            return QRectF()
        height, width = self.image.size
        if self.image.seconds is not None:
            return QRectF(4, 4, self.width() - 8, max(1, self.height() - 8 - AXIS_HEIGHT))
        scale = min(self.width() / width, self.height() / height)
        w, h = width * scale, height * scale
        return QRectF((self.width() - w) / 2, (self.height() - h) / 2, w, h)

    def patch_rect(self, row: int, col: int) -> QRectF:
        area = self.picture_rect()
        rows, cols = self.image.grid
        w, h = area.width() / cols, area.height() / rows
        return QRectF(area.left() + col * w, area.top() + row * h, w, h)

    def paintEvent(self, event) -> None:
        painter = QPainter(self)
        painter.fillRect(self.rect(), self.palette().window())
        if self._qimage is None:
            return
        area = self.picture_rect()
        painter.drawImage(area, self._qimage)  # no smoothing: each pixel the model saw stays a square
        rows, cols = self.image.grid
        if self.weights is not None:  # one cell per patch, or per the weights' own grid (a spectrogram's frames)
            weight_rows, weight_cols = self.weights.shape
            w_cell, h_cell = area.width() / weight_cols, area.height() / weight_rows
            for r in range(weight_rows):
                for c in range(weight_cols):
                    w = float(self.weights[r, c])
                    if np.isfinite(w) and w > 0:
                        cell = QRectF(area.left() + c * w_cell, area.top() + r * h_cell, w_cell, h_cell)
                        painter.fillRect(cell, QColor(*OVERLAY_RGB, int(self.overlay_alpha * w)))
        if self.trace is not None and len(self.trace):
            step = area.width() / len(self.trace)
            points = [QPointF(area.left() + (i + 0.5) * step, area.bottom() - 0.9 * area.height() * float(v))
                      for i, v in enumerate(np.nan_to_num(self.trace))]
            painter.setPen(QPen(QColor(*TRACE_RGB), 2))
            painter.drawPolyline(points)
        painter.setPen(QPen(QColor(255, 255, 255, 110), 1))
        for c in range(1, cols if cols <= MAX_GRID_LINES else 0):
            x = area.left() + c * area.width() / cols
            painter.drawLine(QPointF(x, area.top()), QPointF(x, area.bottom()))
        for r in range(1, rows if rows <= MAX_GRID_LINES else 0):
            y = area.top() + r * area.height() / rows
            painter.drawLine(QPointF(area.left(), y), QPointF(area.right(), y))
        patch = self.image.patch_of(self.query) if self.query is not None and self.rows is None else None
        if patch is not None:
            painter.setPen(QPen(QColor(*QUERY_RGB), 3))
            painter.drawRect(self.patch_rect(*patch))
        if self.image.seconds is not None:
            self._time_axis(painter, area, self.image.seconds)

    def _time_axis(self, painter: QPainter, area: QRectF, seconds: float) -> None:
        """Ticks in seconds under the spectrogram, at most about one per 60 pixels."""
        step = next((s for s in TIME_STEPS if area.width() * s / seconds >= 60), TIME_STEPS[-1])
        painter.setPen(self.palette().windowText().color())
        for i in range(int(seconds / step + 1e-9) + 1):
            x = area.left() + i * step * area.width() / seconds
            painter.drawLine(QPointF(x, area.bottom()), QPointF(x, area.bottom() + 4))
            label = self.tr("{t} s").format(t=f"{i * step:g}")
            painter.drawText(QRectF(x - 30, area.bottom() + 4, 60, AXIS_HEIGHT - 4),
                             Qt.AlignmentFlag.AlignHCenter | Qt.AlignmentFlag.AlignTop, label)

    def mousePressEvent(self, event) -> None:
        if not self.has_picture or event.button() != Qt.MouseButton.LeftButton or self.rows is not None:
            return super().mousePressEvent(event)
        area = self.picture_rect()
        height, width = self.image.size
        point = event.position()
        token = self.image.token_at((point.y() - area.top()) * height / area.height(),
                                    (point.x() - area.left()) * width / area.width())
        if token is not None:
            self.picked.emit(token)

    def keyPressEvent(self, event) -> None:
        """Arrow keys move the query patch by one (from [CLS], to the first patch); Home picks [CLS]; End the last
        token (a vision-language prompt's last word, whose row predicts the next one)."""
        if self.image is None:
            return super().keyPressEvent(event)
        if self.rows is not None:  # the queries are another stream's tokens: step through them
            steps = {Qt.Key.Key_Left: -1, Qt.Key.Key_Up: -1, Qt.Key.Key_Right: 1, Qt.Key.Key_Down: 1}
            if event.key() not in steps and event.key() != Qt.Key.Key_Home:
                return super().keyPressEvent(event)
            # the next key counts from this token, before its row has arrived
            self.query = 0 if event.key() == Qt.Key.Key_Home else \
                min(max((self.query or 0) + steps[event.key()], 0), self.rows - 1)
            self.picked.emit(self.query)
            return
        rows, cols = self.image.grid
        moves = {Qt.Key.Key_Left: (0, -1), Qt.Key.Key_Right: (0, 1), Qt.Key.Key_Up: (-1, 0), Qt.Key.Key_Down: (1, 0)}
        if event.key() == Qt.Key.Key_Home:
            self.picked.emit(0)
        elif event.key() == Qt.Key.Key_End and self.keys:
            self.picked.emit(self.keys - 1)
        elif event.key() in moves:
            patch = self.image.patch_of(self.query) if self.query is not None else None
            r, c = (0, 0) if patch is None else (min(max(patch[0] + moves[event.key()][0], 0), rows - 1),
                                                 min(max(patch[1] + moves[event.key()][1], 0), cols - 1))
            self.picked.emit(len(self.image.prefix) + r * cols + c)
        else:
            super().keyPressEvent(event)


class ImagePanel(QWidget):
    """The input picture with the shown attention stage's query row over its patches."""

    def __init__(self, ctl: DebugController, parent: QWidget | None = None):
        super().__init__(parent)
        self.ctl = ctl
        self.title = QLabel()
        self.title.setTextFormat(Qt.TextFormat.PlainText)  # stage names and tokens come from a model or a file
        self.title.setWordWrap(True)
        self.canvas = PatchCanvas()
        self.canvas.setObjectName("image-canvas")
        self.canvas.picked.connect(ctl.tiles.pick_row)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(self.title)
        layout.addWidget(self.canvas, 1)
        self.row: np.ndarray | None = None  # the query's weights over every key, as read
        ctl.session_changed.connect(self._new_pass)
        self.when_seen = WhenSeen(self, self.refresh)  # a closed Image dock draws nothing
        ctl.row_picked.connect(self.when_seen.ask)
        ctl.shown.model.followed.connect(self._followed)
        self._new_pass()

    def _new_pass(self) -> None:
        self.canvas.set_image(None)
        self.refresh()

    def batch_row(self) -> int:
        """The batch row the heatmap shows (a folder of pictures is a batch): its picture is drawn."""
        capture = self.ctl.current
        if capture is None or "batch" not in capture.info.axes:
            return 0
        return self.ctl.view.indices_by_name.get("batch", 0)

    def query(self, rows: int | None = None) -> int:
        """The token whose row is drawn: the picked row, else [CLS]'s (the first); the first too when the picked
        row is past the shown stage's `rows` (a generation step's one query, after a row of another stage)."""
        picked = self.ctl.tiles.picked_row
        return picked if picked is not None and (rows is None or picked < rows) else 0

    def _attention_shape(self) -> tuple[int, int, bool] | None:
        """(queries, keys, whether the queries are the image's own stream) when the shown slice is queries × keys
        with the image's tokens among the keys (self-attention over the image, a vision-language prompt whose text
        follows the patches, another stream's cross-attention over it, or a generation step's new token over the
        prompt so far), else None."""
        image, capture, view = self.ctl.input_image, self.ctl.current, self.ctl.view
        if image is None or capture is None:
            return None
        axes = capture.info.axes
        if not (0 <= view.row_axis < len(axes) and 0 <= view.col_axis < len(axes)) or \
                (axes[view.row_axis], axes[view.col_axis]) != ("query", "key"):
            return None
        n, keys, rows = len(image.token_labels()), capture.shape[view.col_axis], capture.shape[view.row_axis]
        try:  # a generation step's axes are slices of the growing stream ('prompt[74:75]', 'prompt[0:75]')
            key, key_from, _ = parse_token_ref(capture.info.tokens.get("key", ""))
            query, query_from, _ = parse_token_ref(capture.info.tokens.get("query", ""))
        except ValueError:
            return None
        whole = query == image.stream and query_from is None  # the picture's own tokens as the queries
        if key != image.stream or key_from or keys < n or (whole and rows != keys):
            return None
        return rows, keys, whole

    def _followed(self, event) -> None:
        if event.new_slice:
            self.when_seen.ask()

    def refresh(self) -> None:
        """Read the query's row of the shown slice again (or say why there is nothing to draw)."""
        image, batch = self.ctl.input_image, self.batch_row()
        self.canvas.set_image(image, batch)
        shape = self._attention_shape()
        rows, n, own = shape if shape is not None else (0, 0, True)
        row = self.query(rows)
        self.row = None  # until the row asked for now arrives
        if image is None:
            why = self.tr("This pass has no image.")
        elif not self.canvas.has_picture:
            why = self.tr("This snapshot does not carry picture {row} of its batch.").format(row=self.batch_row())
        elif shape is None or not 0 <= row < rows or not self.ctl.tiles.request_tile(
                (row, row + 1), (0, n), (1, n), False, lambda tile: self._arrived(tile, row, batch, own, rows)):
            why = self.tr("Step to an attention stage (scores, probs) to see a query's attention over the image; "
                          "click a patch to pick its row.") if image.seconds is None else \
                self.tr("Step to an attention stage over the audio (the encoder's, or the decoder's cross-attention) "
                        "to see a query's attention over time; Left/Right pick another token.")
        else:
            return
        self.canvas.set_overlay(None, None)
        self.title.setText(why)

    def _query_label(self, capture, row: int) -> str:
        """The query token's string (a decoder token of a cross-attention stage), else its position."""
        labels = self.ctl.axes.labels(self.ctl.view.row_axis)
        return labels[row] if labels is not None and 0 <= row < len(labels) else str(row)

    def _arrived(self, tile: Tile, row: int, batch: int, own: bool, rows: int) -> None:
        image, capture = self.ctl.input_image, self.ctl.current
        if image is None or capture is None or row != self.query(rows) or image is not self.canvas.image \
                or batch != self.canvas.row:  # a stale answer: another query, pass or picture is shown now
            return
        self.row = np.asarray(tile.values[0], dtype=np.float32)
        grid, prefix = image.patch_weights(self.row)
        finite = grid[np.isfinite(grid)]
        low, high = (float(finite.min()), float(finite.max())) if finite.size else (0.0, 0.0)
        shown = (grid - low) / (high - low) if high > low else np.zeros_like(grid)
        self.canvas.set_overlay(shown, row, None if own else rows, self.row.size)
        labels = image.token_labels()
        best = divmod(int(np.nanargmax(np.where(np.isfinite(grid), grid, -np.inf))), image.grid[1])
        query = self._query_label(capture, row)
        if image.seconds is not None:
            self.title.setText(self.tr("{stage} · query {query} · strongest at {time} {value} · Left/Right pick "
                                       "another token").format(
                stage=capture.name, query=query, time=labels[len(image.prefix) + best[1]],
                value=colors.format_value(float(grid[best]))))
            return
        on_prefix = ", ".join(f"{label} {colors.format_value(value)}" for label, value in prefix.items())
        words = dict(stage=capture.name, query=query, r=best[0], c=best[1],
                     value=colors.format_value(float(grid[best])),
                     prefix=on_prefix or "—")
        if own:
            self.title.setText(self.tr("{stage} · query {query} · strongest patch ({r},{c}) {value}; {prefix} · "
                                       "click a patch to pick its row").format(**words))
        elif rows > 1:  # another stream's tokens over the picture: its patches are not the queries
            self.title.setText(self.tr("{stage} · query {query} · strongest patch ({r},{c}) {value}; {prefix} · "
                                       "Left/Right pick another token").format(**words))
        else:  # a generation step's one new token over the picture
            self.title.setText(self.tr("{stage} · query {query} · strongest patch ({r},{c}) {value}; {prefix}")
                               .format(**words))


@actions.action("tfdebug.view.image", QT_TRANSLATE_NOOP("actions", "Image"), "Ctrl+Shift+I",
                QT_TRANSLATE_NOOP("actions", "Show or hide the picture a vision model saw, with a query's attention "
                                             "over its patches (click a patch to pick its row)"), toolbar=False)
def toggle_image(ctx: ActionContext) -> None:
    dock = ctx.window.docks["image"]
    if dock.isVisible():
        dock.hide()
    else:
        ctx.window.show_dock_within(dock)  # side docks tabbed rather than the window grown off the screen
        ctx.window.image_panel.canvas.setFocus()


def install(window) -> ImagePanel:
    """Add the Image dock: shown when a pass has an image (a vision model's), hidden otherwise."""
    panel = ImagePanel(window.ctl)
    dock = window.add_dock(QT_TRANSLATE_NOOP("MainWindow", "Image"), "image", panel,
                           Qt.DockWidgetArea.RightDockWidgetArea,
                        action_id="tfdebug.view.image")

    def new_pass() -> None:
        has_image = window.ctl.input_image is not None
        dock.setVisible(has_image)
        if has_image:
            dock.raise_()
    window.ctl.session_changed.connect(new_pass)
    return panel
