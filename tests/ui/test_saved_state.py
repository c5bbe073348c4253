"""Saved state is only what worked (issue 52, items 1, 3 and the log scale's part of 2): a misspelt or failed
model choice never becomes the next launch's start, a launch whose restored model fails opens the demo and
says why, and New Session and `--fresh` start from the defaults whatever the last session carried."""

import json

from PySide6.QtCore import Qt, QTimer
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication

from tests.ui.user_actions import press
from tfdebug.adapters.registry import default_model_name
from tfdebug.core.view import RunInputs

TYPO = "tiny-gtp2"
NO_HUB_MODEL = "hf:nobody-here/no-such-model"
STUCK_MS = 60000  # a launch not idle at a stage by then never gets there


def launch(monkeypatch, settings, act=None, **kwargs) -> dict:
    """`tfdebug` (tfdebug.ui.app.run_app(**kwargs)) with `settings` as the user's: once the window is paused
    at a stage and idle, `act(window)` (when given) does what a person does and returns a predicate of the
    window that says when it is over; then the window is closed as Ctrl+Q closes it (saving its settings).
    Returns what the window showed when it was first idle and when it closed."""
    from tfdebug.ui import app
    from tfdebug.ui.shell import window as window_module

    monkeypatch.setattr(window_module, "default_settings", lambda: settings)
    seen: dict = {}

    def idle(window) -> bool:
        ctl = window.ctl
        return (ctl.current is not None and not ctl.loader.busy and ctl.stepper.state != "running"
                and "loading" not in window.status_state.text())  # the status bar caught up (it is throttled)

    def report(window, when: str) -> None:
        ctl = window.ctl
        seen[when] = dict(model=ctl.model_name, first=ctl.current.name, message=window.message_bar.text(),
                          status=window.status_state.text(), stage=window.status_stage.text(),
                          texts=dict(ctl.inputs.texts), error=window.last_error,
                          log=window.heatmap_panel.log_action.isChecked(), caption=window.heatmap_panel.caption.text(),
                          frame=window.frameGeometry(), area=window.screen().availableGeometry())

    def look(state={"done": None}):
        shown = [w for w in QApplication.topLevelWidgets()
                 if isinstance(w, window_module.MainWindow) and w.isVisible() and w.settings is settings]
        window = shown[0] if shown else None
        if window is None or not idle(window):
            QTimer.singleShot(50, look)
            return
        if "opened" not in seen:
            report(window, "opened")
            state["done"] = act(window) if act is not None else (lambda w: True)
            QTimer.singleShot(50, look)
            return
        if not state["done"](window):
            QTimer.singleShot(50, look)
            return
        report(window, "closed")
        press(window, Qt.Key_Q, Qt.ControlModifier)  # File ▸ Quit

    def give_up():  # a window that never gets there (stuck "loading the model…"): closed, and said below
        for window in [w for w in QApplication.topLevelWidgets() if isinstance(w, window_module.MainWindow)]:
            seen.setdefault("stuck", dict(status=window.status_state.text(), stage=window.status_stage.text(),
                                          error=window.last_error))
            window.close()
        QApplication.instance().exit(0)

    QTimer.singleShot(50, look)
    stuck = QTimer()  # stopped once this launch is over: it must not close a later test's window
    stuck.setSingleShot(True)
    stuck.timeout.connect(give_up)
    stuck.start(STUCK_MS)
    try:
        assert app.run_app(**kwargs) == 0
    finally:
        stuck.stop()
    assert "stuck" not in seen, seen
    return seen


def type_model(name: str):
    """Type `name` into the Model box and press Return; over when the window has said why it failed."""
    def act(window):
        window.last_error = None
        edit = window.input_bar.model.lineEdit()
        edit.setFocus()
        edit.selectAll()
        QTest.keyClicks(edit, name)
        QTest.keyClick(edit, Qt.Key_Return)
        return lambda w: w.last_error is not None and not w.ctl.loader.busy
    return act


def opens_the_demo(opened: dict) -> None:
    assert opened["model"] == default_model_name() and opened["first"] == "src.embed"
    assert "loading" not in opened["status"] and "No pass loaded" not in opened["stage"]


def test_a_misspelt_model_is_not_the_next_launchs_start(monkeypatch, settings, qapp):
    first = launch(monkeypatch, settings, type_model(TYPO))
    assert "Unknown model 'tiny-gtp2'" in first["closed"]["error"]
    assert first["closed"]["model"] == default_model_name()  # the demo stayed on screen
    assert TYPO not in settings.value("input/last")  # the failed choice was not saved
    again = launch(monkeypatch, settings)
    opens_the_demo(again["opened"])
    assert again["opened"]["error"] is None and TYPO not in again["opened"]["message"]


def test_a_failed_hub_id_is_not_the_next_launchs_start(monkeypatch, settings, qapp):
    first = launch(monkeypatch, settings, type_model(NO_HUB_MODEL))
    assert first["closed"]["error"] and first["closed"]["model"] == default_model_name()
    again = launch(monkeypatch, settings)
    opens_the_demo(again["opened"])
    assert again["opened"]["error"] is None


def test_a_restored_model_that_fails_falls_back_to_the_demo_and_says_why(monkeypatch, settings, qapp):
    """A last session saved by an earlier version (or a model since deleted) that no longer loads."""
    settings.setValue("input/last", json.dumps(RunInputs(TYPO, "cpu", {"prompt": "hello"}).to_list()))

    def new_session(window):
        press(window, Qt.Key_N, Qt.ControlModifier | Qt.ShiftModifier)  # File ▸ New Session
        return lambda w: w.ctl.session is not None and w.ctl.current is not None and w.ctl.current.name == "src.embed"

    seen = launch(monkeypatch, settings, new_session)
    opens_the_demo(seen["opened"])
    said = seen["opened"]["message"]
    assert TYPO in said and "demo" in said and "Restored your last session" not in said
    assert "Restored" not in seen["closed"]["message"]  # New Session: nothing about the restored session
    opens_the_demo(seen["closed"])


def test_fresh_after_a_failed_last_session_opens_the_demo_on_a_linear_scale(monkeypatch, settings, qapp):
    settings.setValue("input/last", json.dumps(RunInputs(TYPO, "cpu", {"prompt": "hello"}).to_list()))
    settings.setValue("heatmap/log_scale", True)  # chosen last time: not carried onto a fresh start
    seen = launch(monkeypatch, settings, fresh=True)
    opens_the_demo(seen["opened"])
    assert seen["opened"]["error"] is None and "Restored" not in seen["opened"]["message"]
    assert not seen["opened"]["log"] and "log scale" not in seen["opened"]["caption"]


def test_new_session_forgets_the_log_scale(monkeypatch, settings, qapp):
    def log_then_new_session(window, state={}):
        window.heatmap_panel.log_action.trigger()  # Scale ▸ Log scale
        assert window.heatmap_panel.log_action.isChecked()
        press(window, Qt.Key_N, Qt.ControlModifier | Qt.ShiftModifier)  # File ▸ New Session
        return lambda w: w.ctl.current is not None and not w.ctl.loader.busy
    seen = launch(monkeypatch, settings, log_then_new_session)
    assert not seen["closed"]["log"] and "log scale" not in seen["closed"]["caption"]


def test_new_session_after_generate_opens_the_demo_not_the_generation(monkeypatch, settings, qapp):
    def generate_then_new_session(window, state={}):
        press(window, Qt.Key_G, Qt.ControlModifier)  # Generate

        def over(w) -> bool:
            if "generated" not in state:
                if w.ctl.is_generating() and w.ctl.current is not None:
                    state["generated"] = True
                    press(w, Qt.Key_N, Qt.ControlModifier | Qt.ShiftModifier)  # File ▸ New Session
                return False
            return not w.ctl.is_generating() and w.ctl.current is not None and w.ctl.current.name == "src.embed"
        return over

    seen = launch(monkeypatch, settings, generate_then_new_session)
    closed = seen["closed"]
    assert closed["first"] == "src.embed" and not closed["first"].startswith("gen.")
    assert closed["model"] == default_model_name() and "gen." not in closed["stage"]
    assert closed["texts"].get("tgt"), "the demo's first example has its target"


def test_the_first_window_fits_the_screens_available_height(monkeypatch, settings, qapp):
    """The first launch asks for no more than the screen has (the offscreen screen is 800 × 800): a window manager's
    title bar does not push the status bar off the screen."""
    opened = launch(monkeypatch, settings)["opened"]
    frame, area = opened["frame"], opened["area"]
    assert area.contains(frame.topLeft()) and frame.bottom() <= area.bottom()  # on the screen, status bar and all
    assert frame.height() < 1000  # (the width cannot go below the docks' minimum, 1,100 px wide on this screen)
    again = launch(monkeypatch, settings)["opened"]  # a remembered geometry is the user's: restored as it was
    assert again["frame"].size() == frame.size()


def test_a_remembered_layout_gives_the_plane_its_room(monkeypatch, settings, qapp):
    """Issue 52: a layout saved with the heatmap squeezed (the separator dragged, or Heads grown at a stage with
    none) opened the next launch's plane as a ~110 px strip. A restored layout gives the heatmap at least half
    of the height it shares with the docks under it."""
    from tfdebug.ui.shell.window_layout import MIN_PLANE_SHARE

    def squeeze(window):  # at a stage with heads (at one without, the Heads dock shrinks to its note)
        heat, heads = window.docks["heatmap"], window.docks["heads"]
        window.ctl.steps.run_to("enc.0.attn.probs")
        squeezed = []

        def done(w) -> bool:
            if w.ctl.current.name != "enc.0.attn.probs" or w.ctl.stepper.state == "running":
                return False
            if not squeezed:
                total = heat.height() + heads.height()
                w.resizeDocks([heat, heads], [1, total - 1], Qt.Vertical)  # down to the heatmap's minimum
                squeezed.append(True)
            return heat.height() <= heat.minimumSizeHint().height() + 10
        return done
    launch(monkeypatch, settings, squeeze)
    seen = {}

    def measure(window):
        heat, heads = window.docks["heatmap"], window.docks["heads"]
        seen.update(heat=heat.height(), share=heat.height() / (heat.height() + heads.height()),
                    plane=window.heatmap_panel.graphics.height())
        return lambda w: True
    launch(monkeypatch, settings, measure)
    assert seen["share"] >= MIN_PLANE_SHARE - 0.02, seen
    assert seen["plane"] >= 150, seen


def test_a_log_scale_saved_before_it_was_per_kind_means_the_probabilities(settings):
    """A setting written by an earlier tfdebug (a bool) reads as the probabilities' kind; a damaged one as none."""
    from tfdebug.ui.actions.heatmap import saved_log_kinds

    for stored, kinds in ((True, {"softmax"}), ("true", {"softmax"}), (False, set()), ('["softmax", "scores"]',
                          {"softmax", "scores"}), ("[1, ", set()), ('{"a": 1}', set()), ('["x", 2]', {"x"})):
        settings.setValue("heatmap/log_scale", stored)
        assert saved_log_kinds(settings) == kinds, stored
