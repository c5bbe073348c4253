"""Shape panel: named axes, dtype, device, bytes, the transition from the stage before,
the formula, the source line and what the check against the unmodified model found for the stage."""

from __future__ import annotations

import html

from PySide6.QtCore import QEvent
from PySide6.QtWidgets import QVBoxLayout, QWidget

from tfdebug.ui.i18n.language import axis_title, current_language, formula_text, kind_title
from tfdebug.ui.render.stage_text import describe_inputs, fmt_bytes, fmt_shape, input_stages
from tfdebug.ui.state.controller import DebugController
from tfdebug.ui.render.plain_text import columns
from tfdebug.ui.widgets.steady_browser import SteadyBrowser

# What the panel always has room for, whatever the docks around it ask: the stage's name and kind, and its
# Shape, dtype and Device rows, unwrapped at a usual shape's width (at 1280×720 the docks below took the rest).
MIN_CHARS, MIN_LINES = 36, 7


class ShapePanel(QWidget):
    """Everything about the current stage's tensor that is not its values."""

    def __init__(self, ctl: DebugController, parent: QWidget | None = None):
        super().__init__(parent)
        self.ctl = ctl
        self.text = SteadyBrowser()
        self.text.setOpenLinks(False)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(self.text)
        metrics = self.text.fontMetrics()
        self.text.setMinimumSize(columns(metrics, MIN_CHARS), metrics.lineSpacing() * MIN_LINES)
        self._verification = None  # the verification last shown: the check runs after the pass, in the background
        ctl.shown.model.stage_shown.connect(self.refresh)
        ctl.state_changed.connect(self._verification_arrived)
        self.refresh()

    def _verification_arrived(self) -> None:
        if self.ctl.loader.verification is not self._verification:
            self.refresh()

    def changeEvent(self, event) -> None:
        if event.type() == QEvent.Type.LanguageChange:
            self.refresh()
        super().changeEvent(event)

    def plain_text(self) -> str:
        return self.text.toPlainText()

    def refresh(self) -> None:
        capture = self.ctl.current
        if capture is None:
            self.text.show_html("<i>" + html.escape(self.tr("No stage yet.")) + "</i>")
            return
        info = capture.info
        names = self.ctl.axes.names(capture)
        axes = ", ".join(f"{axis_title(n)}={s}" for n, s in zip(names, capture.shape))
        dtype = str(capture.dtype).removeprefix("torch.")
        inputs = input_stages(self.ctl.plan, capture)
        rows = [
            (self.tr("Shape"), f"<b>{fmt_shape(capture.shape)}</b> &nbsp; {html.escape(axes)}"),
            (self.tr("dtype"), dtype),
            (self.tr("Device"), html.escape(str(capture.device))),
            (self.tr("Bytes"), f"{fmt_bytes(capture.nbytes)} ({capture.nbytes:,})"),
        ]
        if inputs:
            text = describe_inputs(inputs, capture.shape, info.ops)
            rows.append((self.tr("From"), html.escape(text).replace("\n", "<br>")))
        elif info.kind == "embedding":
            rows.append((self.tr("From"), html.escape(self.tr("the token ids (a lookup in the embedding table)"))))
        rows.append((self.tr("Formula"),
                     f"<span style='font-size:large'>{html.escape(formula_text(info.formula))}</span>"))
        rows.append((self.tr("Source"), html.escape(info.source or self.tr("unknown"))))
        self._verification = self.ctl.loader.verification
        check = self._verification.stage_check(info.name) if self._verification is not None else None
        if check is not None:
            rows.append((self.tr("Check"), self._check_text(info.name, check)))
        edited = f" <span style='color:#b35c00'>{html.escape(self.tr('(edited)'))}</span>" if capture.edited else ""
        # English shows the kind's identifier; another language its title, with the identifier after it.
        kind = info.kind if current_language() == "en" else f"{kind_title(info.kind)} ({info.kind})"
        where = self.tr("kind {kind} · site {site}").format(kind=kind, site=info.site)
        if info.layer is not None:
            where += self.tr(" · layer {layer}").format(layer=info.layer)
        body = "".join(f"<tr><td style='padding-right:10px;color:#555'>{k}</td><td>{v}</td></tr>" for k, v in rows)
        self.text.show_html(f"<h3 style='margin:2px'>{html.escape(info.name)}{edited}</h3>"
                          f"<div style='color:#555'>{html.escape(where)}</div>"
                          f"<table>{body}</table>")

    def _check_text(self, name: str, check) -> str:
        """HTML for what the stage-level check against the unmodified model found for this stage."""
        in_pass = check.scope == "attention"  # checked in the pass against the model's own attention function
        if check.verdict == "verified" and in_pass:
            text = self.tr("verified in the pass against the model's own attention function on the same inputs: "
                           "exactly equal")
            colour = "#2e7d32"
        elif check.verdict == "verified" and not check.tolerance:
            text = self.tr("verified against the unmodified model: exactly equal")
            colour = "#2e7d32"
        elif check.verdict == "verified":  # within the model's own run-to-run noise
            text = self.tr("verified against the unmodified model: max |Δ| {diff} (the model's own noise {tol})"
                           ).format(diff=f"{check.diff:.1e}", tol=f"{check.tolerance:.1e}")
            colour = "#2e7d32"
        elif check.verdict == "mismatch" and in_pass:
            text = self.tr("differs from the model's own attention function on the same inputs: max |Δ| {diff}"
                           ).format(diff=f"{check.diff:.1e}")
            colour = "#c62828"
        elif check.verdict == "mismatch":
            text = self.tr("differs from the unmodified model: max |Δ| {diff} (tolerance {tol})").format(
                diff=f"{check.diff:.1e}", tol="0" if not check.tolerance else f"{check.tolerance:.1e}")
            colour = "#c62828"
        elif in_pass:
            text = self.tr("unchecked: the check in the pass compares attention only (Debug ▸ Check Against the "
                           "Model ▸ When It Fits compares this stage too)")
            colour = "#777"
        else:
            text = self.tr("unchecked: the unmodified model returns nothing to compare this stage with")
            colour = "#777"
        if check.first_mismatch == name:
            text += " · " + self.tr("the first stage of the pass that differs")
        elif check.first_mismatch is not None:
            text += " · " + self.tr("the first stage that differs is {name}").format(name=check.first_mismatch)
        return f"<span style='color:{colour}'>{html.escape(text)}</span>"
