"""Bounded, checked reads of the files a model folder, snapshot or export names.

Every file tfdebug reads is data from anyone: it may be a FIFO (a read waits forever), a
symlink to /dev/zero (its size reads 0 and it never ends), a sparse file claiming
gigabytes, or JSON nested ten thousand deep. `open_regular` opens only regular files;
`read_bounded` refuses a file larger than the limit its caller gives before reading it,
and never reads more than that limit even when the size lied; `read_json` adds UTF-8,
JSON and a nesting bound. Each problem is the caller's error type with one sentence.
"""

from __future__ import annotations

import io
import json
import os
import stat

from tfdebug.core.errors import TfdebugError
from tfdebug.core.phrases import os_reason

MAX_JSON_NESTING = 64  # a real config nests a handful of levels; a deep one is damage


def _mib(n: int) -> str:
    return f"{n / 2**20:,.1f} MiB" if n >= 2**20 else f"{n:,} bytes"


def open_regular(path: str | os.PathLike, error: type[TfdebugError]) -> io.BufferedReader:
    """Open `path` for reading only if it is a regular file (a FIFO or device would hang or never end).

    O_NONBLOCK keeps opening a FIFO from waiting for a writer; it is cleared again for reading.
    """
    shown = os.fspath(path)
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except IsADirectoryError as exc:
        raise error("{path} is a folder, not a file.", id="read.is_folder", path=shown) from exc
    except FileNotFoundError as exc:
        raise error("There is no file {path}.", id="read.no_file", path=shown) from exc
    except OSError as exc:
        raise error("Cannot read {path}: {reason}.", id="read.failed", path=shown, reason=os_reason(exc)) from exc
    try:
        mode = os.fstat(fd).st_mode
        if stat.S_ISDIR(mode):
            raise error("{path} is a folder, not a file.", id="read.is_folder", path=shown)
        if not stat.S_ISREG(mode):
            raise error("{path} is not a regular file (a pipe, device or socket); tfdebug reads only files.",
                        id="read.not_regular", path=shown)
        if hasattr(os, "set_blocking"):
            os.set_blocking(fd, True)
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def read_bounded(path: str | os.PathLike, limit: int, error: type[TfdebugError]) -> bytes:
    """The bytes of the regular file `path`, refused before reading when it holds more than `limit`."""
    shown = os.fspath(path)
    with open_regular(path, error) as f:
        try:
            size = os.fstat(f.fileno()).st_size
            if size > limit:
                raise error("{path} is {size}; a file of this kind is at most {most}, so it was not read.",
                            id="read.too_large", path=shown, size=_mib(size), most=_mib(limit))
            data = f.read(limit + 1)  # a size that lied (a file growing) still reads at most the limit
        except OSError as exc:
            raise error("Cannot read {path}: {reason}.", id="read.failed", path=shown, reason=os_reason(exc)) from exc
    if len(data) > limit:
        raise error("{path} grew past {most} while being read, so it was not used.", id="read.grew", path=shown,
                    most=_mib(limit))
    return data


def read_text(path: str | os.PathLike, limit: int, error: type[TfdebugError]) -> str:
    """The UTF-8 text of `path` (at most `limit` bytes); one sentence when it is not UTF-8."""
    try:
        return read_bounded(path, limit, error).decode("utf-8")
    except UnicodeDecodeError as exc:
        raise error("{path} is not UTF-8 text (byte {at} is not).", id="read.not_utf8", path=os.fspath(path),
                    at=f"{exc.start:,}") from None


def nesting_depth(doc: object, stop: int) -> int:
    """How deeply `doc`'s lists and objects nest, counted up to `stop` (walked without recursion)."""
    deepest, pending = 0, [(doc, 1)]
    while pending and deepest < stop:
        value, depth = pending.pop()
        if isinstance(value, (dict, list)):
            deepest = max(deepest, depth)
            pending.extend((child, depth + 1) for child in (value.values() if isinstance(value, dict) else value))
    return deepest


def read_json(path: str | os.PathLike, limit: int, error: type[TfdebugError]) -> dict:
    """The JSON object in `path`: bounded in size and nesting, UTF-8, an object; else one sentence."""
    text = read_text(path, limit, error)
    shown = os.fspath(path)
    try:
        doc = json.loads(text)
    except RecursionError:
        raise error("{path} nests more than {most} levels deep.", id="read.json_deep", path=shown,
                    most=MAX_JSON_NESTING) from None
    except ValueError as exc:
        raise error("{path} is not valid JSON ({reason}).", id="read.json_invalid", path=shown,
                    reason=str(exc).splitlines()[0][:200]) from None
    if not isinstance(doc, dict):
        raise error("{path} does not hold a JSON object.", id="read.json_not_object", path=shown)
    if nesting_depth(doc, MAX_JSON_NESTING + 1) > MAX_JSON_NESTING:
        raise error("{path} nests more than {most} levels deep.", id="read.json_deep", path=shown,
                    most=MAX_JSON_NESTING)
    return doc
