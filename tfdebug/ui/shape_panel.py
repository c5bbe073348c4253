"""Shape panel: named axes, dtype, device, bytes, the transition from the stage before,
the formula and the source line."""

from __future__ import annotations

import html

from PySide6.QtCore import QCoreApplication, QEvent
from PySide6.QtWidgets import QTextBrowser, QVBoxLayout, QWidget

from tfdebug.core.recorder import Capture
from tfdebug.ui.controller import DebugController
from tfdebug.ui.i18n import axis_title, current_language, formula_text, kind_title


def fmt_shape(shape) -> str:
    return "(" + ",".join(str(n) for n in shape) + ")"


def fmt_bytes(n: int) -> str:
    for unit in ("B", "KB", "MB", "GB"):
        if n < 1024 or unit == "GB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024
    return f"{n} B"


def transition(prev: tuple[int, ...], ops: tuple[str, ...], shape: tuple[int, ...]) -> str:
    """The reshapes from `prev` to `shape`, e.g. (1,10,512) —view→ (1,10,8,64) —transpose→ (1,8,10,64).

    A transpose of axes 1 and 2 (the head split and merge) is undone to find the shape between.
    """
    if ops == ("view", "transpose") and len(shape) == 4:
        mid = (shape[0], shape[2], shape[1], shape[3])
        return f"{fmt_shape(prev)} —view→ {fmt_shape(mid)} —transpose→ {fmt_shape(shape)}"
    if ops == ("transpose", "view") and len(prev) == 4:
        mid = (prev[0], prev[2], prev[1], prev[3])
        return f"{fmt_shape(prev)} —transpose→ {fmt_shape(mid)} —view→ {fmt_shape(shape)}"
    if ops:
        return f"{fmt_shape(prev)} —{'→'.join(ops)}→ {fmt_shape(shape)}"
    return f"{fmt_shape(prev)} → {fmt_shape(shape)}"


def input_stages(plan: list[Capture], capture: Capture) -> list[Capture]:
    """The stages `capture` is computed from (its StageInfo.inputs that ran in this pass).

    When none of them ran (a model whose taps declare no inputs, or a skipped padding
    mask) the stage before it in forward order stands in; the first stage has none.
    """
    by_name = {c.name: c for c in plan}
    named = [by_name[n] for n in capture.info.input_names(by_name)]
    if named or not capture.info.inputs and capture.info.kind == "embedding":
        return named
    names = list(by_name)
    i = names.index(capture.name) if capture.name in by_name else 0
    return [plan[i - 1]] if i > 0 else []


def describe_inputs(inputs: list[Capture], shape: tuple[int, ...], ops: tuple[str, ...]) -> str:
    """'enc.0.attn.k' and its transition, or several inputs with their shapes joined into one."""
    if len(inputs) == 1:
        return f"{inputs[0].name}\n{transition(inputs[0].shape, ops, shape)}"
    parts = QCoreApplication.translate("ShapePanel", " and ").join(f"{c.name} {fmt_shape(c.shape)}" for c in inputs)
    return f"{parts}\n→ {fmt_shape(shape)}"


class ShapePanel(QWidget):
    """Everything about the current stage's tensor that is not its values."""

    def __init__(self, ctl: DebugController, parent: QWidget | None = None):
        super().__init__(parent)
        self.ctl = ctl
        self.text = QTextBrowser()
        self.text.setOpenLinks(False)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(self.text)
        ctl.stage_shown.connect(self.refresh)
        self.refresh()

    def changeEvent(self, event) -> None:
        if event.type() == QEvent.LanguageChange:
            self.refresh()
        super().changeEvent(event)

    def plain_text(self) -> str:
        return self.text.toPlainText()

    def refresh(self) -> None:
        capture = self.ctl.current
        if capture is None:
            self.text.setHtml("<i>" + html.escape(self.tr("No stage yet.")) + "</i>")
            return
        info = capture.info
        names = self.ctl.axis_names(capture)
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
        rows.append((self.tr("Formula"), f"<span style='font-size:large'>{html.escape(formula_text(info.formula))}</span>"))
        rows.append((self.tr("Source"), html.escape(info.source or self.tr("unknown"))))
        edited = f" <span style='color:#b35c00'>{html.escape(self.tr('(edited)'))}</span>" if capture.edited else ""
        # English shows the kind's identifier; another language its title, with the identifier after it.
        kind = info.kind if current_language() == "en" else f"{kind_title(info.kind)} ({info.kind})"
        where = self.tr("kind {kind} · site {site}").format(kind=kind, site=info.site)
        if info.layer is not None:
            where += self.tr(" · layer {layer}").format(layer=info.layer)
        body = "".join(f"<tr><td style='padding-right:10px;color:#555'>{k}</td><td>{v}</td></tr>" for k, v in rows)
        self.text.setHtml(f"<h3 style='margin:2px'>{html.escape(info.name)}{edited}</h3>"
                          f"<div style='color:#555'>{html.escape(where)}</div>"
                          f"<table>{body}</table>")
