"""The safetensors container, read and written by hand so that both are checked and streamed.

Layout: 8-byte little-endian header length N, N bytes of UTF-8 JSON (padded with
spaces to a multiple of 8), then the tensors' bytes back to back. The JSON maps each
tensor name to {dtype, shape, data_offsets: [begin, end]} (offsets relative to the
data start) and may hold `__metadata__`, a str → str map.

`read_header` validates everything before any other code (safetensors included) sees
the file. `write_file` streams each tensor's own memory to the file, without
building the whole file in memory first.
"""

from __future__ import annotations

import functools
import io
import json
import os
import struct
import sys
from dataclasses import dataclass
from typing import TYPE_CHECKING, BinaryIO, Callable, NamedTuple, Sequence, TypeGuard

from tfdebug.core import files
from tfdebug.core.errors import ReadStoppedError, SnapshotError, TfdebugError
from tfdebug.core.phrases import Phrase, os_reason
from tfdebug.io.atomic import ProgressCallback, report
from tfdebug.io.limits import MAX_STAGES, name_problem, shape_problem

if TYPE_CHECKING:
    import torch
    from torch import Tensor

MAX_HEADER_BYTES = 100 * 1024 * 1024  # the limit safetensors itself enforces
CHUNK_BYTES = 64 * 1024 * 1024  # progress and cancel granularity while writing

# safetensors dtype code -> (the manifest's dtype name, bytes per element). Plain data, so
# reading and checking a header (`tfdebug info`) needs no torch; torch dtypes come lazily.
DTYPE_FACTS: dict[str, tuple[str, int]] = {
    "F64": ("float64", 8), "F32": ("float32", 4), "F16": ("float16", 2), "BF16": ("bfloat16", 2),
    "I64": ("int64", 8), "I32": ("int32", 4), "I16": ("int16", 2), "I8": ("int8", 1),
    "U8": ("uint8", 1), "BOOL": ("bool", 1),
}
ITEMSIZE_BY_NAME: dict[str, int] = {name: size for name, size in DTYPE_FACTS.values()}


def dtype_name(dtype: "torch.dtype") -> str:
    """'float32' for torch.float32: the form manifests use."""
    return str(dtype).removeprefix("torch.")


@functools.cache
def _torch_tables() -> dict[str, dict]:
    import torch

    codes = {code: getattr(torch, name) for code, (name, _) in DTYPE_FACTS.items()}
    return {"CODES": codes, "CODE_OF": {v: k for k, v in codes.items()},
            "DTYPE_BY_NAME": {name: getattr(torch, name) for name in ITEMSIZE_BY_NAME}}


def torch_dtype(name: str) -> "torch.dtype":
    """The torch dtype of a manifest's dtype name ('float32' -> torch.float32); imports torch."""
    return _torch_tables()["DTYPE_BY_NAME"][name]


def __getattr__(name: str):
    # CODES (code -> torch dtype), CODE_OF (its inverse) and DTYPE_BY_NAME (manifest name ->
    # torch dtype) import torch on first use only.
    if name in ("CODES", "CODE_OF", "DTYPE_BY_NAME"):
        return _torch_tables()[name]
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


@dataclass(frozen=True)
class TensorEntry:
    """Where one tensor lies: offsets are relative to the start of the data section.

    `code` is the safetensors dtype code; `dtype` the torch dtype (imports torch).
    """

    name: str
    code: str
    shape: tuple[int, ...]
    begin: int
    end: int

    @property
    def dtype_name(self) -> str:
        """The manifest's name of the dtype ('float32')."""
        return DTYPE_FACTS[self.code][0]

    @property
    def dtype(self) -> "torch.dtype":
        """The entry's torch dtype."""
        return _torch_tables()["CODES"][self.code]


@dataclass(frozen=True)
class Header:
    """A validated safetensors header."""

    tensors: dict[str, TensorEntry]
    metadata: dict[str, str]
    data_start: int
    file_size: int


def _numel(shape: Sequence[int]) -> int:
    n = 1
    for d in shape:
        n *= d
    return n


def is_int(x: object) -> TypeGuard[int]:
    """A JSON integer (bool is not one, though Python says it is)."""
    return isinstance(x, int) and not isinstance(x, bool)


class _DuplicateKey(ValueError):
    pass


def _unique_keys(pairs: list[tuple[str, object]]) -> dict:
    doc = dict(pairs)
    if len(doc) != len(pairs):
        # Readers disagree on which of two equal keys wins: such a file means two things.
        raise _DuplicateKey()
    return doc


def json_object(text: str, problem: str) -> dict:
    """Parse `text` as a JSON object with no key given twice at any level; else SnapshotError.

    The sentence is "<problem> is not valid JSON / a JSON object / gives a key twice".
    """
    try:
        doc = json.loads(text, object_pairs_hook=_unique_keys)
    except _DuplicateKey as exc:
        raise SnapshotError("{problem} gives the same key twice.", id="json.duplicate_key", problem=problem) from exc
    except (ValueError, RecursionError) as exc:
        raise SnapshotError("{problem} is not valid JSON.", id="json.invalid", problem=problem) from exc
    if not isinstance(doc, dict):
        raise SnapshotError("{problem} is not a JSON object.", id="json.not_object", problem=problem)
    return doc


def _entry(name: str, raw, data_len: int, where: str) -> TensorEntry:
    problem = name_problem(name, "tensor name")
    if problem:
        raise SnapshotError("{where} is damaged: {problem}.", id="safetensors.bad_name", where=where,
                            problem=problem)
    if not isinstance(raw, dict):
        raise SnapshotError("{where} is damaged: the entry for tensor '{name}' is not an object.",
                            id="safetensors.entry_not_object", where=where, name=name)
    code, shape, offsets = raw.get("dtype"), raw.get("shape"), raw.get("data_offsets")
    if not isinstance(code, str) or code not in DTYPE_FACTS:
        raise SnapshotError("{where} stores tensor '{name}' in a dtype tfdebug cannot read.",
                            id="safetensors.unknown_dtype", where=where, name=name)
    if not isinstance(shape, list) or not all(is_int(d) and d >= 0 for d in shape) or len(shape) > 64:
        raise SnapshotError("{where} is damaged: tensor '{name}' has an invalid shape.",
                            id="safetensors.bad_shape", where=where, name=name)
    itemsize = DTYPE_FACTS[code][1]
    problem = shape_problem(shape, itemsize, allow_empty=True)
    if problem:
        raise SnapshotError("{where} is damaged: tensor '{name}' has {problem}.",
                            id="safetensors.shape_problem", where=where, name=name, problem=problem)
    if (not isinstance(offsets, list) or len(offsets) != 2 or not all(is_int(o) for o in offsets)
            or not 0 <= offsets[0] <= offsets[1]):
        raise SnapshotError("{where} is damaged: tensor '{name}' has invalid data offsets.",
                            id="safetensors.bad_offsets", where=where, name=name)
    begin, end = offsets
    if end > data_len:
        raise SnapshotError("{where} is truncated or damaged: tensor '{name}' ends past the end of the file.",
                            id="safetensors.past_end", where=where, name=name)
    if end - begin != _numel(shape) * itemsize:
        raise SnapshotError("{where} is damaged: tensor '{name}' has a size that does not match its shape.",
                            id="safetensors.size_mismatch", where=where, name=name)
    return TensorEntry(name, code, tuple(shape), begin, end)


def file_phrase(path: str | os.PathLike) -> Phrase:
    """"The file PATH", the subject of a sentence about a file (the window translates it)."""
    return Phrase("The file {path}", id="where.file", path=os.fspath(path))


def open_regular(path: str | os.PathLike, error: type[TfdebugError] = SnapshotError) -> io.BufferedReader:
    """Open `path` for reading only if it is a regular file (see tfdebug.core.files.open_regular)."""
    return files.open_regular(path, error)


SPARSE_CHECK_BYTES = 256 * 1024 * 1024  # smaller files are read quickly whatever they hold


def refuse_mostly_holes(st: os.stat_result, data_len: int, where: str) -> None:
    """Refuse a large file that is mostly holes: it claims gigabytes it never stored.

    tfdebug writes every byte, so a snapshot is never sparse; reading one that is
    would take seconds and gigabytes of zeros. Compressing file systems store less
    than the size too, but not under an eighth of it for real tensor data.
    """
    blocks = getattr(st, "st_blocks", None)
    if blocks is None or data_len < SPARSE_CHECK_BYTES:
        return
    stored = blocks * 512
    if stored < data_len // 8:
        raise SnapshotError("{where} is damaged: it declares {gib} GiB of tensor data but "
                            "only {mib} MiB is stored on disk (a sparse file).", id="safetensors.sparse",
                            where=where, gib=f"{data_len / 2**30:.1f}", mib=f"{stored / 2**20:.1f}")


def read_header(path: str | os.PathLike, max_header: int = MAX_HEADER_BYTES) -> Header:
    """Read and validate the header of a safetensors file; SnapshotError says what is wrong."""
    where = file_phrase(path)
    f = open_regular(path)
    try:
        with f:
            st = os.fstat(f.fileno())
            size = st.st_size
            if size < 8:
                raise SnapshotError("{where} is too short to be a snapshot ({size} bytes).",
                                    id="safetensors.too_short", where=where, size=size)
            (n,) = struct.unpack("<Q", f.read(8))
            if n < 2 or n > max_header:
                raise SnapshotError("{where} is not a snapshot: it does not start with a safetensors header "
                                    "(its first 8 bytes claim a header of {n} bytes).", id="safetensors.no_header",
                                    where=where, n=f"{n:,}")
            if 8 + n > size:
                raise SnapshotError("{where} is truncated: its header needs {n} bytes but only "
                                    "{left} follow.", id="safetensors.header_truncated", where=where, n=n,
                                    left=size - 8)
            raw = f.read(n)
    except OSError as exc:
        raise SnapshotError("Cannot read {path}: {reason}.", id="safetensors.cannot_read",
                            path=os.fspath(path), reason=os_reason(exc)) from exc
    if len(raw) != n:
        raise SnapshotError("{where} is truncated: it changed while being read.", id="safetensors.changed",
                            where=where)
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise SnapshotError("{where} is not a snapshot: its header is not UTF-8 text.",
                            id="safetensors.header_not_utf8", where=where) from exc
    doc = json_object(text, Phrase("{where} is not a snapshot: its header", id="json.header", where=where))
    metadata = doc.pop("__metadata__", None) or {}
    if not isinstance(metadata, dict) or not all(isinstance(v, str) for v in metadata.values()):
        raise SnapshotError("{where} is damaged: its metadata is not a map of strings.",
                            id="safetensors.bad_metadata", where=where)
    data_len = size - 8 - n
    refuse_mostly_holes(st, data_len, where)
    if len(doc) > MAX_STAGES:
        raise SnapshotError("{where} is damaged: it holds {count} tensors (at most {limit}).",
                            id="safetensors.too_many", where=where, count=f"{len(doc):,}", limit=f"{MAX_STAGES:,}")
    entries = {name: _entry(name, raw_entry, data_len, where) for name, raw_entry in doc.items()}
    # The tensors must tile the data section exactly, as safetensors requires.
    position = 0
    for entry in sorted(entries.values(), key=lambda e: (e.begin, e.end)):
        if entry.begin != position:
            raise SnapshotError("{where} is damaged: the data of tensor '{name}' overlaps or leaves a gap.",
                                id="safetensors.overlap", where=where, name=entry.name)
        position = entry.end
    if position != data_len:
        raise SnapshotError("{where} is damaged or extended: {extra} bytes after the last "
                            "tensor belong to none.", id="safetensors.trailing", where=where,
                            extra=data_len - position)
    return Header(tensors=entries, metadata=metadata, data_start=8 + n, file_size=size)


def _host_bytes(tensor: Tensor):
    """The tensor's bytes as a memoryview over its own (CPU, contiguous) memory: no copy when possible."""

    t = tensor.detach()
    if t.device.type != "cpu":
        t = t.to("cpu")
    t = t.contiguous()
    if t.numel() == 0:
        return memoryview(b"")
    return byte_view(t)


def byte_view(tensor: Tensor) -> memoryview:
    """A CPU, contiguous tensor's own bytes as a writable memoryview (no copy)."""
    import torch

    # numpy's stubs give an ndarray the buffer protocol (__buffer__) on Python 3.12 and later only; it has it on all
    return memoryview(tensor.reshape(-1).view(torch.uint8).numpy())  # pyright: ignore[reportArgumentType]


def part_of_entry(entry: TensorEntry, leading: Sequence[int], where: str) -> tuple[int, tuple[int, ...]]:
    """Where the part `entry[leading]` lies (its offset from the data start) and its shape.

    With every leading axis fixed the part is one contiguous run of the stored, row-major
    bytes; `leading` must fix fewer axes than the tensor has, each within its size, and the
    part must lie inside the entry (SnapshotError with one sentence otherwise). () is the
    whole tensor.
    """
    shape, rest = entry.shape, entry.shape[len(leading):]
    fits = (not leading or len(leading) < len(shape)) and all(
        is_int(i) and 0 <= i < d for i, d in zip(leading, shape))
    offset = 0
    for i, d in zip(leading, shape) if fits else ():
        offset = offset * d + i
    size = _numel(rest) * DTYPE_FACTS[entry.code][1]
    begin = entry.begin + offset * size
    if not fits or begin + size > entry.end:  # a checked header's entry holds every part it has
        raise SnapshotError("{where} has no part {index} of tensor '{name}' (of shape {shape}).",
                            id="safetensors.no_part", where=where, index=list(leading), name=entry.name,
                            shape=list(shape))
    return begin, rest


READ_CHUNK_BYTES = 1 << 30  # one read call stays under Linux's ~2 GiB per-call limit


STOP_CHUNK_BYTES = 64 * 1024 * 1024  # a read that may be stopped asks between pieces this large


def read_into(f: io.BufferedReader, offset: int, tensor: Tensor, stop: Callable[[], bool] | None = None) -> bool:
    """Fill the (CPU, contiguous) `tensor` with the file's bytes from `offset`; False when the file ends first.

    Reads with pread into the tensor's own memory: one copy, no memory map (a mapped file
    truncated underneath faults when touched), the file position left alone. `stop()`, asked
    before each piece of STOP_CHUNK_BYTES, ends the read with ReadStoppedError when true.
    """

    if tensor.numel() == 0:
        return True
    view = byte_view(tensor)
    fd, done = f.fileno(), 0
    chunk = READ_CHUNK_BYTES if stop is None else STOP_CHUNK_BYTES
    while done < len(view):
        if stop is not None and stop():
            raise ReadStoppedError("The read was stopped: another stage was asked for.", id="read.stopped")
        piece = view[done:done + chunk]
        if hasattr(os, "preadv"):
            n = os.preadv(fd, [piece], offset + done)
        else:  # no preadv (macOS before 11, Windows): seek and read on the file object
            f.seek(offset + done)
            n = f.readinto(piece)
        if not n:
            return False
        done += n
    return True


class Item(NamedTuple):
    """One tensor to write: its facts up front, its data fetched only when its turn comes."""

    name: str
    dtype: torch.dtype
    shape: tuple[int, ...]
    fetch: Callable[[], Tensor]


def write_file(f: BinaryIO, items: Sequence[Item], metadata: dict[str, str],
               progress: ProgressCallback | None = None) -> int:
    """Write tensors (in the given order) as a safetensors file to `f`; returns bytes written.

    Each item's tensor is fetched when written, so a lazily opened recording streams.
    `progress(done_bytes, total_bytes)` is called as data goes out; returning False cancels.
    """
    if sys.byteorder != "little":  # safetensors is little-endian; tfdebug writes raw memory
        raise SnapshotError("Snapshots can only be written on a little-endian machine.",
                            id="safetensors.big_endian")
    code_of = _torch_tables()["CODE_OF"]
    header: dict = {"__metadata__": metadata} if metadata else {}
    offset = 0
    for item in items:
        if item.dtype not in code_of:
            raise SnapshotError("Stage '{name}' has dtype {dtype}, which a snapshot "
                                "cannot hold.", id="safetensors.dtype_unwritable", name=item.name,
                                dtype=dtype_name(item.dtype))
        nbytes = _numel(item.shape) * item.dtype.itemsize
        header[item.name] = {"dtype": code_of[item.dtype], "shape": list(item.shape),
                             "data_offsets": [offset, offset + nbytes]}
        offset += nbytes
    blob = json.dumps(header, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
    blob += b" " * (-len(blob) % 8)
    f.write(struct.pack("<Q", len(blob)))
    f.write(blob)
    total, done = offset, 0
    report(progress, 0, total)
    for item in items:
        tensor = item.fetch()
        if tensor.dtype != item.dtype or tuple(tensor.shape) != tuple(item.shape):
            raise SnapshotError("Stage '{name}' changed shape or dtype while being written.",
                                id="safetensors.changed_while_writing", name=item.name)
        data = _host_bytes(tensor)
        for start in range(0, len(data), CHUNK_BYTES):
            piece = data[start:start + CHUNK_BYTES]
            f.write(piece)
            done += len(piece)
            report(progress, done, total)
    return 8 + len(blob) + total
