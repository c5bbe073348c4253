"""The window's start to its first painted stage, in fresh processes (`tfdebug bench --section startup`).

Each run starts `python -m tfdebug.ui.first_paint` and reads the seconds it reports
from just before the process was started: the interpreter, PySide6, pyqtgraph and the window's
modules imported, the window shown, torch imported behind it, and the heatmap's first painted
stage. The files are in the page cache after the first run (a truly cold start, after a reboot,
reads them from disk too); the first run is reported on its own.

`commands_startup` times the commands that only read files (`tfdebug --help`, `info` and
`info --json` on a small snapshot, and the window asked for a model folder that is not there,
which is refused) in fresh processes, start to exit, and says whether each imported torch or Qt
(none of them should).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time

from tfdebug.bench.noise import halves_ratio
from tfdebug.bench.runner import load_average
from tfdebug.bench.timing import median

PHASES = ("interpreter", "pyside6", "pyqtgraph", "tfdebug_ui", "window_shown", "torch", "painted")


def first_paint_run(model: str, timeout_s: float = 180.0) -> dict:
    """One fresh process: seconds from its start to each phase."""
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen")
    t0 = time.time()
    done = subprocess.run([sys.executable, "-m", "tfdebug.ui.first_paint", model, repr(t0)],
                          capture_output=True, text=True, timeout=timeout_s, env=env, check=False)
    lines = [line for line in done.stdout.splitlines() if line.startswith("{")]
    if done.returncode != 0 or not lines:
        raise RuntimeError(f"the first-paint probe failed (exit {done.returncode}): {done.stderr.strip()[-300:]}")
    return json.loads(lines[-1])


def startup_section(model: str = "demo", runs: int = 5) -> dict:
    """`runs` fresh starts: the first one's phases, the median of each phase over the rest, and the A/A of the
    rest (the later half's median first paint over the earlier half's)."""
    results, loads = [], []
    for _ in range(runs):
        results.append(first_paint_run(model))
        loads.append(load_average())
    rest = results[1:] or results
    return {"model": model, "runs": results, "load_after_each": loads, "first": results[0],
            "median_after_first": {p: round(median([r[p] for r in rest]), 3) for p in PHASES},
            "torch_at_show": any(r.get("torch_at_show") for r in results),
            "aa_ratio": halves_ratio([r["painted"] for r in rest])}


# Commands that read files only, timed from a fresh process's start to its exit ("{snapshot}": a small snapshot);
# missing_model: the window (the default command) on a model folder that is not there, refused (exit 2).
COMMANDS = {"help": ["--help"], "info": ["info", "{snapshot}"], "info_json": ["info", "--json", "{snapshot}"],
            "missing_model": ["--model", "hf:/no/such/folder"]}
REFUSED = {"missing_model"}
_PROBE = """
import json, sys
from tfdebug.cli import main
try:
    code = main(sys.argv[1:])
except SystemExit as exc:
    code = exc.code
sys.stdout.flush()
sys.stderr.write("@@" + json.dumps(sorted(m for m in ("torch", "PySide6") if m in sys.modules)) + "\\n")
sys.exit(code or 0)
"""


def _command_run(args: list[str], code: int = 0, timeout_s: float = 60.0) -> tuple[float, list[str]]:
    """Seconds from a fresh `tfdebug ARGS` process's start to its exit (with exit status `code`), and which of
    torch / PySide6 it imported."""
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-c", _PROBE, *args], capture_output=True, text=True, timeout=timeout_s,
                          check=False)
    seconds = time.perf_counter() - start
    marks = [line for line in done.stderr.splitlines() if line.startswith("@@")]
    if done.returncode != code or not marks:
        raise RuntimeError(f"tfdebug {' '.join(args)} failed (exit {done.returncode}): {done.stderr.strip()[-300:]}")
    return seconds, json.loads(marks[-1][2:])


def commands_startup(runs: int = 5) -> dict:
    """Each command of COMMANDS `runs` times on a snapshot of the `random` model: median seconds, imports."""
    out: dict[str, dict] = {}
    with tempfile.TemporaryDirectory(prefix="tfdebug-bench-") as folder:
        snapshot = os.path.join(folder, "pass.safetensors")
        made = subprocess.run([sys.executable, "-m", "tfdebug", "capture", "--model", "random", "--out", snapshot],
                              capture_output=True, text=True, timeout=300, check=False)
        if made.returncode != 0:
            raise RuntimeError(f"the snapshot for the start-up commands could not be written: {made.stderr[-300:]}")
        for name, template in COMMANDS.items():
            args = [a.format(snapshot=snapshot) for a in template]
            timed = [_command_run(args, 2 if name in REFUSED else 0) for _ in range(runs)]
            out[name] = {"args": template, "runs": runs, "median_s": round(median([t for t, _ in timed]), 3),
                         "max_s": round(max(t for t, _ in timed), 3), "imported": timed[-1][1],
                         "snapshot_bytes": os.path.getsize(snapshot)}
    return out
