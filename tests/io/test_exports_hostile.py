"""Issue 18, item 2: exports and captures — killed writers, full disks, long names, odd targets, stdout.

Each test reproduces the case as it was found: leftover temp files after `kill -9`,
`.pt` on a full disk, an over-long name, `--out /dev/full` or a symlink replaced by a
regular file, `capture --out x.npz` writing safetensors bytes, and stdout that cannot
be written.
"""

import errno
import io
import logging
import os
import signal
import subprocess
import sys
import time
import zipfile
from pathlib import Path

import numpy as np
import pytest

from tfdebug import cli
from tfdebug.core.errors import ExportError, TfdebugError
from tfdebug.io import atomic
from tfdebug.io.atomic import TEMP_SUFFIX, leftover_temp_files
from tfdebug.io.exports import export_pass, load_export
from tfdebug.io.snapshot import open_snapshot, save_snapshot

PASS_SUFFIXES = [".safetensors", ".npz", ".pt"]
REPO = Path(__file__).resolve().parents[2]


# ----- kill -9 mid-export -----------------------------------------------------------------------
WRITER = """
import sys, time
from tfdebug.io.atomic import atomic_write
with atomic_write(sys.argv[1]) as f:
    f.write(b"x" * 100000)
    f.flush()
    print("writing", flush=True)
    time.sleep(60)
"""


def test_temp_files_left_by_a_killed_export_are_removed_by_the_next_write(recording, tmp_path, caplog):
    target = tmp_path / "pass.npz"
    writer = subprocess.Popen([sys.executable, "-c", WRITER, str(target)], stdout=subprocess.PIPE, cwd=REPO)
    assert writer.stdout.readline().strip() == b"writing"
    os.kill(writer.pid, signal.SIGKILL)
    writer.wait(10)
    left = leftover_temp_files(tmp_path)
    assert len(left) == 1 and left[0].name.startswith(f".pass.npz.{writer.pid}.")  # recognisable
    legacy = tmp_path / f".pass.npz.k2j4h5x1{TEMP_SUFFIX}.npz"  # named before the pid was in the name
    legacy.write_bytes(b"old")
    live = tmp_path / f".pass.npz.{os.getpid()}.abcdefgh{TEMP_SUFFIX}.npz"  # a live writer's: kept
    live.write_bytes(b"in use")
    other = tmp_path / f".other.npz.{writer.pid}.abcdefgh{TEMP_SUFFIX}.npz"  # another target's: kept
    other.write_bytes(b"not ours")
    old = time.time() - 3600
    for path in (left[0], legacy, live, other):
        os.utime(path, (old, old))

    export_pass(recording, target, stages=["logits"])  # within minutes: the killed one is kept
    with caplog.at_level(logging.WARNING, logger="tfdebug"):
        export_pass(recording, target, stages=["logits"])
    assert sorted(p.name for p in leftover_temp_files(tmp_path)) == sorted([live.name, other.name])
    assert "interrupted write of pass.npz" in caplog.text and left[0].name in caplog.text
    assert load_export(target).names() == ["logits"]


def test_a_fresh_temp_file_of_a_dead_process_is_kept(recording, tmp_path):
    recent = tmp_path / f".pass.npz.999999999.abcdefgh{TEMP_SUFFIX}.npz"
    recent.write_bytes(b"x")
    export_pass(recording, tmp_path / "pass.npz", stages=["logits"])
    assert recent.exists()


# ----- full disk ---------------------------------------------------------------------------------
class _FillsUp(io.RawIOBase):
    """A file that takes 4 KiB and then reports a full disk."""

    def __init__(self, fd, *args, **kwargs):
        self.written = 0

    def writable(self):
        return True

    def write(self, data):
        self.written += len(memoryview(data).cast("B"))
        if self.written > 4096:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        return len(memoryview(data).cast("B"))


@pytest.mark.parametrize("suffix", PASS_SUFFIXES)
def test_a_full_disk_is_one_sentence_in_every_pass_format(suffix, recording, tmp_path, monkeypatch):
    path = tmp_path / f"pass{suffix}"
    path.write_bytes(b"earlier")
    monkeypatch.setattr(atomic.os, "fdopen", _FillsUp)
    with pytest.raises(TfdebugError) as info:
        export_pass(recording, path)
    message = info.value.message
    assert message == f"The disk is full: pass{suffix} was not written and any earlier file there is unchanged."
    assert path.read_bytes() == b"earlier" and not leftover_temp_files(tmp_path)


# ----- names and targets ------------------------------------------------------------------------
def cli_run(argv, capsys):
    code = cli.main(argv)
    out, err = capsys.readouterr()
    return code, out, err


def test_a_file_name_longer_than_the_file_system_allows(recording, tmp_path, capsys):
    long_name = tmp_path / ("n" * 300 + ".safetensors")
    with pytest.raises(TfdebugError, match="too long for this file system"):
        export_pass(recording, long_name)
    code, _, err = cli_run(["capture", "--model", "random", "--stages", "logits", "--quiet",
                            "--out", str(long_name)], capsys)
    assert code == 2 and "too long for this file system" in err and err.count("\n") == 1
    assert len(err) < 300 and os.listdir(tmp_path) == []


def test_a_name_just_under_the_limit_still_writes(recording, tmp_path):
    name = tmp_path / ("n" * (255 - len(".npz")) + ".npz")  # the temp file's name must not overflow
    export_pass(recording, name, stages=["logits"])
    assert load_export(name).names() == ["logits"]


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="no /dev/full")
def test_out_naming_a_device_is_refused_and_left_alone(recording, capsys):
    before = os.stat("/dev/full")
    with pytest.raises(ExportError, match="not a regular file"):
        export_pass(recording, "/dev/full", fmt="npz")
    code, _, err = cli_run(["capture", "--model", "random", "--quiet", "--stages", "logits",
                            "--out", "/dev/full"], capsys)
    assert code == 2 and "choose a .safetensors, .npz or .pt file" in err
    after = os.stat("/dev/full")
    assert (after.st_ino, after.st_rdev, after.st_mode) == (before.st_ino, before.st_rdev, before.st_mode)


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
def test_out_naming_a_fifo_is_refused(tmp_path, capsys):
    fifo = tmp_path / "pipe.safetensors"
    os.mkfifo(fifo)
    code, _, err = cli_run(["capture", "--model", "random", "--quiet", "--stages", "logits",
                            "--out", str(fifo)], capsys)
    assert code == 2 and "not a regular file" in err
    assert fifo.is_fifo() and os.listdir(tmp_path) == ["pipe.safetensors"]


def test_out_naming_a_symlink_is_refused_unless_asked(tmp_path, capsys):
    target = tmp_path / "real.safetensors"
    target.write_bytes(b"precious")
    link = tmp_path / "link.safetensors"
    link.symlink_to(target)
    argv = ["capture", "--model", "random", "--quiet", "--stages", "logits", "--out", str(link)]
    code, _, err = cli_run(argv, capsys)
    assert code == 2 and "symbolic link" in err
    assert link.is_symlink() and target.read_bytes() == b"precious"
    code, _, err = cli_run([*argv, "--follow-symlinks"], capsys)
    assert code == 0, err
    assert link.is_symlink() and os.readlink(link) == str(target)
    with open_snapshot(target) as rec:
        assert rec.names() == ["logits"]


# ----- the suffix picks the format --------------------------------------------------------------
def test_capture_out_npz_writes_an_npz(tmp_path, capsys):
    out = tmp_path / "x.npz"
    code, stdout, err = cli_run(["capture", "--model", "random", "--stages", "logits", "--out", str(out)], capsys)
    assert code == 0, err
    assert zipfile.is_zipfile(out) and "wrote" in stdout
    with np.load(out, allow_pickle=False) as npz:
        assert "logits" in npz.files
    code, _, _ = cli_run(["capture", "--model", "random", "--stages", "logits", "--quiet",
                          "--out", str(tmp_path / "x.pt")], capsys)
    assert code == 0 and load_export(tmp_path / "x.pt").names() == ["logits"]


@pytest.mark.parametrize("name", ["x.txt", "x.csv", "x", "x.SAFETENSORS.bak"])
def test_capture_refuses_an_unknown_or_view_suffix(name, tmp_path, capsys, monkeypatch):
    from tfdebug.commands import capture

    monkeypatch.setattr(capture, "load_from_args", lambda args: pytest.fail("the model was loaded"))
    code, _, err = cli_run(["capture", "--model", "random", "--out", str(tmp_path / name)], capsys)
    assert code == 2 and err.count("\n") == 1 and "Traceback" not in err
    assert ".safetensors" in err and os.listdir(tmp_path) == []


# ----- stdout that cannot be written -------------------------------------------------------------
class _FullStdout(io.StringIO):
    def write(self, text):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    def flush(self):
        pass


V1 = str(Path(__file__).parent / "data" / "v1_random.safetensors")
EVERY_COMMAND = {
    "info": ["info", V1],
    "info --json": ["info", "--json", V1],
    "stages": ["stages", "--model", "random", "--stages", "logits"],
    "capture": ["capture", "--model", "random", "--stages", "logits", "--out", "{tmp}/c.safetensors"],
    "translate": ["translate", "--model", "random", "--max-len", "2", "I love you"],
    "version": ["--version"],
    "help": ["--help"],
    "gui help": ["gui", "--help"],
    "open help": ["open", "--help"],
    "bench help": ["bench", "--help"],
}


@pytest.mark.parametrize("case", sorted(EVERY_COMMAND))
def test_stdout_that_cannot_be_written_is_one_sentence(case, tmp_path, capsys, monkeypatch):
    argv = [a.replace("{tmp}", str(tmp_path)) for a in EVERY_COMMAND[case]]
    monkeypatch.setattr(sys, "stdout", _FullStdout())
    code = cli.main(argv)
    err = capsys.readouterr().err
    assert code == 2
    assert err.splitlines()[-1] == "tfdebug: the output could not be written: the disk is full."
    assert "Traceback" not in err


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="no /dev/full")
def test_real_dev_full_and_a_closed_pipe(tmp_path):
    command = [sys.executable, "-m", "tfdebug", "info", V1]
    with open("/dev/full", "w") as full:
        done = subprocess.run(command, stdout=full, stderr=subprocess.PIPE, text=True, cwd=REPO, timeout=120)
    assert done.returncode == 2 and done.stderr == "tfdebug: the output could not be written: the disk is full.\n"
    reader = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=REPO)
    reader.stdout.close()  # the reader leaves before anything is printed
    _, err = reader.communicate(timeout=120)
    assert reader.returncode == 0 and err.decode() == ""  # a reader that left is no failure: nothing said


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="no /dev/full")
@pytest.mark.parametrize("argv", [["stages", "--model", "no-such-model"], ["info", "\udcff"]])
def test_stderr_on_a_full_device_is_the_same_clean_exit(argv):
    """The sentence is lost, not the exit status: 2, as with a stderr that can be written (it was 1)."""
    command = [sys.executable, "-m", "tfdebug", *argv]
    with open("/dev/full", "w") as full:
        done = subprocess.run(command, stdout=subprocess.PIPE, stderr=full, cwd=REPO, timeout=120)
    assert done.returncode == 2 and done.stdout == b""


@pytest.mark.parametrize("fmt", ["safetensors", "npz", "pt"])
def test_a_read_only_target_is_refused_and_kept(recording, tmp_path, fmt):
    """Decided (issue 39): a file marked read-only is not replaced, even though its folder would allow the rename."""
    target = tmp_path / f"kept.{fmt}"
    target.write_bytes(b"someone's file")
    target.chmod(0o444)
    with pytest.raises(TfdebugError, match="is read-only") as caught:
        if fmt == "safetensors":
            save_snapshot(recording, target)
        else:
            export_pass(recording, target, fmt=fmt)
    assert caught.value.id == "write.read_only_file"
    assert target.read_bytes() == b"someone's file" and leftover_temp_files(tmp_path) == []


@pytest.mark.parametrize("fmt", ["safetensors", "npz", "pt"])
def test_a_stage_on_the_meta_device_is_one_sentence_and_nothing_is_written(recording, tmp_path, fmt):
    """A tensor with a shape and no values (it was NotImplementedError: Cannot copy out of meta tensor)."""
    import copy
    import dataclasses

    import torch

    meta = copy.copy(recording)
    first = recording.captures[0]
    meta.captures = [dataclasses.replace(first, tensor=torch.empty(first.shape, device="meta")),
                     *recording.captures[1:]]
    target = tmp_path / f"meta.{fmt}"
    with pytest.raises(TfdebugError, match="holds no values") as caught:
        if fmt == "safetensors":
            save_snapshot(meta, target)
        else:
            export_pass(meta, target, fmt=fmt)
    assert caught.value.id == "recording.meta_tensor"
    assert not target.exists() and leftover_temp_files(tmp_path) == []
