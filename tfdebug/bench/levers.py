"""Levers against capture-all's cost on the CPU, measured side by side (issue 17 item 3).

A captured pass keeps every stage alive, so the model cannot recycle those buffers; in
a process that never tuned the allocator glibc hands each new capture fresh pages from
the kernel (a page fault and a zeroed page per 4 KiB). Variants, timed interleaved:

- plain:        the model's own forward
- capture all:  the Recorder keeps the tensors the model made (what tfdebug does)
- reused:       each stage is copied into a buffer kept across passes (`ReusedBuffers`):
                no fresh pages once warm, at the price of one copy of every stage; a
                buffer is reused only when nothing else holds it any more
- plain again:  the A/A check

Each variant reports wall ms, CPU ms (this process's CPU time: less sensitive to other
people's load than the wall clock), the kernel's part of that CPU time (page faults and the
zeroing of fresh pages land there) and minor page faults per pass (a count, no noise).
`lever_rows` runs the variants in this process and in a fresh one that opted in to the
allocator tuning, on the reference model or (`sdpa`) the SDPA adapter's nn.TransformerEncoder.
"""

from __future__ import annotations

import json
import resource
import subprocess
import sys
import time
from dataclasses import asdict

import torch
from torch.multiprocessing.reductions import StorageWeakRef

from tfdebug.bench.capture import BenchConfig, build
from tfdebug.bench.timing import median
from tfdebug.core.memory import allocator_tuned
from tfdebug.core.recorder import Capture, Recorder


def _use_count(storage: torch.UntypedStorage) -> int:
    """References to a storage's memory (tensors and views included); a private torch helper."""
    return torch._C._storage_Use_Count(storage._cdata)


class ReusedBuffers:
    """Copies of captured stages in buffers kept from one pass to the next (a Recorder `on_capture`).

    Stages that are views of one storage (head splits) share one copy, as they shared the
    original, unless the storage was changed in place in between.
    """

    def __init__(self):
        self.buffers: list[torch.UntypedStorage] = []
        self._copies: dict[int, tuple] = {}
        self._next = 0  # passes capture in the same order: the search starts after the last buffer taken

    def start_pass(self) -> None:
        self._copies, self._next = {}, 0

    def _free(self, nbytes: int, device: torch.device) -> torch.UntypedStorage:
        while self._next < len(self.buffers):
            buffer = self.buffers[self._next]
            self._next += 1
            # Only this object holds the memory: the captures of earlier passes that used it are gone.
            if buffer.device == device and buffer.nbytes() >= nbytes and _use_count(buffer) == 1:
                return buffer
        buffer = torch.UntypedStorage(nbytes, device=device)
        self.buffers.append(buffer)
        self._next = len(self.buffers)
        return buffer

    def keep(self, capture: Capture) -> None:
        tensor = capture.tensor
        storage = tensor.untyped_storage()
        seen = self._copies.get(storage.data_ptr())
        if seen is None or seen[1].expired() or seen[2] != tensor._version:
            buffer = self._free(storage.nbytes(), tensor.device)
            raw = torch.empty(0, dtype=torch.uint8, device=tensor.device)
            source = torch.empty(0, dtype=torch.uint8, device=tensor.device).set_(storage, 0, (storage.nbytes(),))
            raw.set_(buffer, 0, (storage.nbytes(),)).copy_(source)
            seen = (buffer, StorageWeakRef(storage), tensor._version)
            self._copies[storage.data_ptr()] = seen
        capture.tensor = torch.empty(0, dtype=tensor.dtype, device=tensor.device).set_(
            seen[0], tensor.storage_offset(), tensor.shape, tensor.stride())

    @property
    def nbytes(self) -> int:
        return sum(b.nbytes() for b in self.buffers)


def _reference_model(config: BenchConfig):
    """(name, plain forward, tapped module, tapped forward) of the reference model of `config`."""
    model, src, tgt = build(config, torch.device("cpu"))
    return config.name, lambda: model(src, tgt), model, lambda: model(src, tgt)


def _sdpa_encoder(size: dict):
    """The same for the SDPA adapter on an nn.TransformerEncoder (plain: the module's own fused forward)."""
    from tfdebug.bench.sdpa import build_encoder

    encoder, adapter, prepared = build_encoder(**size, device=torch.device("cpu"))
    x = prepared.args[0]
    name = f"SDPA nn.TransformerEncoder {size['n_layer']}x{size['n_embd']}, seq {size['seq_len']}"
    return name, lambda: encoder(x), adapter.module, lambda: adapter.forward(prepared)


def lever_row(config: BenchConfig | dict, repeats: int) -> dict:
    """Median wall ms, CPU ms and page faults of each variant on the CPU, with ratios to plain.

    `config` is a reference-model BenchConfig, or an SDPA encoder size (tfdebug.bench.sdpa.FULL)."""
    label, forward, module, tapped = _sdpa_encoder(config) if isinstance(config, dict) else _reference_model(config)
    reused = ReusedBuffers()

    def plain():
        with torch.no_grad():
            return forward()

    def capture_all():
        with torch.no_grad(), Recorder(module) as rec:
            tapped()
        return rec.captures

    def capture_reused():
        reused.start_pass()
        with torch.no_grad(), Recorder(module, on_capture=reused.keep) as rec:
            tapped()
        return rec.captures

    variants = {"plain": plain, "capture_all": capture_all, "reused": capture_reused, "plain_again": plain}
    for _ in range(2):
        for fn in variants.values():
            fn()
    wall: dict[str, list[float]] = {k: [] for k in variants}
    cpu: dict[str, list[float]] = {k: [] for k in variants}
    kernel: dict[str, list[float]] = {k: [] for k in variants}
    faults: dict[str, list[int]] = {k: [] for k in variants}
    for _ in range(repeats):
        for name, fn in variants.items():
            before = resource.getrusage(resource.RUSAGE_SELF)
            start = time.perf_counter()
            result = fn()
            wall[name].append((time.perf_counter() - start) * 1000.0)
            after = resource.getrusage(resource.RUSAGE_SELF)
            # CPU time is user + kernel; the kernel's share is where page faults (and zeroing pages) go.
            kernel[name].append((after.ru_stime - before.ru_stime) * 1000.0)
            cpu[name].append((after.ru_utime - before.ru_utime) * 1000.0 + kernel[name][-1])
            faults[name].append(after.ru_minflt - before.ru_minflt)
            del result
    row = {"config": label, "threads": torch.get_num_threads(), "repeats": repeats,
           "allocator_tuned": allocator_tuned(), "reused_buffer_bytes": reused.nbytes}
    for clock, samples in (("wall", wall), ("cpu", cpu)):
        base = median(samples["plain"])
        for name, values in samples.items():
            row[f"{clock}_{name}_ms"] = round(median(values), 2)
            if name != "plain":
                row[f"{clock}_ratio_{name}"] = round(median(values) / base, 4)
    for name, values in faults.items():
        row[f"faults_{name}"] = int(median(values))
        row[f"kernel_{name}_ms"] = round(median(kernel[name]), 2)
    return row


_CHILD_SCRIPT = """
import json, sys, torch
from tfdebug.bench.capture import BenchConfig
from tfdebug.bench.levers import lever_row
from tfdebug.core.memory import keep_freed_memory
given, repeats, threads, tune = json.loads(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), sys.argv[4] == "1"
config = BenchConfig(**given) if "name" in given else given
torch.set_num_threads(threads)
if tune:
    keep_freed_memory()
print(json.dumps(dict(lever_row(config, repeats), process="fresh")))
"""


def lever_rows(config: BenchConfig | dict, repeats: int, tuned: bool = True) -> list[dict]:
    """The variants in this process (it must never have tuned) and, with `tuned`, in two fresh
    processes, one untuned and one tuned.

    An untuned process's figures depend on what it allocated and freed before: glibc raises its
    mmap and trim thresholds each time it frees a large block, after which freed memory stays
    with the process. This process has run other sections first; a fresh one has not.
    """
    rows = [dict(lever_row(config, repeats), process="this")]
    if not tuned:
        return rows
    given = config if isinstance(config, dict) else asdict(config)
    for tune in ("0", "1"):
        out = subprocess.run([sys.executable, "-c", _CHILD_SCRIPT, json.dumps(given), str(repeats),
                              str(torch.get_num_threads()), tune], capture_output=True, text=True, timeout=3600)
        if out.returncode == 0:
            rows.append(json.loads(out.stdout.strip().splitlines()[-1]))
    return rows


def format_levers(rows: list[dict]) -> list[str]:
    """Report lines: per process, the ratios of capture all and of reused buffers to plain, with A/A and faults."""
    lines = ["", "Capture levers on the CPU (ratios to plain; wall | CPU time; minor page faults per pass)"]
    for row in rows:
        lines.append(
            f"{row['config']} {'tuned' if row['allocator_tuned'] else 'untuned'}, "
            f"{'a fresh process' if row.get('process') == 'fresh' else 'this process'}: "
            f"capture all ×{row['wall_ratio_capture_all']} | ×{row['cpu_ratio_capture_all']} "
            f"({row['faults_capture_all']} faults)  reused buffers ×{row['wall_ratio_reused']} | "
            f"×{row['cpu_ratio_reused']} ({row['faults_reused']} faults, "
            f"{row['reused_buffer_bytes'] / 1e6:.1f} MB kept)  A/A ×{row['wall_ratio_plain_again']} | "
            f"×{row['cpu_ratio_plain_again']}  plain {row['faults_plain']} faults; kernel ms plain "
            f"{row['kernel_plain_ms']}, capture all {row['kernel_capture_all_ms']}, reused {row['kernel_reused_ms']}")
    return lines


if __name__ == "__main__":  # python -m tfdebug.bench.levers [repeats] [threads] [sdpa]
    from tfdebug.bench.capture import WIDE
    from tfdebug.bench.sdpa import FULL

    torch.set_num_threads(int(sys.argv[2]) if len(sys.argv) > 2 else 1)
    target = FULL if sys.argv[3:] == ["sdpa"] else WIDE
    result = lever_rows(target, int(sys.argv[1]) if len(sys.argv) > 1 else 9)
    print("\n".join(format_levers(result)))
    print(json.dumps(result))
