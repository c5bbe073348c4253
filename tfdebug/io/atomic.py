"""Atomic file writes and progress reporting shared by snapshots and exports.

A write goes to a temporary file in the target's folder; only when everything is
written, flushed and fsynced does `os.replace` put it in place. A failure, an
interruption or a cancel removes the temporary file and leaves any existing file as
it was.

Temporary files are named `.NAME.PID.RANDOM.tfdebug-tmp.EXT`, so one a killed process
left behind is recognisable: the next write of the same target removes those older than
STALE_SECONDS whose process is gone, and says so (a warning on the `tfdebug` logger).
Only regular files are replaced: a device, a pipe, a symbolic link or a file marked read-only
(no write permission for anyone) as the target is refused (callers resolve a link first when
the user asks for that).
"""

from __future__ import annotations

import errno
import logging
import os
import stat
import tempfile
import time
from contextlib import contextmanager
from pathlib import Path
from typing import BinaryIO, Callable, Iterator

from tfdebug.core.errors import ExportCancelledError, ExportError, TfdebugError
from tfdebug.core.phrases import Phrase, os_reason

# progress(done, total) -> False (or raising) cancels; anything else goes on.
ProgressCallback = Callable[[int, int], "bool | None"]

TEMP_SUFFIX = ".tfdebug-tmp"
STALE_SECONDS = 300  # a write in progress touches its file far more often than this
NAME_CHARS_IN_TEMP = 100  # the rest of a long target name is left out so the temp name still fits
log = logging.getLogger("tfdebug")


def report(progress: ProgressCallback | None, done: int, total: int) -> None:
    """Call `progress`; raise ExportCancelledError when it returns False or raises."""
    if progress is None:
        return
    try:
        keep_going = progress(done, total)
    except TfdebugError:
        raise
    except BaseException as exc:  # KeyboardInterrupt included: the write is abandoned cleanly
        raise ExportCancelledError("The export was cancelled; nothing was written.", id="export.cancelled") from exc
    if keep_going is False:
        raise ExportCancelledError("The export was cancelled; nothing was written.", id="export.cancelled")


def os_error(error: type[TfdebugError], exc: OSError, path: Path) -> TfdebugError:
    """`error` with one sentence (and a stable id the window translates) for an OSError met while writing `path`."""
    folder = path.parent
    code = exc.errno
    if code in (errno.ENOSPC, getattr(errno, "EDQUOT", -1)):
        return error("The disk is full: {name} was not written and any earlier file there is unchanged.",
                     id="write.disk_full", name=path.name)
    if code == errno.EISDIR or isinstance(exc, IsADirectoryError):
        return error("{path} is a folder; choose a file name to write.", id="write.is_folder", path=str(path))
    if code in (errno.EACCES, errno.EPERM, errno.EROFS):
        return error("Cannot write in {folder}: the folder is read-only or you lack permission.",
                     id="write.read_only", folder=str(folder))
    if code == errno.ENOENT:
        return error("The folder {folder} does not exist.", id="write.no_folder", folder=str(folder))
    if code == errno.ENAMETOOLONG:
        name = path.name if len(path.name) <= 60 else Phrase("{start}… ({n} characters)", id="write.long_name",
                                                             start=path.name[:40], n=len(path.name))
        return error("The file name {name} is too long for this file system.", id="write.name_too_long", name=name)
    return error("Cannot write {path}: {reason}.", id="write.failed", path=str(path), reason=os_reason(exc))


def _umask() -> int:
    try:
        with open("/proc/self/status", encoding="ascii") as f:
            for line in f:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError):
        pass
    return 0o022


def _remove_quietly(path: str) -> None:
    try:
        os.unlink(path)
    except OSError:
        pass


def _fsync_folder(folder: Path) -> None:
    # Makes the rename durable; not every platform lets a folder be opened.
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def _temp_prefix(path: Path) -> str:
    return f".{path.name[:NAME_CHARS_IN_TEMP]}."


def _process_gone(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except (PermissionError, OSError, OverflowError):
        return False  # alive under another user, or unknowable: keep its file
    return False


def remove_stale_temps(path: str | os.PathLike, older_than: float = STALE_SECONDS) -> list[Path]:
    """Remove temporary files an interrupted earlier write of `path` left behind; returns them.

    A temp file is stale when it is older than `older_than` seconds and the process
    named in it is gone (files named before the process id was part of the name count
    by age alone).
    """
    path = Path(path)
    folder = path.parent if str(path.parent) else Path(".")
    prefix, removed, now = _temp_prefix(path), [], time.time()
    try:
        candidates = [entry for entry in os.scandir(folder)
                      if entry.name.startswith(prefix) and TEMP_SUFFIX in entry.name]
    except OSError:
        return []
    for entry in candidates:
        middle = entry.name[len(prefix):].split(".", 1)[0]
        try:
            info = entry.stat(follow_symlinks=False)
        except OSError:
            continue
        if not stat.S_ISREG(info.st_mode) or now - info.st_mtime < older_than:
            continue
        if middle.isdigit() and not _process_gone(int(middle)):
            continue
        try:
            os.unlink(entry.path)
        except OSError:
            continue
        removed.append(Path(entry.path))
        log.warning("removed %s, left behind %.0f minutes ago by an interrupted write of %s (%s).",
                    entry.name, (now - info.st_mtime) / 60, path.name, _size(info.st_size))
    return removed


def _size(n: int) -> str:
    return f"{n / 2**30:.1f} GiB" if n >= 2**30 else f"{n / 2**20:.1f} MiB"


def _check_target(path: Path, error: type[TfdebugError]) -> None:
    """Refuse targets a write must not replace: folders, links, devices, pipes, sockets, read-only files."""
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        return
    except OSError as exc:  # a name too long, a folder in the path that is a file, ...
        raise os_error(error, exc, path) from exc
    if stat.S_ISDIR(info.st_mode):
        raise error("{path} is a folder; choose a file name to write.", id="write.is_folder", path=str(path))
    if stat.S_ISLNK(info.st_mode):
        raise error("{path} is a symbolic link; tfdebug does not replace links (write to the file it "
                    "points to, or choose another name).", id="write.link", path=str(path))
    if not stat.S_ISREG(info.st_mode):
        raise error("{path} is not a regular file (a device, pipe or socket); choose a file name to write.",
                    id="write.not_regular", path=str(path))
    if not info.st_mode & (stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH):
        # Replacing goes through the folder (a rename), which a file's own mode does not guard: a file marked
        # read-only is kept as someone's decision, as cp and shells' `>` keep it.
        raise error("{path} is read-only; tfdebug does not replace a protected file (make it writable, or choose "
                    "another name).", id="write.read_only_file", path=str(path))


def check_output(path: str | os.PathLike, error: type[TfdebugError] = ExportError,
                 inputs: tuple[str | os.PathLike | None, ...] = ()) -> None:
    """Refuse an output path before any work starts: one a write must not replace (a folder, a link,
    a device or pipe), one in a folder that does not exist, or one that is a file this command reads
    (`inputs`), whatever name it goes by."""
    path = Path(path)
    _check_target(path, error)
    folder = path.parent if str(path.parent) else Path(".")
    if not folder.is_dir():
        raise error("The folder {folder} does not exist.", id="write.no_folder", folder=str(folder))
    for source in inputs:
        if source is None:
            continue
        try:
            same = os.path.samefile(path, source)
        except OSError:  # either does not exist (yet): they cannot be the same file
            same = False
        if same:
            raise error("{path} is the file being read; writing there would destroy it (choose another name).",
                        id="write.over_input", path=str(path))


@contextmanager
def _staged(path: Path, error: type[TfdebugError], durable: bool = True) -> Iterator[tuple[int, Path]]:
    """A temporary file beside `path`, open as `fd`; fsynced and renamed over `path` on a clean exit.

    Data goes through this same descriptor (no reopening with O_TRUNC, which makes
    ext4 flush the file on close and costs a second write-back). durable=False skips the
    fsyncs: the rename is still atomic for other processes, but a power cut may lose the file.
    """
    folder = path.parent if str(path.parent) else Path(".")
    _check_target(path, error)
    try:
        folder_exists = folder.is_dir()
    except OSError as exc:
        raise os_error(error, exc, path) from exc
    if not folder_exists:
        raise error("The folder {folder} does not exist.", id="write.no_folder", folder=str(folder))
    remove_stale_temps(path)
    try:
        mode = path.stat().st_mode & 0o7777 if path.exists() else 0o666 & ~_umask()
        fd, tmp = tempfile.mkstemp(prefix=f"{_temp_prefix(path)}{os.getpid()}.", suffix=TEMP_SUFFIX + path.suffix,
                                   dir=folder)
    except OSError as exc:
        raise os_error(error, exc, path) from exc
    try:
        try:
            yield fd, Path(tmp)
            if durable:
                os.fsync(fd)
            os.fchmod(fd, mode)
        finally:
            os.close(fd)
        os.replace(tmp, path)
    except OSError as exc:
        _remove_quietly(tmp)
        raise os_error(error, exc, path) from exc
    except BaseException:
        _remove_quietly(tmp)
        raise
    if durable:
        _fsync_folder(folder)


@contextmanager
def atomic_path(path: str | os.PathLike, error: type[TfdebugError] = ExportError) -> Iterator[Path]:
    """Yield a temporary path (same folder, same extension) for a writer that wants a file name.

    On a clean exit the temporary file is fsynced and replaces `path`; on any failure,
    cancel or interruption it is removed and `path` is untouched. OSErrors become `error`.
    """
    with _staged(Path(path), error) as (_, tmp):
        yield tmp


@contextmanager
def atomic_write(path: str | os.PathLike, error: type[TfdebugError] = ExportError,
                 durable: bool = True) -> Iterator[BinaryIO]:
    """Yield a binary file; on a clean exit it replaces `path` atomically, else it vanishes.

    OSErrors (disk full, read-only folder, path is a folder, ...) become `error` with
    one sentence; cancels and other exceptions propagate after the cleanup.
    """
    with _staged(Path(path), error, durable) as (fd, _):
        try:
            with os.fdopen(fd, "wb", closefd=False) as f:
                yield f
                f.flush()
        except OSError as exc:
            raise os_error(error, exc, Path(path)) from exc


def leftover_temp_files(folder: str | os.PathLike) -> list[Path]:
    """Temporary files an atomic write left in `folder` (there should never be any)."""
    return sorted(p for p in Path(folder).iterdir() if TEMP_SUFFIX in p.name)
