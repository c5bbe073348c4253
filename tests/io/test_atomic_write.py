"""Atomic writes: failures, cancels and OS errors leave the old file and no temporary files."""

import errno
import os

import pytest

from tfdebug.core.errors import ExportError, SnapshotError
from tfdebug.io import atomic, safetensors_file
from tfdebug.io.atomic import atomic_write, leftover_temp_files
from tfdebug.io.exports import export_pass
from tfdebug.io.snapshot import open_snapshot, save_snapshot


def test_clean_write_replaces_and_keeps_permissions(tmp_path):
    path = tmp_path / "out.bin"
    path.write_bytes(b"old")
    os.chmod(path, 0o640)
    with atomic_write(path) as f:
        f.write(b"new")
    assert path.read_bytes() == b"new"
    assert path.stat().st_mode & 0o777 == 0o640
    assert not leftover_temp_files(tmp_path)


def test_injected_failure_mid_snapshot_keeps_the_old_file(recording, tmp_path, monkeypatch):
    path = tmp_path / "pass.safetensors"
    save_snapshot(recording.select(["logits"]), path)
    before = path.read_bytes()
    real = safetensors_file._host_bytes
    calls = []

    def failing(tensor):
        calls.append(1)
        if len(calls) == 20:
            raise RuntimeError("injected failure")
        return real(tensor)

    monkeypatch.setattr(safetensors_file, "_host_bytes", failing)
    with pytest.raises(RuntimeError, match="injected"):
        save_snapshot(recording, path)
    assert path.read_bytes() == before
    assert not leftover_temp_files(tmp_path)
    with open_snapshot(path) as rec:
        assert rec.names() == ["logits"]


def test_interrupt_keeps_the_old_file(recording, tmp_path):
    path = tmp_path / "pass.npz"
    path.write_bytes(b"precious")

    def interrupt(done, total):
        if done > total // 2:
            raise KeyboardInterrupt

    with pytest.raises(ExportError):
        export_pass(recording, path, progress=interrupt)
    assert path.read_bytes() == b"precious"
    assert not leftover_temp_files(tmp_path)


@pytest.mark.parametrize("code, words", [(errno.ENOSPC, "disk is full"), (errno.EROFS, "read-only"),
                                         (errno.EACCES, "read-only"), (errno.EIO, "Cannot write")])
def test_os_errors_while_writing_become_one_sentence(code, words, recording, tmp_path, monkeypatch):
    path = tmp_path / "pass.safetensors"
    path.write_bytes(b"old")

    def broken(tensor):
        raise OSError(code, os.strerror(code))

    monkeypatch.setattr(safetensors_file, "_host_bytes", broken)
    with pytest.raises(SnapshotError, match=words) as info:
        save_snapshot(recording, path)
    assert "\n" not in info.value.message
    assert path.read_bytes() == b"old"
    assert not leftover_temp_files(tmp_path)


def test_read_only_folder(recording, tmp_path, monkeypatch):
    def refuse(*args, **kwargs):
        raise PermissionError(errno.EACCES, "Permission denied")

    monkeypatch.setattr(atomic.tempfile, "mkstemp", refuse)
    with pytest.raises(ExportError, match="read-only or you lack permission"):
        export_pass(recording, tmp_path / "pass.pt")
    assert not list(tmp_path.iterdir())


def test_path_is_a_folder_or_missing_folder(recording, tmp_path):
    folder = tmp_path / "taken.npz"
    folder.mkdir()
    with pytest.raises(ExportError, match="is a folder"):
        export_pass(recording, folder)
    with pytest.raises(ExportError, match="does not exist"):
        export_pass(recording, tmp_path / "nowhere" / "pass.npz")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["taken.npz"]


def test_non_durable_save_is_still_atomic_and_complete(recording, tmp_path, monkeypatch):
    synced = []
    monkeypatch.setattr(atomic.os, "fsync", lambda fd: synced.append(fd))
    save_snapshot(recording, tmp_path / "fast.safetensors", durable=False)
    assert synced == []
    save_snapshot(recording, tmp_path / "safe.safetensors")
    assert synced  # the default fsyncs the file (and its folder)
    assert (tmp_path / "fast.safetensors").read_bytes() == (tmp_path / "safe.safetensors").read_bytes()
    assert not leftover_temp_files(tmp_path)
