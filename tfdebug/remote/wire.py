"""Core's data (stage entries, stats, slices, thumbnails, breakpoints) as header fields and buffers, and back.

Each conversion is written once here and used by both sides. What the window reads back is
checked like a file: a missing field or a wrong shape is a FrameError, not a crash later.
"""

from __future__ import annotations

import json
from typing import Any

import numpy as np
import torch

from tfdebug.sessions.generation import TokenEntry
from tfdebug.core.breakpoints import DIVERGES, Breakpoint
from tfdebug.core.checks import Check
from tfdebug.core.compare import Comparison
from tfdebug.core.display import DisplaySlice
from tfdebug.core.stats import Stats
from tfdebug.core.images import InputImage
from tfdebug.core.recorder import Capture
from tfdebug.core.stages import StageInfo
from tfdebug.core.thumbnails import HeadThumbnails
from tfdebug.core.tiles import Tile
from tfdebug.remote.errors import FrameError, text_of, text_wire
from tfdebug.remote.protocol import MAX_IMAGE, wire_number

_TORCH_DTYPES = {str(d).removeprefix("torch."): d for d in (
    torch.float32, torch.float16, torch.bfloat16, torch.float64, torch.int64, torch.int32, torch.int16, torch.int8,
    torch.uint8, torch.bool, torch.complex64)}


def dtype_of(name: str) -> torch.dtype:
    """A torch dtype by its short name ('float16'); FrameError for any other."""
    try:
        return _TORCH_DTYPES[name]
    except (KeyError, TypeError):
        raise FrameError("Unknown element type {name}.", id="remote.dtype", name=repr(name)[:30]) from None


# ----- stage entries (a plan's or a history's captures, without tensors) -----------------------------
def entry(capture: Capture) -> dict:
    """A capture's description as JSON: its stage info, shape, dtype, device and flags."""
    return {"info": capture.info.to_dict(), "shape": list(capture.shape),
            "dtype": str(capture.dtype).removeprefix("torch."), "device": str(capture.device),
            "edited": bool(capture.edited), "dropped": bool(capture.dropped)}


def capture_of(data: Any) -> Capture:
    """A Capture without tensor from `entry`'s JSON (checked)."""
    try:
        info = StageInfo.from_dict(data["info"])
        shape = tuple(int(n) for n in data["shape"])
        capture = Capture(info=info, shape=shape, dtype=dtype_of(data["dtype"]), device=torch.device(data["device"]))
    except (KeyError, TypeError, ValueError, RuntimeError) as exc:
        raise FrameError("A stage description from the server cannot be read: {why}", id="remote.entry",
                         why=str(exc)[:200]) from None
    capture.edited, capture.dropped = bool(data.get("edited")), bool(data.get("dropped"))
    return capture


def plan_parts(entries: list[dict], max_bytes: int) -> list[list[dict]]:
    """`entries` (a plan's `entry` dicts) in consecutive parts of at most `max_bytes` of JSON each (an entry
    larger than that is a part of its own); always at least one part, so the `pass` message has its first."""
    parts: list[list[dict]] = [[]]
    size = 1  # the list's brackets; each entry adds its JSON and a comma (or the closing bracket)
    for e in entries:
        n = len(json.dumps(e, ensure_ascii=False, separators=(",", ":"), allow_nan=False).encode()) + 1
        if parts[-1] and size + n > max_bytes:
            parts.append([])
            size = 1
        parts[-1].append(e)
        size += n
    return parts


# ----- breakpoints ---------------------------------------------------------------------------------
# ----- the picture a pass's model read (a snapshot's form of it, bounded) ------------------------------
def image_fields(image: InputImage | None) -> dict | None:
    """The picture (or spectrogram) as a snapshot carries it, in at most MAX_IMAGE bytes of pixels; None without."""
    shown = image.within(MAX_IMAGE) if image is not None else None
    return shown.to_manifest() if shown is not None else None


def image_of(data: Any) -> InputImage | None:
    """The picture `image_fields` sent (checked as a snapshot's is: size, grid, pixels), or None."""
    if data is None:
        return None
    try:
        image = InputImage.from_manifest(data)
    except ValueError as exc:
        raise FrameError("The server's picture cannot be read: {why}", id="remote.image", why=str(exc)[:200]) from None
    if image.pixels.nbytes > MAX_IMAGE:  # the server sends at most this much (`image_fields`): the window keeps no more
        raise FrameError("The server's picture holds {got} bytes of pixels, larger than the protocol's {most}.",
                         id="remote.image_size", got=f"{image.pixels.nbytes:,}", most=f"{MAX_IMAGE:,}")
    return image


def breakpoint_fields(bp: Breakpoint) -> dict:
    """A breakpoint as header fields (`breakpoint_of` reads them back); `rtol` only for the divergence condition."""
    fields = {"by": bp.by, "value": bp.value, "threshold": None if bp.threshold is None else wire_number(bp.threshold)}
    if bp.rtol is not None:
        fields["rtol"] = wire_number(bp.rtol)
    return fields


def breakpoint_of(data: dict | None) -> Breakpoint | None:
    """`breakpoint_fields`' fields read back (None for none); a FrameError when they are not a breakpoint."""
    if not data:
        return None
    try:
        if data["by"] == "kind":
            return Breakpoint.on_kind(data["value"])
        if data["by"] == "condition" and data["value"] == DIVERGES:
            return Breakpoint.on_divergence(float(data["threshold"]), float(data["rtol"]))
        if data["by"] == "condition" and data["value"] not in ("nan", "inf", "abs_gt"):
            raise ValueError(f"unknown condition {data['value']!r}")
        if data["by"] not in ("stage", "condition"):
            raise ValueError(f"unknown breakpoint {data['by']!r}")
        threshold = data.get("threshold")
        return Breakpoint(data["by"], str(data["value"]), None if threshold is None else float(threshold))
    except (KeyError, TypeError, ValueError) as exc:
        raise FrameError("A breakpoint cannot be read: {why}", id="remote.breakpoint", why=str(exc)[:200]) from None


# ----- stats, slices, thumbnails -----------------------------------------------------------------
def _num(x: float) -> float | None:
    return None if x != x or x in (float("inf"), float("-inf")) else float(x)


def stats_fields(stats: Stats) -> tuple[dict, list[np.ndarray]]:
    """Scalar stats in the header; the histogram's counts and edges as two buffers."""
    fields = {"min": _num(stats.min), "max": _num(stats.max), "mean": _num(stats.mean), "std": _num(stats.std),
              "nan": int(stats.nan), "posinf": int(stats.posinf), "neginf": int(stats.neginf),
              "count": int(stats.count), "partial": bool(stats.partial)}
    return fields, [np.asarray(stats.hist_counts, dtype=np.int64), np.asarray(stats.hist_edges, dtype=np.float64)]


def _plane_shape(shape: Any) -> tuple[int, int]:
    """A 2-D plane's (rows, cols) as a message gives them; ValueError when they are not two sizes."""
    rows, cols = (int(n) for n in shape)
    return rows, cols


def stats_of(fields: Any, counts: np.ndarray, edges: np.ndarray) -> Stats:
    def real(key):
        value = fields[key]
        return float("nan") if value is None else float(value)
    try:
        return Stats(min=real("min"), max=real("max"), mean=real("mean"), std=real("std"), nan=int(fields["nan"]),
                     posinf=int(fields["posinf"]), neginf=int(fields["neginf"]), count=int(fields["count"]),
                     hist_counts=counts.copy(), hist_edges=edges.copy(), partial=bool(fields["partial"]))
    except (KeyError, TypeError, ValueError) as exc:
        raise FrameError("Stats from the server cannot be read: {why}", id="remote.stats", why=str(exc)[:200]) from None


def slice_fields(sl: DisplaySlice) -> tuple[dict, list[np.ndarray]]:
    """A display slice: its float32 plane first, then the stats' buffers."""
    stats, buffers = stats_fields(sl.stats)
    fields = {"row_axis": sl.row_axis, "col_axis": sl.col_axis, "source_shape": list(sl.source_shape),
              "stats": stats}
    return fields, [np.ascontiguousarray(sl.values, dtype=np.float32), *buffers]


def slice_of(fields: Any, buffers: list[np.ndarray]) -> DisplaySlice:
    if len(buffers) != 3 or buffers[0].ndim != 2:
        raise FrameError("A slice from the server is not a 2-D plane with its stats.", id="remote.slice_shape")
    try:
        source = _plane_shape(fields["source_shape"])
        # Read-only views of the received bytes: nothing draws into a slice, and a copy of a 4 MB plane costs ms.
        return DisplaySlice(values=buffers[0], row_axis=int(fields["row_axis"]),
                            col_axis=int(fields["col_axis"]), source_shape=source,
                            stats=stats_of(fields["stats"], buffers[1], buffers[2]))
    except (KeyError, TypeError, ValueError) as exc:
        raise FrameError("A slice from the server cannot be read: {why}", id="remote.slice", why=str(exc)[:200]) from None


def tile_fields(tile: Tile) -> tuple[dict, list[np.ndarray]]:
    """A tile: its float32 values, the stats' buffers, then the rows' maxima when it has them."""
    stats, buffers = stats_fields(tile.stats)
    fields = {"rows": list(tile.rows), "cols": list(tile.cols), "source_shape": list(tile.source_shape),
              "stats": stats}
    maxima = [] if tile.row_max is None else [np.asarray(tile.row_max, dtype=np.float32)]
    return fields, [np.ascontiguousarray(tile.values, dtype=np.float32), *buffers, *maxima]


def tile_of(fields: Any, buffers: list[np.ndarray]) -> Tile:
    if len(buffers) not in (3, 4) or buffers[0].ndim != 2 or (len(buffers) == 4 and
                                                              buffers[3].shape != (buffers[0].shape[0],)):
        raise FrameError("A tile from the server is not a 2-D plane with its stats.", id="remote.tile_shape")
    try:
        pair = lambda key: (int(fields[key][0]), int(fields[key][1]))  # noqa: E731
        return Tile(values=buffers[0].copy(), rows=pair("rows"), cols=pair("cols"), source_shape=pair("source_shape"),
                    stats=stats_of(fields["stats"], buffers[1], buffers[2]),
                    row_max=buffers[3].copy() if len(buffers) == 4 else None)
    except (KeyError, TypeError, ValueError, IndexError) as exc:
        raise FrameError("A tile from the server is damaged.", id="remote.tile_damaged") from exc


def heads_fields(thumbs: HeadThumbnails) -> tuple[dict, list[np.ndarray]]:
    return ({"source_shape": list(thumbs.source_shape)},
            [np.ascontiguousarray(thumbs.values, dtype=np.float32), np.asarray(thumbs.mins, dtype=np.float64),
             np.asarray(thumbs.maxs, dtype=np.float64), np.asarray(thumbs.neginf, dtype=np.int64)])


def heads_of(fields: Any, buffers: list[np.ndarray]) -> HeadThumbnails:
    if len(buffers) != 4 or buffers[0].ndim != 3 or any(b.shape != (buffers[0].shape[0],) for b in buffers[1:]):
        raise FrameError("Head thumbnails from the server do not fit together.", id="remote.heads_fit")
    try:
        return HeadThumbnails(values=buffers[0].copy(), mins=buffers[1].copy(), maxs=buffers[2].copy(),
                              neginf=buffers[3].copy(), source_shape=_plane_shape(fields["source_shape"]))
    except (KeyError, TypeError, ValueError) as exc:
        raise FrameError("Head thumbnails from the server cannot be read: {why}", id="remote.heads",
                         why=str(exc)[:200]) from None


def check(c: Check) -> dict:
    """A live check (tfdebug.core.checks.Check): its verdict and its words, phrases kept for the window to translate."""
    return {"ok": c.ok, "text": text_wire(c.text), "detail": text_wire(c.detail)}


def check_of(data: Any) -> Check:
    """`check`'s fields read back; a FrameError when they are not one."""
    try:
        ok, text, detail = data["ok"], text_of(data["text"]), text_of(data["detail"])
        if ok is not None and not isinstance(ok, bool):
            raise TypeError("ok is not a verdict")
        if text is None or detail is None:
            raise TypeError("its words are not a text")
        return Check(ok, text, detail)
    except (KeyError, TypeError) as exc:
        raise FrameError("A check from the server cannot be read: {why}", id="remote.check", why=str(exc)[:200]) from None


def token_entry(e: TokenEntry) -> list:
    """One entry of a generation's token strip: [text, step, generated, probability, [[text, p], …]]."""
    return [e.text, e.step, e.generated, None if e.probability is None else float(e.probability),
            [[t, float(p)] for t, p in e.alternatives]]


def token_entry_of(data: Any) -> TokenEntry:
    """`token_entry`'s list read back; a FrameError when it is not one."""
    try:
        text, step, generated, probability, alternatives = data
        return TokenEntry(str(text), None if step is None else int(step), bool(generated),
                          None if probability is None else float(probability),
                          tuple((str(t), float(p)) for t, p in alternatives))
    except (TypeError, ValueError) as exc:
        raise FrameError("A token of the server's generation cannot be read: {why}", id="remote.token_entry",
                         why=str(exc)[:200]) from None


def comparison_of(data: Any) -> Comparison:
    """A comparison the server made (`Comparison.to_dict`'s JSON) read back; a FrameError when it is not one."""
    try:
        return Comparison.from_dict(data)
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        raise FrameError("The server's comparison cannot be read: {why}", id="remote.comparison",
                         why=str(exc)[:200]) from None


def transplant_of(data: Any):
    """The transplant the server made (`Transplant.to_dict`'s JSON, or None when it made none) read back; a
    FrameError when it is not one."""
    from tfdebug.sessions.transplant import Transplant

    if data is None:
        return None
    try:
        return Transplant.from_dict(data)
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        raise FrameError("The server's transplant cannot be read: {why}", id="remote.transplant",
                         why=str(exc)[:200]) from None
