"""Start and stop a real `tfdebug serve` process on 127.0.0.1 (the small random reference model)."""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


@dataclass
class Served:
    """A running server: its address, token and process."""

    address: str
    token: str
    process: subprocess.Popen
    export_dir: Path
    server_key: str | None = None

    @property
    def port(self) -> int:
        return int(self.address.rpartition(":")[2])


def start_server(export_dir: Path, *extra: str, timeout: float = 120.0, model: str = "random") -> Served:
    """Start `tfdebug serve --model MODEL` (the small random reference model unless told) on a free port and
    read the line it prints."""
    env = {**os.environ, "OMP_NUM_THREADS": "1", "PYTHONPATH": str(ROOT)}
    process = subprocess.Popen([sys.executable, "-m", "tfdebug", "serve", "--model", model, "--port", "0",
                                "--export-dir", str(export_dir), *extra],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env, cwd=ROOT)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        line = process.stdout.readline()
        if not line:
            raise RuntimeError(f"tfdebug serve ended: {process.stderr.read()}")
        if "--connect" in line:
            words = line.split()
            key = words[words.index("--server-key") + 1] if "--server-key" in words else None
            return Served(words[words.index("--connect") + 1], words[words.index("--token") + 1], process, export_dir,
                          key)
    process.kill()
    raise RuntimeError("tfdebug serve printed no line to paste")


def stop_server(served: Served) -> None:
    if served.process.poll() is None:
        served.process.terminate()
        try:
            served.process.wait(10)
        except subprocess.TimeoutExpired:
            served.process.kill()
            served.process.wait()


@contextlib.contextmanager
def attached(served, timeout_s: float = 3.0):
    """A window's session attached to `served` (a Served process or a served_here RemoteServer), its pass
    restarted at the first stage; detached after."""
    from tfdebug.remote.session import RemoteSession

    session = RemoteSession.connect(served.address, served.token, timeout_s=timeout_s)
    try:
        session.stepper.restart()
        session.stepper.wait()
        yield session
    finally:
        session.close()


@contextlib.contextmanager
def served_here(model: str = "random", texts: dict | None = None, **options):
    """A RemoteServer of the small random reference model (or `model`, first on `texts`) on 127.0.0.1, served by a
    thread of this process (its handlers can be patched and its fault log read); `options` go to RemoteServer."""
    import threading

    from tfdebug.adapters.registry import load_adapter
    from tfdebug.remote.server import RemoteServer
    from tfdebug.sessions.generation import GenerationSession, generation_inputs
    from tfdebug.sessions.session import DebugSession

    adapter = load_adapter(model)
    first = texts

    def make_session(texts, settings):
        texts = (first or adapter.default_texts()) if texts is None else texts
        if settings is None:
            return DebugSession(adapter, texts)
        return GenerationSession(adapter, generation_inputs(adapter, texts), settings)
    server = RemoteServer(make_session, port=0, **options)
    thread = threading.Thread(target=server.serve_forever, name="served-here", daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.stop()
        thread.join(30)


def still_served(window) -> None:
    """The attached window steps and sees the stage it stepped to."""
    before = window.stepper.cursor
    window.stepper.step()
    assert window.stepper.wait() == "paused" and window.stepper.cursor == before + 1


def raw_peer(server):
    """A bare ZeroMQ DEALER socket connected to `server` (a stranger: it speaks frames, not the window's API)."""
    import zmq

    peer = zmq.Context.instance().socket(zmq.DEALER)
    peer.setsockopt(zmq.LINGER, 0)
    peer.connect(server.address)
    return peer


def answer(peer, timeout_ms: int = 5000):
    """The server's reply to a raw peer (decoded as the window decodes it), or None when none came."""
    from tfdebug.remote.protocol import CLIENT_MAX_BUFFER, CLIENT_MAX_HEADER, decode

    if not peer.poll(timeout_ms):
        return None
    return decode(peer.recv_multipart(), max_header=CLIENT_MAX_HEADER, max_buffer=CLIENT_MAX_BUFFER,
                  accept=("reply", "welcome", "pass", "event", "heartbeat"))
