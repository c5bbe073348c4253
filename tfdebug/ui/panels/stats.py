"""Stats panel: min, max, mean, std, NaN/±Inf counts and a histogram, for the whole
stage's tensor and for the shown slice (both computed by core where the tensor lives), and the
range of the dtype the stage was computed in (core.precision), with a warning when its values come
near float16's overflow: over half of 65,504 in a float16 pass, over 65,504 (±Inf had the pass run
in float16) in a float32 or bfloat16 one. In a dock too short for all of it the panel scrolls: the table's
rows keep their line's height (squeezed, "46,553,329" read as "46.553.329" and the header was cut)."""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QT_TRANSLATE_NOOP, QEvent, QSize, Qt
from PySide6.QtWidgets import QFrame, QGridLayout, QLabel, QScrollArea, QVBoxLayout, QWidget

from tfdebug.core.display import held_values
from tfdebug.core.stats import held_stats, Stats, tensor_stats
from tfdebug.core.precision import dtype_range, half_overflow_note, overflow_note
from tfdebug.ui.i18n.language import phrase_text
from tfdebug.ui.render.colors import format_value
from tfdebug.ui.render.plot_paint import keep_text_space, paint_with_step
from tfdebug.ui.render.stage_text import large_sizes
from tfdebug.ui.state.controller import DebugController
from tfdebug.ui.widgets.heatmap_axes import KeptAxis
from tfdebug.ui.widgets.steady_text import SteadyText

ROWS = ("min", "max", "mean", "std", "NaN", "+Inf", "−Inf", "count")
ROW_TITLES = {"min": QT_TRANSLATE_NOOP("StatsPanel", "min"), "max": QT_TRANSLATE_NOOP("StatsPanel", "max"),
              "mean": QT_TRANSLATE_NOOP("StatsPanel", "mean"), "std": QT_TRANSLATE_NOOP("StatsPanel", "std"),
              "count": QT_TRANSLATE_NOOP("StatsPanel", "count"),
              # Counts of NaN and infinite cells: named in the window's language like the other rows.
              "NaN": QT_TRANSLATE_NOOP("StatsPanel", "NaN"), "+Inf": QT_TRANSLATE_NOOP("StatsPanel", "+Inf"),
              "−Inf": QT_TRANSLATE_NOOP("StatsPanel", "−Inf")}


def stats_values(stats: Stats | None) -> list[str]:
    if stats is None:
        return ["–"] * len(ROWS)
    pending = "…"  # a large slice's mean and std follow its image
    return [format_value(stats.min), format_value(stats.max),
            pending if stats.partial else format_value(stats.mean), pending if stats.partial else format_value(stats.std),
            str(stats.nan), str(stats.posinf), str(stats.neginf), f"{stats.count:,}"]


class _Histogram(pg.PlotWidget):
    """The histogram's plot, which asks for no more than its least height: the scroll area sizes the panel by
    what its parts ask for, and a plot's usual 480 px would scroll a tall empty histogram under the table; it
    stretches over whatever room the dock has."""

    def sizeHint(self) -> QSize:
        return QSize(super().sizeHint().width(), self.minimumHeight())


class StatsPanel(QWidget):
    """A table of stats (tensor | slice) and the tensor's histogram."""

    def __init__(self, ctl: DebugController, parent: QWidget | None = None):
        super().__init__(parent)
        self.ctl = ctl
        grid = QGridLayout()
        grid.setVerticalSpacing(1)  # ten rows of one line each: the style's spacing would add six lines' worth
        self.tensor_title, self.slice_title = QLabel(), QLabel()
        grid.addWidget(self.tensor_title, 0, 1)
        grid.addWidget(self.slice_title, 0, 2)
        self.cells: dict[tuple[str, int], SteadyText] = {}
        self.row_titles: dict[str, QLabel] = {}
        for r, name in enumerate(ROWS, start=1):
            self.row_titles[name] = QLabel()  # its title in the window's language: retranslate_ui
            grid.addWidget(self.row_titles[name], r, 0)
            for c in (1, 2):
                label = SteadyText("–", grow=True)  # a step's values lay nothing out again
                grid.addWidget(label, r, c)
                self.cells[(name, c)] = label
        self.note = QLabel("")
        self.note.setTextFormat(Qt.TextFormat.PlainText)  # it names the stage
        self.note.setWordWrap(True)
        self.note.setVisible(False)
        self.precision = QLabel("")  # the stage dtype's range
        self.precision.setObjectName("stats-precision")
        self.precision.setTextFormat(Qt.TextFormat.PlainText)
        self.precision.setWordWrap(True)
        self.overflow = QLabel("")  # values near float16's overflow
        self.overflow.setObjectName("stats-overflow")
        self.overflow.setTextFormat(Qt.TextFormat.PlainText)
        self.overflow.setWordWrap(True)
        self.overflow.setStyleSheet("color: #b35900")
        self.overflow.setVisible(False)
        # Axes that keep their pictures: each stage's histogram spans other values and counts; no context
        # menu (not built at all, ~5 ms a plot).
        self.plot = _Histogram(enableMenu=False, axisItems={"left": KeptAxis("left"), "bottom": KeptAxis("bottom")})
        self.plot.setMouseEnabled(False, False)
        # Bars and both axes in five lines of text: on a small screen the Shape dock above takes the rest.
        self.plot.setMinimumHeight(5 * self.fontMetrics().height())
        self.bars = pg.PlotDataItem(stepMode="center", fillLevel=0, brush=(80, 130, 200, 160))
        self._drawn: tuple | None = None  # the (edges, counts) the bars show
        self.plot.addItem(self.bars)
        keep_text_space(self.plot.getAxis("left"), self.plot.getAxis("bottom"))
        # Tick values as the Stats table writes them (0.1, 0.2), not rescaled under a "(x0.001)" title.
        self.plot.getAxis("bottom").enableAutoSIPrefix(False)
        content = QWidget()
        layout = QVBoxLayout(content)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addLayout(grid)
        layout.addWidget(self.overflow)
        layout.addWidget(self.plot, 1)
        layout.addWidget(self.note)
        layout.addWidget(self.precision)
        # The table and the histogram first, the notes under them: a dock shorter than all of it scrolls to the
        # notes, nothing is squeezed below its line.
        self.scroll = QScrollArea()
        self.scroll.setWidgetResizable(True)
        self.scroll.setFrameShape(QFrame.Shape.NoFrame)
        self.scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.scroll.setWidget(content)
        outer = QVBoxLayout(self)
        outer.setContentsMargins(0, 0, 0, 0)
        outer.addWidget(self.scroll)
        ctl.shown.model.followed.connect(self._followed)
        self.retranslate_ui()
        # The table whole and the histogram at its least height, however the docks around pull.
        margins = layout.contentsMargins()
        self.scroll.setMinimumHeight(grid.sizeHint().height() + layout.spacing() + self.plot.minimumHeight()
                                     + margins.top() + margins.bottom())

    def retranslate_ui(self) -> None:
        self.tensor_title.setText("<b>" + self.tr("stage tensor") + "</b>")
        self.slice_title.setText("<b>" + self.tr("shown slice") + "</b>")
        for name, label in self.row_titles.items():
            label.setText(self.tr(ROW_TITLES[name]))
        self.plot.setLabel("bottom", self.tr("value"))
        self.plot.setLabel("left", self.tr("count"))
        if self.ctl.current is not None:  # the dtype's range and the overflow warning are sentences too
            self._precision()

    def changeEvent(self, event) -> None:
        if event.type() == QEvent.Type.LanguageChange:
            self.retranslate_ui()
        super().changeEvent(event)

    def text(self, name: str, column: int = 1) -> str:
        return self.cells[(name, column)].text()

    def _fill(self, stats: Stats | None, column: int) -> None:
        for name, value in zip(ROWS, stats_values(stats)):
            self.cells[(name, column)].setText(value)

    def _followed(self, event) -> None:
        """The shown stage, its slice or its stats changed (a ShownEvent): the slice's column, then the rest."""
        if event.new_slice:
            self._slice(event.slice)
        if event.new_stats:
            self._stage()

    def _stage(self) -> None:
        stats = self.ctl.shown.current_stats
        self._fill(stats, 1)
        large = self.ctl.shown.is_large()
        if large or not self.note.isHidden():
            self.note.setText(self.tr("{name} holds {held}, above the {limit} read in full: only the heatmap's "
                                      "slice is read and summarised; the whole-tensor column stays empty.").format(
                **large_sizes(self.ctl.current, self.ctl.shown.large_stage_bytes)) if large else "")
            self.note.setVisible(large)
        sl = self.ctl.shown.current_slice
        # A stage above the size limit has no whole-tensor histogram: its slice's stands in.
        shown = sl.stats if large and sl is not None else stats
        if shown is None and not large and self.ctl.display.busy("stats"):
            # Its stats are on their way (their event draws them): no empty histogram in between, and none
            # of the stage before either.
            self.plot.getPlotItem().hide()
        else:
            self._histogram(shown)
        self._precision()

    def _precision(self, stats: Stats | None = None) -> None:
        """The stage dtype's range, and a warning when `stats` (default: the whole tensor's, else the shown
        slice's) come near float16's overflow."""
        if stats is None:
            sl = self.ctl.shown.current_slice
            stats = self.ctl.shown.current_stats or (sl.stats if sl is not None else None)
        current = self.ctl.current
        limits = dtype_range(current.dtype) if current is not None else None
        self.precision.setText("" if limits is None else self.tr(
            "{dtype}: largest {max}, smallest normal {tiny}, eps {eps}").format(
            dtype=limits.dtype, max=f"{limits.max:.5g}", tiny=f"{limits.tiny:.2g}", eps=f"{limits.eps:.2g}"))
        note = None
        if limits is not None and stats is not None:
            note = (overflow_note(current.dtype, stats.min, stats.max)
                    or half_overflow_note(current.dtype, stats.min, stats.max))
        self.overflow.setText(phrase_text(note) if note is not None else "")
        self.overflow.setVisible(note is not None)

    def _histogram(self, stats: Stats | None) -> None:
        """Draw the bars of `stats`, unless they are the ones drawn (a large slice's mean and std arriving
        leave its histogram as it is): one drawing per stage."""
        edges, counts = _bars(stats)
        self.plot.getPlotItem().show()
        if self._drawn is not None and all(np.array_equal(a, b) for a, b in zip(self._drawn, (edges, counts))):
            return
        self._drawn = (edges, counts)
        self.bars.setData(edges, counts)
        paint_with_step(self.plot)  # with the step's other panels, in one window paint

    def _slice(self, sl) -> None:
        import torch  # loaded by then: a slice comes from a pass

        stats = sl.stats if sl is not None else None
        current = self.ctl.current
        if stats is not None and stats.neginf and current is not None and current.info.kind == "softmax":
            # The slice draws a softmax's masked cells as masked; its numbers are the zeros the tensor holds:
            # recounted from the cells drawn when they are the slice's own, else worked out from the slice's
            # stats (a downsampled image holds block averages, not the cells).
            stats = held_stats(stats, "softmax") if sl.downsampled else tensor_stats(
                torch.from_numpy(held_values(sl.values, "softmax")), kind="softmax")
        self._fill(stats, 2)
        if self.ctl.shown.is_large():
            self._histogram(stats)
            self._precision(stats)


def _bars(stats: Stats | None) -> tuple:
    """(edges, counts) of the histogram to draw: an empty axis without finite values; one bar
    centred on the value when every value is the same (the stats put them all in bin 0), in the
    middle of a unit-wide axis, not at its left edge."""
    if stats is None or stats.min != stats.min:
        return [0, 1], [0]
    edges, counts = stats.hist_edges, stats.hist_counts.astype(float)
    if edges[-1] == edges[0]:
        bins = len(counts)
        edges = edges[0] + (np.arange(bins + 1) - bins // 2 - 0.5) / bins
        counts = np.zeros(bins)
        counts[bins // 2] = stats.hist_counts.sum()
    return edges, counts
