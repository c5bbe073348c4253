"""Clocks on the real window (offscreen Qt) for the step-latency probes of `tfdebug bench`.

Three clocks stop per F10 (`one_step`):

- "painted": the heatmap's image item has painted the new stage's image (its `paint` ran
  after the new slice was set — pyqtgraph converts data to colours inside paint, so this
  includes the colour lookup);
- "named": the stage's name is on screen everywhere it is written — the status bar, the
  heatmap's caption and the Stages tree's current row — (the end of the first window paint
  after all three say it);
- "settled": every visible panel is done: the display worker has delivered the slice,
  whole-tensor stats, head thumbnails and the Explain dock's checks, and no widget repainted
  in a further pass of the event loop (the settle time is when the window's last paint
  finished, whichever panel it drew).

Beside them, `PaintClock.gui_cpu_ms`: the GUI thread's CPU time from the key to that last paint, the
work the step cost the window whatever else the machine runs (on a busy machine the clocks also count
the time the GUI thread waited for a core).
"""

from __future__ import annotations

import time
from contextlib import contextmanager
from typing import Callable

from tfdebug.ui.shell.probe import image_paints, next_events, press, probe_window, quiet_qt_messages, watch_paints
from tfdebug.ui.shell.window import MainWindow

__all__ = ["PaintClock", "bench_window", "named", "one_step", "quiet_qt_messages", "settled", "wait"]

TIMEOUT_S = 30.0
QUIET_S = 0.1  # no paint for this long after the last result: the window is settled


class PaintClock:
    """Records when the heatmap image painted a given slice, when the window last painted, and when a
    paint first showed the stage named `naming` everywhere.

    The image item's paint is patched before the window exists (PySide resolves a Python
    override of a virtual method once); the window's paints are timed by an event filter.
    """

    def __init__(self):
        self.window: MainWindow | None = None
        self.painted_slice = None
        self.painted_at = 0.0
        self.last_paint = 0.0
        self.last_paint_cpu = 0.0  # the GUI thread's CPU time (time.thread_time) when the last paint ended
        self.gui_cpu_ms = 0.0  # the last step's GUI thread CPU time, key to settled
        self.naming: str | None = None  # the stage whose name is awaited
        self.named_at: float | None = None

    @contextmanager
    def installed(self):
        def image_painted(item) -> None:
            heatmap = self.window.heatmap_panel if self.window is not None else None
            if heatmap is not None and item is heatmap.image:
                self.painted_slice, self.painted_at = heatmap.slice, time.perf_counter()
        with image_paints(image_painted):
            yield self

    def watch(self, window: MainWindow) -> None:
        self.window = window
        watch_paints(window, self.painted)

    def painted(self) -> None:
        """A window paint just ended."""
        self.last_paint, self.last_paint_cpu = time.perf_counter(), time.thread_time()
        if self.naming is not None and self.named_at is None and named(self.window, self.naming):
            self.named_at = self.last_paint


def named(window: MainWindow, name: str) -> bool:
    """Whether the status bar, the heatmap's caption and the Stages tree's current row all say `name`."""
    nav = window.navigator
    return (window.status_stage.text().endswith(f" · {name}") and window.heatmap_panel.caption.text().startswith(name)
            and nav.current_item() is not None and nav.current_item() is nav.items.get(name))


def settled(window: MainWindow) -> bool:
    """Whether every panel has what it shows: slice, stats, display jobs, the Heads dock."""
    ctl = window.ctl
    heads = window.heads_panel
    # A stage above the size limit has no whole-tensor stats (its slice's stand in): waiting for them timed
    # every step of an 8k pass out at TIMEOUT_S.
    return (ctl.shown.current_slice is not None and (ctl.shown.current_stats is not None or ctl.shown.is_large())
            and ctl.shown.settled() and heads.settled())


def one_step(window: MainWindow, clock: PaintClock, arrived: Callable[[], bool], name: str | None,
             back: bool = False, timeout_s: float = TIMEOUT_S) -> tuple[float, float | None, float]:
    """Press F10 (Shift+F10 when `back`) once; ms to the painted heatmap, to the stage `name` named
    everywhere (None when `name` is None: a live pass's next stage is not known before it pauses) and
    until every panel settled (and the GUI thread's CPU ms until then in `clock.gui_cpu_ms`).
    `arrived()` tells when the window shows the stage the step goes to."""
    clock.painted_slice, clock.naming, clock.named_at = None, name, None
    heatmap = window.heatmap_panel
    # The heatmap's own slice (ctl.shown.current_slice is replaced once a large slice's mean and std arrive).
    previous = heatmap.slice  # shown until the new slice arrives (from the worker, for large ones)
    start, cpu = time.perf_counter(), time.thread_time()
    deadline = start + timeout_s
    press(window, "F10", shift=back)
    while time.perf_counter() < deadline:
        sl = heatmap.slice
        # The new stage's own slice painted: a repaint of the previous image does not count.
        if arrived() and sl is not None and sl is not previous and clock.painted_slice is sl:
            break
        next_events()  # sleep until something happens: no spinning
    painted = clock.painted_at
    # Settled: every result delivered, then no widget painted for a quiet period (the
    # scene's queued updates take a few passes of the event loop to reach the screen).
    while time.perf_counter() < deadline:
        next_events()
        if (arrived() and settled(window) and (name is None or clock.named_at is not None)
                and time.perf_counter() - max(clock.last_paint, painted) > QUIET_S):
            break
    named_ms = None if name is None else ((clock.named_at or deadline) - start) * 1000.0
    clock.naming = None
    clock.gui_cpu_ms = max(0.0, clock.last_paint_cpu - cpu) * 1000.0
    return (painted - start) * 1000.0, named_ms, (max(clock.last_paint, painted) - start) * 1000.0


def wait(condition, timeout_s: float = TIMEOUT_S) -> bool:
    """Run the event loop until `condition()` or the timeout; whether the condition came true."""
    deadline = time.perf_counter() + timeout_s
    while not condition():
        if time.perf_counter() > deadline:
            return False
        next_events()
    return True


@contextmanager
def bench_window(heads: bool = True, **window_args):
    """(window, clock): a probe window (tfdebug.ui.shell.probe.probe_window) with its paints timed."""
    with PaintClock().installed() as clock, probe_window(heads, **window_args) as window:
        clock.watch(window)
        yield window, clock
