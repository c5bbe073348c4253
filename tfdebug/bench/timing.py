"""Timing helpers: medians over interleaved repeats, so slow drift of the machine hits every variant alike."""

from __future__ import annotations

import json
import statistics
import subprocess
import sys
import time
from typing import Callable

try:
    import resource
except ImportError:  # not on Windows: no page-fault counts there
    resource = None


def interleaved_ms(variants: dict[str, Callable[[], object]], repeats: int, warmup: int = 2,
                   sync: Callable[[], None] | None = None,
                   faults: dict[str, list[int]] | None = None,
                   between: Callable[[], None] | None = None) -> dict[str, list[float]]:
    """Run each variant `repeats` times, round-robin after `warmup` rounds; milliseconds per run.

    The result of each call is dropped before the next variant runs, so memory a
    variant keeps alive does not carry over into another's timing. `faults`, when given,
    receives each timed run's minor page faults per variant (the process's, from getrusage):
    on CPU most of what keeping tensors costs is the kernel handing out fresh pages.
    `between`, when given, runs untimed before each timed run (e.g. handing freed memory back, so that
    no variant finds pages the one before it left: what it costs would depend on its place in the round).
    """
    for _ in range(warmup):
        for fn in variants.values():
            fn()
            if sync:
                sync()
    times: dict[str, list[float]] = {name: [] for name in variants}
    for _ in range(repeats):
        for name, fn in variants.items():
            if between is not None:
                between()
            before = _minor_faults() if faults is not None else 0
            start = time.perf_counter()
            result = fn()
            if sync:
                sync()
            times[name].append((time.perf_counter() - start) * 1000.0)
            if faults is not None:
                faults.setdefault(name, []).append(_minor_faults() - before)
            del result
    return times


def _minor_faults() -> int:
    """This process's minor page faults so far (0 where getrusage does not exist)."""
    return 0 if resource is None else resource.getrusage(resource.RUSAGE_SELF).ru_minflt


_OPTED_IN = """
import importlib, json, sys, torch
from tfdebug.core.memory import keep_freed_memory
torch.set_num_threads(int(sys.argv[1]))
keep_freed_memory()
module, name = sys.argv[2].rsplit(":", 1)
print(json.dumps(getattr(importlib.import_module(module), name)(*json.loads(sys.argv[3]))))
"""


def in_opted_in_process(function: str, *args):
    """`function(*args)` ("package.module:name", JSON arguments and result) in a fresh process that opted in
    to the allocator tuning, as the `tfdebug` application does at start-up, with this process's torch
    threads; None when the child fails."""
    import torch

    out = subprocess.run([sys.executable, "-c", _OPTED_IN, str(torch.get_num_threads()), function, json.dumps(args)],
                         capture_output=True, text=True, timeout=3600)
    if out.returncode != 0:
        return None
    return json.loads(out.stdout.strip().splitlines()[-1])


def note(*what) -> None:
    """A line on stderr, with the time, as a row is made: a long section cut off still leaves what it had."""
    print(f"[{time.strftime('%H:%M:%S')}]", *what, file=sys.stderr, flush=True)


def median(values: list[float]) -> float:
    return statistics.median(values)


def p95(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(0.95 * (len(ordered) - 1))))]


def adapter_passes(adapter, prepared):
    """(taps only, capture all): an adapter's forward with its taps attached but keeping nothing,
    and with every stage captured — the two tapped columns every adapter's bench row times."""
    import torch

    from tfdebug.core.recorder import Recorder

    def taps_only():
        with torch.no_grad(), Recorder(adapter.module, keep=False):
            return adapter.forward(prepared)

    def capture_all():
        with torch.no_grad(), Recorder(adapter.module) as rec:
            adapter.forward(prepared)
        return rec.captures
    return taps_only, capture_all


def table(rows: list[dict], columns: list[str]) -> list[str]:
    """Rows as plain-text columns (– for a missing value), a header line first."""
    def cell(value) -> str:
        return "–" if value is None else str(value)
    cells = [[cell(r.get(c)) for c in columns] for r in rows]
    widths = [max([len(c), *(len(row[i]) for row in cells)]) for i, c in enumerate(columns)]
    lines = ["  ".join(c.ljust(w) for c, w in zip(columns, widths))]
    lines += ["  ".join(v.ljust(w) for v, w in zip(row, widths)) for row in cells]
    return lines


def machine(quick: bool) -> dict:
    """What a report says about where it ran: CPUs, torch threads, platform, torch, load average."""
    import os
    import platform

    import torch

    return {"cpu_count": os.cpu_count(), "torch_threads": torch.get_num_threads(), "platform": platform.platform(),
            "torch": torch.__version__, "quick": quick, "load_average": [round(x, 2) for x in os.getloadavg()]}
