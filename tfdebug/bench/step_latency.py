"""Step latency to the painted pixel, in the real window (offscreen Qt).

Used by `tfdebug bench` (bench may import ui: it drives the real window).

A pass whose stages alternate between two N×N attention-like matrices (two heads each,
so the Heads panel has work too), from one of two sources: "memory", the stages held in
memory (what stepping through a live pass's history shows), and "snapshot", the same
stages saved to a snapshot file and opened through File ▸ Open (each stage read from the
file when needed). Each timed step is a real F10 key press on the window, pressed once the
window is idle (the display worker has also prepared the neighbouring stages, as it does
while a person looks at a stage). Three clocks stop per step (tfdebug.bench.window_clock):
the heatmap painted, the stage named everywhere, every panel settled. The same clocks on a
real model's snapshot opened as `tfdebug open` opens it are in tfdebug.bench.user_path.
"""

from __future__ import annotations

import os
import tempfile
import time
from typing import Callable

import torch

from tfdebug.bench.window_clock import TIMEOUT_S, PaintClock, bench_window, one_step, quiet_qt_messages, wait
from tfdebug.core.recorder import Capture
from tfdebug.core.stages import StageInfo
from tfdebug.core.stepper import Stepper
from tfdebug.io.recording import Recording
from tfdebug.io.snapshot import save_snapshot
from tfdebug.ui.shell.probe import next_events, press, pump
from tfdebug.ui.shell.window import MainWindow

__all__ = ["SOURCES", "WARMUP", "live_step_latency", "live_steps", "quiet_qt_messages", "step_latency"]
WARMUP = 2
_KINDS = (("scaled", "scale"), ("probs", "softmax"))
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


def _load(window: MainWindow, source: str, captures: list[Capture], folder: str, title: str) -> Stepper:
    """Show `captures` in the window from `source`; the stepper once its first stage is drawn."""
    if source == "memory":
        window.ctl.load_replay(Stepper.replay(captures), {"src": [], "tgt": []}, title)
    else:
        path = os.path.join(folder, "bench.safetensors")
        save_snapshot(Recording(captures=captures, tokens={"src": [], "tgt": []}), path, durable=False)
        window.open_snapshot(path)  # read and checked on a worker thread, as File ▸ Open does
        wait(lambda: window.ctl.replayed is not None and window.ctl.replayed.path == path)
    wait(lambda: window.ctl.shown.current_slice is not None)
    return window.ctl.stepper


def step_latency(sizes: tuple[int, ...], repeats: int, sources: tuple[str, ...] = ("memory",)
                 ) -> dict[tuple[str, int], dict[str, list]]:
    """Per source and N×N slice size: {"painted": [ms…], "named": [ms…], "settled": [ms…], "gui_cpu": [the GUI
    thread's CPU ms…], "stages": [the kind of stage each step went to]} over `repeats` timed F10 presses (the steps
    alternate between a scale and a softmax stage, which cost differently: the A/A compares each kind with itself)."""
    timings: dict[tuple[str, int], dict[str, list]] = {}
    with tempfile.TemporaryDirectory(prefix="tfdebug-bench-") as folder, bench_window() as (window, clock):
        for n in sizes:
            for source in sources:
                stepper = _load(window, source, _captures(n, repeats + WARMUP), folder, f"bench {n}×{n}")
                window.activateWindow()
                pump(20)
                clocks: dict[str, list] = {"painted": [], "named": [], "settled": [], "gui_cpu": [], "stages": []}
                for r in range(repeats + WARMUP):
                    wait(lambda: not window.ctl.shown.reading_ahead())  # idle, as between a person's steps
                    target = stepper.history[stepper.cursor + 1]
                    times = one_step(window, clock, lambda target=target: window.ctl.current is target,
                                     target.name)
                    if r >= WARMUP:  # the first steps warm caches
                        for samples, value in zip(clocks.values(), (*times, clock.gui_cpu_ms, target.info.kind)):
                            samples.append(value)
                timings[(source, n)] = clocks
                window.ctl.close()  # a snapshot's file is released before the folder goes
    return timings


def _one_live_step(window: MainWindow, clock: PaintClock) -> float:
    """Press F10 on a live pass once; ms until the heatmap painted the stage it paused at."""
    ctl, heatmap = window.ctl, window.heatmap_panel
    clock.painted_slice = None
    before, previous = ctl.current, heatmap.slice
    start = time.perf_counter()
    deadline = start + TIMEOUT_S
    press(window, "F10")
    while time.perf_counter() < deadline:
        sl = heatmap.slice
        if (ctl.current is not None and ctl.current is not before and sl is not None and sl is not previous
                and clock.painted_slice is sl and ctl.current.name == ctl.stepper.current.name):
            break
        next_events()
    return (clock.painted_at - start) * 1000.0


def live_step_latency(passes: dict[str, Callable[[MainWindow], object]], repeats: int) -> dict[str, list[float]]:
    """Per named way of putting a live pass on the window (`show(window)`, e.g. a local DebugSession or a
    RemoteSession attached): ms from F10 to the painted heatmap over `repeats` timed steps. Each pass must
    have `repeats` + WARMUP stages after its first. What `show` returns is closed afterwards when it can be."""
    timings: dict[str, list[float]] = {}
    with bench_window() as (window, clock):
        for name, show in passes.items():
            shown = show(window)
            window.activateWindow()
            deadline = time.perf_counter() + TIMEOUT_S
            while (window.heatmap_panel.slice is None or not window.ctl.shown.settled()) \
                    and time.perf_counter() < deadline:
                next_events()
            samples = [_one_live_step(window, clock) for _ in range(repeats + WARMUP)]
            timings[name] = samples[WARMUP:]
            window.ctl.close()
            if hasattr(shown, "close"):
                shown.close()
            pump()
    return timings


def live_steps(spec: str, texts: dict[str, str], dtype: str, steps: int, timeout_s: float = 900.0) -> dict:
    """Open `spec` in the window as a person does (the input bar's model, texts and Precision, then
    Ctrl+Return) and press F10 `steps` times. Returns seconds from Run to the pass on screen (load and
    plan) and to the first stage's painted heatmap, and per step the stage and ms to its painted heatmap
    and to every panel settled."""
    with bench_window(heads=False, models=["random"], devices=["cpu"], persist=False) as (window, clock):
        ctl, heatmap = window.ctl, window.heatmap_panel
        window.input_bar.set_values(spec, "cpu", texts, (dtype, None))
        window.activateWindow()
        start = time.perf_counter()
        deadline = start + timeout_s
        press(window, "Return", control=True)
        on_screen = None
        while time.perf_counter() < deadline:
            if on_screen is None and ctl.session is not None:
                on_screen = time.perf_counter() - start
            if ctl.current is not None and heatmap.slice is not None and clock.painted_slice is heatmap.slice:
                break
            next_events()
        else:
            raise TimeoutError(f"{spec} did not show its first stage in {timeout_s:.0f} s")
        row: dict = {"run_to_pass_on_screen_s": on_screen, "run_to_first_stage_painted_s": clock.painted_at - start,
                     "first_stage": ctl.current.name, "dtype": str(ctl.current.dtype).removeprefix("torch."),
                     "steps": []}
        for _ in range(steps):
            before = ctl.current
            painted, _named, settled = one_step(window, clock, lambda before=before: ctl.current is not before
                                               and ctl.current is ctl.stepper.current, None, timeout_s=timeout_s)
            row["steps"].append({"stage": ctl.current.name, "painted_ms": painted, "settled_ms": settled})
    return row
