"""Closing the window at any moment — while the model loads, mid-pass, while exporting — exits 0."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

SCRIPT = r"""
import sys
from PySide6.QtCore import QTimer
from tfdebug.ui import app as app_module

delay_ms, model, export = int(sys.argv[1]), sys.argv[2], sys.argv[3] == "export"
qapp = app_module._application()
original = app_module.MainWindow if hasattr(app_module, "MainWindow") else None

def arm():
    from PySide6.QtWidgets import QApplication
    windows = [w for w in QApplication.topLevelWidgets() if w.objectName() == "tfdebug-main"]
    if export and windows and windows[0].ctl.stepper is not None:
        windows[0].exports.start(sys.argv[4])
    QTimer.singleShot(delay_ms, lambda: [w.close() for w in windows])

QTimer.singleShot(0, arm)
sys.exit(app_module.run_app(model=model, texts={"src": "I love you", "tgt": "我 爱 你"}))
"""


def close_at(delay_ms: int, model: str = "random", export: str = "", tmp_path=None) -> subprocess.CompletedProcess:
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen", PYTHONPATH=str(ROOT),
               XDG_CONFIG_HOME=str(tmp_path / "config"), HOME=str(tmp_path))
    out = str(tmp_path / "pass.npz")
    return subprocess.run([sys.executable, "-c", SCRIPT, str(delay_ms), model, export or "-", out],
                          capture_output=True, text=True, timeout=120, env=env, cwd=str(tmp_path))


@pytest.mark.parametrize("delay_ms,model", [(0, "random"), (5, "demo"), (40, "random"), (150, "demo"),
                                            (600, "random")])
def test_closing_during_load_or_pass_exits_0(delay_ms, model, tmp_path):
    proc = close_at(delay_ms, model, tmp_path=tmp_path)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "Traceback" not in proc.stderr and "terminate called" not in proc.stderr


def test_closing_during_an_export_exits_0(tmp_path):
    proc = close_at(700, "random", "export", tmp_path=tmp_path)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "Traceback" not in proc.stderr


def test_closing_the_window_ends_its_display_worker(make_window, qtbot):
    """No thread of a closed window is left waiting (or inside torch when the process exits)."""
    window = make_window()
    thread = window.ctl.display._thread
    assert thread.is_alive()
    window.close()
    assert not thread.is_alive()
