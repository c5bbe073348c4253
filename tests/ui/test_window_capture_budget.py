"""The window's capture budget: set in Debug ▸ Capture Budget…, applied by Run, and the
stages it dropped listed in the Capture dock (issue 11 item 3)."""

from PySide6.QtCore import QPoint, Qt, QTimer
from PySide6.QtWidgets import QApplication

from tests.ui.conftest import SRC, TGT, wait_paused
from tests.ui.user_actions import press
from tfdebug.core.budget import format_bytes
from tfdebug.sessions.peak import peak_of
from tfdebug.ui.state.capture_budget import AUTO, OFF, SETTING_KEY, budget_bytes, parse_setting
from tfdebug.ui.state.keeping import MODE_KEY


def click_radio(qtbot, button):
    """Click a radio button on its round mark: a wide button's middle can lie past its text."""
    qtbot.mouseClick(button, Qt.LeftButton, pos=QPoint(8, button.height() // 2))
    assert button.isChecked()


def _choose_budget(window, qtbot, mb=None, off=False, first=False):
    """Open Debug ▸ Capture Budget…, pick 'at most `mb` MB' (or 'no budget'), with `first` 'keep the
    stages that run first', and press OK."""
    def answer():
        dialog = window.dialogs["budget"]
        if off:
            click_radio(qtbot, dialog.off)
        else:
            dialog.mb.setValue(mb)  # typing a size picks "At most"
            assert dialog.fixed.isChecked()
        if first:
            click_radio(qtbot, dialog.keep.first)
        dialog.accept()
    QTimer.singleShot(0, answer)
    window.capture_budget_action.trigger()
    window.activateWindow()  # the dialog had the focus: keys go to the window again
    qtbot.waitUntil(lambda: QApplication.activeWindow() is window)


def test_a_pass_beyond_the_budget_lists_the_stages_it_dropped(make_window, qtbot, settings):
    window = make_window()
    assert window.ctl.capture_budget == AUTO  # default: half of the free memory
    _choose_budget(window, qtbot, mb=0.03, first=True)    # 30 kB of a ~96 kB pass, in forward order
    assert settings.value(SETTING_KEY) == "0.03" and settings.value(MODE_KEY) == "first"
    window.input_bar.set_values("random", "cpu", {"src": SRC, "tgt": TGT})
    window.actions_by_id["tfdebug.session.run"].trigger()
    wait_paused(qtbot, window, "src.embed")
    panel = window.capture_panel
    window.docks["capture"].raise_()  # its tab, behind Stats: a panel off screen draws when it comes back
    estimate = window.ctl.session.capture_estimate()
    assert estimate.limit == 30_000 and estimate.dropped
    qtbot.waitUntil(lambda: "30.0 kB" in panel.summary.text())
    assert f"drops {len(estimate.dropped)}, from {estimate.dropped[0]} on" in panel.summary.text()
    peak = peak_of(window.ctl.session)  # what the pass reaches: the kept stages are the budget's 30 kB at most
    assert peak.kept == estimate.kept_bytes <= 30_000 and f"kept stages {format_bytes(peak.kept)}" in panel.summary.text()
    assert "Peak about" in panel.summary.text() and "the check against the model" in panel.summary.text()
    assert panel.dropped_names() == []

    press(window, Qt.Key_F5)  # Continue to the end
    qtbot.waitUntil(lambda: window.ctl.stepper.state == "finished", timeout=20000)
    qtbot.waitUntil(lambda: panel.dropped_names() == window.ctl.stepper.dropped)
    dropped = panel.dropped_names()
    assert dropped == list(estimate.dropped)  # the plan said so before the pass ran
    held = {c.name: c for c in window.ctl.stepper.history}
    assert all(held[name].tensor is None and held[name].dropped for name in dropped)
    assert sum(c.nbytes for c in held.values() if c.tensor is not None) <= 30_000
    assert f"{len(dropped)} stages dropped" in panel.dropped_title.text()
    first = panel.dropped_list.item(0).text()
    assert first == f"{dropped[0]}  ({format_bytes(held[dropped[0]].nbytes)})"  # name and size
    assert "capture budget (30.0 kB) is full" in window.message_bar.text()
    # The last stage was dropped once the pass ended: the heatmap says so instead of
    # drawing an empty plot under the previous stage's axes.
    qtbot.waitUntil(lambda: window.ctl.current.name == "logits")
    assert window.ctl.current.dropped
    heatmap = window.heatmap_panel
    qtbot.waitUntil(lambda: "logits was not kept" in heatmap.caption.text())
    assert heatmap.plot.getAxis("bottom").labelText == ""

    # No budget from the next Run on: nothing is dropped and the list empties.
    _choose_budget(window, qtbot, off=True)
    assert window.ctl.capture_budget == OFF
    window.actions_by_id["tfdebug.session.run"].trigger()
    qtbot.waitUntil(lambda: window.ctl.stepper.max_capture_bytes is None, timeout=20000)
    wait_paused(qtbot, window, "src.embed")
    press(window, Qt.Key_F5)
    qtbot.waitUntil(lambda: window.ctl.stepper.state == "finished", timeout=20000)
    qtbot.waitUntil(lambda: panel.dropped_list.count() == 0)
    assert "none, every stage is kept" in panel.summary.text()
    window.ctl.close()


def test_the_setting_is_read_back_and_damaged_values_mean_auto(make_window, settings):
    settings.setValue(SETTING_KEY, "250")
    assert make_window().ctl.capture_budget == "250"
    assert [parse_setting(v) for v in ("off", "AUTO", "-3", "lots", None, "nan", "12.5")] == \
        [OFF, AUTO, AUTO, AUTO, AUTO, AUTO, "12.5"]
    import torch

    assert budget_bytes("12.5", torch.device("cpu")) == 12_500_000
    assert budget_bytes(OFF, torch.device("cpu")) is None
    assert budget_bytes(AUTO, torch.device("cpu")) > 0  # half of MemAvailable here
