"""Before Qt starts on Linux: is there a display, and are the system libraries Qt needs installed?

Qt aborts the process (a core dump) when its X11 platform plugin cannot load or cannot
reach a display, and its message names the wrong library. This module runs first,
without importing Qt, and turns each of those cases into one sentence naming the
packages to install (`DisplayError`, exit status 2 on the command line).

Only the standard library is used here: importing PySide6's GUI modules already needs
some of the libraries checked.
"""

from __future__ import annotations

import ctypes
import os
import sys
from typing import Callable, Mapping

from tfdebug.core.errors import DisplayError

# soname -> (Debian/Ubuntu package, Fedora package). README's "System packages" lists these.
QT_GUI_LIBRARIES: dict[str, tuple[str, str]] = {
    # Qt's GUI module itself, needed even offscreen.
    "libEGL.so.1": ("libegl1", "mesa-libEGL"),
    "libGL.so.1": ("libgl1", "mesa-libGL"),
    "libfontconfig.so.1": ("libfontconfig1", "fontconfig"),
    "libxkbcommon.so.0": ("libxkbcommon0", "libxkbcommon"),
    "libdbus-1.so.3": ("libdbus-1-3", "dbus-libs"),
    "libglib-2.0.so.0": ("libglib2.0-0", "glib2"),
}
XCB_LIBRARIES: dict[str, tuple[str, str]] = {
    # The X11 (xcb) platform plugin, libqxcb.so.
    "libxcb.so.1": ("libxcb1", "libxcb"),
    "libX11-xcb.so.1": ("libx11-xcb1", "libX11-xcb"),
    "libxkbcommon-x11.so.0": ("libxkbcommon-x11-0", "libxkbcommon-x11"),
    "libxcb-cursor.so.0": ("libxcb-cursor0", "xcb-util-cursor"),
    "libxcb-icccm.so.4": ("libxcb-icccm4", "xcb-util-wm"),
    "libxcb-image.so.0": ("libxcb-image0", "xcb-util-image"),
    "libxcb-keysyms.so.1": ("libxcb-keysyms1", "xcb-util-keysyms"),
    "libxcb-render-util.so.0": ("libxcb-render-util0", "xcb-util-renderutil"),
    "libxcb-util.so.1": ("libxcb-util1", "xcb-util"),
    "libxcb-randr.so.0": ("libxcb-randr0", "libxcb"),
    "libxcb-render.so.0": ("libxcb-render0", "libxcb"),
    "libxcb-shape.so.0": ("libxcb-shape0", "libxcb"),
    "libxcb-shm.so.0": ("libxcb-shm0", "libxcb"),
    "libxcb-sync.so.1": ("libxcb-sync1", "libxcb"),
    "libxcb-xfixes.so.0": ("libxcb-xfixes0", "libxcb"),
    "libxcb-xkb.so.1": ("libxcb-xkb1", "libxcb"),
}
HEADLESS_HINT = "or run headless with QT_QPA_PLATFORM=offscreen (for example `tfdebug gui --screenshot out.png`)"


def library_loads(soname: str) -> bool:
    """Whether the dynamic loader finds `soname` (the same search Qt's plugin loader does)."""
    try:
        ctypes.CDLL(soname)
    except OSError:
        return False
    return True


def display_reachable() -> bool:
    """Whether an X server accepts a connection on $DISPLAY (what Qt's xcb plugin does first)."""
    try:
        xcb = ctypes.CDLL("libxcb.so.1")
    except OSError:
        return False
    xcb.xcb_connect.restype = ctypes.c_void_p
    xcb.xcb_connect.argtypes = [ctypes.c_char_p, ctypes.c_void_p]
    xcb.xcb_connection_has_error.argtypes = [ctypes.c_void_p]
    xcb.xcb_disconnect.argtypes = [ctypes.c_void_p]
    connection = xcb.xcb_connect(None, None)
    try:
        return xcb.xcb_connection_has_error(connection) == 0
    finally:
        xcb.xcb_disconnect(connection)


def platform_name(env: Mapping[str, str]) -> str:
    """The Qt platform plugin that will load: QT_QPA_PLATFORM's first entry, else Qt's own default."""
    chosen = env.get("QT_QPA_PLATFORM", "").split(";")[0].split(":")[0].strip()
    if chosen:
        return chosen
    if env.get("WAYLAND_DISPLAY") and env.get("XDG_SESSION_TYPE") == "wayland":
        return "wayland"
    return "xcb"


def _fedora_like(os_release: str) -> bool:
    fields = dict(line.split("=", 1) for line in os_release.splitlines() if "=" in line)
    ids = (fields.get("ID", "") + " " + fields.get("ID_LIKE", "")).replace('"', "").split()
    return any(i in ("fedora", "rhel", "centos") for i in ids)


def system_packages(fedora: bool = False) -> list[str]:
    """Every package README lists and .ci/run installs: Qt's GUI libraries and the xcb plugin's."""
    table = {**QT_GUI_LIBRARIES, **XCB_LIBRARIES}
    return list(dict.fromkeys(pair[1 if fedora else 0] for pair in table.values()))


def install_command(packages: list[str], fedora: bool, root: bool = False) -> str:
    """The line that installs `packages`, which README gives and the window's sentence names: it asks no
    question (`-y`: pasted into a script or a non-interactive shell it would abort at "continue? [Y/n]"), and
    `root`'s runs as root, where a container has no sudo and no package lists yet."""
    tool, listed = ("dnf", "") if fedora else ("apt-get", "apt-get update && ")
    install = f"{tool} install -y {' '.join(packages)}"
    return f"{listed}{install}" if root else f"sudo {install}"


def missing_libraries(platform: str, loads: Callable[[str], bool] | None = None) -> list[str]:
    """The sonames Qt needs for `platform` that the dynamic loader cannot find."""
    loads = loads or library_loads
    needed = dict(QT_GUI_LIBRARIES)
    if platform == "xcb":
        needed.update(XCB_LIBRARIES)
    return [soname for soname in needed if not loads(soname)]


def _and(items: list[str]) -> str:
    return items[0] if len(items) == 1 else f"{', '.join(items[:-1])} and {items[-1]}"


def gui_problem(env: Mapping[str, str] | None = None, loads: Callable[[str], bool] | None = None,
                reachable: Callable[[], bool] | None = None,
                os_release: str | None = None, system: str | None = None, root: bool | None = None) -> str | None:
    """One sentence saying why Qt would abort on this machine, or None when the window can open.

    `loads(soname)`, `reachable()`, `os_release`, `system` and `root` (whether the user is root: the
    install line then has no sudo) default to this machine's.
    """
    env = os.environ if env is None else env
    reachable = reachable or display_reachable
    if not (system or sys.platform).startswith("linux"):
        return None
    platform = platform_name(env)
    if platform == "xcb" and not env.get("DISPLAY"):
        return ("The window cannot open: no display is set (DISPLAY is empty); run it inside a "
                f"desktop session, {HEADLESS_HINT}.")
    missing = missing_libraries(platform, loads)
    if missing:
        if os_release is None:
            try:
                with open("/etc/os-release", encoding="utf-8") as f:
                    os_release = f.read()
            except OSError:
                os_release = ""
        fedora = _fedora_like(os_release)
        root = (hasattr(os, "geteuid") and os.geteuid() == 0) if root is None else root
        table = {**QT_GUI_LIBRARIES, **XCB_LIBRARIES}
        packages = list(dict.fromkeys(table[soname][1 if fedora else 0] for soname in missing))
        return (f"The window cannot open: Qt needs {_and(missing)}, which this system lacks; "
                f"install {'them' if len(missing) > 1 else 'it'} with `{install_command(packages, fedora, root)}`, "
                f"{HEADLESS_HINT}.")
    if platform == "xcb" and not reachable():
        return (f"The window cannot open: no X server answers on DISPLAY={env.get('DISPLAY')}; "
                f"start one or fix DISPLAY, {HEADLESS_HINT}.")
    return None


def check_gui_can_start() -> None:
    """Raise DisplayError with the sentence from `gui_problem` before Qt loads its platform plugin."""
    problem = gui_problem()
    if problem is not None:
        raise DisplayError(problem)
