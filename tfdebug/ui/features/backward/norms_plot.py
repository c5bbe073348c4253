"""The Backward dock's plot of the parameters' gradient norms: one point per layer (and per place outside the
layers: embeddings, final norm, head) for each kind of module, in the model's order.

The rows come with the backward's summary (`BackwardSummary.modules`: stack, layer, module, norm; computed where
the model ran, here or on the server). Each module kind is a series (attention, cross-attention, MLP, norms,
embeddings, head, other) and a dashed line gives all of a place's parameters together, √Σ‖∂L/∂p‖²; the y axis is
logarithmic unless unticked, since the norms of one backward span decades. The bottom axis numbers the layers
(and names the places outside them), the top axis titles each stack where it begins. A click on a point asks to
go to that place's first stage in the pass on screen (`first_stage`, in its order: a backward's, logits first);
hovering names the place and its norms.
"""

from __future__ import annotations

import html
import math
from typing import cast

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QEvent, Qt, Signal
from PySide6.QtWidgets import QCheckBox, QHBoxLayout, QLabel, QVBoxLayout, QWidget

from tfdebug.core.names import parse_name, stack_title
from tfdebug.ui.i18n.language import title
from tfdebug.ui.render.plot_paint import settle
from tfdebug.ui.widgets.heatmap_axes import NonOverlappingAxis

# each module kind's series colour, in the legend's order
SERIES = {"attention": (40, 90, 200), "cross_attention": (140, 60, 180), "mlp": (30, 150, 70),
          "norm": (230, 120, 0), "embeddings": (120, 90, 60), "head": (200, 40, 40), "other": (130, 130, 130)}
# each series' marker and its glyph in the legend: points of two series at about one norm both stay in sight
MARKERS = {"attention": ("o", 7, "●"), "cross_attention": ("s", 10, "■"), "mlp": ("d", 8, "◆"),
           "norm": ("t", 8, "▼"), "embeddings": ("o", 8, "●"), "head": ("star", 10, "★"), "other": ("x", 8, "✕")}
TOTAL_PEN = pg.mkPen((60, 60, 60), width=1, style=Qt.PenStyle.DashLine)
STACK_PEN = pg.mkPen((160, 160, 160), style=Qt.PenStyle.DashLine)

# the stage kinds a place outside the layers goes to on a click, per module
OUTSIDE_KINDS = {"embeddings": ("embedding", "positional_encoding", "positional_add"),
                 "norm": ("layer_norm", "rms_norm"), "head": ("logits",)}
# the stage names' stacks outside the layers that belong to a parameters' stack
STACK_SITES = {"enc": ("enc", "src", "img"), "dec": ("dec", "tgt", "tok", "head")}

Place = tuple[str, "int | None", str]  # (stack, layer, module outside layers or '')


def places_of(rows) -> tuple[list[Place], dict[str, list[float]], list[float]]:
    """The plot's x positions from `rows` (stack, layer, module, norm) in their order: a layer is one place,
    each module outside the layers one; the norm of each module kind per place (NaN where it has none) and all of
    a place's norms together (√Σ norm²)."""
    places: list[Place] = []
    index: dict[Place, int] = {}
    cells: list[tuple[int, str, float]] = []
    for stack, layer, module, norm in rows:
        place = (stack, layer, "" if layer is not None else module)
        if place not in index:
            index[place] = len(places)
            places.append(place)
        cells.append((index[place], module, norm))
    series = {module: [math.nan] * len(places) for module in SERIES if any(m == module for _, m, _ in cells)}
    squares = [0.0] * len(places)
    for i, module, norm in cells:
        series.setdefault(module, [math.nan] * len(places))[i] = norm
        squares[i] += norm * norm if math.isfinite(norm) else math.inf
    return places, series, [math.sqrt(s) for s in squares]


def first_stage(stages, place: Place) -> str | None:
    """The first stage of `stages` ((name, kind) in the pass's order) at `place`: in the layer for a layer (of its
    stack where the place names one), else the first of the module's kinds outside the layers (its stack's
    stages first); None when the pass has none there."""
    stack, layer, module = place
    if layer is not None:
        return next((name for name, _ in stages if parse_name(name).layer == layer
                     and (not stack or parse_name(name).stack == stack)), None)
    kinds = OUTSIDE_KINDS.get(module, ())
    outside = [name for name, kind in stages if kind in kinds and parse_name(name).layer is None]
    sites = STACK_SITES.get(stack, (stack,))
    return next((name for name in outside if parse_name(name).stack in sites), outside[0] if outside else None)


def norms_at_stages(stages, rows) -> list[tuple[str, float]]:
    """Each place's norm of all its parameters (`places_of`' total) at that place's first stage of `stages`
    ((name, kind) in the pass's order: `first_stage`), in the model's order; places without a stage are left
    out. What the Overview plots over a backward's stages."""
    places, _, total = places_of(rows)
    at = [(first_stage(stages, place), norm) for place, norm in zip(places, total)]
    return [(name, norm) for name, norm in at if name is not None]


class NormsPlot(QWidget):
    """The parameters' gradient norms per place and module kind; `picked(place)` when a point is clicked."""

    picked = Signal(object)

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.places: list[Place] = []
        self.series: dict[str, list[float]] = {}
        self.total: list[float] = []
        self.titles: dict[str, str] = {}  # the adapter's stack titles, if any
        self.log_y = QCheckBox()
        self.log_y.setChecked(True)
        self.log_y.toggled.connect(self._draw)
        self.readout = QLabel()
        self.readout.setTextFormat(Qt.TextFormat.PlainText)
        self.legend = QLabel()  # each series' colour and name, beside the plot rather than over its points
        self.legend.setTextFormat(Qt.TextFormat.RichText)
        controls = QHBoxLayout()
        controls.addWidget(self.log_y)
        controls.addWidget(self.legend, 1)
        self.plot = pg.PlotWidget(axisItems={"top": NonOverlappingAxis("top"), "bottom": NonOverlappingAxis("bottom")},
                                  enableMenu=False)
        self.plot.showGrid(y=True, alpha=0.2)
        self.plot.showAxis("top")
        self.items: dict[str, pg.PlotDataItem] = {}
        self.marks: list[pg.InfiniteLine] = []
        cast(pg.GraphicsScene, self.plot.scene()).sigMouseMoved.connect(self._hover)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(controls)
        layout.addWidget(self.plot, 1)
        layout.addWidget(self.readout)
        self.retranslate_ui()

    def names(self) -> dict[str, str]:
        """Each series' name in the window's language."""
        return {"attention": self.tr("attention"), "cross_attention": self.tr("cross-attention"),
                "mlp": self.tr("MLP"), "norm": self.tr("norms"), "embeddings": self.tr("embeddings"),
                "head": self.tr("head"), "other": self.tr("other"), "total": self.tr("all parameters")}

    def show_rows(self, rows, titles: dict[str, str] | None = None) -> None:
        """Plot `rows` ((stack, layer, module, norm), the summary's `modules`; empty: a blank plot), the stacks
        titled by `titles` (an adapter's) where it has them."""
        self.places, self.series, self.total = places_of(rows)
        self.titles = dict(titles or {})
        self._draw()

    def _draw(self) -> None:
        plot, log = self.plot, self.log_y.isChecked()
        for item in [*self.items.values(), *self.marks]:
            plot.removeItem(item)
        self.items, self.marks = {}, []
        plot.setLogMode(y=log)
        x = list(range(len(self.places)))
        names = self.names()

        def shown(values: list[float]) -> list[float]:
            return [v if math.isfinite(v) and (not log or v > 0) else math.nan for v in values]
        drawn = [("total", self.total, dict(pen=TOTAL_PEN, symbol=None))] + \
            [(module, values, dict(pen=pg.mkPen(SERIES[module], width=2), symbol=MARKERS[module][0],
                                   symbolSize=MARKERS[module][1], symbolBrush=SERIES[module], symbolPen=None))
             for module, values in self.series.items()]
        for key, values, style in drawn:
            ys = shown(values)
            if all(v != v for v in ys):
                continue  # pyqtgraph cannot bound an all-NaN series
            # a module's line joins its layers one after another, never a layer and a place outside the layers
            joined = [key == "total" or (a[1] is not None and b[1] is not None and a[0] == b[0])
                      for a, b in zip(self.places, self.places[1:])] + [False]
            connect = np.array([j and ys[i] == ys[i] and ys[i + 1] == ys[i + 1] if i + 1 < len(ys) else False
                                for i, j in enumerate(joined)], dtype=bool)
            item = pg.PlotDataItem(x, ys, connect=connect, name=names[key], **style)
            item.sigPointsClicked.connect(self._clicked)
            plot.addItem(item)
            self.items[key] = item
        self.legend.setText("&nbsp;&nbsp;".join(
            f'<span style="color: rgb{SERIES.get(key, (150, 150, 150))}">{MARKERS.get(key, ("", 0, "┄"))[2]}</span>'
            f"&nbsp;{html.escape(names[key])}" for key in self.items))
        stacks: list[tuple[int, str]] = []
        for i, (stack, _, _) in enumerate(self.places):
            if stack and (not stacks or stacks[-1][1] != stack):
                stacks.append((i, stack))
        for i, _ in stacks[1:]:
            line = pg.InfiniteLine(pos=i - 0.5, angle=90, pen=STACK_PEN, movable=False)
            plot.addItem(line)
            self.marks.append(line)
        plot.getAxis("top").setTicks([[(i, title(stack_title(stack, self.titles))) for i, stack in stacks]])
        plot.getAxis("bottom").setTicks([[(i, self.place_label(p)) for i, p in enumerate(self.places)]])
        if self.places:  # room for the first and last places' labels
            self.view().setXRange(-0.7, len(self.places) - 0.3, 0)
        settle(plot)

    def view(self) -> pg.ViewBox:
        """The plot's view box."""
        item = self.plot.getPlotItem()
        assert item is not None  # a PlotWidget always has its PlotItem
        return item.getViewBox()

    def place_label(self, place: Place) -> str:
        """A place as the bottom axis says it: a layer's index, or the module outside the layers."""
        _, layer, module = place
        return str(layer) if layer is not None else self.names().get(module, module)

    def _clicked(self, _item, points, *args) -> None:
        if len(points):
            self.pick(int(round(points[0].pos().x())))

    def pick(self, index: int) -> None:
        """Ask to go to place `index` (as a click on its point does)."""
        if 0 <= index < len(self.places):
            self.picked.emit(self.places[index])

    def _hover(self, scene_pos) -> None:
        if not self.places or not self.plot.sceneBoundingRect().contains(scene_pos):
            return
        i = round(self.view().mapSceneToView(scene_pos).x())
        if 0 <= i < len(self.places):
            self.readout.setText(self.describe(i))

    def describe(self, i: int) -> str:
        """Place `i` and its norms in words."""
        stack, layer, _ = self.places[i]
        names, label = self.names(), self.place_label(self.places[i])
        stack_name = title(stack_title(stack, self.titles)) if stack else ""
        if layer is not None:
            where = self.tr("{stack} layer {n}").format(stack=stack_name, n=layer) if stack else \
                self.tr("layer {n}").format(n=layer)
        else:
            where = f"{stack_name} {label}" if stack else label
        norms = ", ".join(f"{names[m]} {v[i]:.4g}" for m, v in self.series.items() if v[i] == v[i])
        return f"{where}: {norms}; {names['total']} {self.total[i]:.4g}"

    def changeEvent(self, event) -> None:
        if event.type() == QEvent.Type.LanguageChange:
            self.retranslate_ui()
        super().changeEvent(event)

    def retranslate_ui(self) -> None:
        """Texts in the window's language."""
        self.log_y.setText(self.tr("log scale"))
        self.readout.setText(self.tr("Click a point to go to that layer's first gradient."))
        self.plot.setLabel("left", self.tr("‖∂L/∂θ‖₂"))
        self.plot.setLabel("bottom", self.tr("layer (model order)"))
        if self.places:
            self._draw()
