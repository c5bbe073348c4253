"""Architecture map: a schematic of the encoder–decoder with the current block lit.

Each box is one block of the pass (embeddings + PE, an attention or FFN of a layer, a
final norm, lm_head). Clicking a box runs to its first stage (or shows it when it has
run); its context menu can also run to the block's last stage.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QColor, QFont, QPainter, QPen
from PySide6.QtWidgets import QMenu, QSizePolicy, QWidget

from tfdebug.ui import actions
from tfdebug.ui.controller import DebugController

_LABELS = {"src": "Source embedding + PE", "tgt": "Target embedding + PE", "enc": "Encoder norm",
           "dec": "Decoder norm", "head": "lm_head → logits", "attn": "Self-attention",
           "self_attn": "Masked self-attention", "cross_attn": "Cross-attention (reads encoder)",
           "ffn": "Feed-forward (FFN)"}
CURRENT = QColor(255, 170, 40)
DONE = QColor(170, 205, 240)
TODO = QColor(235, 235, 235)
FRAME = QColor(120, 120, 120)


@dataclass
class Part:
    """One box of the schematic: a block id, its label, its stages (forward order) and where it is drawn."""

    block: str
    label: str
    stages: list[str]
    rect: QRectF = field(default_factory=QRectF)


def block_label(block: str) -> str:
    parts = block.split(".")
    if len(parts) == 3:
        return _LABELS.get(parts[2], parts[2])
    return _LABELS.get(block, block)


class ArchitectureMap(QWidget):
    """The clickable schematic; state comes from the controller's signals."""

    def __init__(self, ctl: DebugController, parent: QWidget | None = None):
        super().__init__(parent)
        self.ctl = ctl
        self.parts: list[Part] = []
        self.setMinimumSize(300, 320)
        self.setSizePolicy(QSizePolicy.Expanding, QSizePolicy.Expanding)
        self.setMouseTracking(True)
        ctl.session_changed.connect(self._rebuild)
        ctl.state_changed.connect(self.update)
        ctl.stage_changed.connect(self.update)

    def _rebuild(self) -> None:
        parts: dict[str, Part] = {}
        for capture in self.ctl.plan:
            block = capture.info.block
            if block not in parts:
                parts[block] = Part(block, block_label(block), [])
            parts[block].stages.append(capture.name)
        self.parts = list(parts.values())
        self.update()

    def part(self, block: str) -> Part | None:
        return next((p for p in self.parts if p.block == block), None)

    # ----- layout ------------------------------------------------------------------------
    def _columns(self) -> tuple[list[Part], list[Part]]:
        left = [p for p in self.parts if p.block.split(".")[0] in ("src", "enc")]
        right = [p for p in self.parts if p not in left]
        return left, right

    def _layout(self) -> None:
        margin, gap = 8.0, 4.0
        col_w = (self.width() - 3 * margin) / 2
        for x, column in ((margin, self._columns()[0]), (2 * margin + col_w, self._columns()[1])):
            if not column:
                continue
            # Layers get a little extra space for their frame and title.
            layers = len({p.block.split(".")[1] for p in column if p.block.count(".") == 2})
            box_h = min(34.0, (self.height() - 2 * margin - layers * 18 - gap * len(column)) / max(1, len(column)))
            y = margin
            last_layer = None
            for part in column:
                pieces = part.block.split(".")
                layer = pieces[1] if len(pieces) == 3 else None
                if layer is not None and layer != last_layer:
                    y += 16
                elif layer is None and last_layer is not None:
                    y += 6
                last_layer = layer
                inset = 10.0 if layer is not None else 0.0
                part.rect = QRectF(x + inset, y, col_w - 2 * inset, box_h)
                y += box_h + gap

    # ----- painting ------------------------------------------------------------------------
    def _status(self, part: Part) -> str:
        current = self.ctl.current
        if current is not None and current.info.block == part.block:
            return "current"
        return "done" if self.ctl.reached(part.stages[0]) is not None else "todo"

    def paintEvent(self, event) -> None:
        painter = QPainter(self)
        painter.setRenderHint(QPainter.Antialiasing)
        painter.fillRect(self.rect(), self.palette().base())
        if not self.parts:
            painter.drawText(self.rect(), Qt.AlignCenter, "Nothing loaded")
            return
        self._layout()
        self._draw_frames(painter)
        self._draw_links(painter)
        small = QFont(self.font())
        small.setPointSizeF(max(7.0, self.font().pointSizeF() - 1))
        painter.setFont(small)
        for part in self.parts:
            status = self._status(part)
            fill = {"current": CURRENT, "done": DONE}.get(status, TODO)
            painter.setPen(QPen(FRAME, 2 if status == "current" else 1))
            painter.setBrush(fill)
            painter.drawRoundedRect(part.rect, 5, 5)
            painter.setPen(QColor(20, 20, 20) if status != "todo" else QColor(130, 130, 130))
            painter.drawText(part.rect.adjusted(4, 0, -4, 0), Qt.AlignCenter | Qt.TextWordWrap, part.label)
        painter.end()

    def _draw_frames(self, painter: QPainter) -> None:
        layers: dict[str, QRectF] = {}
        for part in self.parts:
            pieces = part.block.split(".")
            if len(pieces) == 3:
                key = f"{pieces[0]}.{pieces[1]}"
                layers[key] = layers[key].united(part.rect) if key in layers else QRectF(part.rect)
        painter.setPen(QPen(FRAME, 1, Qt.DashLine))
        painter.setBrush(Qt.NoBrush)
        for key, rect in layers.items():
            frame = rect.adjusted(-8, -15, 8, 3)
            painter.drawRoundedRect(frame, 6, 6)
            stack, index = key.split(".")
            title = f"{'Encoder' if stack == 'enc' else 'Decoder'} layer {index}"
            painter.drawText(frame.adjusted(6, 1, 0, 0), Qt.AlignLeft | Qt.AlignTop, title)

    def _draw_links(self, painter: QPainter) -> None:
        """The encoder's output feeds every cross-attention."""
        encoder_out = self.part("enc")
        if encoder_out is None:
            return
        painter.setPen(QPen(QColor(90, 120, 200), 1.5))
        start = QPointF(encoder_out.rect.right(), encoder_out.rect.center().y())
        for part in self.parts:
            if part.block.endswith(".cross_attn"):
                end = QPointF(part.rect.left(), part.rect.center().y())
                mid = (start.x() + end.x()) / 2
                painter.drawPolyline([start, QPointF(mid, start.y()), QPointF(mid, end.y()), end])

    # ----- interaction ----------------------------------------------------------------------
    def part_at(self, pos: QPointF) -> Part | None:
        self._layout()
        return next((p for p in self.parts if p.rect.contains(QPointF(pos))), None)

    def mousePressEvent(self, event) -> None:
        part = self.part_at(event.position())
        if part is None:
            return
        if event.button() == Qt.LeftButton:
            self.ctl.select_stage(part.stages[0])
            actions.trigger("tfdebug.step.run_to", self.ctl, part.stages[0])
        elif event.button() == Qt.RightButton:
            self.part_menu(part).popup(event.globalPosition().toPoint())

    def mouseMoveEvent(self, event) -> None:
        part = self.part_at(event.position())
        self.setToolTip(f"{part.label}: {part.stages[0]} … {part.stages[-1]} ({len(part.stages)} stages)"
                        if part else "")

    def part_menu(self, part: Part) -> QMenu:
        """Context menu of a box: run to its first or last stage."""
        menu = QMenu(self)
        for label, name in (("Run to Stage (start of block)", part.stages[0]),
                            ("Run to Stage (end of block)", part.stages[-1])):
            act = menu.addAction(f"{label}: {name}")
            act.triggered.connect(lambda checked=False, n=name: actions.trigger("tfdebug.step.run_to", self.ctl, n))
        return menu
