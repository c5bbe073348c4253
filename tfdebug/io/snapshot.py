"""Snapshots: one standard .safetensors file per recorded pass.

Tensor keys are stage names; the metadata key `tfdebug` holds the JSON manifest.

    save_snapshot(Recording.from_session(session), "pass.safetensors")
    with open_snapshot("pass.safetensors") as rec:   # validated; no tensor read yet
        stepper = rec.stepper()                        # a stage is read when shown

Opening validates the header and the manifest by hand; a stage's bytes are then copied
from the file when it is shown (never mapped, so a file changed underneath cannot fault);
every problem is a SnapshotError with one sentence. Nothing is unpickled.
"""

from __future__ import annotations

import io
import json
import os
import threading
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Callable, cast

from tfdebug.core.errors import SnapshotError
from tfdebug.core.recipes import as_tensor, is_plane, materialized
from tfdebug.core.phrases import Phrase, os_reason
from tfdebug.io.atomic import ProgressCallback, atomic_write
from tfdebug.io.manifest import check_tensors, checked_manifest, parse_manifest, recording_from_manifest
from tfdebug.io.recipe_store import rebuild, recipe_parts
from tfdebug.io.recording import MANIFEST_KEY, Recording
from tfdebug.io.safetensors_file import (Header, Item, dtype_name, file_phrase, open_regular, part_of_entry, read_header,
                                         read_into, write_file)

if TYPE_CHECKING:
    from torch import Tensor

    from tfdebug.core.recipes import Plane

    from tfdebug.core.recorder import Capture


def save_snapshot(recording: Recording, path: str | os.PathLike, progress: ProgressCallback | None = None,
                  durable: bool = True) -> None:
    """Write `recording` as a snapshot, atomically; `progress(done_bytes, total)` may cancel.

    Tensors are streamed from their own memory (GPU tensors are copied to the host one
    at a time); a cancel or failure leaves no file and keeps any earlier one.
    durable=False skips fsync (still atomic between processes, not across a power cut).
    """
    if not recording.captures:
        raise SnapshotError("There are no stages to save: capture a pass first.", id="snapshot.empty")
    doc = checked_manifest(recording, finite=finite_marks(recording))
    as_recipe = {c.name for c in recording.captures if c.recipe and (c.tensor is None or is_plane(c.tensor))}
    plain = [c for c in recording.captures if c.name not in as_recipe]
    # Recipe stages, a backward's plane gradients among them, are stored as their steps and inputs
    # (tfdebug.io.recipe_store), never as planes (a recipe stage's tensor is its plane: `as_recipe` holds the
    # recipe stages whose plane is here or in the file read).
    planes = {c.name: cast("Plane", recording.tensor(c)) for c in recording.captures if c.name in as_recipe}
    recipes, extra = recipe_parts(planes,
                                  {c.name: c.tensor for c in plain if c.tensor is not None})
    for stage in doc["stages"]:
        if stage["name"] in recipes:
            stage["recipe"] = recipes[stage["name"]]
    if extra:
        doc["recipe_inputs"] = [{"name": key, "shape": list(t.shape), "dtype": dtype_name(t.dtype)}
                                for key, t in extra.items()]
    manifest = json.dumps(doc, ensure_ascii=False, separators=(",", ":"))
    items = [Item(c.name, c.dtype, c.shape, partial(_values, recording, c)) for c in plain]
    items += [Item(key, t.dtype, tuple(t.shape), partial(lambda t: t, t)) for key, t in extra.items()]
    with atomic_write(path, SnapshotError, durable) as f:
        write_file(f, items, {MANIFEST_KEY: manifest}, progress)


def _values(recording: Recording, capture: Capture) -> "Tensor":
    """The capture's tensor as values (a plane that is not stored as a recipe, computed whole)."""
    return materialized(recording.tensor(capture))


def finite_marks(recording: Recording) -> dict[str, bool]:
    """Whether each floating stage held in memory is all finite: what `info --verify` later checks.

    Computed where each tensor lives and fetched in one transfer per device, so a GPU pass
    pays one synchronisation, not one per stage. Stages read lazily from a file are not
    read again for this (their mark, if any, is not carried).
    """
    import torch

    by_device: dict[torch.device, list[tuple[str, Tensor]]] = {}
    for c in recording.captures:
        if c.tensor is not None and not c.recipe and c.dtype.is_floating_point and c.tensor.numel() \
                and not c.tensor.is_meta:  # a recipe's plane would be computed whole: its inputs are checked
            by_device.setdefault(c.tensor.device, []).append((c.name, all_finite(c.tensor)))
    marks: dict[str, bool] = {}
    for flags in by_device.values():
        marks.update(zip((n for n, _ in flags), torch.stack([f for _, f in flags]).tolist()))
    return marks


def all_finite(tensor: "Tensor") -> "Tensor":
    """Whether every value of `tensor` is finite, as a 0-dim bool tensor on its device (no synchronisation), from
    its extremes: min and max propagate NaN and ±∞, so both are finite exactly when every value is. One read of
    the tensor and no temporary (torch.isfinite would make a mask as large as it: on a 32k-token pass's logits, a
    float copy and two masks), about 15× faster on the CPU. A float8 tensor, which torch takes no extremes of, is
    widened to float16 (exact) first."""
    import torch

    if tensor.numel() == 0:
        return torch.ones((), dtype=torch.bool, device=tensor.device)
    if tensor.dtype.itemsize == 1:
        tensor = tensor.to(torch.float16)
    return torch.isfinite(torch.stack(torch.aminmax(tensor))).all()


def read_manifest(path: str | os.PathLike) -> dict:
    """The validated manifest of a snapshot (header, manifest and tensor list all checked)."""
    return manifest_of(path, read_header(path))


def manifest_of(path: str | os.PathLike, header: Header) -> dict:
    """The validated manifest of the snapshot at `path`, whose header `header` was read from it."""
    where = file_phrase(path)
    doc = parse_manifest(header.metadata.get(MANIFEST_KEY), where)
    check_tensors(doc, {n: (e.dtype_name, e.shape) for n, e in header.tensors.items()}, where)
    return doc


class _Reader:
    """Reads one stage at a time by copying its bytes from the file into a fresh tensor.

    Nothing is memory-mapped: a mapped view of a file that is truncated or rewritten in
    place faults (SIGBUS) when touched, killing the process; a read of a changed file only
    comes up short. The descriptor opened with the file stays open, so a file replaced by
    a rename keeps being read as it was; a change in place (size or modification time of
    the open file differing from when it was validated) is refused before and after each
    read with one sentence, and tensors already read stay valid.
    """

    def __init__(self, path: str, device: str, header: Header, identity: tuple | None, recipes: dict | None = None):
        import torch  # a reader makes tensors; reading a header alone needs no torch

        self._recipes = recipes or {}  # recipe stage → its checked description
        self._inputs: dict[str, Tensor] = {}  # tensors recipes read, read once and shared by the planes
        self._path = path
        self._device = torch.device(device)
        self._header = header
        self._lock = threading.Lock()
        self._file = open_regular(path)
        self._identity = file_identity(self._file.fileno())
        if self._identity != identity:
            self._file.close()
            # Swapped between validation and opening.
            raise SnapshotError("The snapshot {path} changed on disk while being opened; open it again.",
                                id="snapshot.changed_opening", path=path)

    def _check_unchanged(self, file: io.BufferedReader) -> None:
        if file_identity(file.fileno()) != self._identity:
            raise SnapshotError("The snapshot {path} changed on disk after it was opened; open it again.",
                                id="snapshot.changed", path=self._path)

    def load(self, capture: Capture, stop: Callable[[], bool] | None = None) -> Tensor:
        """The stage's tensor, read from the file now; a recipe stage's plane, rebuilt from its stored inputs.
        `stop()`, asked as a stored stage's bytes come in, ends the read (ReadStoppedError) when true."""
        recipe = self._recipes.get(capture.name)
        if recipe is not None:
            return as_tensor(rebuild(capture.name, recipe, tuple(capture.shape), self._input))
        return self._read(capture.name, stop=stop)

    def part(self, capture: Capture, leading: tuple[int, ...]) -> Tensor | None:
        """`capture`'s tensor at the fixed leading indices `leading` (the plane of one batch and head), read
        alone: one contiguous range of the file, checked as a whole read is. None for a recipe stage, whose
        plane is computed, not stored."""
        return None if capture.name in self._recipes else self._read(capture.name, leading)

    def _input(self, key: str) -> Tensor:
        if key not in self._inputs:
            self._inputs[key] = self._read(key)
        return self._inputs[key]

    def _read(self, name: str, leading: tuple[int, ...] = (), stop: Callable[[], bool] | None = None) -> Tensor:
        where = Phrase("The snapshot {path}", id="where.snapshot", path=self._path)
        with self._lock:
            file = self._file
            if file is None:
                raise SnapshotError("The snapshot {path} is closed.", id="snapshot.closed", path=self._path)
            entry = self._header.tensors.get(name)
            if entry is None:
                raise SnapshotError("Cannot read stage {name} from {path}.", id="snapshot.stage_unreadable",
                                    name=name, path=self._path)
            begin, shape = part_of_entry(entry, leading, where)
            self._check_unchanged(file)
            import torch

            tensor = torch.empty(shape, dtype=entry.dtype)
            try:
                complete = read_into(file, self._header.data_start + begin, tensor, stop)
            except OSError as exc:
                raise SnapshotError("Cannot read stage {name} from {path}: {reason}.", id="snapshot.read_failed",
                                    name=name, path=self._path, reason=os_reason(exc)) from exc
            self._check_unchanged(file)  # a change during the read
            if not complete:
                raise SnapshotError("The snapshot {path} changed on disk after it was opened; open it again.",
                                    id="snapshot.changed", path=self._path)
        check_values(tensor, name, where)
        return tensor if self._device.type == "cpu" else tensor.to(self._device)

    def close(self) -> None:
        with self._lock:
            if self._file is not None:
                self._file.close()
            self._file = None
            self._inputs.clear()


def check_values(tensor: Tensor, name: str, where: str) -> None:
    """Refuse stored values no tensor of that dtype can hold (a bool byte other than 0 or 1)."""
    import torch

    if tensor.dtype == torch.bool and tensor.numel() and int(tensor.view(torch.uint8).max()) > 1:
        raise SnapshotError("{where} is damaged: the true/false stage {name} holds bytes other than 0 and 1.",
                            id="snapshot.bad_bool", where=where, name=name)


def file_identity(file: str | int) -> tuple | None:
    """What tells a file apart from itself changed: inode, size and modification time (of a path or descriptor)."""
    try:
        st = os.stat(file)
    except OSError:
        return None
    return (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns)


def open_snapshot(path: str | os.PathLike, device: str = "cpu") -> Recording:
    """Open and validate a snapshot lazily: a Recording whose tensors are read when asked for.

    Raises SnapshotError for anything that is not a good snapshot. Close the recording
    (or use it as a context manager) to release the file.
    """
    path = os.fspath(Path(path))
    identity = file_identity(path)
    header = read_header(path)
    doc = manifest_of(path, header)
    reader = _Reader(path, device, header, identity, {s["name"]: s["recipe"] for s in doc["stages"] if "recipe" in s})
    return recording_from_manifest(doc, load=reader.load, part=reader.part, path=path, closer=reader.close)
