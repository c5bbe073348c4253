"""What the window's capture budget keeps when a pass does not fit (issue 26 item 3): the stages near
where the user is and where the pass is, every layer's attention first; a kind pinned from the
Stages tree; the choice remembered; a dropped stage stepped back onto says it was not kept."""

import re

from PySide6.QtCore import QPoint, Qt, QTimer
from PySide6.QtWidgets import QApplication

from tests.ui.conftest import SRC, TGT, wait_paused
from tests.ui.test_window_capture_budget import click_radio
from tests.ui.user_actions import press, run_model, run_to_stage, tooltip_as_read
from tfdebug.ui.state.keeping import DEFAULT_PINNED, MODE_KEY, PINNED_KEY

BUDGET = 50_000  # 50 kB of the random model's 98 kB pass (its attention stages: 20 kB)


def _open_budget_dialog(window, qtbot, answer):
    """Debug ▸ Capture Budget…; `answer(dialog)` runs while it is open, then OK."""
    def run():
        answer(window.dialogs["budget"])
        window.dialogs["budget"].accept()
    QTimer.singleShot(0, run)
    window.capture_budget_action.trigger()
    window.activateWindow()
    qtbot.waitUntil(lambda: QApplication.activeWindow() is window)


def _reason(window, name):
    """The Stages tree's reason for a stage it marks not kept (the tooltip of its shape column)."""
    item = window.navigator.items[name]
    assert item.text(2).endswith(" · not kept"), name
    return item.toolTip(2)


def _kept(stepper):
    return [c.name for c in stepper.history if not c.dropped]


def test_far_into_a_pass_the_budget_keeps_the_stages_near_you_and_every_layers_attention(make_window, qtbot, settings):
    window = make_window()
    seen = {}

    def answer(dialog):  # the defaults: near where you are, every layer's attention always kept
        seen["near"] = dialog.keep.near.isChecked()
        seen["pinned"] = dialog.keep.pinned()
        dialog.mb.setValue(BUDGET / 1e6)
    _open_budget_dialog(window, qtbot, answer)
    assert seen == {"near": True, "pinned": DEFAULT_PINNED} and "softmax" in DEFAULT_PINNED
    run_model(qtbot, window, "random", {"src": SRC, "tgt": TGT}, first="src.embed")
    stepper = window.ctl.stepper
    assert stepper.max_capture_bytes == BUDGET and stepper.keep.pinned == DEFAULT_PINNED

    far = "dec.1.self_attn.probs"  # stage 90 of 117
    run_to_stage(window, qtbot, far)
    plan = [c.name for c in window.ctl.plan]
    size = {c.name: c.nbytes for c in window.ctl.plan}
    kind = {c.name: c.info.kind for c in window.ctl.plan}
    ran = plan[:plan.index(far) + 1]
    kept = _kept(stepper)
    # Every attention stage that ran is kept (within half the budget) …
    softmax = [n for n in ran if kind[n] in DEFAULT_PINNED]
    assert len([n for n in softmax if kind[n] == "softmax"]) == 5 and set(softmax) <= set(kept)
    # … and the rest is the longest run of stages just behind the cursor that fits beside them.
    room = BUDGET - sum(size[n] for n in softmax)
    behind = [n for n in reversed(ran) if kind[n] not in DEFAULT_PINNED]
    window_ = []
    for name in behind:
        if sum(size[n] for n in window_) + size[name] > room:
            break
        window_.append(name)
    assert set(kept) == set(softmax) | set(window_)
    assert sum(c.nbytes for c in stepper.history if c.tensor is not None) <= BUDGET
    # The far early stages were let go, and the Stages tree says how far they were from where the pass was.
    for name in ("src.embed", "enc.0.attn.q", "enc.1.ffn.hidden"):
        reason = _reason(window, name)
        found = re.fullmatch(r"Not kept: (\d+) stages behind (\S+), where the pass was, when the 50\.0 kB capture "
                             r"budget needed room for a nearer stage\.", tooltip_as_read(reason))
        assert found, reason
        assert int(found[1]) == plan.index(found[2]) - plan.index(name) > 0
    assert not window.navigator.items[far].text(2).endswith("not kept")
    window.docks["capture"].raise_()  # its tab, behind Stats: a panel off screen draws when it comes back
    qtbot.waitUntil(lambda: "drops" in window.capture_panel.summary.text())

    # Stepping back walks the kept stages, then reaches one the budget let go: it says so.
    while not window.ctl.current.dropped:
        before = stepper.cursor
        assert before > 0
        press(window, Qt.Key_F10, Qt.ShiftModifier)
        qtbot.waitUntil(lambda: stepper.cursor == before - 1 and window.ctl.current is stepper.current)
    gone = window.ctl.current.name
    assert gone == [n for n in reversed(ran) if n not in kept][0]  # the first one behind the window
    qtbot.waitUntil(lambda: f"{gone} was not kept" in window.heatmap_panel.caption.text())
    assert stepper.state == "paused"  # the pass waits where it was, nothing ran

    # Looking back at a kept stage and running on to the end keeps the stages around it too.
    looked = window_[5]
    run_to_stage(window, qtbot, looked)
    press(window, Qt.Key_F5)
    qtbot.waitUntil(lambda: stepper.state == "finished", timeout=30000)
    kept = _kept(stepper)
    assert looked in kept and "logits" in kept
    assert {n for n in plan if kind[n] in DEFAULT_PINNED} <= set(kept)  # every layer's, to the end
    assert sum(c.nbytes for c in stepper.history if c.tensor is not None) <= BUDGET
    items = window.navigator.items
    qtbot.waitUntil(lambda: all(items[n].text(2).endswith(" · not kept") for n in stepper.dropped if n in items))
    reasons = {name: tooltip_as_read(_reason(window, name)) for name in stepper.dropped
               if name in window.navigator.items}
    assert any(f"from {looked}, where you were looking" in r for r in reasons.values())
    assert any("where the pass was" in r for r in reasons.values())
    window.ctl.close()


def test_a_kind_pinned_from_the_stages_tree_survives_and_the_choice_is_remembered(make_window, qtbot, settings):
    settings.setValue(PINNED_KEY, "softmax")  # chosen before: only the probabilities kept first
    window = make_window()
    _open_budget_dialog(window, qtbot, lambda dialog: dialog.mb.setValue(BUDGET / 1e6))
    run_model(qtbot, window, "random", {"src": SRC, "tgt": TGT}, first="src.embed")
    # Right-click a Scores stage in the Stages tree: Always Keep Every Scores Q·Kᵀ.
    nav = window.navigator
    item = nav.items["enc.0.attn.scores"]
    item.parent().setExpanded(True)
    nav.tree.scrollToItem(item)
    rect = nav.tree.visualItemRect(item)
    nav.tree.customContextMenuRequested.emit(QPoint(rect.center().x(), rect.center().y()))
    qtbot.waitUntil(lambda: QApplication.activePopupWidget() is not None)
    menu = QApplication.activePopupWidget()
    action = next(a for a in menu.actions() if a.text() == "Always Keep Every Scores Q·Kᵀ")
    assert action.isCheckable() and not action.isChecked()
    qtbot.mouseClick(menu, Qt.LeftButton, pos=menu.actionGeometry(action).center())
    assert window.ctl.keep.pinned == ("scores", "softmax")
    assert settings.value(PINNED_KEY) == "scores,softmax"
    assert "kept first when the capture budget is full, from the next Run" in window.message_bar.text()

    old = window.ctl.stepper
    press(window, Qt.Key_Return, Qt.ControlModifier)  # the next Run
    qtbot.waitUntil(lambda: window.ctl.stepper is not old, timeout=30000)
    wait_paused(qtbot, window, "src.embed")
    stepper = window.ctl.stepper
    assert stepper.keep.pinned == ("scores", "softmax")
    press(window, Qt.Key_F5)
    qtbot.waitUntil(lambda: stepper.state == "finished", timeout=30000)
    pinned = [c.name for c in window.ctl.plan if c.info.kind in ("scores", "softmax")]
    assert len(pinned) == 12 and set(pinned) <= set(_kept(stepper))  # the first encoder layer's too
    assert "src.embed" in stepper.dropped
    window.docks["capture"].raise_()
    qtbot.waitUntil(lambda: "Scores Q·Kᵀ" in window.capture_panel.summary.text())

    # The dialog shows the choice; keeping the first stages and no Softmax is remembered.
    def answer(dialog):
        kinds = dialog.keep.kinds
        row = next(i for i in range(kinds.count()) if kinds.item(i).data(Qt.UserRole) == "softmax")
        assert dialog.keep.pinned() == ("scores", "softmax")
        kinds.setFocus()
        qtbot.mouseClick(kinds.viewport(), Qt.LeftButton, pos=kinds.visualItemRect(kinds.item(row)).center())
        qtbot.keyClick(kinds, Qt.Key_Space)  # a checkable row toggles with the space bar
        assert dialog.keep.pinned() == ("scores",)
        click_radio(qtbot, dialog.keep.first)
    _open_budget_dialog(window, qtbot, answer)
    assert (settings.value(MODE_KEY), settings.value(PINNED_KEY)) == ("first", "scores")
    window.ctl.close()
    again = make_window()
    assert (again.ctl.keep.mode, again.ctl.keep.pinned) == ("first", ("scores",))
    assert again.ctl.keep.policy().pin_share == 0.5
    again.ctl.close()


def test_damaged_keep_settings_mean_the_default(make_window, settings):
    settings.setValue(MODE_KEY, "sideways")
    settings.setValue(PINNED_KEY, "softmax,nonsense," + "x" * 5000)
    window = make_window()
    assert (window.ctl.keep.mode, window.ctl.keep.pinned) == ("near", ("softmax",))
    settings.setValue(PINNED_KEY, "")  # every pin removed is a choice too
    assert make_window().ctl.keep.pinned == ()
