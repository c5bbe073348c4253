"""File ▸ Compare With… (Ctrl+Shift+D) in a window attached to a real `tfdebug serve --model tiny-gpt2`: the server
compares and the Compare dock shows its table; what cannot be compared over a remote pass is one sentence; the
divergence condition is checked on the server and its stop shown in the Compare dock."""

from __future__ import annotations

import numpy as np
import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QDialogButtonBox

pytest.importorskip("zmq")
pytest.importorskip("transformers")

from tests.remote.served import start_server, stop_server  # noqa: E402
from tests.ui.test_compare_view import compare_dialog, run_comparison  # noqa: E402
from tests.ui.test_remote_window import connect_through_the_menu  # noqa: E402
from tests.ui.user_actions import pick, press, type_into  # noqa: E402
from tfdebug.remote.comparing import compare_on_server  # noqa: E402
from tfdebug.ui.features.compare.view import FIRST_BG, PANEL_SIZE  # noqa: E402


@pytest.fixture(scope="module")
def gpt2_served(tmp_path_factory):
    server = start_server(tmp_path_factory.mktemp("exports"), model="tiny-gpt2")
    yield server
    stop_server(server)


def test_compare_with_another_dtype_runs_on_the_server_and_the_dock_shows_its_table(make_window, qtbot,
                                                                                   gpt2_served):
    window = make_window()
    window.ctl.close()
    connect_through_the_menu(window, qtbot, gpt2_served)
    press(window, Qt.Key_F5)  # Continue to the end, on the server
    qtbot.waitUntil(lambda: window.ctl.stepper.state == "finished", timeout=30000)

    chooser = compare_dialog(window, qtbot)
    assert chooser.a.kind.currentText() == "The pass on screen"
    pick(qtbot, chooser.b.kind, "This input in another dtype or on another device")
    assert chooser.b.placement.device.isHidden()  # the server's device: this machine's list does not apply
    pick(qtbot, chooser.b.placement.dtype, "bfloat16")
    type_into(qtbot, chooser.atol, "1e-3")
    type_into(qtbot, chooser.rtol, "1e-3")
    result = run_comparison(window, qtbot, chooser)
    # The same question asked of the server directly gives the same table (the window only shows it)
    assert result.to_dict() == compare_on_server(window.ctl.source, "placed", 1e-3, 1e-3, dtype="bfloat16").to_dict()
    assert [r.name for r in result.stages] == window.ctl.plan.names()
    view = window.compare_tools.view
    first = result.first_divergent
    assert first is not None and view.selected_stage() == first.name
    assert view.table.item(view.rows[first.name], 0).background().color() == FIRST_BG
    assert f"First divergent stage: {first.name}." in view.summary.text()
    # A, B and A − B are drawn from planes the server cut of the passes it compared (only they cross)
    assert all(image.image is not None for image in view.images) and "A − B from" in view.caption.text()
    planes = window.compare_tools.planes(first.name, dict(window.ctl.view.indices_by_name), PANEL_SIZE)
    a, b, a_minus_b = (sl.values for sl in planes.slices)
    # A is the pass on screen: as the server's own slice request cuts that stage
    on_screen = window.ctl.source.display.slice_of(window.ctl.stepper.captured(first.name), planes.row_axis,
                                                   planes.col_axis, planes.indices, PANEL_SIZE)
    np.testing.assert_array_equal(a, on_screen.values)
    both = np.isfinite(a) & np.isfinite(b)
    np.testing.assert_allclose(a_minus_b[both], (a - b)[both], rtol=1e-6, atol=1e-7)
    assert np.abs(a_minus_b[both]).max() > 0  # bfloat16 against float32: a divergent stage differs somewhere
    assert window.overview.comparison is result  # the Overview's max |Δ| reads the same table


def test_what_cannot_be_compared_over_a_remote_pass_is_one_sentence(make_window, qtbot, gpt2_served):
    window = make_window()
    window.ctl.close()
    connect_through_the_menu(window, qtbot, gpt2_served)
    chooser = compare_dialog(window, qtbot)
    pick(qtbot, chooser.b.kind, "A snapshot or export file")
    assert chooser.b.browse.isHidden()  # a file dialog would browse this machine
    type_into(qtbot, chooser.b.path, "/home/me/pass.safetensors")
    qtbot.mouseClick(chooser.compare_button, Qt.LeftButton)
    assert chooser.error_label.text().startswith("A file on this machine cannot be compared with a remote pass")
    pick(qtbot, chooser.b.kind, "Another input on the same model")
    qtbot.mouseClick(chooser.compare_button, Qt.LeftButton)
    assert chooser.error_label.text().startswith("Another input is not compared over a remote pass")
    pick(qtbot, chooser.b.kind, "The pass before the last edit")
    qtbot.mouseClick(chooser.compare_button, Qt.LeftButton)
    assert chooser.error_label.text() == "No tensor has been edited yet: there is no pass before an edit."
    pick(qtbot, chooser.b.kind, "A snapshot or export file")
    type_into(qtbot, chooser.b.path, "absent.safetensors")  # a name in the server's export folder: asked there
    qtbot.mouseClick(chooser.compare_button, Qt.LeftButton)
    qtbot.waitUntil(lambda: (window.last_error or "").endswith("absent.safetensors does not exist."), timeout=20000)
    assert window.compare_tools.result is None
    chooser.close()


def test_the_divergence_condition_over_a_remote_pass_is_checked_on_the_server(make_window, qtbot, gpt2_served):
    window = make_window()
    window.ctl.close()
    connect_through_the_menu(window, qtbot, gpt2_served)
    press(window, Qt.Key_F5, Qt.ControlModifier | Qt.ShiftModifier)  # Restart: the served pass from its first stage
    qtbot.waitUntil(lambda: window.ctl.stepper.state == "paused" and window.ctl.stepper.cursor == 0, timeout=30000)
    window.actions_by_id["tfdebug.breakpoints.conditions"].trigger()  # Breakpoints ▸ Conditions…
    dialog = window.tools.conditions.dialog
    qtbot.waitUntil(dialog.isVisible)
    assert dialog.diverges.isEnabled() and dialog.placement.device.isHidden()  # on the server's device
    assert "The reference pass runs on the server" in dialog.diverges_note.text()
    qtbot.mouseClick(dialog.diverges, Qt.LeftButton)
    pick(qtbot, dialog.placement.dtype, "bfloat16")
    type_into(qtbot, dialog.atol, "1e-3")
    type_into(qtbot, dialog.rtol, "1e-3")
    qtbot.mouseClick(dialog.findChild(QDialogButtonBox).button(QDialogButtonBox.Ok), Qt.LeftButton)
    try:
        # Continue is grey for a moment while the window tells the server the conditions: a key on a grey
        # action does nothing (the fresh-clone suite pressed it then, and the pass never moved)
        qtbot.waitUntil(window.actions_by_id["tfdebug.step.continue"].isEnabled, timeout=30000)
        press(window, Qt.Key_F5)  # Continue: the server checks each stage against its bfloat16 pass
        qtbot.waitUntil(lambda: window.compare_tools.result is not None, timeout=60000)
        stage = window.ctl.stepper.current.name
        assert window.ctl.stepper.state == "paused"
        table = compare_on_server(window.ctl.source, "placed", 1e-3, 1e-3, on_screen="b", dtype="bfloat16")
        assert window.compare_tools.result.to_dict() == table.to_dict() and table[stage].diverges
        assert window.compare_tools.view.selected_stage() == stage  # the dock shows where the pass stopped
    finally:  # the server is the module's: it holds no condition for the next test
        window.ctl.breakpoints.set_conditions([])
        window.tools.compare.reference.set_condition_placement(None)
