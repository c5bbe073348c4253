"""The Explain dock: what the shown stage does, its formula, this pass's shapes, what to look for, live checks.

The texts come from tfdebug.core.explain in the window's language (View ▸ Language); the
checks (tfdebug.core.checks) run on the display worker, off the GUI thread, on the
stage's whole tensor and the other stages of this pass they refer to, and arrive with a
tick or a cross. Positional stages offer the PE curves (the Learn tools open tfdebug.ui.features.learn.pe_view).
"""

from __future__ import annotations

import html

from PySide6.QtCore import QT_TRANSLATE_NOOP, QEvent, Qt, Signal
from PySide6.QtWidgets import QPushButton, QVBoxLayout, QWidget

from tfdebug.core.checks import Check
from tfdebug.core.explain import explain
from tfdebug.core.masks import CAUSAL, PADDING, mask_parts, mask_shape
from tfdebug.core.recorder import Capture
from tfdebug.ui.i18n import language as i18n
from tfdebug.ui.render.stage_text import describe_inputs, fmt_shape, input_stages
from tfdebug.ui.state.controller import DebugController
from tfdebug.ui.widgets.steady_browser import SteadyBrowser
from tfdebug.sessions.display_cache import Prepared

TICK, CROSS, UNKNOWN = "✓", "✗", "–"
_MARK_COLOURS = {TICK: "#1a7f37", CROSS: "#c62828", UNKNOWN: "#777"}
POSITIONAL_KINDS = ("positional_encoding", "positional_add")


def _italic(text: str) -> str:
    return f"<i>{html.escape(text)}</i>"


def mark(check: Check) -> str:
    return TICK if check.ok is True else CROSS if check.ok is False else UNKNOWN


class ExplainPanel(QWidget):
    """Explains the controller's current stage; `checks` holds the last checks computed for it."""

    # the Positional Encoding Curves… button was pressed (the Learn tools open the curves)
    pe_curves_requested = Signal()

    def __init__(self, ctl: DebugController, window=None, parent: QWidget | None = None):
        super().__init__(parent)
        self.ctl = ctl
        self.window = window
        self.checks: list[Check] | None = None  # None: not computed (yet) for the shown stage
        # The stage and tensor the checks were asked for: an edit replaces the tensor of the same stage.
        # (Compared by identity: Capture is a dataclass whose == would compare tensors.)
        self._checked: tuple[Capture, int] | None = None
        self.text = SteadyBrowser()
        # Its scroll bar stays: one that comes and goes with the stage's text would narrow the text, lay it out
        # again and repaint the dock a second time each step.
        self.text.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOn)
        self.text.setOpenLinks(False)
        self.pe_button = QPushButton()
        self.pe_button.clicked.connect(self.pe_curves_requested)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(self.text)
        layout.addWidget(self.pe_button)
        ctl.shown.model.stage_shown.connect(self.refresh)
        self.retranslate_ui()

    # ----- showing -----------------------------------------------------------------------
    def plain_text(self) -> str:
        return self.text.toPlainText()

    def refresh(self) -> None:
        """Texts for the current stage now; its checks on the display worker when the dock is on screen."""
        capture = self.ctl.current
        self.pe_button.setVisible(capture is not None and capture.info.kind in POSITIONAL_KINDS)
        if not self._checked_for(capture):
            self.checks = None
            if capture is not None and self.isVisible() and not self.ctl.shown.reading(capture):
                self._request_checks(capture)  # a stage still being read is checked once read (`tensor_read`)
        self._render(capture)

    def _checked_for(self, capture: Capture | None) -> bool:
        """Whether the checks asked for last were for this stage and its tensor as it is now."""
        return (capture is not None and self._checked is not None and self._checked[0] is capture
                and self._checked[1] == id(capture.tensor))

    def showEvent(self, event) -> None:
        super().showEvent(event)
        self.refresh()

    def _request_checks(self, capture: Capture) -> None:
        self._checked = (capture, id(capture.tensor))
        if self.ctl.source is None or (capture.tensor is None and capture.dropped):
            self._checks_ready(capture, None, [])  # nothing left to check
            return
        known = self.ctl.display.ahead.checks_for(capture)  # worked out ahead with the stage's slice
        if known is not None:
            self.checks = known
            return
        display, tensor = self.ctl.source.display, capture.tensor  # on the display worker, where the tensor is
        self.ctl.display.submit("checks", lambda: display.checks_of(capture),
                                lambda checks: self._checks_ready(capture, tensor, checks),
                                lambda exc: self._checks_ready(capture, tensor, []))

    def _checks_ready(self, capture: Capture, tensor, checks: list[Check]) -> None:
        if tensor is not None and capture.tensor is tensor and not self.ctl.shown.is_large(capture):  # kept for next time
            self.ctl.display.ahead.put(Prepared(capture, tensor, checks=checks))
        if capture is self.ctl.current and self._checked_for(capture):
            self.checks = checks
            self._render(capture)

    def _render(self, capture: Capture | None) -> None:
        if capture is None:
            self.text.show_html(_italic(self.tr("No stage yet.")))
            return
        info = capture.info
        e = explain(info.kind)
        sections = [f"<h3 style='margin:2px'>{html.escape(i18n.kind_title(info.kind))} "
                    f"<span style='color:#555;font-weight:normal'>{html.escape(info.name)}</span></h3>"]
        # The live verdict first, where it is seen without scrolling; then the explanation.
        sections.append(self._section(self.tr("Checks on this tensor"), self._checks_html()))
        if e is not None:
            sections.append(self._section(self.tr("What it does"), html.escape(i18n.phrase_text(e.what))))
            sections.append(self._section(self.tr("Formula"), f"<span style='font-size:large'>"
                                          f"{html.escape(i18n.phrase_text(e.formula))}</span>"))
        sections.append(self._section(self.tr("In this pass"), self._this_pass(capture)))
        if e is not None:
            sections.append(self._section(self.tr("What to look for"), html.escape(i18n.phrase_text(e.look_for))))
        self.text.show_html("".join(sections))

    @staticmethod
    def _section(title: str, body: str) -> str:
        return f"<p style='margin:6px 0 2px 0'><b>{html.escape(title)}</b></p><div>{body}</div>"

    def _this_pass(self, capture: Capture) -> str:
        """This stage's own formula and shape transition, the mask's broadcast and what it hides."""
        info = capture.info
        lines = [self.tr("This model: {formula}").format(formula=i18n.formula_text(info.formula))]
        inputs = input_stages(self.ctl.plan, capture)
        if inputs:
            lines.extend(describe_inputs(inputs, capture.shape, info.ops).split("\n"))
        else:
            lines.append(fmt_shape(capture.shape))
        if info.kind == "mask":
            parts = mask_parts(info.formula)
            if parts is not None:
                what = {(CAUSAL,): self.tr("causal: the future is hidden"),
                        (PADDING,): self.tr("padding: <pad> keys are hidden"),
                        (CAUSAL, PADDING): self.tr("causal and padding: the future and <pad> keys are hidden")}
                lines.append(self.tr("This pass masks: {what}").format(what=what[parts]))
                small = mask_shape(parts, capture.shape)
                if small is not None:
                    lines.append(self.tr("M {mask} broadcast over {scores}").format(
                        mask=fmt_shape(small), scores=fmt_shape(capture.shape)))
        if info.kind == "positional_add" and inputs and len(inputs) == 2:
            lines.append(self.tr("PE {table} broadcast over the batch {batch}").format(
                table=fmt_shape(inputs[1].shape), batch=fmt_shape(capture.shape)))
        return "<br>".join(html.escape(line) for line in lines)

    def _checks_html(self) -> str:
        if self.checks is None:
            return _italic(self.tr("computing…"))
        if not self.checks:
            return _italic(self.tr("No check applies to this kind of stage."))
        rows = []
        for check in self.checks:
            symbol = mark(check)
            figures = i18n.phrase_text(check.detail)
            detail = f" <span style='color:#777'>({html.escape(figures)})</span>" if figures else ""
            rows.append(f"<span style='color:{_MARK_COLOURS[symbol]};font-weight:bold'>{symbol}</span> "
                        f"{html.escape(i18n.phrase_text(check.text))}{detail}")
        return "<br>".join(rows)

    # ----- the PE view ------------------------------------------------------------------
    def pe_table(self) -> Capture | None:
        """The PE table of the shown positional stage's stream ('src.pe' for src.pos), when it has run and the pass's
        display can read it (here, or where a served pass runs)."""
        capture = self.ctl.current
        if capture is None or capture.info.kind not in POSITIONAL_KINDS:
            return None
        name = capture.name if capture.info.kind == "positional_encoding" else capture.name.rsplit(".", 1)[0] + ".pe"
        stepper = self.ctl.stepper
        position = stepper.position_of(name) if stepper is not None else None
        table = stepper.history[position] if position is not None else None
        source = self.ctl.source
        return table if table is not None and source is not None and source.display.holds(table) else None

    # ----- language ---------------------------------------------------------------------
    def retranslate_ui(self) -> None:
        self.pe_button.setText(self.tr("Positional Encoding Curves…"))
        self.pe_button.setToolTip(self.tr("sin and cos of every dimension of the PE table, over the positions"))
        self._render(self.ctl.current)

    def changeEvent(self, event) -> None:
        if event.type() == QEvent.Type.LanguageChange:
            self.retranslate_ui()
        super().changeEvent(event)


def install(window) -> ExplainPanel:
    """Add the Explain dock under the Shape dock (Learn ▸ Explain shows or hides it)."""
    panel = ExplainPanel(window.ctl, window)
    dock = window.add_dock(QT_TRANSLATE_NOOP("MainWindow", "Explain"), "explain", panel,
                           Qt.DockWidgetArea.RightDockWidgetArea)
    shape = window.docks.get("shape")
    stats = window.docks.get("stats")
    if shape is not None:
        window.splitDockWidget(shape, dock, Qt.Orientation.Vertical)
        if stats is not None:  # the Shape column: shape facts, the explanation with its checks, stats
            window.resizeDocks([shape, dock, stats], [220, 470, 210], Qt.Orientation.Vertical)
    return panel
