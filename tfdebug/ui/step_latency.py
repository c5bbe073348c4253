"""Step latency: from a stage change to the heatmap repainted, in the real window (offscreen Qt).

Used by `tfdebug bench`; it lives in ui/ because it drives the window.

A replay of two stages holding N×N attention-like matrices; each step moves to the
other one, and the clock stops once the heatmap widget has painted the new image.
"""

from __future__ import annotations

import os
import tempfile
import time

import torch
from PySide6.QtCore import QSettings
from PySide6.QtWidgets import QApplication

from tfdebug.core.recorder import Capture
from tfdebug.core.stages import StageInfo
from tfdebug.core.stepper import Stepper
from tfdebug.ui.window import MainWindow

_NAMES = ("enc.0.attn.scaled", "enc.0.attn.probs")


def _captures(n: int) -> list[Capture]:
    generator = torch.Generator().manual_seed(n)
    out = []
    for name, kind in zip(_NAMES, ("scale", "softmax")):
        info = StageInfo(name=name, kind=kind, site="enc.attn", layer=0, axes=("batch", "head", "query", "key"),
                         formula="bench")
        tensor = torch.randn(1, 1, n, n, generator=generator)
        out.append(Capture.of(info, tensor.softmax(-1) if kind == "softmax" else tensor))
    return out


def _drain(app, rounds: int = 5) -> None:
    for _ in range(rounds):
        app.processEvents()


def step_latency(sizes: tuple[int, ...], repeats: int) -> dict[int, list[float]]:
    """Milliseconds of each timed step, per N×N slice size (needs a QApplication-capable platform)."""
    app = QApplication.instance() or QApplication([])
    timings: dict[int, list[float]] = {}
    with tempfile.TemporaryDirectory(prefix="tfdebug-bench-") as folder:
        settings = QSettings(os.path.join(folder, "bench.ini"), QSettings.IniFormat)
        window = MainWindow(settings=settings, models=["random"], devices=["cpu"])
        window.resize(1600, 1000)
        window.show()
        app.processEvents()
        panel = window.heatmap_panel
        for n in sizes:
            stepper = Stepper.replay(_captures(n))
            window.load_replay(stepper, {"src": [], "tgt": []}, f"bench {n}×{n}")
            app.processEvents()
            times = []
            for r in range(repeats + 2):
                _drain(app)  # work deferred by the previous step (stats panel, head thumbnails)
                target = (stepper.cursor + 1) % 2
                start = time.perf_counter()
                stepper.goto(target)
                deadline = start + 30
                while window.ctl.current is not stepper.history[target] and time.perf_counter() < deadline:
                    app.processEvents()
                panel.graphics.repaint()  # paint now, synchronously, what the user would see
                elapsed = (time.perf_counter() - start) * 1000.0
                if r >= 2:  # the first two steps warm caches
                    times.append(elapsed)
            timings[n] = times
        window.ctl.close()
        window.close()
        window.deleteLater()
        app.processEvents()
    return timings
