"""Step latency on the user's path: a real model's snapshot opened as `tfdebug open` opens it.

The bundled demo translator (a copy whose `max_seq_len` holds the prompt) is captured by
`tfdebug capture` in a process of its own, as a person runs it: the source "i love you apple"
repeated to N tokens, the target 我, the first encoder layer's attention stages. The snapshot is
opened in a window with the default docks (File ▸ Open's path, token labels on the axes), at
`enc.0.attn.q_split`; then F10 through q_split → … → probs and Shift+F10 back, each step timed by
the three clocks of tfdebug.bench.window_clock (heatmap painted, stage named everywhere, settled).
The synthetic planes of tfdebug.bench.step_latency are the same clocks on made-up stages.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from tfdebug.bench.window_clock import bench_window, one_step, wait

FIRST, LAST = "enc.0.attn.q_split", "enc.0.attn.probs"
WORDS = "i love you apple"  # four source tokens of the demo's vocabulary
WARMUP = 2
ROUND_TRIPS = 5  # every (stage, direction) four times after its first visit: two pairs each for the A/A


def capture_snapshot(n: int, folder: str, timeout_s: float = 600.0) -> str:
    """`tfdebug capture` of the demo translator on an N-token source into `folder`; the snapshot's path."""
    from tfdebug.models.bundled import demo_dir

    model = Path(folder) / f"demo-{n}"  # one copy per length: its config says the length
    shutil.copytree(demo_dir(), model)
    config = json.loads((model / "config.json").read_text())
    config["max_seq_len"] = config["block_size"] = n + 64  # the positional table covers the prompt
    (model / "config.json").write_text(json.dumps(config))
    path = os.path.join(folder, f"demo-{n}.safetensors")
    source = " ".join([WORDS] * (n // len(WORDS.split())))
    subprocess.run([sys.executable, "-m", "tfdebug", "capture", "--model", str(model), "--device", "cpu",
                    "--src", source, "--tgt", "我", "--stages", "enc.0.attn.*", "--quiet", "--out", path],
                   check=True, timeout=timeout_s, capture_output=True)
    return path


def user_path_latency(sizes: tuple[int, ...], repeats: int) -> dict[int, dict[str, list]]:
    """Per source length N (the attention planes are N×N): {"painted", "named", "settled": [ms…], "stages":
    [each step's stage and direction], "gui_cpu": [the GUI thread's CPU ms…], "again": [whether the step went where
    an earlier timed step went]} over at least `repeats` timed steps (F10 to probs, then Shift+F10 back to q_split,
    and on): ROUND_TRIPS at least, so that every stage is reached in each direction four times after its first
    visit (the A/A pairs steps to the same stage the same way, on stages already shown)."""
    timings: dict[int, dict[str, list]] = {}
    with tempfile.TemporaryDirectory(prefix="tfdebug-user-path-") as folder:
        for n in sizes:
            path = capture_snapshot(n, folder)
            with bench_window(heads=False) as (window, clock):  # the default docks
                ctl = window.ctl
                window.open_snapshot(path)  # read and checked on a worker thread, as File ▸ Open does
                wait(lambda: ctl.current is not None)
                ctl.steps.run_to(FIRST)  # tfdebug open --goto
                wait(lambda: ctl.current is not None and ctl.current.name == FIRST)
                names = [c.name for c in ctl.stepper.history]
                first, last = names.index(FIRST), names.index(LAST)
                clocks: dict[str, list] = {"painted": [], "named": [], "settled": [], "stages": [], "gui_cpu": [],
                                           "again": []}
                back = False
                for r in range(max(repeats, ROUND_TRIPS * 2 * (last - first)) + WARMUP):
                    wait(lambda: ctl.shown.settled() and not ctl.shown.reading_ahead())  # a person looks
                    at = names.index(ctl.current.name)
                    back = (back or at == last) and at != first
                    target = names[at - 1 if back else at + 1]
                    times = one_step(window, clock, lambda target=target: ctl.current is not None
                                     and ctl.current.name == target, target,
                                     back)
                    if r >= WARMUP:
                        label = (target, back)
                        again = label in clocks["stages"]
                        for samples, value in zip(clocks.values(), (*times, label, clock.gui_cpu_ms, again)):
                            samples.append(value)
                timings[n] = clocks
    return timings
