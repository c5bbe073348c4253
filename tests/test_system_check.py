"""A clean start on Linux: a missing display or system library is one sentence and exit 2, never a core dump."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tfdebug import cli
from tfdebug.ui.shell import system_check
from tfdebug.ui.shell.system_check import XCB_LIBRARIES, gui_problem, install_command, system_packages

DEBIAN = 'PRETTY_NAME="Debian GNU/Linux 12 (bookworm)"\nID=debian\n'
FEDORA = 'NAME="Fedora Linux"\nID=fedora\n'
X11 = {"DISPLAY": ":0"}


def without(*sonames):
    return lambda soname: soname not in sonames


def test_a_missing_xcb_library_names_the_apt_packages():
    problem = gui_problem(X11, without("libxcb-icccm.so.4", "libxcb-keysyms.so.1"), lambda: True, DEBIAN, "linux",
                          root=False)
    assert "`sudo apt-get install -y libxcb-icccm4 libxcb-keysyms1`" in problem
    assert "libxcb-icccm.so.4 and libxcb-keysyms.so.1" in problem
    assert "QT_QPA_PLATFORM=offscreen" in problem
    assert "\n" not in problem and problem.count(". ") == 0 and problem.endswith(".")  # one sentence


def test_fedora_gets_the_dnf_packages():
    problem = gui_problem(X11, without("libxcb-icccm.so.4"), lambda: True, FEDORA, "linux", root=False)
    assert "`sudo dnf install -y xcb-util-wm`" in problem


def test_no_display_and_an_unreachable_display_are_said_before_qt_starts():
    assert "no display is set" in gui_problem({}, without(), lambda: True, DEBIAN, "linux")
    assert "no X server answers on DISPLAY=:0" in gui_problem(X11, without(), lambda: False, DEBIAN, "linux")
    assert gui_problem(X11, without(), lambda: True, DEBIAN, "linux") is None


def test_offscreen_and_wayland_do_not_need_the_xcb_plugin():
    every_xcb = without(*XCB_LIBRARIES)
    assert gui_problem({"QT_QPA_PLATFORM": "offscreen"}, every_xcb, lambda: False, DEBIAN, "linux") is None
    wayland = {"WAYLAND_DISPLAY": "wayland-0", "XDG_SESSION_TYPE": "wayland"}
    assert gui_problem(wayland, every_xcb, lambda: False, DEBIAN, "linux") is None
    # Qt's GUI library itself needs EGL even offscreen.
    offscreen = gui_problem({"QT_QPA_PLATFORM": "offscreen"}, without("libEGL.so.1"), lambda: True, DEBIAN, "linux",
                            root=False)
    assert "`sudo apt-get install -y libegl1`" in offscreen
    assert gui_problem({}, without(*XCB_LIBRARIES), lambda: False, DEBIAN, "darwin") is None


def test_tfdebug_without_libxcb_icccm4_prints_the_install_sentence_and_exits_2(monkeypatch, capsys):
    monkeypatch.setenv("DISPLAY", ":0")
    monkeypatch.delenv("QT_QPA_PLATFORM", raising=False)
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    monkeypatch.setattr(system_check, "library_loads", without("libxcb-icccm.so.4"))
    monkeypatch.setattr(sys, "platform", "linux")
    monkeypatch.setattr("tfdebug.core.memory.keep_freed_memory", lambda: None)  # no process-wide change here

    def qt_must_not_start(**_kw):
        raise AssertionError("Qt started although a library is missing")
    monkeypatch.setattr("tfdebug.ui.app.run_app", qt_must_not_start)
    assert cli.main([]) == 2
    err = capsys.readouterr().err
    assert err.startswith("tfdebug: The window cannot open") and "apt-get install -y libxcb-icccm4" in err
    assert err.count("\n") == 1


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the check runs on Linux")
def test_no_display_exits_2_in_a_real_process():
    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "QT_QPA_PLATFORM", "WAYLAND_DISPLAY")}
    done = subprocess.run([sys.executable, "-m", "tfdebug"], env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode == 2, done.stderr  # not -6 (SIGABRT, Qt's core dump)
    assert done.stderr.startswith("tfdebug: The window cannot open: no display is set")
    assert done.stdout == ""


def test_readme_gives_the_lines_the_check_names_with_sudo_and_as_root():
    readme = (Path(__file__).resolve().parents[1] / "README.md").read_text(encoding="utf-8").splitlines()
    for fedora in (False, True):
        assert install_command(system_packages(fedora), fedora) in readme  # a line of its own, pasted whole
    assert install_command(system_packages(), False, root=True) in readme
    every = " ".join(system_packages())
    assert f"sudo apt-get install -y {every}" in readme and f"apt-get update && apt-get install -y {every}" in readme


def test_the_install_sentence_asks_no_question_and_needs_no_sudo_as_root():
    problem = gui_problem(X11, without("libxcb-icccm.so.4"), lambda: True, DEBIAN, "linux", root=True)
    assert "`apt-get update && apt-get install -y libxcb-icccm4`" in problem and "sudo" not in problem
    assert "`dnf install -y xcb-util-wm`" in gui_problem(X11, without("libxcb-icccm.so.4"), lambda: True, FEDORA,
                                                          "linux", root=True)
