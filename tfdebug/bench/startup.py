"""The window's start to its first painted stage, in fresh processes (`tfdebug bench --section startup`).

Each run starts `python -m tfdebug.ui.workers.first_paint` and reads the seconds it reports
from just before the process was started: the interpreter, torch, PySide6, pyqtgraph and the
window's modules imported, the window shown, and the heatmap's first painted stage. The files
are in the page cache after the first run (a truly cold start, after a reboot, reads them
from disk too); the first run is reported on its own.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time

from tfdebug.bench.runner import load_average
from tfdebug.bench.timing import median

PHASES = ("interpreter", "torch", "pyside6", "pyqtgraph", "tfdebug_ui", "window_shown", "painted")


def first_paint_run(model: str, timeout_s: float = 180.0) -> dict:
    """One fresh process: seconds from its start to each phase."""
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen")
    t0 = time.time()
    done = subprocess.run([sys.executable, "-m", "tfdebug.ui.workers.first_paint", model, repr(t0)],
                          capture_output=True, text=True, timeout=timeout_s, env=env, check=False)
    lines = [line for line in done.stdout.splitlines() if line.startswith("{")]
    if done.returncode != 0 or not lines:
        raise RuntimeError(f"the first-paint probe failed (exit {done.returncode}): {done.stderr.strip()[-300:]}")
    return json.loads(lines[-1])


def startup_section(model: str = "demo", runs: int = 3) -> dict:
    """`runs` fresh starts: the first one's phases, and the median of each phase over the rest."""
    results, loads = [], []
    for _ in range(runs):
        results.append(first_paint_run(model))
        loads.append(load_average())
    rest = results[1:] or results
    return {"model": model, "runs": results, "load_after_each": loads, "first": results[0],
            "median_after_first": {p: round(median([r[p] for r in rest]), 3) for p in PHASES}}
