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
import zipfile
from pathlib import Path
from typing import Callable, Iterable, Sequence

import numpy as np
import torch
from torch import Tensor

from tfdebug.core.display import DisplaySlice
from tfdebug.core.errors import ExportError, SnapshotError
from tfdebug.core.phrases import Phrase
from tfdebug.io.atomic import ProgressCallback, atomic_path, atomic_write, report
from tfdebug.io.export_read import read_npz, read_pt, reader
from tfdebug.io.formats import ExportFormat, View, format_for, register
from tfdebug.io.manifest import checked_manifest
from tfdebug.io.recording import EXPORT_MANIFEST_KEY, Recording
from tfdebug.io.snapshot import open_snapshot, save_snapshot


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
                if tensor.dtype == torch.bfloat16:
                    tensor = tensor.float()
                array = tensor.cpu().numpy()
                with archive.open(capture.name + ".npy", "w", force_zip64=True) as member:
                    np.lib.format.write_array(_Counting(member, advance), array, allow_pickle=False)
            with archive.open(EXPORT_MANIFEST_KEY + ".npy", "w") as member:
                np.lib.format.write_array(member, np.array(manifest), allow_pickle=False)


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
    for capture in recording.captures:
        data[capture.name] = _own_storage(recording.tensor(capture))
        done += capture.nbytes
        report(progress, done, total)
    data[EXPORT_MANIFEST_KEY] = manifest
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
    writer = format_for(path, fmt, scope="pass").writer
    selected = recording.select(stages)
    if not selected.captures:
        raise ExportError("No stages are selected: choose at least one stage to export.", id="export.no_stages")
    writer(selected, path, progress)


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
