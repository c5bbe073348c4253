"""Shapes, sizes and the stages a stage is computed from, as the panels write them.

Shared by the Shape, Explain, Stats and Heads panels and the status bar (panels import no
other panel, so what several of them write lives here).
"""

from __future__ import annotations

from PySide6.QtCore import QCoreApplication

from tfdebug.core.recorder import Capture


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


def large_sizes(capture: Capture, limit: int) -> dict[str, str]:
    """The stage's name, its bytes and the limit, for the sentences of panels that skip a large stage."""
    return {"name": capture.name, "held": fmt_bytes(capture.nbytes), "limit": fmt_bytes(limit)}


#: seconds a pass must have run, and the share of its stages done, before the time left is guessed
ETA_AFTER_S, ETA_AFTER_SHARE = 1.0, 0.05


def run_progress(plan: list[str], done: int, elapsed: float, done_at_start: int = 0) -> str:
    """What the status bar says while a pass runs (F5, Run to Stage): the stage and layer it has reached, of how
    many, and once it has run a while the time left at its pace so far ("stage 400 of 753 · dec layer 15 of 30 ·
    about 12 s left"). `done`: stages captured; `done_at_start`: those already captured when it started."""
    from tfdebug.core.names import parse_name

    total = len(plan)
    parts = [QCoreApplication.translate("MainWindow", "stage {i} of {n}").format(i=min(done, total), n=total)]
    if 0 < done <= total:
        reached = parse_name(plan[done - 1])
        if reached.layer is not None:
            layers = 1 + max(p.layer for p in map(parse_name, plan) if p.stack == reached.stack and p.layer is not None)
            parts.append(QCoreApplication.translate("MainWindow", "{stack} layer {i} of {n}").format(
                stack=reached.stack, i=reached.layer + 1, n=layers))
    ran = done - done_at_start
    if elapsed >= ETA_AFTER_S and total and ran >= max(1, ETA_AFTER_SHARE * total) and done < total:
        left = elapsed / ran * (total - done)
        parts.append(QCoreApplication.translate("MainWindow", "about {time} left").format(
            time=f"{left:.0f} s" if left < 120 else f"{left / 60:.0f} min"))
    return " · ".join(parts)
