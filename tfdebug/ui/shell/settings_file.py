"""The user's settings, read only from a small regular file.

QSettings reads its whole file when made: a FIFO at that path waits forever for a writer (the
window never opens), and a file grown to gigabytes (a 64 MB recent-files value) costs seconds and
memory at every start. Before QSettings opens the user's file it is checked to be a regular file
of at most MAX_SETTINGS_BYTES; anything else is left untouched, said in one warning line, and
this run uses defaults (kept in a temporary file, so nothing is written over the user's).

Each value read is then checked against the type tfdebug writes under its key (SETTING_TYPES): a
value of another type (a list where a text belongs, a rectangle where a flag does, text where a
saved layout does) is removed, so its reader gets its default, and one warning line names them all.
"""

from __future__ import annotations

import functools
import logging
import os
import stat
import tempfile
from pathlib import Path

from typing import Callable

from PySide6.QtCore import QByteArray, QSettings

from tfdebug.core.safe_text import terminal_safe
from tfdebug.ui.actions.heatmap import LOG_KEY, PER_ROW_KEY
from tfdebug.ui.actions.snapshots import FOLDER_KEY, MAX_PATH_CHARS, RECENT_KEY
from tfdebug.ui.dialogs.decoding import SETTING_KEY as DECODING_KEY
from tfdebug.ui.features.check.menu import SETTING_KEY as CHECK_KEY
from tfdebug.ui.i18n.language import SETTING as LANGUAGE_KEY
from tfdebug.ui.shell.window_layout import CHAT_KEY, LOADING_KEY
from tfdebug.ui.state.stored import MAX_SETTING_CHARS
from tfdebug.ui.state.capture_budget import SETTING_KEY as BUDGET_KEY
from tfdebug.ui.state.keeping import MODE_KEY, PINNED_KEY

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


def _text(most: int) -> Callable[[object], bool]:
    return lambda value: isinstance(value, str) and len(value) <= most


def _texts(most: int) -> Callable[[object], bool]:
    """A text or a list of texts (an INI file gives a one-item list back as a text, and text with commas as a
    list)."""
    return lambda value: (_text(most)(value) or isinstance(value, list) and len(value) <= 10_000
                          and all(_text(most)(v) for v in value))


def _flag(value: object) -> bool:
    return isinstance(value, bool) or isinstance(value, str) and value.lower() in ("true", "false")


def _layout(value: object) -> bool:
    return isinstance(value, (QByteArray, bytes))


# key -> what its value must be (as QSettings reads back what tfdebug wrote there); JSON settings are text here,
# their content checked by their readers (tfdebug.ui.state.stored.json_setting).
SETTING_TYPES: dict[str, Callable[[object], bool]] = {
    "window/geometry": _layout, "window/state": _layout,
    "input/last": _text(MAX_SETTING_CHARS), "input/recent": _text(MAX_SETTING_CHARS),
    LOADING_KEY: _text(MAX_SETTING_CHARS), CHAT_KEY: _text(MAX_SETTING_CHARS), DECODING_KEY: _text(MAX_SETTING_CHARS),
    RECENT_KEY: _texts(MAX_PATH_CHARS), FOLDER_KEY: _text(MAX_PATH_CHARS),
    LOG_KEY: lambda value: _flag(value) or _text(MAX_SETTING_CHARS)(value), PER_ROW_KEY: _flag,
    BUDGET_KEY: _text(64), MODE_KEY: _text(16), PINNED_KEY: _texts(4096),
    LANGUAGE_KEY: _text(16), CHECK_KEY: _text(16),
}


def drop_mistyped(settings: QSettings) -> list[str]:
    """Remove every value whose type is not its key's (SETTING_TYPES), so its reader uses the default; one
    warning line names the keys. Returns them."""
    dropped = [key for key, fits in SETTING_TYPES.items()
               if settings.contains(key) and not fits(settings.value(key))]
    for key in dropped:
        settings.remove(key)
    if dropped:
        log.warning("the settings file %s held values of the wrong type for %s: they were reset to the defaults.",
                    terminal_safe(settings.fileName(), 300), ", ".join(dropped))
    return dropped


def user_settings() -> QSettings:
    """The user's tfdebug settings; this run's defaults instead when their file must not be read (one warning);
    values of the wrong type reset (drop_mistyped)."""
    path = settings_path()
    if path is None:
        settings = QSettings("tfdebug", "tfdebug")
    else:
        problem = settings_problem(path)
        # The file checked is the file read (QSettings' own path is fixed at its first use in a process).
        settings = QSettings(str(path) if problem is None else _stand_in(str(path), problem),
                             QSettings.Format.IniFormat)
    drop_mistyped(settings)
    return settings


@functools.lru_cache(maxsize=None)
def _stand_in(path: str, problem: str) -> str:
    """A temporary settings file for this run (warned about once per path)."""
    log.warning("the settings file %s %s: it was left as it is, and this run uses the default settings.",
                terminal_safe(path, 300), problem)
    folder = tempfile.TemporaryDirectory(prefix="tfdebug-settings-")
    _KEPT.append(folder)
    return os.path.join(folder.name, "tfdebug.ini")

