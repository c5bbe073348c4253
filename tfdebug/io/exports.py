"""Exports: pure functions `(data, path) -> None`, each writing atomically.

- `.safetensors`: the snapshot format (see tfdebug.io.snapshot).
- `.npz`: one plain array per stage, loadable with `np.load(path, allow_pickle=False)`.
  numpy has no bfloat16, so bfloat16 stages are stored as float32 (exactly; the
  manifest records `stored_dtype`).
- `.pt`: a dict of CPU tensors, loadable with `torch.load(path, weights_only=True)`.
- `.csv`: a 2-D slice (the heatmap being shown), with token labels when given.

Each format is registered once in tfdebug.io.formats (suffix, label, scope, writer,
reader); `.png` and `.svg` are view formats whose picture the window draws.
`.npz` and `.pt` hold one extra key, `__tfdebug__`: the manifest as a JSON string.
Long exports call `progress(done_bytes, total_bytes)`; returning False cancels, and a
cancelled or failed export leaves no file behind and keeps any earlier one.
"""

from __future__ import annotations

import csv
import io
import json
import os
import shutil
import tempfile
import zipfile
from contextlib import ExitStack
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Iterable, Sequence

import numpy as np

from tfdebug.core.budget import format_bytes
from tfdebug.core.display import DisplaySlice
from tfdebug.core.errors import ExportError, SnapshotError
from tfdebug.core.phrases import Phrase
from tfdebug.core.recipes import Plane, is_plane
from tfdebug.io.atomic import ProgressCallback, atomic_path, atomic_write, os_error, report
from tfdebug.io.export_read import read_npz, read_pt, reader
from tfdebug.io.formats import ExportFormat, View, format_for, register
from tfdebug.io.manifest import checked_manifest
from tfdebug.io.recipe_store import recipe_parts
from tfdebug.io.recording import EXPORT_MANIFEST_KEY, Recording
from tfdebug.io.snapshot import open_snapshot, save_snapshot

if TYPE_CHECKING:  # torch loads when a function first needs it, not with the window
    from torch import Tensor


def _manifest_json(recording: Recording, stored: dict[str, str] | None = None) -> str:
    return json.dumps(checked_manifest(recording, stored), ensure_ascii=False, separators=(",", ":"))


class _Counting(io.RawIOBase):
    """A write-only stream that reports bytes passing through to `sink`."""

    def __init__(self, sink, on_bytes: Callable[[int], None]):
        super().__init__()
        self._sink, self._on_bytes = sink, on_bytes

    def writable(self) -> bool:
        return True

    def write(self, data) -> int:
        n = self._sink.write(data)
        self._on_bytes(len(memoryview(data).cast("B")))
        return n


def export_npz(recording: Recording, path: str | os.PathLike, progress: ProgressCallback | None = None) -> None:
    """Write every stage of `recording` as a plain array in an uncompressed .npz file."""
    import torch
    stored = {c.name: "float32" for c in recording.captures if c.dtype == torch.bfloat16}
    manifest = _manifest_json(recording, stored)
    total = sum(c.nbytes * (2 if c.name in stored else 1) for c in recording.captures)
    done = 0

    def advance(n: int) -> None:
        nonlocal done
        done += n
        report(progress, min(done, total), total)

    with atomic_write(path, ExportError) as f:
        report(progress, 0, total)
        with zipfile.ZipFile(f, "w", compression=zipfile.ZIP_STORED, allowZip64=True) as archive:
            for capture in recording.captures:
                tensor = recording.tensor(capture).detach()
                with archive.open(capture.name + ".npy", "w", force_zip64=True) as member:
                    if is_plane(tensor):  # computed and written one head block at a time
                        _write_plane(_Counting(member, advance), tensor)
                        continue
                    if tensor.dtype == torch.bfloat16:
                        tensor = tensor.float()
                    np.lib.format.write_array(_Counting(member, advance), tensor.cpu().numpy(), allow_pickle=False)
            with archive.open(EXPORT_MANIFEST_KEY + ".npy", "w") as member:
                np.lib.format.write_array(member, np.array(manifest), allow_pickle=False)


def _host_block(block: Tensor) -> np.ndarray:
    """A computed block as host numpy (bfloat16 as float32, exactly: numpy has no bfloat16)."""
    import torch
    block = block.float() if block.dtype == torch.bfloat16 else block
    return block.contiguous().cpu().numpy()


def _write_plane(stream, plane) -> None:
    """A recipe plane as one .npy array, computed and written one block at a time (`Plane.blocks`, row-major:
    batch row by batch row), so no more than a block is ever in memory."""
    import torch
    dtype = _host_block(torch.empty(0, dtype=plane.dtype)).dtype
    np.lib.format.write_array_header_2_0(stream, {"descr": np.lib.format.dtype_to_descr(dtype),
                                                  "fortran_order": False, "shape": tuple(plane.shape)})
    for b in range(plane.shape[0]):
        for _, _, block in plane.blocks():
            stream.write(_host_block(block[b]).tobytes())


def _file_backed(plane, folder: Path, stack: ExitStack) -> Tensor:
    """A recipe plane computed into a temporary file in `folder` and mapped (pages the kernel can write
    back, not memory the export holds); the file goes when `stack` closes."""
    import torch
    try:
        handle = stack.enter_context(tempfile.NamedTemporaryFile(dir=folder, prefix=".tfdebug-plane-"))
        handle.truncate(plane.numel() * plane.element_size())
    except OSError as exc:
        raise os_error(ExportError, exc, folder) from exc
    out = torch.from_file(handle.name, shared=True, size=plane.numel(), dtype=plane.dtype).view(plane.shape)
    for hs, rs, block in plane.blocks():
        out[:, hs, rs] = block.cpu()
    return out


def _own_storage(tensor: Tensor) -> Tensor:
    """A CPU tensor holding only its own elements (a view would save its whole base)."""
    t = tensor.detach().cpu()
    if t.untyped_storage().nbytes() != t.numel() * t.element_size():
        t = t.clone()
    return t


def export_pt(recording: Recording, path: str | os.PathLike, progress: ProgressCallback | None = None) -> None:
    """Write a dict {stage name: CPU tensor, '__tfdebug__': manifest JSON} with torch.save.

    Progress counts stages gathered; the final torch.save itself cannot be cancelled.
    """
    manifest = _manifest_json(recording)  # checked before anything is gathered or written
    total, done = recording.nbytes, 0
    data: dict[str, object] = {}
    report(progress, 0, total)
    with ExitStack() as stack:
        for capture in recording.captures:
            tensor = recording.tensor(capture)
            # torch.save takes whole tensors: a recipe plane is computed into a mapped temporary file.
            data[capture.name] = (_file_backed(tensor, Path(path).absolute().parent, stack) if is_plane(tensor)
                                  else _own_storage(tensor))
            done += capture.nbytes
            report(progress, done, total)
        data[EXPORT_MANIFEST_KEY] = manifest
        _save_pt(data, path)


def _save_pt(data: dict, path: str | os.PathLike) -> None:
    import torch
    with atomic_write(path, ExportError) as f:
        try:
            torch.save(data, f)
        except RuntimeError as exc:
            # torch.save reports a failed write (disk full, I/O error) as its own internal
            # error; the OSError behind it becomes the same sentence other formats give.
            cause = exc.__context__
            while cause is not None and not isinstance(cause, OSError):
                cause = cause.__context__
            if cause is not None:
                raise cause from None
            raise ExportError("The .pt file {name} could not be written.", id="export.pt_write_failed",
                              name=Path(path).name) from exc


def export_safetensors(recording: Recording, path: str | os.PathLike,
                       progress: ProgressCallback | None = None) -> None:
    """Write `recording` in the snapshot format (same as save_snapshot)."""
    save_snapshot(recording, path, progress)


def export_pass(recording: Recording, path: str | os.PathLike, stages: Iterable[str] | None = None,
                fmt: str | None = None, progress: ProgressCallback | None = None) -> None:
    """Export the whole pass, or only `stages`, in the format the extension (or `fmt`) names."""
    export = format_for(path, fmt, scope="pass")
    selected = recording.select(stages)
    if not selected.captures:
        raise ExportError("No stages are selected: choose at least one stage to export.", id="export.no_stages")
    check_room(selected, path, export.suffix)
    export.writer(selected, path, progress)


def bytes_needed(recording: Recording, suffix: str) -> int:
    """Bytes a pass export in format `suffix` writes (about): a snapshot stores recipe stages as their inputs
    (among its stages, or stored once beside them: q and k, a mask, a backward's V), the other formats every
    plane whole (.npz's bfloat16 as float32; .pt's planes once more, in the temporary files torch.save reads them
    from)."""
    import torch
    if suffix == ".safetensors":
        plain = {c.name: c.tensor for c in recording.captures  # a recipe read lazily: its inputs are not counted
                 if not c.recipe or c.tensor is not None and not is_plane(c.tensor)}
        planes = {c.name: c.tensor for c in recording.captures if c.recipe and isinstance(c.tensor, Plane)}
        _, extra = recipe_parts(planes, {n: t for n, t in plain.items() if t is not None})
        return sum(c.nbytes for c in recording.captures if c.name in plain) + \
            sum(t.numel() * t.element_size() for t in extra.values())
    widen = 2 if suffix == ".npz" else 1
    planes = 2 if suffix == ".pt" else 1
    return sum(c.nbytes * (widen if c.dtype == torch.bfloat16 else 1) * (planes if c.recipe else 1)
               for c in recording.captures)


def check_room(recording: Recording, path: str | os.PathLike, suffix: str) -> None:
    """Refuse, before anything is written, an export the disk has no room for, saying what fits."""
    folder = Path(path).absolute().parent
    try:
        free = shutil.disk_usage(folder).free
    except OSError:
        return  # the write itself will say what is wrong with the folder
    needed = bytes_needed(recording, suffix)
    if needed <= free:
        return
    snapshot = bytes_needed(recording, ".safetensors")
    hint = (Phrase(" A snapshot (.safetensors) stores the attention planes as recipes and needs {size}.",
                   id="export.hint_snapshot", size=format_bytes(snapshot))
            if suffix != ".safetensors" and snapshot <= free else "")
    raise ExportError("This export needs about {needed} but {folder} has {free} free.{hint} Export fewer stages "
                      "(a stage filter) or choose another folder.", id="export.no_room", needed=format_bytes(needed),
                      folder=str(folder), free=format_bytes(free), hint=hint)


def export_csv(values: np.ndarray | DisplaySlice, path: str | os.PathLike,
               row_labels: Sequence[str] | None = None, col_labels: Sequence[str] | None = None) -> None:
    """Write a 2-D slice as CSV: a header row of column labels, then one labelled row per row.

    Labels default to indices. Values use 9 significant digits (exact for float32);
    masked cells read `-inf`, missing ones `nan`.
    """
    array = np.asarray(values.values if isinstance(values, DisplaySlice) else values)
    if array.ndim == 1:
        array = array.reshape(1, -1)
    if array.ndim != 2:
        raise ExportError("Only a 2-D slice can be exported as CSV; this one has {ndim} dimensions.",
                          id="export.csv_not_2d", ndim=array.ndim)
    rows, cols = array.shape
    row_labels = list(row_labels) if row_labels is not None else [str(i) for i in range(rows)]
    col_labels = list(col_labels) if col_labels is not None else [str(j) for j in range(cols)]
    if len(row_labels) != rows or len(col_labels) != cols:
        raise ExportError("The CSV labels do not match the slice's size.", id="export.csv_labels")
    text = io.StringIO(newline="")
    writer = csv.writer(text, lineterminator="\n")
    writer.writerow(["", *col_labels])
    for label, row in zip(row_labels, array.tolist()):
        writer.writerow([label, *("%.9g" % x for x in row)])
    with atomic_write(path, ExportError) as f:
        f.write(text.getvalue().encode("utf-8"))


def load_export(path: str | os.PathLike) -> Recording:
    """Read a recorded pass back from any pass format (.safetensors, .npz, .pt); no code runs, no pickle."""
    fmt = format_for(path)
    if fmt.reader is None:
        raise SnapshotError("The file {path} is a {label}, not a recorded pass.", id="export.not_a_pass",
                            path=os.fspath(path), label=fmt.label)
    return fmt.reader(path)


# ----- views -----------------------------------------------------------------------------------
def _write_csv(view: View, path: str | os.PathLike) -> None:
    export_csv(view.values, path, view.row_labels, view.col_labels)


def _write_picture(view: View, path: str | os.PathLike) -> None:
    suffix = Path(path).suffix.lower()
    if view.render is None:
        raise ExportError("A {suffix} picture of the heatmap can only be drawn from the window.",
                          id="export.picture_needs_window", suffix=suffix)
    with atomic_path(path, ExportError) as tmp:
        view.render(str(tmp), suffix)


def export_view(view: View, path: str | os.PathLike, fmt: str | None = None) -> None:
    """Export the heatmap being shown in the view format the extension (or `fmt`) names."""
    format_for(path, fmt, scope="view").writer(view, path)


# Offered in this order: first what records a pass, then what records the view.
for _fmt in (
    ExportFormat(".safetensors", Phrase("Snapshot (.safetensors)", id="format.safetensors"), "pass",
                 export_safetensors, open_snapshot),
    ExportFormat(".npz", Phrase("NumPy arrays (.npz; bfloat16 saved as float32)", id="format.npz"), "pass",
                 export_npz, reader(read_npz)),
    ExportFormat(".pt", Phrase("PyTorch tensors (.pt)", id="format.pt"), "pass", export_pt, reader(read_pt)),
    ExportFormat(".csv", Phrase("Heatmap slice as CSV (.csv)", id="format.csv"), "view", _write_csv),
    ExportFormat(".png", Phrase("Heatmap image (.png)", id="format.png"), "view", _write_picture),
    ExportFormat(".svg", Phrase("Heatmap vector image (.svg)", id="format.svg"), "view", _write_picture),
):
    register(_fmt)
