"""One number per stage across a pass, in its order: where activations grow, where passes split, where a
backward's gradients grow or vanish (a backward's stages are in backward order, the logits first).

    values = stage_statistics(captures, RMS)      # [rms of each stage], NaN where nothing is finite
    marks = layer_starts([c.name for c in captures])

A pass's display keeps what it computed in a `StatisticsCache` (each stage's statistic computed once).

Each statistic is computed on the stage's own device; all of them cross to the host in
one transfer per device. Masked cells (−∞, or ≤ finfo.min / 2 in a mask stage) and
non-finite cells are left out, so a mask does not read as an explosion.
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING, Callable, Sequence
from weakref import ref

from tfdebug.core.compare import masked_cells
from tfdebug.core.names import parse_name
from tfdebug.core.recipes import Plane
from tfdebug.core.recorder import Capture

if TYPE_CHECKING:  # torch loads when a function first needs it, not with the window
    import torch
    from torch import Tensor

RMS, MAX_ABS, NORM = "rms", "max_abs", "norm"
STATISTICS = {RMS: "RMS", MAX_ABS: "max |x|", NORM: "‖x‖₂"}


def _statistic(tensor: Tensor, kind: str, statistic: str) -> Tensor:
    """The statistic of one tensor as a 0-d float32 tensor on its device (NaN with no finite cell). A recipe
    plane is read one block at a time (never the whole tokens² plane at once)."""
    import torch
    if statistic not in STATISTICS:
        raise ValueError(f"unknown statistic {statistic!r}; choose one of {', '.join(STATISTICS)}")
    blocks = (block for _, _, block in tensor.blocks()) if isinstance(tensor, Plane) else iter([tensor])
    parts = [_part(block, kind, statistic) for block in blocks]  # each block let go once its part is taken
    count = sum((count for _, count in parts[1:]), parts[0][1])
    if statistic in (RMS, NORM):
        squares = sum((total for total, _ in parts[1:]), parts[0][0])
        value = torch.sqrt(squares / count.clamp(min=1) if statistic == RMS else squares)
    else:
        value = torch.stack([total for total, _ in parts]).amax() if tensor.numel() else None
    nan = torch.full((), float("nan"), device=count.device)
    return nan if value is None else torch.where(count > 0, value, nan)


def _part(tensor: Tensor, kind: str, statistic: str) -> tuple[Tensor, Tensor]:
    """(sum of squares, or largest |x|; count) of the finite, unmasked cells of one tensor or block."""
    import torch
    x = tensor.float()
    keep = torch.isfinite(x) & ~masked_cells(tensor, kind)
    zero = torch.zeros((), device=x.device)
    if statistic in (RMS, NORM):
        return torch.where(keep, x * x, zero).sum(), keep.sum()
    return (torch.where(keep, x.abs(), zero).amax() if x.numel() else zero), keep.sum()


def stage_statistics(captures: Sequence[Capture], statistic: str,
                     tensor: Callable[[Capture], Tensor | None] | None = None,
                     tick: Callable[[], None] | None = None) -> list[float]:
    """`statistic` (RMS, MAX_ABS or NORM) of every capture, in order; `tensor(capture)` reads one not in memory;
    `tick()` is called after each capture (a server keeps its heartbeat going through a long request)."""
    import torch
    values: list[Tensor] = []
    for capture in captures:
        if tick is not None and values:
            tick()
        t = capture.tensor if capture.tensor is not None or tensor is None else tensor(capture)
        if t is None or not (t.is_floating_point() or t.dtype == torch.bool) or t.numel() == 0:
            values.append(torch.full((), float("nan")))
        else:
            values.append(_statistic(t, capture.info.kind, statistic))
    out = [float("nan")] * len(values)
    by_device: dict[torch.device, list[int]] = {}
    for i, v in enumerate(values):
        by_device.setdefault(v.device, []).append(i)
    for indices in by_device.values():
        for i, v in zip(indices, torch.stack([values[i] for i in indices]).cpu().tolist()):
            out[i] = v
    return out


def layer_starts(names: Sequence[str]) -> list[tuple[int, str]]:
    """(position, label) where a new layer (or a stage outside layers after one) begins, for boundary marks."""
    marks: list[tuple[int, str]] = []
    previous: str | None = None
    for i, name in enumerate(names):
        parsed = parse_name(name)
        group = parsed.layer_id or parsed.prefix + parsed.stack
        if group != previous and i > 0:
            marks.append((i, group))
        previous = group
    return marks


class StatisticsCache:
    """Each stage's statistics, computed once (kept by the display worker, read on the GUI thread: a lock guards
    them). A stage is known by the identity of `held(capture)`: by default its tensor, when in memory (an edit or
    a restart makes new tensors); a served pass's display passes the capture itself (the window's description of
    the server's stage, made anew by a new pass and by an edit). A weak reference tells a reused id from the object
    it was computed for. A stage with nothing held (a snapshot's stage read from its file and not kept) is known
    by its name."""

    def __init__(self, held: Callable[[Capture], object | None] = lambda capture: capture.tensor):
        self._held = held
        self._lock = threading.Lock()
        self._by_object: dict[str, dict[int, tuple[ref, float]]] = {}  # statistic -> {id(held): (ref, value)}
        self._by_name: dict[tuple[str, str], float] = {}  # (statistic, stage) of a stage with nothing held

    def known(self, captures: Sequence[Capture], statistic: str) -> list[float | None]:
        """The `statistic` of each capture as it is now, None where it was not computed."""
        with self._lock:
            by_object = self._by_object.setdefault(statistic, {})
            if len(by_object) > 4 * len(captures):  # what went (edits, restarts, other passes): forgotten
                by_object = self._by_object[statistic] = {k: v for k, v in by_object.items() if v[0]() is not None}
            out: list[float | None] = []
            for capture in captures:
                held = self._held(capture)
                if held is None:
                    out.append(self._by_name.get((statistic, capture.name)))
                else:
                    entry = by_object.get(id(held))
                    out.append(entry[1] if entry is not None and entry[0]() is held else None)
            return out

    def keep(self, captures: Sequence[Capture], statistic: str, values: Sequence[float]) -> None:
        """`values[i]` is the `statistic` of `captures[i]` as it is now."""
        with self._lock:
            by_object = self._by_object.setdefault(statistic, {})
            for capture, value in zip(captures, values):
                held = self._held(capture)
                if held is None:
                    self._by_name[(statistic, capture.name)] = value
                else:
                    by_object[id(held)] = (ref(held), value)
