"""`tfdebug bench --real-size --in-window --whole-pass`: the Llama-3.2-1B shape stepped to its end in the window.

The acceptance run of a real-size long prompt (issue 35): the random model of
`tfdebug.bench.real_size` in bfloat16, opened in the window (offscreen) as a person does — the
capture budget chosen in Debug ▸ Capture Budget…, the folder in the Model box, Precision
bfloat16, Ctrl+Return — then F10 pressed until the pass ends, each stage's heatmap painted
before the next press. Rows: the stages the plan has and the stages F10 reached, seconds to
the first painted stage and for the stepped pass, the slowest steps, the bytes kept against
the weights, peak RSS (sampled every 0.2 s, and the kernel's high-water mark of the window's
process; the model is built and saved in a child process so its build does not count), and
the check against the unmodified model when it ends within `verify_timeout_s` (or why the window left it out). Each step is
also written to `log` (one JSON object a line) as it happens: the run takes long on a CPU.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from tfdebug.bench.real_size import WORDS, _header, _peak, _rss


class _RssSampler:
    """The process's largest RSS seen, sampled in a thread while `with` lasts."""

    def __init__(self, every_s: float = 0.2):
        self.every_s, self.peak, self._stop = every_s, 0, threading.Event()
        self._thread = threading.Thread(target=self._run, name="rss-sampler", daemon=True)

    def _run(self) -> None:
        while not self._stop.is_set():
            self.peak = max(self.peak, _rss())
            self._stop.wait(self.every_s)

    def __enter__(self) -> "_RssSampler":
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        self._thread.join()


def _build_in_child(folder: Path, tiny: bool) -> dict:
    """Build and save the random model in a child process; its rows (build_s, save_s, parameters …)."""
    code = ("import json, sys; from pathlib import Path; from tfdebug.bench.real_size import "
            "_build_and_save, TINY, LLAMA_1B; row = {}; "
            "_build_and_save(TINY if sys.argv[2] == '1' else LLAMA_1B, Path(sys.argv[1]), row); print(json.dumps(row))")
    done = subprocess.run([sys.executable, "-c", code, str(folder), "1" if tiny else "0"], capture_output=True,
                          text=True, check=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def whole_pass_in_window(seq_len: int = 4096, budget_mb: float | None = None, tiny: bool = False,
                         log: str | None = None, step_timeout_s: float = 3600.0,
                         verify_timeout_s: float = 1800.0) -> dict:
    """Every row of the section (see the module docstring)."""
    import os

    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    import transformers  # noqa: F401  (imported before the clock starts)

    from tfdebug.bench.window_clock import bench_window, quiet_qt_messages, wait
    from tfdebug.core.recorder import held_bytes
    from tfdebug.core.stepper import FINISHED
    from tfdebug.sessions.peak import peak_of
    from tfdebug.ui.shell.probe import choose_capture_budget, press

    row = _header(tiny, seq_len)
    row["budget_mb"] = budget_mb
    out = open(log, "a", encoding="utf-8") if log else None  # noqa: SIM115  (closed in finally)

    def note(entry: dict) -> None:
        if out is not None:
            out.write(json.dumps(entry) + "\n")
            out.flush()
    try:
        with tempfile.TemporaryDirectory(prefix="tfdebug-real-size-") as tmp:
            folder = Path(tmp)
            row.update(_build_in_child(folder, tiny))
            note({"built": row})
            prompt = " ".join(f"w{i % WORDS}" for i in range(seq_len))
            with quiet_qt_messages(), _RssSampler() as rss, \
                    bench_window(heads=False, models=["random"], devices=["cpu"], persist=False) as (window, clock):
                ctl, heatmap = window.ctl, window.heatmap_panel
                choose_capture_budget(window, budget_mb)
                window.input_bar.set_values(f"hf:{folder}", "cpu", {"prompt": prompt}, ("bfloat16", None))
                window.activateWindow()
                start = time.perf_counter()
                press(window, "Return", control=True)
                if not wait(lambda: ctl.current is not None and heatmap.slice is not None
                             and clock.painted_slice is heatmap.slice, step_timeout_s):
                    raise TimeoutError("the pass did not show its first stage")
                session = ctl.session
                row["first_stage_painted_s"] = time.perf_counter() - start
                row["budget_bytes"] = session.max_capture_bytes
                row["stated_peak_bytes"] = peak_of(session).total
                plan = session.plan.names()
                reached, steps = [ctl.current.name], []
                note({"first": reached[0], "s": row["first_stage_painted_s"], "rss": _rss()})
                stepper = ctl.stepper
                start = time.perf_counter()
                while stepper.state != FINISHED:
                    before, previous, clock.painted_slice = ctl.current, heatmap.slice, None
                    step_start = time.perf_counter()
                    press(window, "F10")
                    if not wait(lambda: stepper.state == FINISHED or (
                            ctl.current is not before and ctl.current is stepper.current and heatmap.slice is not None
                            and heatmap.slice is not previous and clock.painted_slice is heatmap.slice),
                            step_timeout_s):
                        raise TimeoutError(f"F10 after {before.name} showed no stage in {step_timeout_s:.0f} s")
                    if ctl.current is not before:
                        ms = (clock.painted_at - step_start) * 1000.0
                        reached.append(ctl.current.name)
                        steps.append((ms, ctl.current.name))
                        note({"stage": ctl.current.name, "painted_ms": round(ms, 1), "rss": _rss(),
                              "t": round(time.perf_counter() - start, 1)})
                row["stepped_pass_s"] = time.perf_counter() - start
                row["stages"], row["reached"] = len(plan), len(reached)
                row["every_stage_reached_by_f10"] = reached == list(plan)
                row["not_reached"] = [name for name in plan if name not in set(reached)][:20]
                row["slowest_steps"] = [{"stage": s, "painted_ms": round(ms, 1)} for ms, s in sorted(steps)[-8:]]
                row["kept_bytes"] = held_bytes(stepper.history)
                row["kept_stages"] = sum(c.tensor is not None for c in stepper.history)
                row["recipe_stages"] = sum(bool(c.recipe) for c in stepper.history)
                estimate = session.capture_estimate()
                row["plan_bytes"], row["dropped"] = estimate.total_bytes, len(estimate.dropped)
                row["weights_bytes"] = sum(p.numel() * p.element_size()
                                           for p in session.adapter.module.parameters())
                row["rss_after_pass_bytes"] = _rss()
                note({"finished": True, "rss": row["rss_after_pass_bytes"], "kept_bytes": row["kept_bytes"]})
                verify_start = time.perf_counter()
                # A check the window leaves out (Debug ▸ Check Against the Model, or its memory not free) says so.
                ended = wait(lambda: ctl.loader.verification is not None or bool(ctl.loader.unverified),
                             verify_timeout_s)
                row["verify_s"] = time.perf_counter() - verify_start
                check = ctl.loader.verification
                row["verified"] = None if not ended or check is None else bool(check.ok)
                row["unverified"] = str(ctl.loader.unverified)
            row["sampled_peak_rss_bytes"] = rss.peak
    finally:
        if out is not None:
            out.close()
    row = _peak(row)
    row["peak_over_weights_and_kept"] = row["peak_rss_bytes"] / max(1, row["weights_bytes"] + row["kept_bytes"])
    return row
