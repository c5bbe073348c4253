"""Snapshots: one standard .safetensors file per recorded pass.

Tensor keys are stage names; the metadata key `tfdebug` holds the JSON manifest.

    save_snapshot(Recording.from_session(session), "pass.safetensors")
    with open_snapshot("pass.safetensors") as rec:   # validated; no tensor read yet
        stepper = rec.stepper()                        # a stage is read when shown

Opening validates the header and the manifest by hand before safetensors maps the
file; every problem is a SnapshotError with one sentence. Nothing is unpickled.
"""

from __future__ import annotations

import json
import os
import threading
from functools import partial
from pathlib import Path

import torch
from torch import Tensor

from tfdebug.core.errors import SnapshotError
from tfdebug.core.phrases import Phrase
from tfdebug.core.recorder import Capture
from tfdebug.io.atomic import ProgressCallback, atomic_write
from tfdebug.io.manifest import check_tensors, checked_manifest, parse_manifest, recording_from_manifest
from tfdebug.io.recording import MANIFEST_KEY, Recording
from tfdebug.io.safetensors_file import Item, file_phrase, read_header, write_file



def save_snapshot(recording: Recording, path: str | os.PathLike, progress: ProgressCallback | None = None,
                  durable: bool = True) -> None:
    """Write `recording` as a snapshot, atomically; `progress(done_bytes, total)` may cancel.

    Tensors are streamed from their own memory (GPU tensors are copied to the host one
    at a time); a cancel or failure leaves no file and keeps any earlier one.
    durable=False skips fsync (still atomic between processes, not across a power cut).
    """
    if not recording.captures:
        raise SnapshotError("There are no stages to save: capture a pass first.", id="snapshot.empty")
    manifest = json.dumps(checked_manifest(recording), ensure_ascii=False, separators=(",", ":"))
    items = [Item(c.name, c.dtype, c.shape, partial(recording.tensor, c)) for c in recording.captures]
    with atomic_write(path, SnapshotError, durable) as f:
        write_file(f, items, {MANIFEST_KEY: manifest}, progress)


def read_manifest(path: str | os.PathLike) -> dict:
    """The validated manifest of a snapshot (header, manifest and tensor list all checked)."""
    header = read_header(path)
    where = file_phrase(path)
    doc = parse_manifest(header.metadata.get(MANIFEST_KEY), where)
    check_tensors(doc, {n: (e.dtype, e.shape) for n, e in header.tensors.items()}, where)
    return doc


class _Reader:
    """Reads one stage at a time through safetensors' memory map; refuses a file changed under it."""

    def __init__(self, path: str, device: str, identity: tuple | None):
        from safetensors import safe_open

        self._path = path
        self._stat = identity
        self._lock = threading.Lock()
        if _identity(path) != identity:
            # Swapped after validation (for a FIFO, safe_open would wait forever).
            raise SnapshotError("The snapshot {path} changed on disk while being opened; open it again.",
                                id="snapshot.changed_opening", path=path)
        try:
            self._handle = safe_open(path, framework="pt", device=device)
        except Exception as exc:  # safetensors raises its own types
            raise SnapshotError("The file {path} is not a readable safetensors file: {why}.", id="snapshot.unreadable",
                                path=path, why=exc) from exc

    def load(self, capture: Capture) -> Tensor:
        with self._lock:
            if self._handle is None:
                raise SnapshotError("The snapshot {path} is closed.", id="snapshot.closed", path=self._path)
            if _identity(self._path) != self._stat:
                # Reading a memory map of a file truncated in place would crash the process.
                raise SnapshotError("The snapshot {path} changed on disk after it was opened; open it again.",
                                    id="snapshot.changed", path=self._path)
            try:
                tensor = self._handle.get_tensor(capture.name)
            except Exception as exc:
                raise SnapshotError("Cannot read stage {name} from {path}.", id="snapshot.stage_unreadable",
                                    name=capture.name, path=self._path) from exc
        check_values(tensor, capture.name, Phrase("The snapshot {path}", id="where.snapshot", path=self._path))
        return tensor

    def close(self) -> None:
        with self._lock:
            self._handle = None


def check_values(tensor: Tensor, name: str, where: str) -> None:
    """Refuse stored values no tensor of that dtype can hold (a bool byte other than 0 or 1)."""
    if tensor.dtype == torch.bool and tensor.numel() and int(tensor.view(torch.uint8).max()) > 1:
        raise SnapshotError("{where} is damaged: the true/false stage {name} holds bytes other than 0 and 1.",
                            id="snapshot.bad_bool", where=where, name=name)


def _identity(path: str) -> tuple | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (st.st_ino, st.st_size, st.st_mtime_ns)


def open_snapshot(path: str | os.PathLike, device: str = "cpu") -> Recording:
    """Open and validate a snapshot lazily: a Recording whose tensors are read when asked for.

    Raises SnapshotError for anything that is not a good snapshot. Close the recording
    (or use it as a context manager) to release the file.
    """
    path = os.fspath(Path(path))
    identity = _identity(path)
    doc = read_manifest(path)
    reader = _Reader(path, device, identity)
    return recording_from_manifest(doc, load=reader.load, path=path, closer=reader.close)
