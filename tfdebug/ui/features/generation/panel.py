"""The Generation dock: the token strip, the new token's attention rows and the KV cache of one layer and head.

It follows the stage on screen: its step (from the `gen.{t}.` name), its layer when
that layer has a cache, and the head selected in the Heads panel. Everything is read
from the stepper's history, so it works while stepping live, back through history and
in a recorded generation. With a single pass on screen it says how to start a generation.
"""

from __future__ import annotations

import numpy as np
from PySide6.QtCore import QT_TRANSLATE_NOOP, QEvent, Qt
from PySide6.QtWidgets import QComboBox, QDockWidget, QHBoxLayout, QLabel, QVBoxLayout, QWidget

from tfdebug.core.names import parse_name
from tfdebug.core.stages import token_labels
from tfdebug.ui.features.generation import data
from tfdebug.ui.state.controller import DebugController
from tfdebug.ui.widgets.attention_row import AttentionRow
from tfdebug.ui.widgets.cache_view import ROLES, CacheView
from tfdebug.ui.widgets.scrolled import scrolled
from tfdebug.ui.widgets.token_strip import TokenStrip
from tfdebug.ui.workers.throttle import throttler

PLANE = (2048, 2048)  # a cache plane cut by the source's display: at most keys × head dim cells cross


class GenerationPanel(QWidget):
    """Token strip, attention rows (self, cross) and K/V cache heatmaps of the step on screen."""

    def __init__(self, ctl: DebugController, parent: QWidget | None = None):
        super().__init__(parent)
        self.ctl = ctl
        self.summary = QLabel("")
        self.summary.setTextFormat(Qt.TextFormat.PlainText)  # it quotes generated tokens
        self.summary.setWordWrap(True)
        self.layer_box = QComboBox()
        self.layer_box.activated.connect(lambda _i: self._layer_chosen())
        self.block_box = QComboBox()
        for box in (self.layer_box, self.block_box):  # filled when a generation shows, after the first show
            box.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToContents)
        self.block_box.activated.connect(lambda _i: self.refresh())
        self.strip = TokenStrip()
        self.strip.step_clicked.connect(self._go_to_step)
        self.rows = {data.SELF: AttentionRow(), data.CROSS: AttentionRow()}
        self.cache = CacheView()
        top = QHBoxLayout()
        top.addWidget(self.summary, 1)
        self.layer_label, self.cache_label = QLabel(), QLabel()
        top.addWidget(self.layer_label)
        top.addWidget(self.layer_box)
        top.addWidget(self.cache_label)
        top.addWidget(self.block_box)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addLayout(top)
        layout.addWidget(self.strip)
        for row in self.rows.values():
            layout.addWidget(row)
        layout.addWidget(self.cache, 1)
        self.layers: list[tuple[str, int]] = []
        self.attention_blocks: set[str] = set()
        self.layer: tuple[str, int] | None = None
        self.step: int | None = None
        self._dirty = True
        self._idle_drawn = False  # the "not a generation" text is shown (in the current language)
        # Captured events come by the hundred during Continue: redraw at most every 50 ms.
        self._redraw = throttler(50, self.refresh, self)
        ctl.session_changed.connect(self._session_changed)
        ctl.state_changed.connect(self._changed)
        ctl.shown.model.followed.connect(self._changed)  # the stage, and the head chosen in the Heads panel
        self._session_changed()
        self.retranslate_ui()

    def retranslate_ui(self) -> None:
        """The panel's own texts in the current language; what it shows is drawn again."""
        self.layer_box.setToolTip(self.tr("The decoder layer whose cache and attention rows are shown"))
        self.block_box.setToolTip(self.tr("Which attention's K/V cache is shown"))
        self.layer_label.setText(self.tr("Layer"))
        self.cache_label.setText(self.tr("Cache"))
        for i in range(self.block_box.count()):
            self.block_box.setItemText(i, self._block_title(self.block_box.itemData(i)))
        self._idle_drawn = False
        if self.isVisible():
            self.refresh()  # drawn again now with the new words, like every other panel
        else:
            self._dirty = True

    def changeEvent(self, event) -> None:
        if event.type() == QEvent.Type.LanguageChange:
            self.retranslate_ui()
        super().changeEvent(event)

    def _block_title(self, block: str) -> str:
        return self.tr("self-attention") if block == data.SELF else self.tr("cross-attention")

    # ----- following the controller ---------------------------------------------------------
    def _session_changed(self) -> None:
        self.layers = data.cache_layers(self.ctl.plan)
        self.layer = self.layers[-1] if self.layers else None  # the last layer: closest to the choice
        self.layer_box.clear()
        for stack, layer in self.layers:
            self.layer_box.addItem(f"{stack}.{layer}")
        self.layer_box.setCurrentIndex(len(self.layers) - 1)
        self.block_box.clear()
        self.attention_blocks = {parse_name(c.name).block for c in self.ctl.plan if c.info.kind == "softmax"}
        blocks = {parse_name(c.name).block for c in self.ctl.plan if c.info.kind == "kv_cache"}
        for block in (data.SELF, data.CROSS):
            if block in blocks:
                self.block_box.addItem(self._block_title(block), block)
        self._changed()

    def _changed(self, *_args) -> None:
        self._dirty = True
        if self.isVisible():
            self._redraw.throttle()

    def showEvent(self, event) -> None:
        super().showEvent(event)
        if self._dirty:
            self.refresh()

    def _layer_chosen(self) -> None:
        index = self.layer_box.currentIndex()
        if 0 <= index < len(self.layers):
            self.layer = self.layers[index]
            self.refresh()

    def _go_to_step(self, step: int) -> None:
        self.ctl.steps.goto_step(step)

    def head(self) -> int:
        return int(self.ctl.view.indices_by_name.get("head", 0))

    # ----- drawing -----------------------------------------------------------------------------
    def refresh(self) -> None:
        """Redraw for the stage on screen (cheap: one head's cache and one attention row)."""
        self._dirty = False
        ctl = self.ctl
        current = ctl.current
        self.step = data.step_of(current.name) if current is not None else None
        if self.step is None or not self.layers:
            self._idle()
            return
        self._idle_drawn = False
        name = parse_name(current.name)
        if name.layer is not None and (name.stack, name.layer) in self.layers and (name.stack,
                                                                                   name.layer) != self.layer:
            self.layer = (name.stack, name.layer)  # follow the stage on screen
            self.layer_box.setCurrentIndex(self.layers.index(self.layer))
        self.strip.set_entries(data.strip_entries(ctl.source, ctl.plan, ctl.tokens), self.step)
        self._summary()
        self._fetch_planes()

    def _fetch_planes(self) -> None:
        """The attention rows' and the cache's found stages and heads, then their (rows × cols) planes: read
        cut by the source's display where the tensors are, on the display worker (only the plane crosses)."""
        stack, layer = self.layer
        block = self.block_box.currentData() or data.SELF
        stepper, upto = self.ctl.stepper, self.ctl.shown.index
        found: dict[tuple[str, str], tuple[data.Found, int]] = {}
        for row_block in self.rows:
            f = data.latest(stepper, upto, self.step, stack, layer, row_block, "probs")
            if f is not None:
                found[("row", row_block)] = (f, min(self.head(), f.capture.shape[1] - 1))
        for role in ROLES:
            f = data.latest(stepper, upto, self.step, stack, layer, block, f"cache_{role}")
            if f is not None:
                found[("cache", role)] = (f, self._kv_head(f.capture.shape[1], stack, layer, block))
        shown = (self.step, self.layer, block)

        def draw(planes: dict) -> None:
            if shown == (self.step, self.layer, self.block_box.currentData() or data.SELF):  # not a stale answer
                self._draw(found, planes)
        source = self.ctl.source
        if source is None:  # the pass was just closed: its stages still show as last drawn
            return
        display = source.display

        def fetch() -> dict:  # the display worker's thread: each plane cut where its tensor is (only it crosses)
            return {key: display.slice_of(f.capture, 2, 3, {0: 0, 1: head}, PLANE, moments=False).values
                    for key, (f, head) in found.items()}
        self.ctl.display.submit("generation", fetch, draw, lambda exc: self.cache.clear(str(exc)))

    def _draw(self, found: dict, planes: dict) -> None:
        for block, row in self.rows.items():
            self._attention_row(block, row, *found.get(("row", block), (None, 0)), planes.get(("row", block)))
        self._cache(found, planes)

    def _idle(self) -> None:
        if self._idle_drawn:  # already says so: during Continue this came every 50 ms
            return
        self._idle_drawn = True
        self.strip.set_entries([], None)
        self.summary.setText(self.tr("Not a generation. Press Generate (Ctrl+G) beside Run to generate token by "
                                     "token; Debug ▸ Decoding Settings… chooses how. This dock then follows each token."))
        for row in self.rows.values():
            row.set_row(None, [], "")
        self.cache.clear("")

    def _summary(self) -> None:
        chosen = next((e for e in self.strip.entries if e.generated and e.step == self.step), None)
        text = self.tr("Step {0}").format(self.step)
        if chosen is not None:
            text += " · " + self.tr("chooses {0}").format(chosen.text)
            if chosen.probability is not None:
                text += f" (p = {chosen.probability:.2f})"
        self.summary.setText(text)

    def _attention_row(self, block: str, row: AttentionRow, found: data.Found | None, head: int, plane) -> None:
        stack, layer = self.layer
        what = self._block_title(block)
        if found is None:
            row.set_row(None, [], what, self.tr("not computed yet at this step"))
            row.setVisible(block == data.SELF or block in self.attention_blocks)  # no cross row for an LM
            return
        row.setVisible(True)
        capture = found.capture
        weights = plane[-1]  # (Tk,): the newest query's row
        labels = data.key_labels(self.ctl.tokens, capture)
        query = self._query_label(capture)
        title = self.tr("{0} · {1}.{2} · head {3} · query {4} at step {5}").format(
            what, stack, layer, head, query, found.step)
        row.set_row(weights, labels, title)

    def _query_label(self, capture) -> str:
        ref = capture.info.tokens.get("query")
        labels = token_labels(self.ctl.tokens, ref) if ref else None
        return labels[-1] if labels else "?"

    def _kv_head(self, kv_heads: int, stack: str, layer: int, block: str) -> int:
        """The cache head the selected query head reads: with grouped-query attention (fewer K/V
        heads than query heads) query head h shares K/V head h // (query heads / K/V heads)."""
        probs = self.ctl.plan.find(data.stage_name(0, stack, layer, block, "probs"))
        heads = probs.shape[1] if probs is not None else kv_heads
        head = min(self.head(), heads - 1)
        return min(head // max(1, heads // kv_heads), kv_heads - 1)

    def _cache(self, found: dict, planes: dict) -> None:
        stack, layer = self.layer
        block = self.block_box.currentData() or data.SELF
        shown, titles, labels, new = {}, {}, [], 0
        for role in ROLES:
            if ("cache", role) not in found:
                continue
            f, head = found[("cache", role)]
            shown[role] = planes[("cache", role)]  # (keys, head_dim)
            labels = data.key_labels(self.ctl.tokens, f.capture)
            new = data.new_rows(self.ctl.stepper, f, stack, layer, block, f"cache_{role}")
            titles[role] = self.tr("{0} cache · head {1} · step {2} · {3} keys").format(
                role.upper(), head, f.step, len(labels))
        if not shown:
            self.cache.clear(self.tr("The cache fills when this step's attention runs."))
            return
        self.cache.show_cache({r: np.ascontiguousarray(p) for r, p in shown.items()}, labels, new, titles)


def install(window, heads: QDockWidget) -> GenerationPanel:
    """Add the Generation dock, tabbed behind the `heads` dock until a generation runs (then the window raises it:
    it follows each token); the shell keeps the panel it returns."""
    panel = GenerationPanel(window.ctl)
    # In a scroll area: its strip, rows and caches need ~380 px, and a dock's minimum height would hold the
    # Heads tab at that height and squeeze the heatmap above it in every pass, generating or not.
    dock = window.add_dock(QT_TRANSLATE_NOOP("MainWindow", "Generation"), "generation", scrolled(panel),
                           Qt.DockWidgetArea.RightDockWidgetArea)
    window.tabifyDockWidget(heads, dock)
    heads.raise_()
    return panel
