"""The user's settings, read only from a small regular file.

QSettings reads its whole file when made: a FIFO at that path waits forever for a writer (the
window never opens), and a file grown to gigabytes (a 64 MB recent-files value) costs seconds and
memory at every start. Before QSettings opens the user's file it is checked to be a regular file
of at most MAX_SETTINGS_BYTES; anything else is left untouched, said in one warning line, and
this run uses defaults (kept in a temporary file, so nothing is written over the user's).
"""

from __future__ import annotations

import functools
import logging
import os
import stat
import tempfile
from pathlib import Path

from PySide6.QtCore import QSettings

from tfdebug.core.safe_text import terminal_safe

MAX_SETTINGS_BYTES = 2**20  # what tfdebug writes (layout, inputs, ten recent files) is a few KiB
log = logging.getLogger("tfdebug")
_KEPT: list[tempfile.TemporaryDirectory] = []  # this run's stand-in settings folders, removed at exit


def settings_path() -> Path | None:
    """Where QSettings("tfdebug", "tfdebug") keeps its file on Linux and BSD (None: a registry or plist elsewhere)."""
    if os.name == "nt" or os.uname().sysname == "Darwin":
        return None
    # QSettings' user folder (XDG, or what QSettings.setPath set), from settings no one has a file of: making
    # QSettings("tfdebug", "tfdebug") itself to ask would read the very file to be checked.
    probe = QSettings(QSettings.Format.NativeFormat, QSettings.Scope.UserScope, "tfdebug-settings-probe", "probe")
    return Path(probe.fileName()).parent.parent / "tfdebug" / "tfdebug.conf"


def settings_problem(path: Path) -> str | None:
    """Why the settings file at `path` must not be read (None: it is absent, or a small regular file)."""
    try:
        info = os.stat(path)  # follows a link (a dotfiles manager's); stat never waits on a FIFO
    except FileNotFoundError:
        return None
    except OSError as exc:
        return f"cannot be read ({(exc.strerror or 'error').lower()})"
    if not stat.S_ISREG(info.st_mode):
        return "is not a regular file (a pipe, device or folder)"
    if info.st_size > MAX_SETTINGS_BYTES:
        return f"holds {info.st_size:,} bytes, more than the {MAX_SETTINGS_BYTES:,} a settings file may"
    return None


def user_settings() -> QSettings:
    """The user's tfdebug settings; this run's defaults instead when their file must not be read (one warning)."""
    path = settings_path()
    if path is None:
        return QSettings("tfdebug", "tfdebug")
    problem = settings_problem(path)
    # The file checked is the file read (QSettings' own path is fixed at its first use in a process).
    return QSettings(str(path) if problem is None else _stand_in(str(path), problem), QSettings.Format.IniFormat)


@functools.lru_cache(maxsize=None)
def _stand_in(path: str, problem: str) -> str:
    """A temporary settings file for this run (warned about once per path)."""
    log.warning("the settings file %s %s: it was left as it is, and this run uses the default settings.",
                terminal_safe(path, 300), problem)
    folder = tempfile.TemporaryDirectory(prefix="tfdebug-settings-")
    _KEPT.append(folder)
    return os.path.join(folder.name, "tfdebug.ini")

