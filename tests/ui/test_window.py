"""The main window: launch, stepping with actions and shortcuts, errors, closing, settings."""

import numpy as np
import pytest
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest

from tests.ui.conftest import SRC, TGT, wait_paused
from tfdebug.adapters.reference import ReferenceAdapter
from tfdebug.sessions.session import DebugSession
from tfdebug.core.recorder import Capture
from tfdebug.core.stepper import Stepper
from tfdebug.core.view import RunInputs
from tfdebug.ui.actions import registry as actions


def trigger(window, action_id):
    window.actions_by_id[action_id].trigger()


def test_launch_runs_off_the_ui_thread_and_pauses_at_the_first_stage(make_window, qtbot):
    window = make_window()
    assert not window.actions_by_id["tfdebug.step.next"].isEnabled()
    window.start(RunInputs("random", "cpu", {"src": SRC, "tgt": TGT}))
    wait_paused(qtbot, window, "src.embed")
    assert window.actions_by_id["tfdebug.step.next"].isEnabled()
    assert not window.actions_by_id["tfdebug.step.back"].isEnabled()
    assert "src.embed" in window.shape_panel.plain_text()
    assert window.heatmap_panel.image.image is not None
    assert window.status_stage.text().startswith("Stage 1 of ")
    assert window.ctl.plan and len(window.navigator.items) == len(window.ctl.plan)
    window.ctl.close()


def test_step_moves_the_stage_and_updates_shape_and_heatmap(window, qtbot):
    before = window.heatmap_panel.image.image.copy()
    trigger(window, "tfdebug.step.next")
    wait_paused(qtbot, window, "src.pe")
    assert "src.pe" in window.shape_panel.plain_text()
    assert not np.array_equal(before, window.heatmap_panel.image.image)
    assert window.navigator.current_item() is window.navigator.items["src.pe"]


def _key(window, key, modifier=Qt.NoModifier):
    window.activateWindow()
    QTest.keyClick(window, key, modifier)


def test_each_shortcut(window, qtbot):
    ctl = window.ctl
    _key(window, Qt.Key_F10)
    wait_paused(qtbot, window, "src.pe")
    _key(window, Qt.Key_F10)
    wait_paused(qtbot, window, "src.pos")
    _key(window, Qt.Key_F11)
    wait_paused(qtbot, window, "enc.0.attn.norm")
    _key(window, Qt.Key_F11, Qt.ShiftModifier)  # step out of enc.0.attn
    wait_paused(qtbot, window, "enc.0.ffn.norm")
    _key(window, Qt.Key_F10, Qt.ShiftModifier)  # step back through history
    wait_paused(qtbot, window, "enc.0.attn.resid")
    ctl.breakpoints.toggle_stage("enc.1.attn.probs")
    _key(window, Qt.Key_F5)
    wait_paused(qtbot, window, "enc.1.attn.probs")
    _key(window, Qt.Key_F5, Qt.ControlModifier | Qt.ShiftModifier)  # restart
    wait_paused(qtbot, window, "src.embed")
    assert len(ctl.stepper.history) == 1
    _key(window, Qt.Key_F5, Qt.ShiftModifier)  # stop
    qtbot.waitUntil(lambda: ctl.stepper.state == "stopped")
    assert not window.actions_by_id["tfdebug.step.stop"].isEnabled()


def test_step_back_walks_history_without_running(window, qtbot):
    for name in ("src.pe", "src.pos", "enc.0.attn.norm"):
        trigger(window, "tfdebug.step.next")
        wait_paused(qtbot, window, name)
    captured = len(window.ctl.stepper.history)
    trigger(window, "tfdebug.step.back")
    wait_paused(qtbot, window, "src.pos")
    assert len(window.ctl.stepper.history) == captured
    assert "src.pos" in window.shape_panel.plain_text()


def test_run_to_stage_from_the_navigator_and_the_map(window, qtbot):
    menu = window.navigator.stage_menu("dec.0.cross_attn.probs")
    menu.actions()[0].trigger()
    wait_paused(qtbot, window, "dec.0.cross_attn.probs")
    amap = window.architecture_map
    amap._layout()
    part = amap.part("enc.1.ffn")
    qtbot.mouseClick(amap, Qt.LeftButton, pos=part.rect.center().toPoint())
    wait_paused(qtbot, window, "enc.1.ffn.norm")  # already captured: shown from history
    window.ctl.select_stage("dec.1.ffn.out")
    trigger(window, "tfdebug.step.run_to")
    wait_paused(qtbot, window, "dec.1.ffn.out")


def test_breakpoint_from_the_gutter_stops_continue(window, qtbot):
    tree = window.navigator.tree
    item = window.navigator.items["enc.1.attn.scores"]
    tree.scrollToItem(item)
    gutter = tree.visualRect(tree.indexFromItem(item, 0))
    qtbot.mouseClick(tree.viewport(), Qt.LeftButton, pos=gutter.center())
    assert item.text(0) == "●"
    trigger(window, "tfdebug.step.continue")
    wait_paused(qtbot, window, "enc.1.attn.scores")
    assert window.ctl.stepper.state == "paused"


def test_kind_breakpoint_breaks_on_every_softmax(window, qtbot):
    menu = window.navigator.kind_button.menu()
    next(a for a in menu.actions() if a.text() == "Softmax").setChecked(True)
    for expected in ("enc.0.attn.probs", "enc.1.attn.probs", "dec.0.self_attn.probs"):
        trigger(window, "tfdebug.step.continue")
        wait_paused(qtbot, window, expected)


def test_condition_breakpoint_from_the_dialog(window, qtbot):
    dialog = window.tools.conditions.open()
    dialog.abs_gt.setChecked(True)
    dialog.threshold.setValue(1.5)
    dialog.accept()
    trigger(window, "tfdebug.step.continue")
    wait_paused(qtbot, window)
    assert window.ctl.stepper.state == "paused"
    stats = window.ctl.shown.ensure_stats()
    assert stats.max > 1.5 or -stats.min > 1.5


def test_bad_input_and_a_failing_forward_show_messages_and_the_app_keeps_working(window, qtbot, monkeypatch):
    window.input_bar.set_values("random", "cpu", {"src": "", "tgt": ""})
    trigger(window, "tfdebug.session.run")
    qtbot.waitUntil(lambda: window.last_error is not None and not window.ctl.loader.busy)
    assert "source sentence is empty" in window.message_bar.text()
    assert window.message_bar.current is not None

    def broken(*args, **kwargs):
        raise RuntimeError("boom")
    monkeypatch.setattr(window.ctl.session.adapter.module.transformer.decoder.norm, "forward", broken)
    trigger(window, "tfdebug.step.continue")
    qtbot.waitUntil(lambda: window.ctl.stepper.state == "failed")
    qtbot.waitUntil(lambda: "failed after" in (window.last_error or ""))
    assert "boom" in window.message_bar.text()
    monkeypatch.undo()

    window.input_bar.set_values("random", "cpu", {"src": SRC, "tgt": TGT})
    trigger(window, "tfdebug.session.run")
    wait_paused(qtbot, window, "src.embed")
    trigger(window, "tfdebug.step.next")
    wait_paused(qtbot, window, "src.pe")


def test_unknown_words_are_named(make_window, qtbot):
    window = make_window()
    window.input_bar.set_values("random", "cpu", {"src": "I love zebras", "tgt": TGT})
    trigger(window, "tfdebug.session.run")
    wait_paused(qtbot, window, "src.embed", timeout=30000)
    assert "zebras" in window.message_bar.text()
    window.ctl.close()


def test_an_unknown_word_is_offered_the_closest_word_the_cli_offers(make_window, qtbot):
    from tests.ui.user_actions import type_into
    from tfdebug.models.vocab import unknown_sentences, vocabularies_of

    window = make_window()
    window.input_bar.set_values("demo", "cpu", {"src": SRC, "tgt": TGT})
    before = window.ctl.session
    field = window.input_bar.field("src")
    type_into(qtbot, field, "I love my mum")
    qtbot.keyClick(field, Qt.Key_Return)
    qtbot.waitUntil(lambda: window.ctl.session is not before and "mum" in window.message_bar.text(), timeout=30000)
    cli = unknown_sentences(["mum"], vocabularies_of(window.ctl.adapter.loaded))  # what `tfdebug run` prints
    assert cli == ["mum is not in the vocabulary; did you mean mom?"]
    assert window.message_bar.text() == "Not in the vocabulary (shown as <unk>): mum (did you mean mom?)."
    window.ctl.close()


def test_closing_mid_pass_stops_the_worker(window, qtbot):
    stepper = window.ctl.stepper
    thread = stepper._thread
    assert thread.is_alive()
    window.close()
    assert stepper.state == "stopped"
    assert not thread.is_alive()


def test_settings_round_trip(make_window, settings, qtbot):
    first = make_window(settings)
    first.resize(790, 640)  # the offscreen screen is 800 px wide: stay inside it
    size = (first.size().width(), first.size().height())
    assert size != (1600, 1000)
    first.docks["heads"].hide()
    first.input_bar.set_recent([{"src": "Apple is delicious", "tgt": "苹果 很 好吃"}])
    first.input_bar.set_values("random", "cpu", {"src": "I love you", "tgt": "我"})
    from tests.ui.user_actions import press
    press(first, Qt.Key_Return, Qt.ControlModifier)  # Run: the last session is a pass that started (issue 52)
    wait_paused(qtbot, first, "src.embed")
    first.close()
    second = make_window(settings)
    assert (second.size().width(), second.size().height()) == size
    assert not second.docks["heads"].isVisible()
    assert second.docks["heatmap"].isVisible()
    assert {"src": "Apple is delicious", "tgt": "苹果 很 好吃"} in second.input_bar.recent
    assert second.last_inputs() == RunInputs("random", "cpu", {"src": "I love you", "tgt": "我"})


def test_the_compare_and_overview_docks_keep_their_place(make_window, settings, qtbot):
    """Docks added after the main panels (Overview, Compare) are restored too, shown or hidden."""
    first = make_window(settings)
    assert not first.docks["overview"].isVisible()
    first.docks["overview"].toggleViewAction().trigger()  # View ▸ Overview
    first.docks["heads"].hide()
    first.close()
    second = make_window(settings)
    assert second.docks["overview"].isVisible() and not second.docks["compare"].isVisible()
    assert not second.docks["heads"].isVisible()


def test_replay_shows_every_panel_and_disables_live_actions(make_window, qtbot, loaded):
    session = DebugSession(ReferenceAdapter(loaded), {"src": SRC, "tgt": TGT})
    captures, _ = session.capture_all()
    stored = {c.name: c.tensor for c in captures}
    bare = [Capture(c.info, c.shape, c.dtype, c.device) for c in captures]
    replay = Stepper.replay(bare, load=lambda c: stored[c.name])
    window = make_window()
    window.ctl.load_replay(replay, session.tokens, "recorded pass")
    wait_paused(qtbot, window, "src.embed")
    restart = window.actions_by_id["tfdebug.step.restart"]
    assert not restart.isEnabled() and restart.toolTip() == actions.REPLAY_TIP
    assert not window.actions_by_id["tfdebug.session.run"].isEnabled()
    assert not window.input_bar.field("src").isEnabled()
    trigger(window, "tfdebug.step.next")
    wait_paused(qtbot, window, "src.pe")
    window.ctl.select_stage("dec.0.cross_attn.probs")
    trigger(window, "tfdebug.step.run_to")
    wait_paused(qtbot, window, "dec.0.cross_attn.probs")
    assert window.current_slice() is window.ctl.shown.current_slice is not None


def test_screenshot_mode_saves_the_window_at_a_stage(tmp_path, qapp):
    from tfdebug.ui.app import run_app
    path = tmp_path / "shot.png"
    assert run_app(model="random", goto="dec.0.self_attn.masked", screenshot=str(path)) == 0
    assert path.stat().st_size > 10_000
    assert run_app(model="random", goto="no.such.stage", screenshot=str(tmp_path / "bad.png")) == 2


def test_screenshot_mode_exits_2_at_once_when_the_model_cannot_load(tmp_path, qapp, capsys):
    """A model that fails to load ends screenshot mode with its sentence, not a two-minute wait."""
    from tfdebug.ui.app import run_app
    missing = tmp_path / "no-such-model"
    assert run_app(model=str(missing), screenshot=str(tmp_path / "x.png")) == 2
    assert "Unknown model" in capsys.readouterr().err
    assert not (tmp_path / "x.png").exists()


def test_screenshot_mode_says_at_once_when_a_generation_ends_before_the_stage(tmp_path, qapp, capsys):
    """'I love you' gives 我 爱 你 and <eos> at step 3: step 8 is planned but never runs."""
    from tfdebug.models.sampling import DecodingSettings
    from tfdebug.ui.app import run_app
    assert run_app(model="demo", texts={"src": "I love you"}, generation=DecodingSettings(max_new_tokens=10),
                   goto="gen.8.logits", screenshot=str(tmp_path / "x.png")) == 2
    assert "The pass ended at gen.3.logits before reaching gen.8.logits." in capsys.readouterr().err
    assert not (tmp_path / "x.png").exists()


def test_a_screenshot_leaves_the_event_loop_working(tmp_path, qapp):
    """After a screenshot the window is gone but timers and queued signals still run (later windows need them)."""
    from PySide6.QtCore import QEventLoop, QTimer

    from tfdebug.ui.app import run_app
    assert run_app(model="random", goto="src.pos", screenshot=str(tmp_path / "shot.png")) == 0
    fired = []
    loop = QEventLoop()
    QTimer.singleShot(300, loop.quit)
    QTimer.singleShot(0, lambda: fired.append(1))
    assert loop.exec() == 0 and fired == [1]


def test_registry_ids_are_dotted_and_bound_once(window):
    assert all(i.startswith("tfdebug.") for i in actions.REGISTRY)
    shortcuts = [a.shortcut().toString() for a in window.actions_by_id.values() if not a.shortcut().isEmpty()]
    assert len(shortcuts) == len(set(shortcuts))
    assert window.actions_by_id["tfdebug.step.next"].shortcut().toString() == "F10"


@pytest.mark.parametrize("action_id", ["tfdebug.step.continue", "tfdebug.step.next", "tfdebug.step.out"])
def test_advancing_actions_are_disabled_at_the_end(window, qtbot, action_id):
    trigger(window, "tfdebug.step.continue")
    qtbot.waitUntil(lambda: window.ctl.stepper.state == "finished")
    qtbot.waitUntil(lambda: not window.actions_by_id[action_id].isEnabled())
    # The window learns of the end from the worker's queued event: wait for it, as a user does.
    qtbot.waitUntil(lambda: window.actions_by_id["tfdebug.step.back"].isEnabled())


def test_garbage_is_collected_only_in_the_gui_thread(window):
    """Automatic GC would let worker threads destroy Qt objects (a deadlock seen in CI)."""
    import gc

    assert not gc.isenabled()


def test_run_works_in_a_window_with_nothing_loaded(make_window, qtbot):
    """If the first load fails (or never happened), Run must still be there to try again."""
    window = make_window()
    run = window.actions_by_id["tfdebug.session.run"]
    assert window.ctl.stepper is None and run.isEnabled()
    assert not window.actions_by_id["tfdebug.step.next"].isEnabled()
    window.input_bar.set_values("random", "cpu", {"src": "I love you", "tgt": "我"})
    run.trigger()
    wait_paused(qtbot, window, "src.embed")
    window.ctl.close()


def test_the_adapters_notes_about_the_inputs_reach_the_message_bar(make_window, qtbot):
    """The notes preset says its one sentence pair fills the batch: the window shows it."""
    window = make_window()
    shown = []
    window.ctl.message.connect(shown.append)
    window.start(RunInputs("notes", "cpu", {"src": "I love you", "tgt": "我 爱 你"}))
    wait_paused(qtbot, window, timeout=60000)
    [note] = [m for m in shown if m.topic == "input-notes"]
    assert "fills all 32 rows" in note.text and note.text == " ".join(window.ctl.session.notes)
    window.ctl.close()


def test_no_stale_dock_tab_bar_is_left_on_screen(make_window, qtbot, settings):
    """Qt left a copy of the Heads | Generation tabs across the Heads dock (and, after a restored
    layout, of Stats | Values too): each tabbed group shows one tab bar, at the foot of its docks."""
    from PySide6.QtWidgets import QTabBar

    def shown_groups(window):
        bars = [b for b in window.findChildren(QTabBar) if b.isVisible()]
        return sorted(tuple(b.tabText(i) for i in range(b.count())) for b in bars)

    first = make_window()
    assert shown_groups(first) == [("Heads", "Generation"), ("Stats", "Values", "Capture")]
    first.close()  # saves the layout: the next window restores it
    again = make_window()
    assert shown_groups(again) == [("Heads", "Generation"), ("Stats", "Values", "Capture")]
