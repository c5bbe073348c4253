"""`tfdebug bench --section backward`'s window row: the real-size backward done in the window, as a person does it.

The model of `bench.backward_real` (SmolLM-135M's shape in float32, random weights; `tiny`: 2 layers) is saved as a
Hugging Face folder with a word-level tokenizer (in a process of its own, so its build is not resident here) and
opened in the real window (offscreen Qt, `bench.window_clock.bench_window`) through the input bar: the folder in the
Model box, Precision float32, a prompt of `seq_len` words, Ctrl+Return, then F5 to the pass's end and the check's verdict in the status bar. Before Debug ▸
Backward runs, the peak its path states and the budget it checks it against are read here with the window's own
functions (`sessions.backward_peak.check_backward_fits` on the window's pass, `core.budget.default_capture_budget`
with the forward's captures counted as free: what `sessions.gradient_session.make_room` checks before it lets them
go), then Ctrl+Shift+B, Return in the objective dialog (the next-token
loss over the prompt), and F10 pressed through the whole backward section (logits first, embeddings last), each
F10 timed to the stage's heatmap painted (`bench.window_clock.one_step`). The process's high-water mark is
restarted just before Ctrl+Shift+B (`bench.real_size._restart_peak`) and read after the backward and after the
last F10. Where the default budget refuses the backward in the window, the row gives the window's sentence and by
how much; nothing is raised.
Run in a child process of its own (`bench.child.run_child`).
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from contextlib import contextmanager
from pathlib import Path

from tfdebug.bench.backward_real import SHAPES as REAL_SHAPES

#: `smol135m`: bench.backward_real's real-size shape; `tiny` (tests): its 2-layer one
SHAPES = {"smol135m": REAL_SHAPES["smol135m"], "tiny": REAL_SHAPES["tiny"]}
TOKENS = {"smol135m": 2048, "tiny": 48}
MIB = 2**20
STEP_TIMEOUT_S = 600.0


def save_model(shape: str, folder: str) -> None:
    """Save a random float32 Llama of `shape` (`SHAPES`) and the word-level tokenizer in `folder`."""
    import torch

    from tfdebug.bench.real_size import LLAMA_1B, _tokenizer, build_random

    config = dict(LLAMA_1B, **SHAPES[shape], max_position_embeddings=2048)
    model = build_random(config, torch.float32)
    model.save_pretrained(folder)
    _tokenizer().save(str(Path(folder) / "tokenizer.json"))


def _save_in_child(shape: str, folder: Path) -> float:
    """`save_model` in a fresh interpreter; its seconds."""
    start = time.perf_counter()
    code = "import sys; from tfdebug.bench.backward_window import save_model; save_model(sys.argv[1], sys.argv[2])"
    subprocess.run([sys.executable, "-c", code, shape, str(folder)], check=True, capture_output=True, text=True)
    return time.perf_counter() - start


def _note(*what) -> None:
    """A line on stderr as the row goes (the run takes minutes at real size)."""
    print(f"[{time.strftime('%H:%M:%S')}]", *what, file=sys.stderr, flush=True)


def child(variant: str, shape: str, seq_len: int) -> dict:
    """The row (see the module docstring), in this fresh process; `variant` is unused ("window")."""
    import os
    import statistics
    import tempfile

    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    import torch
    import transformers  # noqa: F401  (imported before the clock starts)
    from tfdebug.bench.peak_span import PeakSpan
    from tfdebug.bench.real_size import WORDS, _rss
    from tfdebug.bench.window_clock import bench_window, one_step, quiet_qt_messages, wait
    from tfdebug.core.budget import default_capture_budget, total_memory
    from tfdebug.core.errors import TfdebugError
    from tfdebug.core.memory import release_freed_memory
    from tfdebug.sessions.gradient_session import freed_by_letting_go
    from tfdebug.sessions.backward_peak import check_backward_fits, parameter_bytes
    from tfdebug.ui.features.backward import action
    from tfdebug.ui.shell.probe import activate, objective_by_keys, press

    row: dict = {"variant": variant, "shape": shape, "seq_len": seq_len, "dtype": "float32",
                 "threads": torch.get_num_threads(), "ram_bytes": total_memory()}
    with tempfile.TemporaryDirectory(prefix="tfdebug-backward-window-") as tmp:
        folder = Path(tmp)
        row["save_s"] = round(_save_in_child(shape, folder), 2)
        _note("saved", row["save_s"])
        prompt = " ".join(f"w{i % WORDS}" for i in range(seq_len))
        with quiet_qt_messages(), bench_window(heads=False, models=["random"], devices=["cpu"],
                                               persist=False) as (window, clock):
            ctl, heatmap = window.ctl, window.heatmap_panel
            window.input_bar.set_values(f"hf:{folder}", "cpu", {"prompt": prompt}, ("float32", None))
            start = time.perf_counter()
            activate(window)
            press(window, "Return", control=True)
            if not wait(lambda: ctl.current is not None and heatmap.slice is not None
                         and clock.painted_slice is heatmap.slice, STEP_TIMEOUT_S):
                raise TimeoutError(f"the pass did not show its first stage: {window.message_bar.text()}")
            row["first_stage_s"] = round(time.perf_counter() - start, 2)
            _note("first stage", row["first_stage_s"])
            activate(window)
            press(window, "F5")
            if not wait(lambda: ctl.stepper.state == "finished", STEP_TIMEOUT_S * 3):
                raise TimeoutError("F5 did not run the pass to its end")
            row["forward_s"] = round(time.perf_counter() - start, 2)
            _note("forward", row["forward_s"])
            backward_action = window.actions_by_id["tfdebug.debug.backward"]
            if not wait(backward_action.isEnabled, 60.0):
                raise TimeoutError("Debug ▸ Backward stayed grey after the pass ended")
            # as a person reads the status bar: the check against the unmodified model has said its verdict (until
            # then it holds its reference pass, which the window's budget counts as in use)
            if not wait(lambda: ctl.loader.verification is not None, STEP_TIMEOUT_S):
                raise TimeoutError("the check against the unmodified model said nothing")
            row["verified_s"] = round(time.perf_counter() - start, 2)
            _note("verified", row["verified_s"])
            session = ctl.source.session
            forward = [c.name for c in session.plan]
            row["forward_stages"] = len(forward)
            # what the window's path (`backward_of`) states and checks before it runs, read the same way here
            row["rss_before_bytes"] = _rss()
            # the window lets go of the forward's captures before its backward, and counts them as free, once the
            # memory freed but kept is handed back (`sessions.gradient_session.make_room`; its own figures replace
            # these below where it made room)
            release_freed_memory()
            row["released_bytes"] = released = freed_by_letting_go(session)
            budget = default_capture_budget(session.adapter.device, releasing=released)
            row["budget_bytes"] = budget
            try:
                stated, recompute = check_backward_fits(list(session.plan), budget,
                                                        parameter_bytes(session.adapter.module))
                row["fits_budget"], row["planes"] = True, "made again" if recompute else "kept"
            except TfdebugError:
                from tfdebug.sessions.backward_peak import backward_peak

                stated = backward_peak(list(session.plan), parameter_bytes(session.adapter.module))
                row["fits_budget"], row["planes"] = False, None
            row["stated_peak_bytes"] = stated
            span = PeakSpan()
            start = span.start
            with _rss_when_the_backward_starts(row):  # until the backward has ended: its worker starts it later
                objective_by_keys(window)
                if not wait(lambda: not action._RUNNING, STEP_TIMEOUT_S * 3):
                    raise TimeoutError("the backward did not end")
            shown = wait(lambda: ctl.source is not None and ctl.title.startswith("backward")
                          and ctl.current is not None and heatmap.slice is not None
                          and clock.painted_slice is heatmap.slice, 60.0)
            row["backward_s"] = span.seconds()
            room = row.pop("room", None)
            if room is not None:  # the window's own statement and budget, as it made room
                row["stated_peak_bytes"] = stated = room.peak
                row["budget_bytes"], row["released_bytes"] = room.budget, room.released
            _note("backward", row["backward_s"], window.message_bar.text())
            row["said"] = window.message_bar.text()
            row["measured_backward_bytes"] = span.above()
            if not shown:  # refused (or failed): the window's sentence, and by how much
                row["over_budget_bytes"] = stated - budget if budget is not None else None
                row["stepped"] = 0
                # nothing ran: the high-water mark is the window's own work meanwhile (its check of the pass)
                return dict(_finish(row, stated, span), held=None, measured_over_stated=None)
            stepper = ctl.stepper
            history = stepper.history
            names = [c.name for c in history]
            row["backward_stages"] = len(names)
            row["first_gradient"] = ctl.current.name
            reached, painted, settled = [ctl.current.name], [], []
            row["steps_start_s"] = round(time.perf_counter() - start, 2)
            while stepper.cursor < len(history) - 1:
                target = names[stepper.cursor + 1]
                wait(lambda: ctl.shown.settled(), STEP_TIMEOUT_S)  # idle, as between a person's steps
                activate(window)
                ms_painted, _named, ms_settled = one_step(
                    window, clock, lambda t=target: ctl.current is not None and ctl.current.name == t, target,
                    timeout_s=STEP_TIMEOUT_S)
                if ctl.current is None or ctl.current.name != target:
                    raise TimeoutError(f"F10 did not show {target} in {STEP_TIMEOUT_S:.0f} s")
                reached.append(target)
                if len(reached) % 50 == 0:
                    _note("F10", len(reached), target, round(ms_painted, 1))
                painted.append(ms_painted)
                settled.append(ms_settled)
            row["steps_s"] = round(time.perf_counter() - start - row["steps_start_s"], 2)
            row["stepped"] = len(painted)
            row["last_gradient"] = reached[-1]
            row["every_stage_stepped"] = reached == names and sorted(names) == sorted(forward)
            row["embeddings_last"] = reached[-1] == forward[0]
            row["f10_painted_median_ms"] = round(statistics.median(painted), 1) if painted else None
            row["f10_painted_worst_ms"] = round(max(painted), 1) if painted else None
            row["f10_settled_median_ms"] = round(statistics.median(settled), 1) if settled else None
            worst = max(range(len(painted)), key=painted.__getitem__) if painted else None
            row["f10_worst_stage"] = reached[worst + 1] if worst is not None else None
            return _finish(row, stated, span)


@contextmanager
def _rss_when_the_backward_starts(row: dict):
    """Inside: the room the window made (`sessions.gradient_session.make_room`'s BackwardRoom: the stated peak, the
    budget, the bytes let go) goes into `row["room"]`, and the RSS as the backward starts on its worker (the
    forward's captures let go by then) into `row["rss_backward_start_bytes"]`: both functions are wrapped to read
    them. Restored on leaving."""
    from tfdebug.bench.real_size import _rss
    from tfdebug.sessions import gradient_session

    run, make_room = gradient_session.run_backward, gradient_session.make_room

    def reading(*args, **kwargs):
        row["rss_backward_start_bytes"] = _rss()
        return run(*args, **kwargs)

    def noting(session):
        row["room"] = room = make_room(session)
        return room
    gradient_session.run_backward, gradient_session.make_room = reading, noting
    try:
        yield
    finally:
        gradient_session.run_backward, gradient_session.make_room = run, make_room


def _finish(row: dict, stated: int, span) -> dict:
    """The high-water mark over `span` (a `bench.peak_span.PeakSpan` started just before Ctrl+Shift+B) above the
    RSS then and above the RSS as the backward started (the forward's captures let go), and whether the stated
    peak held over the second."""
    from tfdebug.bench.peak_span import stated_against_measured

    row["measured_bytes"] = span.above()
    start = row.get("rss_backward_start_bytes")
    row["measured_from_start_bytes"] = measured = span.above(start) if start is not None else row["measured_bytes"]
    row.update(stated_against_measured(stated, measured))
    return row


def window_row(profile: str, timeout: float = 3600.0) -> dict:
    """The row in a child process (`full`: SmolLM-135M's shape at 2,048 tokens; `tiny`: 2 layers at 64)."""
    from tfdebug.bench.child import run_child

    shape = "tiny" if profile == "tiny" else "smol135m"
    return run_child("tfdebug.bench.backward_window", "window", shape, TOKENS[shape], timeout)


def format_window_row(row: dict) -> list[str]:
    """The row as lines of text."""
    if row.get("status") != "ok":
        return [f"  in the window ({row.get('seq_len')} tokens): {row.get('status')}"]
    budget = f"{row['budget_bytes'] / MIB:,.0f} MiB" if row.get("budget_bytes") else "no limit"
    head = (f"  in the window: {row['shape']} in float32 at {row['seq_len']} tokens, forward (Ctrl+Return, F5) "
            f"{row['forward_s']} s; backward peak stated before it ran {row['stated_peak_bytes'] / MIB:,.0f} MiB, "
            f"default budget {budget}"
            + (f" (the forward's {row['released_bytes'] / MIB:,.0f} MiB of captures let go and counted as free)"
               if row.get("released_bytes") else ""))
    if not row.get("stepped"):
        over = row.get("over_budget_bytes")
        return [head, f"    refused{f' ({over / MIB:,.0f} MiB over)' if over is not None else ''}: {row['said']}"]
    return [head, f"    Ctrl+Shift+B to the logits' gradient painted {row['backward_s']} s; measured "
                  f"{row['measured_from_start_bytes'] / MIB:,.0f} MiB above the RSS as the backward started "
                  f"({row['measured_bytes'] / MIB:,.0f} MiB above before Ctrl+Shift+B; ×{row['measured_over_stated']}, "
                  f"{'held' if row['held'] else 'NOT held'}); F10 ×{row['stepped']} ({row['first_gradient']} → "
                  f"{row['last_gradient']}, {'every stage' if row['every_stage_stepped'] else 'NOT every stage'}) "
                  f"in {row['steps_s']} s: painted median {row['f10_painted_median_ms']} ms, worst "
                  f"{row['f10_painted_worst_ms']} ms ({row['f10_worst_stage']})  (child process)"]


if __name__ == "__main__":  # a run by hand: python -m tfdebug.bench.backward_window [tiny|smol135m [TOKENS]]
    chosen = sys.argv[1] if len(sys.argv) > 1 else "tiny"
    print(json.dumps(child("window", chosen, int(sys.argv[2]) if len(sys.argv) > 2 else TOKENS[chosen])))
