"""The window attached to a real `tfdebug serve` process on 127.0.0.1: connect through File ▸ Connect to
Server…, F10 to a stage, see its heatmap; the server killed, the window says the connection is lost."""

from __future__ import annotations

import pytest
import torch
from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import QDialog
from PySide6.QtTest import QTest

pytest.importorskip("zmq")

from tests.remote.served import start_server, stop_server  # noqa: E402
from tests.ui.user_actions import pick, press, run_to_stage, type_into  # noqa: E402
from tfdebug.core.breakpoints import Breakpoint  # noqa: E402
from tfdebug.io.atomic import leftover_temp_files  # noqa: E402
from tfdebug.io.snapshot import open_snapshot  # noqa: E402
from tfdebug.ui.features.export.dialog import ExportDialog  # noqa: E402
from tfdebug.ui.render.stage_text import fmt_bytes  # noqa: E402

PROBS = "dec.0.self_attn.probs"


@pytest.fixture()
def served(tmp_path):
    server = start_server(tmp_path)
    yield server
    stop_server(server)


def connect_through_the_menu(window, qtbot, served):
    """File ▸ Connect to Server…, paste the line tfdebug serve printed, OK."""
    line = f"tfdebug gui --connect {served.address} --token {served.token}"

    typed = {}

    def fill():
        dialog = window.dialogs["connect"]
        try:
            dialog.address.setFocus()
            QTest.keyClicks(dialog.address, line)  # the whole line into Address: it gives address and token
            typed["values"] = dialog.values()
        finally:
            dialog.accept()
    QTimer.singleShot(0, fill)
    window.actions_by_id["tfdebug.file.connect"].trigger()
    assert typed["values"] == (served.address, served.token, None)
    qtbot.waitUntil(lambda: window.ctl.capabilities.passes_there and window.ctl.current is not None
                    and window.heatmap_panel.slice is not None, timeout=20000)


def export_through_the_dialog(window, qtbot, monkeypatch, target, suffix=".safetensors", stages=None):
    """File ▸ Export…: choose the format and file (and stages), OK; wait for the job."""
    def answer(dialog):
        dialog.set_format(suffix)
        dialog.path_edit.setText(str(target))
        if stages is not None:
            dialog.selected.setChecked(True)
            for i in range(dialog.stage_list.count()):
                item = dialog.stage_list.item(i)
                item.setCheckState(Qt.Checked if item.text() in stages else Qt.Unchecked)
        return QDialog.Accepted
    monkeypatch.setattr(ExportDialog, "exec", answer)
    window.actions_by_id["tfdebug.file.export"].trigger()
    job = window.exports.job
    qtbot.waitUntil(lambda: job.done, timeout=30000)
    return job


def test_connect_step_and_see_the_heatmap_then_lose_the_server(make_window, qtbot, served, tmp_path, monkeypatch):
    window = make_window()
    window.ctl.close()
    connect_through_the_menu(window, qtbot, served)
    ctl = window.ctl
    assert "remote: 127.0.0.1" in window.windowTitle()
    qtbot.waitUntil(lambda: window.status_device.text() == "remote: 127.0.0.1 · cpu", timeout=5000)
    first = ctl.current.name

    press(window, Qt.Key_F10)
    qtbot.waitUntil(lambda: ctl.current is not None and ctl.current.name != first
                    and ctl.stepper.state == "paused" and window.heatmap_panel.slice is not None
                    and ctl.shown.current_slice is window.heatmap_panel.slice, timeout=10000)
    assert ctl.current.name == ctl.plan[1].name and ctl.current.tensor is None  # the tensor stays on the server

    run_to_stage(window, qtbot, PROBS)
    qtbot.waitUntil(lambda: ctl.current.name == PROBS and window.heatmap_panel.slice is not None
                    and window.heatmap_panel.slice.stats.neginf > 0, timeout=10000)  # the causal mask, drawn
    assert window.heatmap_panel.image.image is not None
    qtbot.waitUntil(lambda: ctl.shown.current_stats is not None, timeout=10000)  # whole-tensor stats, from the server
    # "captures hold": the bytes the server's captures hold (the tensors are there, none here)
    assert ctl.source.held_bytes() > 0
    qtbot.waitUntil(lambda: window.status_memory.text() == f"captures hold {fmt_bytes(ctl.source.held_bytes())}",
                    timeout=5000)

    ctl.breakpoints.set(Breakpoint.on_nan(), True)  # evaluated on the server's device
    press(window, Qt.Key_E, Qt.ControlModifier | Qt.ShiftModifier)  # Edit Tensor…: one cell to NaN
    qtbot.waitUntil(lambda: window.edit_tools.dialog is not None and window.edit_tools.dialog.isVisible())
    dialog = window.edit_tools.dialog
    pick(qtbot, dialog.operation, "Set to a value")
    pick(qtbot, dialog.target, "One cell")
    type_into(qtbot, dialog.value, "nan")
    qtbot.mouseClick(dialog.apply_button, Qt.LeftButton)
    assert dialog.error_label.text() == ""
    dialog.close()
    qtbot.waitUntil(lambda: ctl.current.edited and window.heatmap_panel.slice.stats.nan == 1, timeout=10000)
    press(window, Qt.Key_F5)  # Continue: the NaN flows on, the breakpoint stops at the next stage
    qtbot.waitUntil(lambda: ctl.current.name != PROBS and ctl.stepper.state == "paused" and ctl.shown.settled()
                    and window.heatmap_panel.slice is ctl.shown.current_slice and ctl.shown.current_slice.stats.nan > 0,
                    timeout=10000)
    assert "breakpoint on" in window.message_bar.text()  # "Stopped at …: breakpoint on contains NaN."

    snapshot = tmp_path / "remote.safetensors"  # File ▸ Export…: streamed from the server, written here
    export_through_the_dialog(window, qtbot, monkeypatch, snapshot)
    with open_snapshot(snapshot) as recording:
        assert recording[PROBS].edited and recording.names()[0] == ctl.plan[0].name
        assert recording.names() == [c.name for c in ctl.stepper.history]
    chosen = tmp_path / "probs.pt"  # another format and one stage: converted here from the streamed snapshot
    export_through_the_dialog(window, qtbot, monkeypatch, chosen, ".pt", [PROBS])
    data = torch.load(chosen, weights_only=True)
    assert PROBS in data and ctl.plan[0].name not in data and torch.isnan(data[PROBS]).sum() == 1
    assert not leftover_temp_files(tmp_path)

    shown = window.heatmap_panel.slice
    served.process.kill()
    qtbot.waitUntil(lambda: "connection lost" in window.status_device.text(), timeout=10000)  # 3 s of silence
    assert "Connection lost" in (window.last_error or "")
    assert window.actions_by_id["tfdebug.file.reconnect"].isEnabled()
    assert window.heatmap_panel.slice is shown  # what it showed stays on screen


def test_run_with_new_texts_runs_on_the_server_and_its_refusal_is_said_in_chinese(make_window, qtbot, served):
    from tests.ui.test_i18n_values import english_words
    from tfdebug.ui.i18n import language as i18n

    window = make_window()
    window.ctl.close()
    connect_through_the_menu(window, qtbot, served)
    ctl, bar = window.ctl, window.input_bar
    qtbot.waitUntil(lambda: bar.field("src").text() == ctl.source.texts["src"] and bar.field("src").isEnabled())
    assert not bar.model.isEnabled()  # the model is the server's
    run_to_stage(window, qtbot, PROBS)
    i18n.set_language("zh")
    bar.field("src").selectAll()
    qtbot.keyClick(bar.field("src"), Qt.Key_Delete)
    press(window, Qt.Key_Return, Qt.ControlModifier)  # Run: the server checks the texts and refuses them
    qtbot.waitUntil(lambda: not ctl.loader.busy and window.message_bar.text() != "", timeout=10000)
    shown = window.message_bar.text()
    assert english_words(shown) == [] and "。" in shown, shown  # the server's sentence, said in Chinese
    assert ctl.current.name == PROBS and ctl.source.texts["src"] != ""  # the pass on screen is as it was
    i18n.set_language("en")
    assert window.message_bar.text() == "The source sentence is empty: type at least one word."

    first = ctl.source
    type_into(qtbot, bar.field("src"), "you love me")
    press(window, Qt.Key_Return, Qt.ControlModifier)  # a new pass on the server, paused at its first stage
    qtbot.waitUntil(lambda: ctl.source is not first and ctl.current is not None and not ctl.loader.busy
                    and window.heatmap_panel.slice is not None, timeout=20000)
    assert ctl.source.texts["src"] == "you love me" and ctl.current.name == ctl.plan[0].name
    assert ctl.tokens["src"][:3] == ["you", "love", "me"] and ctl.source.client is first.client
    run_to_stage(window, qtbot, PROBS)  # the new pass steps, on the server
    assert ctl.current.shape[-1] == len(ctl.tokens["tgt"])
