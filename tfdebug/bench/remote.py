"""Remote sessions measured: bytes per step and step latency over loopback against the same pass local.

A step here is what the window waits for before it can paint: the stepper moves one stage
(the forward runs it) and the shown slice (at most 1024² cells, downsampled where the tensor
lives) is in hand with its stats. Locally that is Stepper.step + LocalDisplay.slice_of; remotely
the same calls through RemoteSession, with a RemoteServer on 127.0.0.1 in this process (its
own thread, a real TCP connection), following the window's view: the slice comes with the pause.
"""

from __future__ import annotations

import threading
import time

import torch
from torch import nn

from tfdebug.adapters.base import ModelAdapter, Prepared
from tfdebug.sessions.session import DebugSession
from tfdebug.bench.noise import halves_ratio
from tfdebug.bench.timing import median, p95
from tfdebug.core.tap import Tap
from tfdebug.remote.display import LocalDisplay

MAX_SHOWN = (1024, 1024)  # the heatmap's largest slice (tfdebug.ui.workers.display.MAX_SLICE)
WARMUP = 2


class _Planes(nn.Module):
    """A chain of stages, each a (1, N, N) float32 plane: the stage size is all that varies."""

    def __init__(self, stages: int):
        super().__init__()
        self.taps = nn.ModuleList(Tap(f"enc.{i}.ffn.hidden", "ffn_hidden", ("batch", "token", "hidden"), "x + 1")
                                  for i in range(stages))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        for tap in self.taps:
            x = tap(x + 1.0)  # (1, N, N)
        return x


class PlanesAdapter(ModelAdapter):
    """`stages` planes of n×n: a model whose only property is the size of what a step shows."""

    def __init__(self, n: int, stages: int):
        self.n, self.name = n, f"planes-{n}"
        self.module = _Planes(stages).eval()

    def config(self) -> dict:
        return {"n": self.n, "stages": len(self.module.taps)}

    def prepare(self, texts) -> Prepared:
        generator = torch.Generator().manual_seed(0)
        # one token per row: what a snapshot needs to be written (the export-window test streams one)
        return Prepared(texts={}, args=(torch.randn(1, self.n, self.n, generator=generator),),
                        tokens={"rows": [str(i) for i in range(self.n)]})


def _one_step(stepper, display) -> float:
    """Milliseconds from the command to the shown slice in hand."""
    start = time.perf_counter()
    stepper.step()
    stepper.wait()
    display.slice_of(stepper.current, 1, 2, {0: 0}, MAX_SHOWN)
    return (time.perf_counter() - start) * 1000.0


def remote_row(n: int, repeats: int) -> dict:
    """One stage size: local and loopback step latency, and the bytes that crossed per step.

    Local and remote steps alternate, so both see the same load on a shared machine; a capture
    budget of 0 keeps only the paused stage (its tensor is shown, then let go), as memory is not
    what this measures.
    """
    from tfdebug.remote.session import RemoteSession

    stages = repeats + WARMUP + 2
    local = DebugSession(PlanesAdapter(n, stages), max_capture_bytes=0)
    # a model of its own: one module is tapped by one pass at a time
    served = _Served(DebugSession(PlanesAdapter(n, stages), max_capture_bytes=0))
    server = served.server
    local_ms, remote_ms, crossed = [], [], []
    try:
        local.stepper.start()
        local.stepper.wait()
        remote = RemoteSession.connect(server.address, server.token, timeout_s=10.0)
        remote.display.follow(None, {}, MAX_SHOWN)  # as the window does: each pause brings its slice
        client, shown = remote.client, LocalDisplay(local.stepper)
        for r in range(repeats + WARMUP):
            before = client.bytes_sent + client.bytes_received
            remote_step = _one_step(remote.stepper, remote.display)
            after = client.bytes_sent + client.bytes_received
            local_step = _one_step(local.stepper, shown)
            if r >= WARMUP:
                local_ms.append(local_step)
                remote_ms.append(remote_step)
                crossed.append(after - before)
        remote.close()
    finally:
        local.close()
        served.close()
    shown_bytes = min(n, MAX_SHOWN[0]) * min(n, MAX_SHOWN[1]) * 4
    return {"size": n, "stage_bytes": n * n * 4, "shown_plane_bytes": shown_bytes,
            "bytes_per_step": int(median(crossed)),
            "local_ms": round(median(local_ms), 2), "local_p95": round(p95(local_ms), 2),
            "remote_ms": round(median(remote_ms), 2), "remote_p95": round(p95(remote_ms), 2),
            "added_ms": round(median(remote_ms) - median(local_ms), 2),
            "ratio": round(median(remote_ms) / median(local_ms), 2),
            "aa_ratio": halves_ratio(remote_ms), "aa_ratio_local": halves_ratio(local_ms)}


class _Served:
    """A RemoteServer on 127.0.0.1 in this process (its own thread) serving `session`; `close` stops it."""

    def __init__(self, session: DebugSession):
        from tfdebug.remote.server import RemoteServer

        self.server = RemoteServer(lambda texts, settings: session, port=0)
        self.thread = threading.Thread(target=self.server.serve_forever, name="tfdebug-bench-server", daemon=True)
        self.thread.start()

    def close(self) -> None:
        self.server.stop()
        self.thread.join(30)


class _ServedProcess:
    """`serve_planes(n, stages)` in a child process (`python -m tfdebug.bench.remote N STAGES [CLIENT_TIMEOUT_S]`);
    `close` ends it."""

    def __init__(self, n: int, stages: int, client_timeout_s: float = 3.0):
        import subprocess
        import sys

        self.process = subprocess.Popen([sys.executable, "-m", "tfdebug.bench.remote", str(n), str(stages),
                                         str(client_timeout_s)],
                                        stdout=subprocess.PIPE, text=True)
        line = self.process.stdout.readline().split()
        if len(line) != 2:
            self.close()
            raise RuntimeError("the bench's server process printed no address")
        self.address, self.token = line

    def close(self) -> None:
        self.process.terminate()
        self.process.wait(30)


def serve_planes(n: int, stages: int, client_timeout_s: float = 3.0) -> None:
    """Serve a PlanesAdapter pass on 127.0.0.1 until terminated; prints 'ADDRESS TOKEN' first."""
    from tfdebug.remote.server import RemoteServer

    server = RemoteServer(lambda texts, settings: DebugSession(PlanesAdapter(n, stages), max_capture_bytes=0), port=0,
                          client_timeout_s=client_timeout_s)
    print(server.address, server.token, flush=True)
    server.serve_forever()


def painted_row(n: int, repeats: int) -> dict:
    """One stage size in the real window (offscreen): F10 to the painted heatmap, the same pass local and
    served on loopback (the window attached as File ▸ Connect to Server… attaches it)."""
    import os

    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from tfdebug.remote.session import RemoteSession
    from tfdebug.bench.step_latency import WARMUP as UI_WARMUP
    from tfdebug.bench.step_latency import live_step_latency, quiet_qt_messages

    stages = repeats + UI_WARMUP + 2

    def local(window):
        window.ctl.set_session(DebugSession(PlanesAdapter(n, stages), max_capture_bytes=0))

    def remote(window):  # the server in a process of its own, as on a GPU server: it shares no GIL with the window
        served = _ServedProcess(n, stages)
        window.tools.remote.attach(RemoteSession.connect(served.address, served.token, timeout_s=10.0))
        return served

    with quiet_qt_messages():
        timings = live_step_latency({"local": local, "remote": remote}, repeats)
    here, there = timings["local"], timings["remote"]
    return {"size": n, "local_painted_ms": round(median(here), 2), "local_painted_p95": round(p95(here), 2),
            "remote_painted_ms": round(median(there), 2), "remote_painted_p95": round(p95(there), 2),
            "added_painted_ms": round(median(there) - median(here), 2),
            "painted_ratio": round(median(there) / median(here), 2),
            "aa_ratio_local": halves_ratio(here), "aa_ratio": halves_ratio(there)}


def remote_section(sizes: tuple[int, ...] = (256, 1024, 4096), repeats: int = 10) -> dict:
    """Every size, or why the section is skipped (pyzmq, the `remote` extra, is not installed)."""
    try:
        import zmq  # noqa: F401
    except ModuleNotFoundError:
        return {"skipped": "pyzmq is not installed (pip install 'tfdebug[remote]')", "rows": [], "painted": []}
    return {"rows": [remote_row(n, repeats) for n in sizes], "painted": [painted_row(n, repeats) for n in sizes]}


COLUMNS = ["size", "bytes_per_step", "shown_plane_bytes", "stage_bytes", "local_ms", "remote_ms", "remote_p95",
           "added_ms", "ratio", "aa_ratio"]


PAINTED_COLUMNS = ["size", "local_painted_ms", "remote_painted_ms", "remote_painted_p95", "added_painted_ms",
                   "painted_ratio", "aa_ratio_local", "aa_ratio"]


def format_remote(section: dict) -> list[str]:
    from tfdebug.bench.timing import table

    if section.get("skipped"):
        return ["", f"Remote session: skipped, {section['skipped']}."]
    return (["", "Remote session over loopback (median ms from Step to the shown ≤1024² slice in hand, local vs "
                 "tfdebug serve on 127.0.0.1; bytes both ways per step, heartbeats included)"]
            + table(section["rows"], COLUMNS)
            + ["", "Remote session in the window (median ms from F10 to the painted heatmap, the same pass local and "
                   "served on 127.0.0.1)"] + table(section.get("painted") or [], PAINTED_COLUMNS))


if __name__ == "__main__":  # the painted bench's server process
    import sys

    serve_planes(int(sys.argv[1]), int(sys.argv[2]), *(float(a) for a in sys.argv[3:4]))
