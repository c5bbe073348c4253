"""Step latency to the painted pixel, in the real window (offscreen Qt).

Used by `tfdebug bench`; it lives in ui/ because it drives the window.

A pass whose stages alternate between two N×N attention-like matrices (two heads each,
so the Heads panel has work too), from one of two sources: "memory", the stages held in
memory (what stepping through a live pass's history shows), and "snapshot", the same
stages saved to a snapshot file and opened through File ▸ Open (each stage read from the
file when needed). Each timed step is a real F10 key press on the window, pressed once the
window is idle (the display worker has also prepared the neighbouring stages, as it does
while a person looks at a stage). Two clocks stop per step:

- "painted": the heatmap's image item has painted the new stage's image (its `paint`
  ran after the new slice was set — pyqtgraph converts data to colours inside paint,
  so this includes the colour lookup);
- "settled": every visible panel is done: the display worker has delivered the slice,
  whole-tensor stats, head thumbnails and the Explain panel's checks, and no widget
  repainted in a further pass of the event loop (the settle time is when the window's
  last paint finished, whichever panel it drew).
"""

from __future__ import annotations

import contextlib
import os
import tempfile
import time
from contextlib import contextmanager
from typing import Callable

import pyqtgraph as pg
import torch
from PySide6.QtCore import QEvent, QEventLoop, QObject, QSettings, Qt, QTimer
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication

from tfdebug.core.recorder import Capture
from tfdebug.core.stages import StageInfo
from tfdebug.core.stepper import Stepper
from tfdebug.io.recording import Recording
from tfdebug.io.snapshot import save_snapshot
from tfdebug.ui.shell.window import MainWindow

WARMUP = 2
_KINDS = (("scaled", "scale"), ("probs", "softmax"))
_TIMEOUT_S = 30.0
_QUIET_S = 0.1  # no paint for this long after the last result: the window is settled
SOURCES = ("memory", "snapshot")


def _captures(n: int, steps: int) -> list[Capture]:
    """`steps` + 1 stages alternating between two (1, 2, n, n) tensors (shared: memory stays 2 tensors)."""
    generator = torch.Generator().manual_seed(n)
    scores = torch.randn(1, 2, n, n, generator=generator)
    tensors = {"scale": scores, "softmax": scores.softmax(-1)}
    out = []
    for i in range(steps + 1):
        stage, kind = _KINDS[i % 2]
        info = StageInfo(name=f"enc.{i // 2}.attn.{stage}", kind=kind, site="enc.attn", layer=i // 2,
                         axes=("batch", "head", "query", "key"), formula="bench")
        out.append(Capture.of(info, tensors[kind]))
    return out


class _PaintClock:
    """Records when the heatmap image painted a given slice, and when the window last painted.

    The image item's paint is patched before the window exists (PySide resolves a Python
    override of a virtual method once); the window's paints are timed by an event filter.
    """

    def __init__(self):
        self.window: MainWindow | None = None
        self.painted_slice = None
        self.painted_at = 0.0
        self.last_paint = 0.0

    @contextmanager
    def installed(self):
        image_paint = pg.ImageItem.paint
        clock = self

        def paint(item, *args):
            result = image_paint(item, *args)
            heatmap = clock.window.heatmap_panel if clock.window is not None else None
            if heatmap is not None and item is heatmap.image:
                clock.painted_slice, clock.painted_at = heatmap.slice, time.perf_counter()
            return result

        pg.ImageItem.paint = paint
        try:
            yield self
        finally:
            pg.ImageItem.paint = image_paint

    def watch(self, window: MainWindow) -> None:
        self.window = window
        _WindowPaints(window, self)


class _WindowPaints(QObject):
    """Times the window's update requests: every widget of the window paints inside one (the
    heatmap's immediate paint sends one too), so the end of the last is when the last panel drew."""

    def __init__(self, window: MainWindow, clock: _PaintClock):
        super().__init__(window)
        self._clock = clock
        window.installEventFilter(self)

    def eventFilter(self, watched, event) -> bool:
        if event.type() == QEvent.UpdateRequest:
            watched.event(event)  # the paint itself, now, to see when it ends
            self._clock.last_paint = time.perf_counter()
            return True
        return False


def _settled(window: MainWindow) -> bool:
    ctl = window.ctl
    heads = window.heads_panel
    return (ctl.current_slice is not None and ctl.current_stats is not None
            and ctl.display_settled() and heads.settled())


def _one_step(app, window: MainWindow, clock: _PaintClock, arrived: Callable[[], bool],
              timeout_s: float = _TIMEOUT_S) -> tuple[float, float]:
    """Press F10 once; (ms to the painted heatmap, ms until every panel settled). `arrived()` tells
    when the window shows the stage the step goes to."""
    clock.painted_slice = None
    heatmap = window.heatmap_panel
    # The heatmap's own slice (ctl.current_slice is replaced once a large slice's mean and std arrive).
    previous = heatmap.slice  # shown until the new slice arrives (from the worker, for large ones)
    start = time.perf_counter()
    deadline = start + timeout_s
    QTest.keyClick(window, Qt.Key_F10)
    while time.perf_counter() < deadline:
        sl = heatmap.slice
        # The new stage's own slice painted: a repaint of the previous image does not count.
        if arrived() and sl is not None and sl is not previous and clock.painted_slice is sl:
            break
        app.processEvents(QEventLoop.WaitForMoreEvents)  # sleep until something happens: no spinning
    painted = clock.painted_at
    # Settled: every result delivered, then no widget painted for a quiet period (the
    # scene's queued updates take a few passes of the event loop to reach the screen).
    while time.perf_counter() < deadline:
        app.processEvents(QEventLoop.WaitForMoreEvents)
        if arrived() and _settled(window) and time.perf_counter() - max(clock.last_paint, painted) > _QUIET_S:
            break
    return (painted - start) * 1000.0, (max(clock.last_paint, painted) - start) * 1000.0


def _wait(app, condition) -> None:
    deadline = time.perf_counter() + _TIMEOUT_S
    while not condition() and time.perf_counter() < deadline:
        app.processEvents(QEventLoop.WaitForMoreEvents)


def _load(app, window: MainWindow, source: str, captures: list[Capture], folder: str, title: str) -> Stepper:
    """Show `captures` in the window from `source`; the stepper once its first stage is drawn."""
    if source == "memory":
        window.ctl.load_replay(Stepper.replay(captures), {"src": [], "tgt": []}, title)
    else:
        path = os.path.join(folder, "bench.safetensors")
        save_snapshot(Recording(captures=captures, tokens={"src": [], "tgt": []}), path, durable=False)
        window.open_snapshot(path)  # read and checked on a worker thread, as File ▸ Open does
        _wait(app, lambda: window.ctl.replayed is not None and window.ctl.replayed.path == path)
    _wait(app, lambda: window.ctl.current_slice is not None)
    return window.ctl.stepper


@contextmanager
def _bench_window():
    """(app, window, clock): an offscreen window of benchmark size with the Heads dock shown, its paints timed."""
    app = QApplication.instance() or QApplication([])
    with tempfile.TemporaryDirectory(prefix="tfdebug-bench-") as folder, _PaintClock().installed() as clock:
        settings = QSettings(os.path.join(folder, "bench.ini"), QSettings.IniFormat)
        window = MainWindow(settings=settings, models=["random"], devices=["cpu"])
        clock.watch(window)
        window.resize(1600, 1000)
        window.show()
        window.docks["heads"].show()
        app.processEvents()
        tick = QTimer()  # wakes the waiting loops at least every 5 ms
        tick.start(5)
        # A text field's blinking caret repaints every 500 ms whatever the step does; the
        # settled clock would count a blink that falls in its quiet period as panel work.
        flash = app.cursorFlashTime()
        app.setCursorFlashTime(0)
        try:
            yield app, window, clock
        finally:
            tick.stop()
            app.setCursorFlashTime(flash)
            window.ctl.close()
            window.close()
            window.deleteLater()
            app.processEvents()


def step_latency(sizes: tuple[int, ...], repeats: int, sources: tuple[str, ...] = ("memory",)
                 ) -> dict[tuple[str, int], dict[str, list[float]]]:
    """Per source and N×N slice size: {"painted": [ms…], "settled": [ms…]} over `repeats` timed F10 presses."""
    timings: dict[tuple[str, int], dict[str, list[float]]] = {}
    with tempfile.TemporaryDirectory(prefix="tfdebug-bench-") as folder, _bench_window() as (app, window, clock):
        for n in sizes:
            for source in sources:
                stepper = _load(app, window, source, _captures(n, repeats + WARMUP), folder, f"bench {n}×{n}")
                window.activateWindow()
                for _ in range(20):
                    app.processEvents()
                painted, settled = [], []
                for r in range(repeats + WARMUP):
                    _wait(app, lambda: not window.ctl.display.busy("ahead"))  # idle, as between a person's steps
                    target = stepper.history[stepper.cursor + 1]
                    p, s = _one_step(app, window, clock, lambda target=target: window.ctl.current is target)
                    if r >= WARMUP:  # the first steps warm caches
                        painted.append(p)
                        settled.append(s)
                timings[(source, n)] = {"painted": painted, "settled": settled}
                window.ctl.close()  # a snapshot's file is released before the folder goes
    return timings


def _one_live_step(app, window: MainWindow, clock: _PaintClock) -> float:
    """Press F10 on a live pass once; ms until the heatmap painted the stage it paused at."""
    ctl, heatmap = window.ctl, window.heatmap_panel
    clock.painted_slice = None
    before, previous = ctl.current, heatmap.slice
    start = time.perf_counter()
    deadline = start + _TIMEOUT_S
    QTest.keyClick(window, Qt.Key_F10)
    while time.perf_counter() < deadline:
        sl = heatmap.slice
        if (ctl.current is not None and ctl.current is not before and sl is not None and sl is not previous
                and clock.painted_slice is sl and ctl.current.name == ctl.stepper.current.name):
            break
        app.processEvents(QEventLoop.WaitForMoreEvents)
    return (clock.painted_at - start) * 1000.0


def live_step_latency(passes: dict[str, Callable[[MainWindow], object]], repeats: int) -> dict[str, list[float]]:
    """Per named way of putting a live pass on the window (`show(window)`, e.g. a local DebugSession or a
    RemoteSession attached): ms from F10 to the painted heatmap over `repeats` timed steps. Each pass must
    have `repeats` + WARMUP stages after its first. What `show` returns is closed afterwards when it can be."""
    timings: dict[str, list[float]] = {}
    with _bench_window() as (app, window, clock):
        for name, show in passes.items():
            shown = show(window)
            window.activateWindow()
            deadline = time.perf_counter() + _TIMEOUT_S
            while (window.heatmap_panel.slice is None or not window.ctl.display_settled()) \
                    and time.perf_counter() < deadline:
                app.processEvents(QEventLoop.WaitForMoreEvents)
            samples = [_one_live_step(app, window, clock) for _ in range(repeats + WARMUP)]
            timings[name] = samples[WARMUP:]
            window.ctl.close()
            if hasattr(shown, "close"):
                shown.close()
            app.processEvents()
    return timings


def live_steps(spec: str, texts: dict[str, str], dtype: str, steps: int, timeout_s: float = 900.0) -> dict:
    """Open `spec` in the window as a person does (the input bar's model, texts and Precision, then
    Ctrl+Return) and press F10 `steps` times. Returns seconds from Run to the pass on screen (load and
    plan) and to the first stage's painted heatmap, and per step the stage and ms to its painted heatmap
    and to every panel settled."""
    app = QApplication.instance() or QApplication([])
    with tempfile.TemporaryDirectory(prefix="tfdebug-bench-") as folder, _PaintClock().installed() as clock:
        settings = QSettings(os.path.join(folder, "bench.ini"), QSettings.IniFormat)
        window = MainWindow(settings=settings, models=["random"], devices=["cpu"], persist=False)
        clock.watch(window)
        window.resize(1600, 1000)
        window.show()
        app.processEvents()
        tick = QTimer()  # wakes the waiting loops at least every 5 ms
        tick.start(5)
        ctl, heatmap = window.ctl, window.heatmap_panel
        window.input_bar.set_values(spec, "cpu", texts, (dtype, None))
        window.activateWindow()
        start = time.perf_counter()
        deadline = start + timeout_s
        QTest.keyClick(window, Qt.Key_Return, Qt.ControlModifier)
        on_screen = None
        while time.perf_counter() < deadline:
            if on_screen is None and ctl.session is not None:
                on_screen = time.perf_counter() - start
            if ctl.current is not None and heatmap.slice is not None and clock.painted_slice is heatmap.slice:
                break
            app.processEvents(QEventLoop.WaitForMoreEvents)
        else:
            raise TimeoutError(f"{spec} did not show its first stage in {timeout_s:.0f} s")
        row: dict = {"run_to_pass_on_screen_s": on_screen, "run_to_first_stage_painted_s": clock.painted_at - start,
                     "first_stage": ctl.current.name, "dtype": str(ctl.current.dtype).removeprefix("torch."),
                     "steps": []}
        for _ in range(steps):
            before = ctl.current
            painted, settled = _one_step(app, window, clock, lambda before=before: ctl.current is not before
                                         and ctl.current is ctl.stepper.current, timeout_s)
            row["steps"].append({"stage": ctl.current.name, "painted_ms": painted, "settled_ms": settled})
        tick.stop()
        ctl.close()
        window.close()
        window.deleteLater()
        app.processEvents()
    return row


@contextlib.contextmanager
def quiet_qt_messages():
    """Drop the offscreen platform plugin's chatter (e.g. "This plugin does not support
    propagateSizeHints()") while measuring: it says nothing about the measurement."""
    from PySide6.QtCore import qInstallMessageHandler

    def handler(mode, context, message):
        if "plugin" not in message and not (context.category or "").startswith("qt.qpa"):
            print(f"Qt: {message}")
    previous = qInstallMessageHandler(handler)
    try:
        yield
    finally:
        qInstallMessageHandler(previous)
