"""The run settings as an evented model: without Qt, each field's event fires once with its value; in the window,
typing and Run (keys) reach the model, and the input bar follows its `inputs_changed`."""

import subprocess
import sys

from PySide6.QtCore import Qt
from PySide6.QtTest import QTest

from tests.ui.conftest import wait_paused
from tests.ui.user_actions import press, type_into
from tfdebug.core.view import RunInputs
from tfdebug.models.sampling import DecodingSettings
from tfdebug.ui.models.run import RunModel


def listen(model: RunModel) -> list:
    heard = []
    for event in ("inputs_changed", "generation_changed", "decoding_changed", "worked_changed"):
        getattr(model, event).connect(lambda value, event=event: heard.append((event, value)))
    return heard


def test_each_field_tells_its_change_once_with_its_value():
    model = RunModel()
    heard = listen(model)
    inputs, settings = RunInputs("demo", "cpu", {"src": "I love you"}), DecodingSettings(max_new_tokens=3)
    for _ in range(2):  # the second time nothing changes: nothing is told
        model.set_inputs(inputs)
        model.set_decoding(settings)
        model.set_generation(settings)
        model.set_worked(inputs)
    assert heard == [("inputs_changed", inputs), ("decoding_changed", settings), ("generation_changed", settings),
                     ("worked_changed", inputs)]
    assert (model.inputs, model.decoding, model.generation, model.worked) == (inputs, settings, settings, inputs)
    model.set_generation(None)
    assert heard[4:] == [("generation_changed", None)] and model.generation is None


def test_the_model_imports_no_qt():
    code = ("import sys; [sys.modules.__setitem__(m, None) for m in ('PySide6', 'pyqtgraph', 'shiboken6')]; "
            "from tfdebug.ui.models.run import RunModel; from tfdebug.core.view import RunInputs; m = RunModel(); "
            "out = []; m.inputs_changed.connect(out.append); m.set_inputs(RunInputs('demo')); "
            "assert out == [RunInputs('demo')]; print('ok')")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.stdout.strip() == "ok", done.stderr


def test_typing_and_run_reach_the_run_model_and_the_input_bar_follows_it(window, qtbot):
    ctl, bar = window.ctl, window.input_bar
    heard = listen(ctl.run)
    field = bar.fields["src"]
    type_into(qtbot, field, "we love you")
    assert heard and heard[-1][0] == "inputs_changed" and heard[-1][1].texts["src"] == "we love you"
    assert ctl.inputs is ctl.run.inputs  # one record: the controller reads the model's
    heard.clear()
    QTest.keyClick(field, Qt.Key_Return)  # Run
    wait_paused(qtbot, window, "src.embed")
    qtbot.waitUntil(lambda: ("worked_changed", ctl.run.inputs) in heard)
    assert ctl.worked.texts["src"] == "we love you" and ctl.generation is None
    ctl.run.set_inputs(RunInputs("random", "cpu", {"src": "they love you", "tgt": ""}))  # restored, as after a failed Run
    assert field.text() == "they love you"  # the bar shows the model's inputs from its event
    press(window, Qt.Key_G, Qt.ControlModifier)  # Generate: the next run generates with the decoding settings
    assert ("generation_changed", ctl.run.decoding) in heard
    qtbot.waitUntil(lambda: ctl.is_generating(), timeout=60000)
    wait_paused(qtbot, window, timeout=60000)
