"""The allocator tuning is an explicit opt-in: entering a Recorder changes nothing process-wide."""

import subprocess
import sys
from pathlib import Path

import pytest
import torch

from tfdebug import cli
from tfdebug.core import memory
from tfdebug.core.recorder import Recorder
from tfdebug.models.loader import random_model

ROOT = Path(__file__).resolve().parents[2]


class _FakeLibc:
    """Stands in for glibc: records every mallopt / malloc_trim call."""

    def __init__(self):
        self.calls: list[tuple] = []

    def mallopt(self, param, value):
        self.calls.append(("mallopt", param, value))
        return 1

    def malloc_trim(self, pad):
        self.calls.append(("malloc_trim", pad))
        return 1


@pytest.fixture()
def fake_libc(monkeypatch):
    libc = _FakeLibc()
    monkeypatch.setattr(memory, "_libc", lambda: libc)
    monkeypatch.setattr(memory, "_state", {})
    return libc


def test_entering_a_recorder_calls_no_mallopt(fake_libc):
    model, _, _ = random_model(n_layer=1)
    with torch.no_grad(), Recorder(model) as rec:
        model(torch.randint(4, 20, (1, 5)), torch.randint(4, 20, (1, 4)))
    assert rec.captures and fake_libc.calls == []
    assert not memory.allocator_tuned()


def test_opt_in_tunes_once_and_release_always_trims(fake_libc):
    assert memory.keep_freed_memory() and memory.keep_freed_memory()
    assert [c[0] for c in fake_libc.calls] == ["mallopt"] * 4  # once, however often it is called
    assert ("mallopt", memory._M_ARENA_MAX, 1) in fake_libc.calls
    fake_libc.calls.clear()
    memory.release_freed_memory()
    assert fake_libc.calls == [("malloc_trim", 0)]


def test_cli_opts_in_except_bench(monkeypatch, tmp_path):
    opted = []
    monkeypatch.setattr(memory, "keep_freed_memory", lambda: opted.append(True) or True)
    assert cli.main(["info", str(tmp_path / "missing.safetensors")]) == 2
    assert opted == [True]
    from tfdebug.commands import bench
    assert bench.TUNE_ALLOCATOR is False  # bench times the untuned process itself


# Counts glibc's malloc arenas after a Recorder captured in a worker thread (as the stepper
# does): one arena means M_ARENA_MAX=1 is in effect, more means the process kept its default.
_ARENAS_SCRIPT = """
import ctypes, os, sys, tempfile, threading, torch
from tfdebug.core import memory
from tfdebug.core.recorder import Recorder
from tfdebug.models.loader import random_model

if sys.argv[1] == "opt-in":
    memory.keep_freed_memory()
model, _, _ = random_model(n_layer=1)

def capture():
    with torch.no_grad(), Recorder(model) as rec:
        model(torch.randint(4, 20, (1, 6)), torch.randint(4, 20, (1, 5)))
    rec.captures.append(bytearray(1 << 16))  # a plain malloc in this thread too

worker = threading.Thread(target=capture)
worker.start()
worker.join()
libc = ctypes.CDLL("libc.so.6")
libc.fopen.restype = ctypes.c_void_p
libc.fopen.argtypes = [ctypes.c_char_p, ctypes.c_char_p]
libc.malloc_info.argtypes = [ctypes.c_int, ctypes.c_void_p]
libc.fclose.argtypes = [ctypes.c_void_p]
path = os.path.join(tempfile.mkdtemp(), "info.xml")
stream = libc.fopen(path.encode(), b"w")
libc.malloc_info(0, stream)
libc.fclose(stream)
print(open(path).read().count("<heap nr="), memory.allocator_tuned())
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc arenas are Linux-only")
@pytest.mark.parametrize("mode", ["default", "opt-in"])
def test_recorder_leaves_the_process_arenas_alone(mode):
    """In a fresh interpreter: capturing in a worker thread gives that thread its own arena
    (glibc's default) unless the application opted in, which limits the process to one."""
    out = subprocess.run([sys.executable, "-c", _ARENAS_SCRIPT, mode], capture_output=True, text=True,
                         timeout=120, cwd=ROOT)
    assert out.returncode == 0, out.stderr[-2000:]
    arenas, tuned = out.stdout.split()
    if mode == "default":
        assert tuned == "False" and int(arenas) >= 2
    else:
        assert tuned == "True" and int(arenas) == 1
