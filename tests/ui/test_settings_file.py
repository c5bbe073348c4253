"""Settings that are not files: a FIFO or an oversized file at the settings path is left alone with one warning and
the defaults are used (the window starts at once); a hostile recent-files value costs nothing."""

from __future__ import annotations

import logging
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from PySide6.QtCore import QSettings

from tfdebug.ui.actions.snapshots import MAX_RECENT, last_folder, recent_files
from tfdebug.ui.shell import settings_file
from tfdebug.ui.shell.window import default_settings

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.skipif(os.name == "nt", reason="the settings are a registry key on Windows")


@pytest.fixture
def config(tmp_path):
    """The path of the user's settings file (tests/ui/conftest.py points QSettings' user folder into tmp_path)."""
    path = tmp_path / "settings" / "tfdebug" / "tfdebug.conf"
    path.parent.mkdir(parents=True, exist_ok=True)
    assert settings_file.settings_path() == path
    return path


def settings_within(seconds: float) -> QSettings:
    made: list[QSettings] = []
    thread = threading.Thread(target=lambda: made.append(default_settings()), daemon=True)
    thread.start()
    thread.join(seconds)
    assert made, "reading the settings hung"
    return made[0]


def warnings(caplog) -> list[str]:
    return [r.getMessage() for r in caplog.records if "settings file" in r.getMessage()]


def test_a_fifo_at_the_settings_path_is_left_alone_and_defaults_are_used(config, caplog):
    os.mkfifo(config)
    with caplog.at_level(logging.WARNING, logger="tfdebug"):
        settings = settings_within(5)
        assert settings.value("files/recent") is None and settings.fileName() != str(config)
        settings.setValue("files/folder", "/somewhere")
        settings.sync()
        settings_within(5)  # the window and the language each ask: one warning
    assert len(warnings(caplog)) == 1 and "not a regular file" in warnings(caplog)[0]
    assert os.path.exists(config) and not config.is_file()  # the user's FIFO is untouched


def test_an_oversized_settings_file_is_not_read(config, caplog):
    config.write_text("[files]\nrecent=" + "x" * (settings_file.MAX_SETTINGS_BYTES + 1) + "\n")
    with caplog.at_level(logging.WARNING, logger="tfdebug"):
        started = time.monotonic()
        settings = settings_within(5)
        assert time.monotonic() - started < 2 and recent_files(settings) == []
    assert "more than the" in warnings(caplog)[0]


def test_a_small_regular_settings_file_is_read(config, caplog):
    config.write_text("[files]\nfolder=/data/passes\n")
    with caplog.at_level(logging.WARNING, logger="tfdebug"):
        assert last_folder(settings_within(5)) == "/data/passes"
    assert warnings(caplog) == []


def test_a_hostile_recent_files_value_is_bounded_and_typed(tmp_path):
    settings = QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat)
    settings.setValue("files/recent", [f"/p/{i}" for i in range(100_000)])
    started = time.monotonic()
    assert recent_files(settings) == [f"/p/{i}" for i in range(MAX_RECENT)]
    assert time.monotonic() - started < 1
    settings.setValue("files/recent", [5, "", "/ok", "x" * 5000, "/a\0b", None, "/fine"])
    assert recent_files(settings) == ["/ok", "/fine"]
    settings.setValue("files/folder", "y" * 10_000)
    assert last_folder(settings) == os.path.expanduser("~")


def test_the_window_starts_with_a_fifo_at_the_settings_path(tmp_path):
    """`tfdebug gui --screenshot` (killed at 120 s before): one warning line, the screenshot saved, exit 0."""
    config = tmp_path / "config"
    (config / "tfdebug").mkdir(parents=True)
    os.mkfifo(config / "tfdebug" / "tfdebug.conf")
    env = {**os.environ, "XDG_CONFIG_HOME": str(config), "HOME": str(tmp_path), "QT_QPA_PLATFORM": "offscreen",
           "OMP_NUM_THREADS": "1"}
    done = subprocess.run([sys.executable, "-m", "tfdebug", "gui", "--screenshot", str(tmp_path / "shot.png")],
                          capture_output=True, text=True, timeout=120, env=env, cwd=ROOT)
    assert done.returncode == 0 and (tmp_path / "shot.png").is_file(), done.stderr
    assert done.stderr.count("settings file") == 1 and "Traceback" not in done.stderr


# What tfdebug itself writes under each key (the type check must keep every one of them).
WRITTEN = {"window/geometry": b"\x01\xd9\xd0\xcb", "window/state": b"\x00\x00\x00\xff",
           "input/last": '[["random", "cpu", {"src": "I love you"}]]', "input/recent": "[]",
           "input/loading": '{"dtype": "float32", "device_map": null}', "input/chat": "true",
           "generation/decoding": '{"max_new_tokens": 8}', "files/recent": ["/data/a.safetensors", "/b, c"],
           "files/folder": "/data", "heatmap/log_scale": '["softmax"]', "heatmap/per_row_scale": False,
           "capture/budget": "512", "capture/keep": "near", "capture/pinned": "softmax,scores", "ui/language": "zh",
           "check/verify": "never"}


def test_every_key_read_has_a_type_and_what_tfdebug_writes_keeps_it(config, caplog):
    assert set(WRITTEN) == set(settings_file.SETTING_TYPES)
    written = QSettings(str(config), QSettings.Format.IniFormat)
    for key, value in WRITTEN.items():
        written.setValue(key, value)
    written.setValue("files/recent", "/only/one.safetensors")  # a one-item list reads back as a text
    written.sync()
    del written
    with caplog.at_level(logging.WARNING, logger="tfdebug"):
        settings = settings_within(5)
    assert warnings(caplog) == [] and all(settings.contains(key) for key in WRITTEN)
    assert recent_files(settings) == ["/only/one.safetensors"]


@pytest.mark.parametrize("key", sorted(settings_file.SETTING_TYPES))
@pytest.mark.parametrize("stored", ["@Rect(1 2 3 4)", "a, b, c", "@Variant(\\0\\0\\0\\x7f\\0\\0\\0\\x5QSize)",
                                    "@ByteArray(xyz)"], ids=["rect", "list", "variant", "bytes"])
def test_a_value_of_the_wrong_type_is_reset_with_one_warning(config, caplog, key, stored):
    group, _, name = key.partition("/")
    config.write_text(f"[files]\nfolder=/data/kept\n[{group}]\n{name}={stored}\n")
    with caplog.at_level(logging.WARNING, logger="tfdebug"):
        settings = settings_within(5)
        settings_within(5)  # the language and the window each ask: one warning
    if settings_file.SETTING_TYPES[key](QSettings(str(config), QSettings.Format.IniFormat).value(key)):
        return  # this shape is that key's type (bytes for a layout, a list for recent files)
    assert not settings.contains(key)
    assert last_folder(settings) == "/data/kept" or key == "files/folder"
    assert len(warnings(caplog)) == 1 and key in warnings(caplog)[0] and "wrong type" in warnings(caplog)[0]


def test_the_window_starts_on_settings_of_every_wrong_type(config, qtbot, caplog):
    lines = {}
    for key in settings_file.SETTING_TYPES:
        group, _, name = key.partition("/")
        lines.setdefault(group, []).append(f"{name}=@Rect(1 2 3 4)")
    config.write_text("".join(f"[{g}]\n" + "\n".join(v) + "\n" for g, v in lines.items()))
    from tfdebug.ui.shell.window import MainWindow

    with caplog.at_level(logging.WARNING, logger="tfdebug"):
        window = MainWindow(settings=default_settings())
        qtbot.addWidget(window)
        window.show()
        qtbot.waitExposed(window)
    assert len(warnings(caplog)) == 1
    assert recent_files(window.settings) == [] and last_folder(window.settings) == os.path.expanduser("~")
