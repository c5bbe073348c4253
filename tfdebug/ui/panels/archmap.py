"""Architecture map: a schematic of the pass's model with the current block lit.

Drawn from the controller's PassLayout (columns of blocks, built once per pass from the
plan): one column for a decoder-only or encoder-only model, two for an
encoder–decoder, with the encoder's output linked to every cross-attention. Each box
is one block (embeddings, an attention or FFN of a layer, a final norm, the output
head). Clicking a box runs to its first stage (or shows it when it has run); its
context menu can also run to the block's last stage.

A deep model (30 layers and more) would shrink every box below a line of text. Then each
layer but the one being stepped folds into one row (its title, then its blocks side by side),
the current layer stays open, and the map scrolls (wheel, scroll bar), following the current
block.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QColor, QFont, QFontMetrics, QPainter, QPen
from PySide6.QtWidgets import QMenu, QScrollBar, QSizePolicy, QWidget

from tfdebug.core.layout import Block
from tfdebug.core.names import parse_name
from tfdebug.ui.i18n.language import title as block_title
from tfdebug.ui.render.plain_text import plain_tooltip
from tfdebug.ui.state.controller import DebugController

CURRENT = QColor(255, 170, 40)
DONE = QColor(170, 205, 240)
TODO = QColor(235, 235, 235)
FRAME = QColor(120, 120, 120)
MIN_BOX = 18.0   # px: below this a box's title no longer fits: the layers fold
OPEN_BOX = 24.0  # a box of the open layer, and of a block outside layers, when the layers fold
FOLD_H = 18.0    # a folded layer's row
GUTTER = 64.0    # a folded layer's title, left of its blocks


# Combined once: or-ing Qt's flags in Python costs ~0.1 ms a box, and the map repaints as a pass runs.


@dataclass
class Part:
    """One box of the schematic: a layout Block and where it is drawn."""

    block: Block
    rect: QRectF = field(default_factory=QRectF)

    @property
    def label(self) -> str:
        return self.block.title

    @property
    def stages(self) -> list[str]:
        return self.block.stages


class ArchitectureMap(QWidget):
    """The clickable schematic; state comes from the controller's signals."""

    def __init__(self, ctl: DebugController, parent: QWidget | None = None):
        super().__init__(parent)
        self.ctl = ctl
        self.parts: list[Part] = []
        self.columns: list[list[Part]] = []
        self.setMinimumSize(300, 240)  # leaves the Stages tree 15+ rows in a 720-pixel-high window
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Expanding)
        self.setMouseTracking(True)
        self._drawn: tuple = ()
        self._step: int | None = None  # the generation step drawn (a generation draws one step)
        self._content_height = 0.0       # the map's height as laid out (more than the widget's: it scrolls)
        self._folded: dict[str, QRectF] = {}  # folded layer → where its title goes
        self.scrollbar = QScrollBar(Qt.Orientation.Vertical, self)
        self.scrollbar.hide()
        self.scrollbar.valueChanged.connect(self.update)
        ctl.session_changed.connect(self._rebuild)
        ctl.state_changed.connect(self._changed)
        ctl.shown.model.stage_shown.connect(self._changed)

    def _changed(self) -> None:
        """Repaint only when a box changes colour: most steps stay inside one block."""
        if self._current_step() != self._step:
            self._rebuild()
            return
        statuses = tuple(self._status(p) for p in self.parts)
        if statuses != self._drawn:
            self._drawn = statuses
            self._fit_scroll()
            self.update()

    def _current_step(self) -> int | None:
        steps = self.ctl.layout.steps
        if not steps:
            return None
        current = self.ctl.current
        step = parse_name(current.name).step if current is not None else None
        return step if step is not None else steps[0]

    def _rebuild(self) -> None:
        self._step = self._current_step()
        self.columns = [[Part(b) for b in blocks] for blocks in self.ctl.layout.columns_at(self._step)]
        self.parts = [p for column in self.columns for p in column]
        self._drawn = ()
        self._fit_scroll()
        self.update()

    def part(self, block_id: str) -> Part | None:
        return next((p for p in self.parts if p.block.id == block_id), None)

    # ----- layout ------------------------------------------------------------------------
    def _layout(self) -> None:
        margin, gap = 8.0, 4.0
        n = max(1, len(self.columns))
        width = self.width() - (self.scrollbar.width() if self.scrollbar.isVisible() else 0)
        col_w = (width - (n + 1) * margin) / n
        self._folded, bottom = {}, 0.0
        for c, column in enumerate(self.columns):
            x = margin + c * (col_w + margin)
            # Layers get a little extra space for their frame and title.
            layers = len({p.block.layer_id for p in column if p.block.layer_id is not None})
            box_h = min(34.0, (self.height() - 2 * margin - layers * 18 - gap * len(column)) / max(1, len(column)))
            if box_h < MIN_BOX:
                bottom = max(bottom, self._fold(column, x, col_w, margin, gap))
                continue
            y = margin
            last_layer = None
            for part in column:
                layer = part.block.layer_id
                if layer is not None and layer != last_layer:
                    y += 16
                elif layer is None and last_layer is not None:
                    y += 6
                last_layer = layer
                inset = 10.0 if layer is not None else 0.0
                part.rect = QRectF(x + inset, y, col_w - 2 * inset, box_h)
                y += box_h + gap
            bottom = max(bottom, y)
        self._content_height = bottom + margin

    def _fold(self, column: list[Part], x: float, col_w: float, margin: float, gap: float) -> float:
        """Lay `column` out with every layer but the current one folded into a row; returns its bottom."""
        open_layer = self._current_layer()
        y, last_layer = margin, None
        for layer, group in itertools.groupby(column, key=lambda p: p.block.layer_id):
            group = list(group)
            if layer is not None and layer != open_layer:  # one row: title, then the blocks side by side
                self._folded[layer] = QRectF(x, y, GUTTER - 4, FOLD_H)
                w = (col_w - GUTTER - gap * (len(group) - 1)) / len(group)
                for k, part in enumerate(group):
                    part.rect = QRectF(x + GUTTER + k * (w + gap), y, w, FOLD_H)
                y += FOLD_H + 2
            else:
                y += 16 if layer is not None else (6 if last_layer is not None else 0)
                inset = 10.0 if layer is not None else 0.0
                for part in group:
                    part.rect = QRectF(x + inset, y, col_w - 2 * inset, OPEN_BOX)
                    y += OPEN_BOX + gap
            last_layer = layer
        return y

    def _current_layer(self) -> str | None:
        current = self.ctl.current
        block = self.ctl.layout.blocks.get(self.ctl.layout.stage_block.get(current.name, "")) if current else None
        return block.layer_id if block is not None else None

    def is_folded(self) -> bool:
        """Whether the layers are folded into rows (too many for boxes a line high)."""
        self._layout()
        return bool(self._folded)

    def _fit_scroll(self) -> None:
        """Show the scroll bar when the laid-out map is taller than the widget, and keep the current block in view."""
        bar = self.scrollbar
        self._layout()
        extra = int(self._content_height - self.height())
        if (extra > 0) != bar.isVisible():
            bar.setVisible(extra > 0)
            self._layout()  # narrower columns beside the bar
            extra = int(self._content_height - self.height())
        bar.setGeometry(self.width() - bar.sizeHint().width(), 0, bar.sizeHint().width(), self.height())
        bar.setRange(0, max(0, extra))
        bar.setPageStep(self.height())
        current = next((p for p in self.parts if self._status(p) == "current"), None)
        if extra > 0 and current is not None and not (
                bar.value() <= current.rect.top() and current.rect.bottom() <= bar.value() + self.height()):
            bar.setValue(int(current.rect.top() - self.height() / 3))

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        self._fit_scroll()

    def wheelEvent(self, event) -> None:
        if self.scrollbar.isVisible():
            self.scrollbar.setValue(self.scrollbar.value() - event.angleDelta().y() // 2)
            event.accept()
        else:
            super().wheelEvent(event)

    # ----- painting ------------------------------------------------------------------------
    def _status(self, part: Part) -> str:
        current = self.ctl.current
        if current is not None and self.ctl.layout.stage_block.get(current.name) == part.block.id:
            return "current"
        return "done" if self.ctl.steps.reached(part.stages[0]) is not None else "todo"

    def paintEvent(self, event) -> None:
        painter = QPainter(self)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        painter.fillRect(self.rect(), self.palette().base())
        if not self.parts:
            painter.drawText(self.rect(), Qt.AlignmentFlag.AlignCenter, self.tr("Nothing loaded"))
            return
        self._layout()
        painter.translate(0, -self.scrollbar.value() if self.scrollbar.isVisible() else 0)
        self._draw_frames(painter)
        self._draw_links(painter)
        painter.setFont(self.label_font())
        for part in self.parts:
            status = self._status(part)
            fill = {"current": CURRENT, "done": DONE}.get(status, TODO)
            painter.setPen(QPen(FRAME, 2 if status == "current" else 1))
            painter.setBrush(fill)
            painter.drawRoundedRect(part.rect, 5, 5)
            painter.setPen(QColor(20, 20, 20) if status != "todo" else QColor(130, 130, 130))
            flags, text = self.shown_label(part)
            painter.drawText(part.rect.adjusted(4, 0, -4, 0), flags, text)
        painter.end()

    def label_font(self) -> QFont:
        """The boxes' font: one point smaller than the window's."""
        small = QFont(self.font())
        small.setPointSizeF(max(7.0, self.font().pointSizeF() - 1))
        return small

    def shown_label(self, part: Part) -> tuple[Qt.AlignmentFlag, str]:
        """How a box's title is drawn: wrapped when the lines fit the box, else on one line cut with "…"
        (hovering the box names it whole). Returns the drawing flags and the text."""
        text, box = block_title(part.label), part.rect.adjusted(4, 0, -4, 0)
        metrics = QFontMetrics(self.label_font())
        wrapped = metrics.boundingRect(box.toRect(), int(Qt.AlignmentFlag.AlignCenter | Qt.TextFlag.TextWordWrap), text)
        if wrapped.height() <= box.height() and wrapped.width() <= box.width():
            return Qt.AlignmentFlag.AlignCenter | Qt.TextFlag.TextWordWrap, text
        return Qt.AlignmentFlag.AlignCenter, metrics.elidedText(text, Qt.TextElideMode.ElideRight, int(box.width()))

    def _draw_frames(self, painter: QPainter) -> None:
        layers: dict[str, tuple[QRectF, str]] = {}
        for part in self.parts:
            key = part.block.layer_id
            if key is not None:
                rect = layers[key][0].united(part.rect) if key in layers else QRectF(part.rect)
                layers[key] = (rect, block_title(part.block.layer_title) if part.block.layer_title else key)
        painter.setPen(QPen(FRAME, 1, Qt.PenStyle.DashLine))
        painter.setBrush(Qt.BrushStyle.NoBrush)
        for key, (rect, title) in layers.items():
            if key in self._folded:  # a folded layer's title stands left of its row
                painter.drawText(self._folded[key], Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter,
                                 QFontMetrics(painter.font()).elidedText(title, Qt.TextElideMode.ElideRight,
                                                                         int(self._folded[key].width())))
                continue
            frame = rect.adjusted(-8, -15, 8, 3)
            painter.drawRoundedRect(frame, 6, 6)
            painter.drawText(frame.adjusted(6, 1, 0, 0), Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop, title)

    def _draw_links(self, painter: QPainter) -> None:
        """The layout's links: the encoder's output feeds every cross-attention."""
        painter.setPen(QPen(QColor(90, 120, 200), 1.5))
        for source_id, target_id in self.ctl.layout.links:
            source, target = self.part(source_id), self.part(target_id)
            if source is None or target is None:
                continue
            start = QPointF(source.rect.right(), source.rect.center().y())
            end = QPointF(target.rect.left(), target.rect.center().y())
            mid = (start.x() + end.x()) / 2
            painter.drawPolyline([start, QPointF(mid, start.y()), QPointF(mid, end.y()), end])

    # ----- interaction ----------------------------------------------------------------------
    def part_at(self, pos: QPointF) -> Part | None:
        """The box under `pos` (widget coordinates: the scrolled map's offset added)."""
        self._layout()
        at = QPointF(pos) + QPointF(0, self.scrollbar.value() if self.scrollbar.isVisible() else 0)
        return next((p for p in self.parts if p.rect.contains(at)), None)

    def mousePressEvent(self, event) -> None:
        part = self.part_at(event.position())
        if part is None:
            return
        if event.button() == Qt.MouseButton.LeftButton:
            self.ctl.select_stage(part.stages[0])
            self.ctl.steps.run_to(part.stages[0])
        elif event.button() == Qt.MouseButton.RightButton:
            self.part_menu(part).popup(event.globalPosition().toPoint())

    def mouseMoveEvent(self, event) -> None:
        part = self.part_at(event.position())
        self.setToolTip(plain_tooltip(self.tr("{block}: {first} … {last} ({n} stages)").format(
            block=block_title(part.label), first=part.stages[0], last=part.stages[-1], n=len(part.stages)))
                        if part else "")

    def part_menu(self, part: Part) -> QMenu:
        """Context menu of a box: run to its first or last stage."""
        menu = QMenu(self)
        for label, name in ((self.tr("Run to Stage (start of block)"), part.stages[0]),
                            (self.tr("Run to Stage (end of block)"), part.stages[-1])):
            act = menu.addAction(f"{label}: {name}")
            act.triggered.connect(lambda checked=False, n=name: self.ctl.steps.run_to(n))
        return menu
