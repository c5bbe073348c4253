"""Where the window starts: the last session (said in the status bar), or the defaults (File ▸ New Session,
`tfdebug --fresh`), on the device and precision chosen for this machine."""

import json

import pytest
import torch
from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import QApplication

from tests.ui.conftest import wait_paused
from tests.ui.user_actions import press
from tfdebug.adapters.registry import default_model_name, load_adapter
from tfdebug.core.view import RunInputs
from tfdebug.ui.state.session_start import default_inputs, starting_inputs

LAST = RunInputs("random", "cpu", {"src": "Apple is delicious", "tgt": "苹果"})
GPUS = ["cpu", "cuda:0", "cuda:1"]


def first_preset() -> dict:
    return dict(load_adapter(default_model_name()).presets[0])


@pytest.fixture
def bf16_gpu(monkeypatch):
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    monkeypatch.setattr(torch.cuda, "is_bf16_supported", lambda including_emulation=True: True)


def test_the_first_start_is_the_demo_on_the_first_gpu_in_bfloat16(bf16_gpu):
    inputs, restored = starting_inputs(devices=GPUS)
    assert inputs == RunInputs(default_model_name(), "cuda:0", {}, dtype="bfloat16") and not restored
    assert default_inputs(devices=GPUS) == inputs


def test_a_later_start_restores_the_last_session_with_the_users_device_and_precision(bf16_gpu):
    inputs, restored = starting_inputs(remembered=LAST, saved=("float32", None), devices=GPUS)
    assert restored and inputs == LAST  # cpu and float32, chosen last time, win over the GPU's defaults
    given, restored = starting_inputs(model="random", texts={"src": "I love you"}, remembered=LAST, devices=GPUS)
    assert not restored and given.texts == {"src": "I love you"} and given.device == "cpu"
    forced, _ = starting_inputs(device="cuda:1", dtype="float16", remembered=LAST, saved=("float32", None),
                                devices=GPUS)
    assert (forced.device, forced.dtype) == ("cuda:1", "float16")


def run_app_until_paused(monkeypatch, settings, **kwargs) -> dict:
    """Run `tfdebug.ui.app.run_app(**kwargs)` with `settings` as the user's, and report, once the window
    is paused at its first stage, its inputs and the status bar's message; then close it."""
    from tfdebug.ui import app
    from tfdebug.ui.shell import window as window_module

    monkeypatch.setattr(window_module, "default_settings", lambda: settings)
    seen: dict = {}

    def look():
        shown = [w for w in QApplication.topLevelWidgets()
                 if isinstance(w, window_module.MainWindow) and w.isVisible() and w.settings is settings]
        ctl = shown[0].ctl if shown else None
        if ctl is None or ctl.current is None or ctl.loader.busy or ctl.stepper.state == "running":
            QTimer.singleShot(50, look)
            return
        seen.update(inputs=ctl.inputs, message=shown[0].message_bar.text(), first=ctl.current.name)
        shown[0].close()
        QApplication.instance().exit(0)

    QTimer.singleShot(50, look)
    assert app.run_app(**kwargs) == 0
    return seen


def test_the_status_bar_says_the_last_session_was_restored_and_fresh_starts_from_the_defaults(
        monkeypatch, settings, qapp):
    settings.setValue("input/last", json.dumps(LAST.to_list()))
    restored = run_app_until_paused(monkeypatch, settings)
    assert restored["inputs"].model == "random" and restored["inputs"].texts == LAST.texts
    assert restored["message"] == "Restored your last session: random — File ▸ New Session for the demo"
    fresh = run_app_until_paused(monkeypatch, settings, fresh=True)
    assert fresh["inputs"].model == default_model_name() and fresh["inputs"].texts == first_preset()
    assert "Restored" not in fresh["message"] and fresh["first"] == "src.embed"


def test_file_new_session_starts_from_the_defaults(window, qtbot):
    new = window.actions_by_id["tfdebug.session.new"]
    assert new in window.file_menu.actions() and new.shortcut().toString() == "Ctrl+Shift+N"
    press(window, Qt.Key_N, Qt.ControlModifier | Qt.ShiftModifier)
    qtbot.waitUntil(lambda: window.ctl.model_name == default_model_name(), timeout=60000)  # the demo loaded
    wait_paused(qtbot, window, "src.embed")
    assert window.ctl.inputs.texts == first_preset()
    assert window.input_bar.model.currentText() == default_model_name()
