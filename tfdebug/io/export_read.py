"""Reading `.npz` and `.pt` exports back: bounded before anything is read, checked before anything is used.

Both are zip archives. tfdebug writes them uncompressed, so an archive whose members are
compressed (a zip bomb: 14 MB that inflates to gigabytes) or declare more bytes than the
file holds is refused from its directory alone, before any member is read. In an `.npz`
the manifest is read first; each array's `.npy` header (dtype, shape) must match its
stage before its bytes are read, straight into the tensor. A `.pt` is unpickled by
torch's weights-only loader only after the same directory checks, and every tensor it
holds must own exactly its elements' bytes: a stride-0 view claiming 4 TiB over 4 bytes
is refused before any arithmetic touches it.
"""

from __future__ import annotations

import os
import zipfile
from typing import TYPE_CHECKING, BinaryIO, Callable

import numpy as np

from tfdebug.core.errors import SnapshotError
from tfdebug.core.safe_text import terminal_safe
from tfdebug.io.limits import MAX_STAGES, name_problem
from tfdebug.io.manifest import check_tensors, parse_manifest, recording_from_manifest
from tfdebug.io.recording import EXPORT_MANIFEST_KEY, Recording
from tfdebug.io.safetensors_file import (MAX_HEADER_BYTES, byte_view, file_phrase, open_regular, refuse_mostly_holes,
                                         torch_dtype)
from tfdebug.io.snapshot import check_values

if TYPE_CHECKING:  # torch loads when a function first needs it, not with the window
    from torch import Tensor

MAX_MEMBERS = 2 * MAX_STAGES + 16  # a .pt holds one storage per stage plus its bookkeeping files
_NUMPY_DTYPES = {np.dtype(d): d for d in ("float64", "float32", "float16", "int64", "int32", "int16", "int8", "uint8",
                                           "bool")}  # by the manifest's dtype names


def _directory(f: BinaryIO, path: str) -> tuple[zipfile.ZipFile, list[zipfile.ZipInfo]]:
    """The archive's members after checking its directory: few enough, stored, no larger than the file."""
    size = os.fstat(f.fileno()).st_size
    try:
        archive = zipfile.ZipFile(f)
    except (zipfile.BadZipFile, OSError, ValueError, EOFError) as exc:
        raise SnapshotError("The file {path} cannot be read as a tfdebug export (it is not a zip archive).",
                            id="export.not_zip", path=path) from exc
    infos = archive.infolist()
    if len(infos) > MAX_MEMBERS:
        raise SnapshotError("The file {path} is not a tfdebug export: it holds {n} members (at most {most}).",
                            id="export.too_many_members", path=path, n=f"{len(infos):,}", most=f"{MAX_MEMBERS:,}")
    declared = 0
    for info in infos:
        if info.compress_type != zipfile.ZIP_STORED or info.compress_size != info.file_size:
            raise SnapshotError("The file {path} is not a tfdebug export: member {name} is compressed (tfdebug "
                                "writes exports uncompressed; a compressed member may expand without bound).",
                                id="export.compressed", path=path, name=terminal_safe(repr(info.filename), 80))
        declared += info.file_size
    if declared > size:
        raise SnapshotError("The file {path} is not a tfdebug export: its members declare {declared} bytes but "
                            "the file holds {size}.", id="export.declares_more", path=path,
                            declared=f"{declared:,}", size=f"{size:,}")
    names = [i.filename for i in infos]
    if len(set(names)) != len(names):
        raise SnapshotError("The file {path} is not a tfdebug export: a member name is given twice.",
                            id="export.member_twice", path=path)
    refuse_mostly_holes(os.fstat(f.fileno()), size, file_phrase(path))
    return archive, infos


def _npy_header(member) -> tuple[tuple[int, ...], bool, np.dtype]:
    version = np.lib.format.read_magic(member)
    if version == (1, 0):
        return np.lib.format.read_array_header_1_0(member)
    if version == (2, 0):
        return np.lib.format.read_array_header_2_0(member)
    raise ValueError("unsupported .npy version")


def read_npz(f: BinaryIO, path: str) -> tuple[dict[str, Tensor], dict | None]:
    """The stage tensors and checked manifest of an `.npz`: manifest first, each array bounded by its stage."""
    import torch
    archive, infos = _directory(f, path)
    by_name = {}
    for info in infos:
        stem = info.filename.removesuffix(".npy")
        problem = None if stem == EXPORT_MANIFEST_KEY else name_problem(stem, "tensor name")
        if not info.filename.endswith(".npy") or problem:
            raise SnapshotError("The file {path} is not a tfdebug export: member {name} is not a stage array.",
                                id="export.not_stage_array", path=path, name=terminal_safe(repr(info.filename), 80))
        by_name[stem] = info
    manifest_info = by_name.pop(EXPORT_MANIFEST_KEY, None)
    if manifest_info is None or manifest_info.file_size > MAX_HEADER_BYTES:
        return {}, None  # parse_manifest words "no manifest"
    with archive.open(manifest_info) as member:
        text = np.lib.format.read_array(member, allow_pickle=False)
    if text.ndim != 0 or text.dtype.kind != "U":
        return {}, None
    doc = parse_manifest(str(text.item()), file_phrase(path))
    stages = {s["name"]: s for s in doc["stages"]}
    tensors: dict[str, Tensor] = {}
    for name, info in by_name.items():
        stage = stages.get(name)
        if stage is None:
            raise SnapshotError("{where} does not match its manifest: tensor '{name}' is not a listed stage.",
                                id="manifest.extra_tensor", where=file_phrase(path), name=name)
        with archive.open(info) as member:
            shape, fortran, dtype = _npy_header(member)
            stored = stage.get("stored_dtype", stage["dtype"])
            want = torch_dtype(stored)
            if _NUMPY_DTYPES.get(dtype) != stored or tuple(shape) != tuple(stage["shape"]) or fortran:
                raise SnapshotError("The file {path} is not a tfdebug export: array {name} is not stored as its "
                                    "stage's {dtype} {shape}.", id="export.array_mismatch", path=path, name=name,
                                    dtype=stored, shape=tuple(stage["shape"]))
            tensor = torch.empty(tuple(shape), dtype=want)
            if tensor.numel():
                data = byte_view(tensor)
                # typeshed types ZipFile.open as IO[bytes]; it is a ZipExtFile, an io.BufferedIOBase with readinto
                if member.readinto(data) != len(data) or member.read(1):  # pyright: ignore[reportAttributeAccessIssue]
                    raise SnapshotError("The file {path} is not a tfdebug export: array {name} does not hold "
                                        "exactly its shape's bytes.", id="export.array_short", path=path, name=name)
        tensors[name] = tensor
    return tensors, doc


def read_pt(f: BinaryIO, path: str) -> tuple[dict[str, Tensor] | None, object]:
    """The stage tensors and manifest of a `.pt`, unpickled weights-only after its directory is checked."""
    import torch
    from torch import Tensor
    _directory(f, path)
    f.seek(0)
    data = torch.load(f, map_location="cpu", weights_only=True)
    if not isinstance(data, dict):
        return None, None
    manifest = data.pop(EXPORT_MANIFEST_KEY, None)
    for name, tensor in data.items():
        if not isinstance(name, str) or not isinstance(tensor, Tensor):
            return None, None
        problem = name_problem(name, "tensor name")
        if problem:
            raise SnapshotError("The file {path} is not a tfdebug export: {problem}.", id="export.bad_key", path=path,
                                problem=problem)
        own = tensor.numel() * tensor.element_size()
        if (tensor.layout != torch.strided or not _dense(tensor) or tensor.storage_offset()
                or tensor.untyped_storage().nbytes() != own):
            raise SnapshotError("The file {path} is not a tfdebug export: tensor {name} is not stored as its own "
                                "data (it views {held} bytes as {shape}).", id="export.not_own_storage", path=path,
                                name=terminal_safe(repr(name), 80), held=f"{tensor.untyped_storage().nbytes():,}",
                                shape=tuple(tensor.shape))
    return data, manifest


def _dense(tensor: Tensor) -> bool:
    """Whether each element has its own place in memory: the strides are a permutation of a contiguous
    layout (a transposed stage is; a stride-0 or overlapping view is not). Read from the metadata only."""
    expected = 1
    for size, stride in sorted(zip(tensor.shape, tensor.stride()), key=lambda d: d[1]):
        if size == 1:
            continue
        if stride != expected:
            return False
        expected *= size
    return True


def reader(read: Callable) -> Callable[[str | os.PathLike], Recording]:
    """A reader for an export holding tensors plus the manifest as `__tfdebug__`: checked like a snapshot."""

    def load(path: str | os.PathLike) -> Recording:
        shown = os.fspath(path)
        where = file_phrase(path)
        with open_regular(path) as f:
            try:
                tensors, manifest = read(f, shown)
            except SnapshotError:
                raise
            except Exception as exc:  # numpy, zipfile and torch each raise their own types
                raise SnapshotError("The file {path} cannot be read as a tfdebug export.", id="export.unreadable",
                                    path=shown) from exc
        if tensors is None:
            raise SnapshotError("The file {path} holds something other than tensors.", id="export.not_tensors",
                                path=shown)
        doc = manifest if isinstance(manifest, dict) else parse_manifest(
            manifest if isinstance(manifest, str) else None, where)
        check_tensors(doc, {n: (t.dtype, tuple(t.shape)) for n, t in tensors.items()}, where, stored=True)
        recording = recording_from_manifest(doc, path=shown)
        for capture in recording.captures:
            check_values(tensors[capture.name], capture.name, where)
            capture.tensor = tensors[capture.name].to(capture.dtype)
        return recording

    return load
