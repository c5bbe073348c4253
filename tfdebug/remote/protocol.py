"""The wire format of a remote session: typed, versioned messages, every frame bounded and validated.

A message is a ZeroMQ multipart message: frame 0 is a UTF-8 JSON object (the header), the
frames after it raw array buffers the header describes (`buffers`: dtype and shape of each,
C order, little-endian). Nothing is ever unpickled; a buffer becomes an array only after its
declared size is checked against the limit and against the bytes that came.

Every header carries `v` (PROTOCOL_VERSION) and `type`; requests carry an `id` the reply
repeats. Each type's fields are declared once in SCHEMAS and checked on arrival, like a file
read from disk: a missing or unknown field, a wrong type or a number out of range is refused with a
sentence.
"""

from __future__ import annotations

import json
import math
import re
import sys
from typing import Any, Callable, Sequence

import numpy as np

from tfdebug.core.overview import STATISTICS
from tfdebug.remote.errors import FrameError, VersionError

PROTOCOL_VERSION = 11  # 2: errors carry their template and values; the transfer frame (export credit, cancel)
# 3: generation (open's `generate`, the next_token and run_to_token commands, the state's `generation`); overview
# 4: compare (the per-stage comparison made on the server; its table in the reply); the pass's plan in parts;
# the divergence condition (breakpoint `rtol`, op "reference"); the state no longer echoes the breakpoints and
# condition mode (the window's set is the only one)
# 5: compare's `attention` (the reference pass with another attention kernel) and the transplant in its reply;
# open's `chat` and the pass's `chat`/`can_chat` (the window's Chat toggle on a served model)
# 6: the state's `held` (bytes the server's captures hold: the window's "captures hold" over a served pass); the
# `compared` request (A, B and A − B of a stage in the last comparison: the Compare dock over a served pass); the
# `checks` request (a stage's live checks: the Explain dock over a served pass)
# 7: the pass's `image` (the picture or spectrogram the model read, at most MAX_IMAGE bytes of pixels: the Image dock
# over a served pass)
# 8: Why This Output over a served pass, computed on the server (tfdebug.remote.explaining): the `why`, `lens`,
# `attribute`, `token_id` and `patch_sweep` requests
# 9: Debug ▸ Backward over a served pass (tfdebug.remote.backwards): the `backward` request; the pass's `gradients`
# 10: texts of different lengths in a patching sweep (`patch_sweep`'s `align`); Patch Stage over a served pass (the
# `patch_stage` request, answered as a comparison: its passes draw the Compare dock's planes)
# 11: the Overview's `norm` statistic (‖x‖₂ of a stage: a backward's gradient norm per stage); `make_room` (the
# served pass's captures let go for its backward, whose peak the server states and checks first) and the
# backward's `peak` in its reply

# What one side accepts from the other. The server's inbound limits are small (commands, and
# the one buffer a replaced tensor needs); the window accepts larger headers (a pass's stage
# metadata) and snapshot chunks.
MAX_FRAMES = 10  # a header and at most 9 buffers (the `compared` reply: three slices of three buffers each)
SERVER_MAX_HEADER = 64 * 1024         # from a peer not attached (a hello needs well under 1 KiB)
ATTACHED_MAX_HEADER = 4 * 2**20       # from the attached window: above the largest header SCHEMAS allows
CLIENT_MAX_HEADER = 32 * 2**20
DEFAULT_MAX_UPLOAD = 256 * 2**20      # a replaced tensor, float32
CLIENT_MAX_BUFFER = 64 * 2**20        # a slice plane, thumbnails or one snapshot chunk
EXPORT_CHUNK = 4 * 2**20
PLAN_PART = 4 * 2**20      # JSON bytes of a pass's plan one message carries: the rest follows in `plan` messages
MAX_PLAN = 2**22           # stage entries a window takes in one pass's plan
EXPORT_WINDOW = 4          # chunks the server sends ahead of the window's receipts: what an export holds in flight
MAX_IMAGE = 4 * 2**20      # pixels of a pass's picture (base64 in its header): a larger one crosses every k-th pixel
MAX_DIM = 2**31
MAX_NDIM = 8

# Buffers carry only these element types (bfloat16 and friends travel as float32).
DTYPES = {"float32": np.float32, "float64": np.float64, "uint8": np.uint8, "int64": np.int64}

OPS = ("start", "step", "continue", "run_to", "step_out", "step_back", "step_forward", "goto", "pause", "stop",
       "restart", "undo_replace", "next_token", "run_to_token")
BREAKPOINT_OPS = ("add", "remove", "clear", "mode", "reference")
SWEEP_ACROSS = ("position", "head", "head_position")  # what a patching sweep's columns are (tfdebug.sessions.patching.ACROSS)
COMPARE_WITH = ("placed", "unedited", "file")  # what the server compares its pass with (the `compare` request)
OBJECTIVES = ("next_token", "position", "logit_diff", "stage_sum")  # sessions.backward.OBJECTIVES (torch is not needed here)
PLACED_DTYPES = ("float32", "float16", "bfloat16")  # a reference pass's dtype (tfdebug.core.devices.DTYPES)
# a reference pass's attention kernel (tfdebug.sessions.crosscheck.KERNELS)
PLACED_KERNELS = ("eager", "sdpa", "flex_attention", "flash_attention_2", "flash_attention_3", "flash_attention_4")


# ----- field validators: each returns the value or raises FrameError with a sentence -----
Check = Callable[[str, Any], Any]


def _bad(field: str, want: str, value: Any) -> FrameError:
    shown = repr(value)
    return FrameError("The field '{field}' must be {want}, not {value}.", id="remote.field",
                      field=field, want=want, value=shown[:60])


def integer(lo: int = -2**63, hi: int = 2**63 - 1) -> Check:
    def check(field, value):
        if isinstance(value, bool) or not isinstance(value, int) or not lo <= value <= hi:
            raise _bad(field, f"a whole number from {lo} to {hi}", value)
        return value
    return check


_SPECIAL = {"nan": math.nan, "inf": math.inf, "-inf": -math.inf}


def number() -> Check:
    """A number; NaN and ±∞ (which JSON lacks) travel as the texts "nan", "inf", "-inf"."""
    def check(field, value):
        if isinstance(value, str) and value in _SPECIAL:
            return _SPECIAL[value]
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise _bad(field, "a number", value)
        return float(value)
    return check


def wire_number(x: float) -> float | str:
    """`x` as `number()` reads it back: finite numbers as themselves, NaN and ±∞ as texts."""
    x = float(x)
    return x if math.isfinite(x) else ("nan" if x != x else ("inf" if x > 0 else "-inf"))


def text(max_len: int = 1024, choices: Sequence[str] | None = None) -> Check:
    def check(field, value):
        if not isinstance(value, str) or len(value) > max_len or (choices is not None and value not in choices):
            want = "one of " + ", ".join(choices) if choices else f"a text of at most {max_len} characters"
            raise _bad(field, want, value)
        return value
    return check


def flag() -> Check:
    def check(field, value):
        if not isinstance(value, bool):
            raise _bad(field, "true or false", value)
        return value
    return check


def required(inner: Check) -> Check:
    """A field every message of its type carries (`decode` refuses one without it); its value is `inner`'s."""
    def check(field, value):
        return inner(field, value)
    check.required = True
    return check


def optional(inner: Check) -> Check:
    def check(field, value):
        return None if value is None else inner(field, value)
    return check


def list_of(inner: Check, max_len: int) -> Check:
    def check(field, value):
        if not isinstance(value, list) or len(value) > max_len:
            raise _bad(field, f"a list of at most {max_len} items", value)
        return [inner(f"{field}[{i}]", v) for i, v in enumerate(value)]
    return check


def mapping(key: Check, value_check: Check, max_len: int) -> Check:
    def check(field, value):
        if not isinstance(value, dict) or len(value) > max_len:
            raise _bad(field, f"an object of at most {max_len} entries", value)
        return {key(f"{field} key", k): value_check(f"{field}.{k}", v) for k, v in value.items()}
    return check


def record(schema: dict[str, Check]) -> Check:
    """An object with some of `schema`'s fields, each checked; an unknown field is refused."""
    def check(field, value):
        if not isinstance(value, dict):
            raise _bad(field, "an object", value)
        unknown = sorted(set(value) - set(schema))
        if unknown:
            raise _bad(field, "an object with the fields " + ", ".join(schema), unknown[0])
        return {name: schema[name](f"{field}.{name}", v) for name, v in value.items()}
    return check


def anything() -> Check:
    """Server → window data the window reads field by field itself (stage metadata, stats)."""
    return lambda field, value: value


_AXIS = integer(0, MAX_NDIM - 1)
_INDEX = integer(0, 2**40)
_SIZE = integer(1, 8192)
_AXIS_INDICES = mapping(text(1, tuple(str(a) for a in range(MAX_NDIM))), _INDEX, MAX_NDIM)  # {"axis": index}
_VIEW = {"index": required(_INDEX), "row": required(_AXIS), "col": required(_AXIS), "indices": required(_AXIS_INDICES),
         "max_rows": required(_SIZE), "max_cols": required(_SIZE)}
MAX_OVERVIEW = 65536  # history positions one overview request asks about (the window asks in parts of this many)
# an Edit's fill_csv values: one float64 buffer of rows × columns, at most this many values
MAX_FILL_VALUES = 2**20

MAX_LENS_POSITIONS = 1024  # positions one lens request reads (the window asks 128 at a time)
MAX_LENS_K = 20            # top tokens per lens cell
MAX_SWEEP_FORWARDS = 16384  # forwards one patch_sweep may run (rows × tokens): longer passes are refused
_POSITION = integer(-2**40, 2**40)  # a token position; negative from the end (the pass's own count bounds it)
_TOKEN = integer(0, 2**40)          # a token id (the model's vocabulary bounds it)

DECODING = {"max_new_tokens": integer(1, 4096), "sample": flag(), "temperature": number(), "top_k": integer(0, 2**31),
            "top_p": number(), "seed": integer(-2**63, 2**64 - 1), "stop_at_eos": flag()}

# type -> {field: check} (`required(...)`: a message without it is refused); `v`, `type`, `id` and `buffers` are
# common to all. Every request is checked so before anything acts on it.
SCHEMAS: dict[str, dict[str, Check]] = {
    # window -> server
    "hello": {"token": required(text(256)), "resume": optional(text(256)), "client": optional(text(200))},
    "ping": {},
    "bye": {},
    "command": {"op": required(text(32, OPS)), "name": optional(text(1024)), "index": optional(_INDEX)},
    # `rtol`: the divergence condition's; op "reference": the divergence condition's reference pass is this input
    # in `dtype` on the served device (None: no reference pass)
    "breakpoint": {"op": required(text(16, BREAKPOINT_OPS)), "by": optional(text(16, ("stage", "kind", "condition"))),
                   "value": optional(text(1024)), "threshold": optional(number()), "rtol": optional(number()),
                   "mode": optional(text(16, ("exact", "fast"))), "dtype": optional(text(16, PLACED_DTYPES))},
    "slice": {**_VIEW, "moments": required(flag())},
    "moments": dict(_VIEW),
    "heads": {**_VIEW, "head": required(_AXIS)},
    # a tile of the shown slice (tfdebug.core.tiles): rows [r0, r1) × columns [c0, c1), at most max_rows × max_cols;
    # `row_max` adds the rows' largest |value| over every column
    "tile": {**_VIEW, "rows": required(list_of(_INDEX, 2)), "cols": required(list_of(_INDEX, 2)),
             "row_max": required(flag())},
    "stats": {"index": required(_INDEX)},
    # the stage's live checks (tfdebug.core.checks): verdicts and their words in the reply
    "checks": {"index": required(_INDEX)},
    # the Overview: one statistic (tfdebug.core.overview) of each of these history positions, as one float64 buffer
    "overview": {"statistic": required(text(16, tuple(STATISTICS))),
                 "indices": required(list_of(_INDEX, MAX_OVERVIEW))},
    "replace": {},
    # an Edit (tfdebug.core.edits) of the paused stage in the shown Region; fill_csv's values as a float64 buffer
    "edit": {"op": required(text(16, ("set", "scale", "zero_head", "keep_head", "fill_csv"))),
             "target": required(text(16, ("cell", "row", "column", "slice", "tensor"))), "value": required(number()),
             "row": optional(_INDEX), "col": optional(_INDEX), "head": optional(_INDEX), "row_axis": required(_AXIS),
             "col_axis": required(_AXIS), "indices": required(_AXIS_INDICES)},
    # `generate`: decoding settings (tfdebug.models.sampling.DecodingSettings) to generate token by token
    # `chat`: the texts as a user's chat turn (the tokenizer's chat template; None: as the pass before)
    "open": {"texts": required(mapping(text(64), text(20000), 16)), "generate": optional(record(DECODING)),
             "chat": optional(flag())},
    # the window's view (tfdebug.core.view.ViewSelection): the server pushes each new stage's slice with its event
    # `stats_up_to`: the stage's whole-tensor stats come too while its tensor has at most this many bytes
    "follow": {"on": required(flag()), "pinned": optional(list_of(text(32), 2)),
               "indices": required(mapping(text(32), _INDEX, 16)), "max_rows": required(_SIZE),
               "max_cols": required(_SIZE), "moments": required(flag()), "stats_up_to": optional(integer(0, 2**62))},
    "export": {"to": required(text(8, ("window", "server"))), "path": optional(text(4096))},
    # compare the served pass (side `on_screen` of the comparison, A the reference) with another pass the server
    # makes: this input in `dtype` (tfdebug.core.devices.DTYPES) with `attention` on the served device, the input
    # run again without its edits, or the snapshot `path` in the export folder; the reply carries the table (and,
    # for a placed pass, the transplant at its first divergent stage)
    "compare": {"against": required(text(16, COMPARE_WITH)), "on_screen": required(text(1, ("a", "b"))),
                "dtype": optional(text(16, PLACED_DTYPES)), "attention": optional(text(32, PLACED_KERNELS)),
                "path": optional(text(255)),
                "atol": required(number()), "rtol": required(number())},
    # A, B and A − B of `stage` in the last comparison (tfdebug.core.compare_planes), other axes at `indices` (the
    # window's named indices), each at most max_rows × max_cols: three slices in the reply
    "compared": {"stage": required(text(1024)), "indices": required(mapping(text(32), _INDEX, 16)),
                 "max_rows": required(_SIZE), "max_cols": required(_SIZE)},
    # Why This Output of the finished served pass (tfdebug.remote.explaining): its rows, token count, labels and
    # vocabulary size; the lens at `positions`; the attribution at `position`; the id of a typed token; the
    # patching sweep of every residual row × position (`across` "head": every head of every attention) against
    # the corrupted `texts` (the others as the pass's; `align`: their positions' pairs, sessions.alignment.parse)
    "why": {},
    "lens": {"positions": required(list_of(_POSITION, MAX_LENS_POSITIONS)), "target": optional(_TOKEN),
             "k": required(integer(1, MAX_LENS_K))},
    "attribute": {"target": required(_TOKEN), "contrast": optional(_TOKEN), "position": required(_POSITION)},
    "token_id": {"text": required(text(1024))},
    "patch_sweep": {"texts": required(mapping(text(64), text(20000), 16)),
                    "across": optional(text(16, SWEEP_ACROSS)), "align": optional(text(200000))},
    # Patch Stage: the served pass's `stage` (whole, at the corrupted text's `position`, for `head`) put into the pass
    # of the corrupted `texts` and that pass run on, on the server; the reply is a comparison's (the corrupted pass
    # against the patched one, kept for `compared`) with the patch's numbers (sessions.patch_one.PatchedPass)
    "patch_stage": {"texts": required(mapping(text(64), text(20000), 16)), "stage": required(text(1024)),
                    "position": optional(_POSITION), "head": optional(integer(0, 2**16)),
                    "align": optional(text(200000))},
    # the finished served pass's backward under an objective (sessions.backward.Objective): the gradients become
    # the served pass; `position` and the token ids are checked against the pass's tokens and vocabulary there
    "backward": {"kind": required(text(16, OBJECTIVES)), "position": required(_POSITION),
                 "target": optional(_TOKEN), "contrast": optional(_TOKEN), "stage": optional(text(256))},
    # before a backward: its peak stated and checked against the server's budget with the finished pass's captures
    # counted as free, which are then let go (`sessions.gradient_session.make_room`); the reply says the peak
    "make_room": {},
    # receipts of an export streamed to the window (`export`: that request's id): the bytes written so far
    # (the server sends at most EXPORT_WINDOW chunks beyond them), or a cancel; no reply answers it
    "transfer": {"export": required(integer(0, 2**53)), "received": required(integer(0, 2**62)),
                 "cancel": required(flag())},
    # server -> window
    "welcome": {"server": anything(), "resume": anything(), "heartbeat_s": anything()},
    "pass": {"pass": anything()},
    # the next part of the plan the last `pass` began (its `plan_total` entries in all): entries from `from` on
    "plan": {"pass": integer(0, 2**53), "from": integer(0, MAX_PLAN), "entries": list_of(anything(), MAX_PLAN)},
    "event": {"event": anything(), "state": anything(), "slice": anything()},
    "reply": {"ok": anything(), "error": anything(), "result": anything(), "state": anything()},
    "chunk": {"offset": anything(), "total": anything(), "last": anything()},
    "heartbeat": {"state": anything()},
}
# Requests that carry arrays, and how many at most (a replaced tensor; an Edit's fill_csv values); others carry none.
REQUEST_BUFFERS = {"replace": 1, "edit": 1}
REQUESTS = ("hello", "ping", "bye", "command", "breakpoint", "slice", "moments", "heads", "tile", "stats", "overview",
            "replace", "edit", "open", "follow", "export", "transfer", "compare", "compared", "checks", "why", "lens",
            "attribute", "token_id", "patch_sweep", "patch_stage", "backward", "make_room")


# ----- encoding ------------------------------------------------------------------------------------
def encode(kind: str, fields: dict | None = None, buffers: Sequence[np.ndarray] = (), id: int | None = None
           ) -> list[bytes | memoryview]:
    """The frames of one message: the JSON header and each array's bytes (C order, little-endian)."""
    # The id right after the type: a refusal of a header too large to read still finds it (`peek`).
    header: dict[str, Any] = {"v": PROTOCOL_VERSION, "type": kind, **({"id": id} if id is not None else {}),
                              **(fields or {})}
    frames: list[bytes | memoryview] = []
    described = []
    for array in buffers:
        array = np.ascontiguousarray(array)
        name = next((n for n, t in DTYPES.items() if array.dtype == t), None)
        if name is None:
            raise TypeError(f"no wire dtype for {array.dtype}")
        if sys.byteorder != "little":
            array = array.astype(array.dtype.newbyteorder("<"))
        described.append({"dtype": name, "shape": list(array.shape)})
        # numpy's stubs give an ndarray the buffer protocol (__buffer__) on Python 3.12 and later only
        frames.append(memoryview(array).cast("B"))  # pyright: ignore[reportArgumentType]
    if described:
        header["buffers"] = described
    return [json.dumps(header, ensure_ascii=False, separators=(",", ":"), allow_nan=False).encode(), *frames]


# ----- decoding ------------------------------------------------------------------------------------
class Message:
    """A validated message: its `type`, request `id` (or None), checked `fields` and array `buffers`."""

    def __init__(self, type: str, id: int | None, fields: dict, buffers: list[np.ndarray]):
        self.type, self.id, self.fields, self.buffers = type, id, fields, buffers

    def __getitem__(self, key: str) -> Any:
        """Field `key` as its schema checked it (a JSON value: Any, as `json.loads` gives), None when absent."""
        return self.fields.get(key)

    def __repr__(self) -> str:
        return f"Message({self.type!r}, id={self.id}, fields={sorted(self.fields)})"


def decode(frames: Sequence[bytes], *, max_header: int, max_buffer: int, accept: Sequence[str]) -> Message:
    """Check and read one message; FrameError (or VersionError) says what was wrong with it.

    `accept` lists the types this side takes; `max_header` and `max_buffer` bound the header
    and the total of the declared buffers (checked before any array is made).
    """
    if not frames or len(frames) > MAX_FRAMES:
        raise FrameError("A message must have 1 to {n} frames, not {got}.", id="remote.frames", n=MAX_FRAMES,
                         got=len(frames))
    raw = bytes(frames[0])
    if len(raw) > max_header:
        raise FrameError("A message header of {got} bytes is larger than the limit of {limit}.",
                         id="remote.header_size", got=len(raw), limit=max_header)
    try:
        header = json.loads(raw.decode("utf-8"), parse_constant=_no_constant)
    except (UnicodeDecodeError, ValueError, RecursionError):
        raise FrameError("A message header is not a JSON object.", id="remote.not_json") from None
    if not isinstance(header, dict):
        raise FrameError("A message header is not a JSON object.", id="remote.not_json")
    version = header.get("v")
    if version != PROTOCOL_VERSION:
        raise VersionError(version)
    kind = header.get("type")
    if not isinstance(kind, str) or kind not in accept:
        raise FrameError("A message of type {kind} is not expected here.", id="remote.type", kind=repr(kind)[:40])
    schema = SCHEMAS[kind]
    unknown = set(header) - set(schema) - {"v", "type", "id", "buffers"}
    if unknown:
        raise FrameError("A {kind} message has an unknown field '{field}'.", id="remote.unknown_field", kind=kind,
                         field=sorted(unknown)[0][:40])
    missing = [name for name, check in schema.items() if getattr(check, "required", False) and name not in header]
    if missing:
        raise FrameError("A {kind} request needs the field '{field}'.", id="remote.missing_field", kind=kind,
                         field=missing[0])
    if kind in REQUESTS and len(frames) - 1 > REQUEST_BUFFERS.get(kind, 0):
        raise FrameError("A {kind} request carries {got} arrays; it takes at most {n}.", id="remote.arrays_taken",
                         kind=kind, got=len(frames) - 1, n=REQUEST_BUFFERS.get(kind, 0))
    fields = {name: check(name, header[name]) for name, check in schema.items() if name in header}
    request_id = optional(integer(0, 2**53))("id", header.get("id"))
    return Message(kind, request_id, fields, _buffers(header.get("buffers"), frames[1:], max_buffer))


def peek(frames: Sequence[bytes], max_header: int) -> tuple[str | None, int | None]:
    """The type and request id of a message `decode` refused (or that failed), when its header can tell, so the
    refusal answers that request; None for what it cannot."""
    kind = value = None
    try:
        header = None
        if frames and len(frames[0]) <= max_header:
            try:  # NaN and Infinity are no JSON (`decode` refuses them) but they do not hide the request's id
                header = json.loads(bytes(frames[0]).decode("utf-8"), parse_constant=float)
            except (UnicodeDecodeError, ValueError, RecursionError):
                pass
        if isinstance(header, dict):
            kind, value = header.get("type"), header.get("id")
        elif frames:  # too large to parse, or not JSON further on: `encode` writes the type and id first
            found = _LEADING.match(bytes(frames[0][:_LEADING_BYTES]))
            if found:
                kind, value = found.group(1).decode(), int(found.group(2))
        value = optional(integer(0, 2**53))("id", value)
    except FrameError:
        value = None
    return (kind if kind in REQUESTS else None), value


_LEADING_BYTES = 120
# `v` may be any short scalar here (a wrong version is refused, and the refusal still answers the request)
_LEADING = re.compile(rb'\{\s*"v"\s*:\s*(?:-?\d{1,12}|"[^"\\]{0,12}"|null|true|false)\s*,\s*"type"\s*:\s*"([a-z_]{1,16})"\s*,\s*"id"\s*:\s*(\d{1,16})\s*[,}]')


def _no_constant(name: str):
    raise ValueError(f"{name} is not JSON")


def _buffers(described: Any, frames: Sequence[bytes], max_buffer: int) -> list[np.ndarray]:
    described = list_of(lambda f, v: v, MAX_FRAMES)("buffers", described if described is not None else [])
    if len(described) != len(frames):
        raise FrameError("A message describes {n} buffers but carries {got}.", id="remote.buffer_count",
                         n=len(described), got=len(frames))
    total, arrays = 0, []
    for i, (spec, frame) in enumerate(zip(described, frames)):
        if not isinstance(spec, dict) or set(spec) != {"dtype", "shape"}:
            raise FrameError("Buffer {i} is not described by its dtype and shape.", id="remote.buffer_spec", i=i)
        dtype = DTYPES.get(text(16, tuple(DTYPES))(f"buffers[{i}].dtype", spec["dtype"]))
        shape = list_of(integer(0, MAX_DIM), MAX_NDIM)(f"buffers[{i}].shape", spec["shape"])
        nbytes = math.prod(shape) * np.dtype(dtype).itemsize
        total += nbytes
        if total > max_buffer:  # before anything is allocated: a header may claim a terabyte
            raise FrameError("A message claims {got} bytes of arrays, more than the limit of {limit}.",
                             id="remote.buffer_size", got=total, limit=max_buffer)
        if len(frame) != nbytes:
            raise FrameError("Buffer {i} declares {want} bytes but carries {got}.", id="remote.buffer_length",
                             i=i, want=nbytes, got=len(frame))
        arrays.append(np.frombuffer(frame, dtype=np.dtype(dtype).newbyteorder("<")).reshape(shape))
    return arrays
