"""The Overview dock: one statistic per stage across the whole pass, in its order (a backward's: the logits first).

RMS, max |x| or ‖x‖₂ of every stage that has run (masked cells left out), or, once two passes
have been compared, max |Δ| or the relative error ‖A − B‖ / ‖A‖ between them (a red line
marks the first divergent stage): activations that blow up or the stage where two passes
split — float16 leaving float32, say — show at a glance. Over a backward's gradients ‖x‖₂ is each stage's gradient
norm, and the parameters' gradient norm per layer (all of a layer's parameters, or a place's outside the layers:
handed over by the Backward feature with `show_parameter_norms`, as the Backward dock plots them by module) is drawn
at that layer's first gradient. Dashed lines mark where each layer begins; the current
stage is an orange line; clicking a point goes to that stage. View → Overview shows it.
"""

from __future__ import annotations

import math
from weakref import ref

import pyqtgraph as pg
from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication, QEvent, Qt
from PySide6.QtWidgets import QCheckBox, QComboBox, QHBoxLayout, QLabel, QVBoxLayout, QWidget

from tfdebug.core.gradients import is_gradient
from tfdebug.core.names import layer_title, parse_name, site_title
from tfdebug.core.overview import MAX_ABS, NORM, RMS, layer_starts
from tfdebug.ui.i18n.language import said, title
from tfdebug.ui.render.plot_paint import settle
from tfdebug.ui.state.controller import DebugController
from tfdebug.ui.widgets.deferred import Deferred
from tfdebug.ui.widgets.heatmap_axes import NonOverlappingAxis
from tfdebug.ui.workers.throttle import throttler

MAX_DELTA, REL_ERROR = "max_delta", "rel_error"
COMPARISONS = (MAX_DELTA, REL_ERROR)  # statistics of the last comparison, not of the pass on screen
PARAMETERS = "parameters"  # the parameters' gradient norm per layer, of the backward on screen
DIVERGES_PEN = pg.mkPen((176, 0, 32), width=2, style=Qt.DashLine)
CURRENT_PEN = pg.mkPen((230, 120, 0), width=2)
LAYER_PEN = pg.mkPen((140, 140, 140), style=Qt.DashLine)


class OverviewPanel(QWidget):
    """A pyqtgraph plot of a per-stage statistic with layer boundaries; click a point to go there."""

    def __init__(self, window, parent: QWidget | None = None):
        super().__init__(parent)
        self.window = window
        self.ctl: DebugController = window.ctl
        self.names: list[str] = []
        self.values: list[float] = []
        self._drawn: tuple | None = None  # what the plot shows: (names, values, log, statistic)
        self.comparison = None  # the last Compare result (core.compare.Comparison), for max |Δ|
        # the parameters' gradient norms (stage, norm) and the pass source (weakly) they were handed over for
        self.parameter_norms: tuple[ref, list[tuple[str, float]]] | None = None
        self.statistic = QComboBox()
        for key in (RMS, MAX_ABS, NORM, PARAMETERS, *COMPARISONS):
            self.statistic.addItem("", key)
        self.statistic.currentIndexChanged.connect(self.refresh)
        self.log_y = QCheckBox()
        self.log_y.toggled.connect(self.refresh)
        self.readout = QLabel()
        self.readout.setTextFormat(Qt.PlainText)
        self.per_stage = QLabel()
        controls = QHBoxLayout()
        controls.addWidget(self.per_stage)
        controls.addWidget(self.statistic)
        controls.addWidget(self.log_y)
        controls.addWidget(self.readout, 1)
        # Layer titles a few stages apart on the top axis; no context menu (not built at all: ~5 ms a plot).
        self.plot = pg.PlotWidget(axisItems={"top": NonOverlappingAxis("top")}, enableMenu=False)
        # Titles never overlap on this axis, so they may fill more of it than pyqtgraph's default allows.
        self.plot.getAxis("top").setStyle(textFillLimits=[(0, 0.9)])
        self.plot.showGrid(y=True, alpha=0.2)
        self.plot.showAxis("top")
        self.curve = pg.PlotDataItem(symbol="o", symbolSize=6, symbolBrush=(40, 90, 200), pen=(40, 90, 200),
                                     connect="finite")
        self.curve.sigPointsClicked.connect(self._clicked)
        self.plot.addItem(self.curve)
        self.current_line = pg.InfiniteLine(angle=90, pen=CURRENT_PEN, movable=False)
        self.plot.addItem(self.current_line)
        self.marks: list[pg.InfiniteLine] = []
        self.first_line = pg.InfiniteLine(angle=90, pen=DIVERGES_PEN, movable=False)  # the first divergent stage
        self.first_line.setVisible(False)
        self.plot.addItem(self.first_line)
        self.plot.scene().sigMouseMoved.connect(self._hover)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addLayout(controls)
        layout.addWidget(self.plot, 1)
        self._redraw = throttler(50, self.refresh, self)
        self.ctl.state_changed.connect(self.schedule)
        self.ctl.session_changed.connect(self._new_pass)
        self.ctl.shown.model.stage_shown.connect(self._show_current)
        self.retranslate_ui()

    def _new_pass(self) -> None:
        self._drawn = None  # another model may title the same layers otherwise

    def retranslate_ui(self) -> None:
        """Every text of the panel in the current language (at start and after View ▸ Language)."""
        for key, text in ((RMS, self.tr("RMS")), (MAX_ABS, self.tr("max |x|")), (NORM, self.tr("‖x‖₂")),
                          (PARAMETERS, self.tr("parameters' ‖∂L/∂θ‖₂ per layer (backward)")),
                          (MAX_DELTA, self.tr("max |Δ| of the last comparison")),
                          (REL_ERROR, self.tr("relative error of the last comparison"))):
            self.statistic.setItemText(self.statistic.findData(key), text)
        self.log_y.setText(self.tr("log scale"))
        self.readout.setText(self.tr("Click a point to go to its stage."))
        self.per_stage.setText(self.tr("Per stage:"))
        self._set_order_label()
        self.plot.setLabel("left", self.statistic.currentText())
        self._set_ticks()

    def changeEvent(self, event) -> None:
        if event.type() == QEvent.LanguageChange:
            self.retranslate_ui()
        super().changeEvent(event)

    def schedule(self) -> None:
        if self.isVisible():
            self._redraw.throttle()

    def showEvent(self, event) -> None:
        super().showEvent(event)
        self.schedule()

    # ----- data ------------------------------------------------------------------------------
    def _pass_values(self, statistic: str) -> tuple[list[str], list[float]]:
        """Names of the pass on screen in forward order and the statistic of each stage that ran
        (NaN where none: not run, too large, or still being computed on the display worker). Its display computes
        each stage's once, where the tensors are, and keeps it (`statistics_known`)."""
        source, names = self.ctl.source, self.ctl.plan.names()
        if source is None:
            return names, [math.nan] * len(names)
        display = source.display
        captures = display.summarised()
        known = display.statistics_known(captures, statistic)
        # Stages above the size limit are read only through the heatmap's slice: no point for them (here).
        large = self.ctl.shown.large_stage_bytes
        todo = [c for c, value in zip(captures, known) if value is None and display.summarises(c, large)]
        if todo:
            # Hundreds of stages (each read once, a snapshot's from its file) take far longer
            # than the GUI thread may spend: the worker computes them, then the plot redraws.
            self.ctl.display.submit("overview", lambda: display.statistics_of(todo, statistic),
                                    lambda _values: self._computed(statistic),
                                    lambda exc: self.ctl.fail(said(lambda: self.tr(
                                        "Cannot compute the overview: {why}").format(why=exc))))
        got = {c.name: value for c, value in zip(captures, known)}
        return names, [math.nan if got.get(n) is None else got[n] for n in names]  # None: not computed (too large)

    def _computed(self, statistic: str) -> None:
        if statistic == self.statistic.currentData():
            self.refresh()

    def show_parameter_norms(self, norms: list[tuple[str, float]]) -> None:
        """The parameters' gradient norm per layer of the backward on screen, each at a stage of it ((stage, norm):
        the layer's first gradient), plotted by the "parameters" statistic while that pass is on screen."""
        source = self.ctl.source
        self.parameter_norms = (ref(source), list(norms)) if source is not None else None
        self.refresh()

    def _parameter_values(self) -> tuple[list[str], list[float]]:
        """The plan's names and, at each stage handed a norm for the pass on screen, that norm (NaN elsewhere)."""
        names = self.ctl.plan.names()
        held = self.parameter_norms
        norms = dict(held[1]) if held is not None and self.ctl.source is not None and held[0]() is self.ctl.source \
            else {}
        return names, [norms.get(name, math.nan) for name in names]

    def _comparison_values(self, statistic: str) -> tuple[list[str], list[float]]:
        result = self.comparison
        if result is None:
            return [], []
        values = [getattr(r, "max_abs" if statistic == MAX_DELTA else statistic) for r in result.stages]
        return [r.name for r in result.stages], [v if v is not None and math.isfinite(v) else math.nan for v in values]

    def show_comparison(self, result) -> None:
        """Plot max |Δ| of this comparison (the Compare tool hands each new result here)."""
        self.comparison = result
        self.refresh()

    def refresh(self) -> None:
        """Recompute (new stages only; edited ones again) and redraw."""
        key = self.statistic.currentData()
        names, values = self._comparison_values(key) if key in COMPARISONS else self._parameter_values() \
            if key == PARAMETERS else self._pass_values(key)
        drawn = (names, values, self.log_y.isChecked(), self.statistic.currentText())
        if drawn == self._drawn:
            return  # during Continue this runs every 50 ms: redraw only what changed
        same_stages = names == self.names
        self.names, self.values = names, values
        log = self.log_y.isChecked()
        shown = [v if v == v and (not log or v > 0) else math.nan for v in values]
        self.plot.setLogMode(y=log)
        if all(v != v for v in shown):
            self.curve.setData([], [])  # nothing to plot yet (pyqtgraph cannot bound an all-NaN scatter)
        elif key == PARAMETERS:  # a point per layer, at its first gradient, joined from layer to layer
            at = [i for i, v in enumerate(shown) if v == v]
            self.curve.setData(at, [shown[i] for i in at])
        else:
            self.curve.setData(list(range(len(shown))), shown)
        self.plot.setLabel("left", self.statistic.currentText())
        if not same_stages or self._drawn is None:
            for line in self.marks:
                self.plot.removeItem(line)
            self.marks = []
            for i, _ in layer_starts(names):
                line = pg.InfiniteLine(pos=i - 0.5, angle=90, pen=LAYER_PEN, movable=False)
                self.plot.addItem(line)
                self.marks.append(line)
            self._set_ticks()
        self._drawn = drawn
        settle(self.plot)
        if key in COMPARISONS and not names:
            self.readout.setText(self.tr("Compare two passes first (File → Compare With…)."))
        if key == PARAMETERS and all(v != v for v in values):
            self.readout.setText(self.tr("Run Debug ▸ Backward (Ctrl+Shift+B) first: the parameters' gradient norms "
                                         "are a backward's."))
        self._set_order_label()
        first = self.comparison.first_divergent if key in COMPARISONS and self.comparison is not None else None
        self.first_line.setVisible(first is not None and first.name in names)
        if first is not None and first.name in names:
            self.first_line.setValue(names.index(first.name))
        self._show_current()

    def _set_order_label(self) -> None:
        """The bottom axis names the order of the pass on screen: forward, or a backward's (the logits first)."""
        plan = self.ctl.plan
        backward = len(plan) > 0 and is_gradient(plan[0].info)
        self.plot.setLabel("bottom", self.tr("stage (backward order)") if backward else self.tr("stage (forward order)"))

    def _set_ticks(self) -> None:
        """The layer titles along the top axis, each where its layer begins, in the window's language."""
        adapter = self.ctl.adapter
        starts = [(i - 0.5, tick_label(self.names[i], adapter), parse_name(self.names[i]).layer is not None)
                  for i, _ in layer_starts(self.names)]
        # Layers first: where titles would overlap, "Decoder layer 0" wins over the norm just before it.
        self.plot.getAxis("top").setTicks([[(x, label) for x, label, layer in starts if layer],
                                           [(x, label) for x, label, layer in starts if not layer]])

    def _show_current(self) -> None:
        current = self.ctl.current
        if current is not None and current.name in self.names:
            self.current_line.setValue(self.names.index(current.name))
            self.current_line.setVisible(True)
        else:
            self.current_line.setVisible(False)

    # ----- interaction ---------------------------------------------------------------------------
    def go(self, index: int) -> None:
        """Go to the stage at `index` of the plot (from history when it has run)."""
        name = self.names[index]
        if name not in self.ctl.plan:
            self.ctl.fail(said(lambda: self.tr("The pass on screen has no stage {name}.").format(name=name)))
            return
        self.ctl.steps.run_to(name)

    def _clicked(self, item, points, *args) -> None:
        if len(points):  # a point's x is its stage's place in the plot (the parameters' points are not at every one)
            self.go(int(round(points[0].pos().x())))

    def _hover(self, scene_pos) -> None:
        if not self.names or not self.plot.sceneBoundingRect().contains(scene_pos):
            return
        x = round(self.plot.getPlotItem().vb.mapSceneToView(scene_pos).x())
        if 0 <= x < len(self.names):
            v = self.values[x]
            if v != v and self.statistic.currentData() == PARAMETERS:
                return  # a stage that is no layer's first gradient: no point there
            self.readout.setText(f"{self.names[x]}: " + (self.tr("not run") if v != v else f"{v:.4g}"))


def tick_label(name: str, adapter=None) -> str:
    """What the top axis says where the layer (or the stages outside layers) of stage `name` begins:
    its title ("Encoder layer 1", "Output head → logits"; the adapter's own titles first), translated."""
    parsed = parse_name(name)
    if parsed.layer is not None:
        label = title(layer_title(parsed.stack, parsed.layer, getattr(adapter, "layer_titles", None)))
    else:
        label = title(site_title(parsed.site, getattr(adapter, "site_titles", None)))
    if parsed.step is not None:  # a generation step's stages
        label = QCoreApplication.translate("OverviewPanel", "step {t}: {label}").format(t=parsed.step, label=label)
    return label


def install(window) -> Deferred:
    """Add the Overview dock (hidden until chosen in the View menu, or shown by a comparison); its panel is
    built when the dock is first shown or `window.overview` is first read."""
    deferred = Deferred(lambda: OverviewPanel(window))
    dock = window.add_dock(QT_TRANSLATE_NOOP("MainWindow", "Overview"), "overview", deferred, Qt.BottomDockWidgetArea)
    dock.hide()
    return deferred
