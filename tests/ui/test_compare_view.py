"""Compare With… in the window: an edited pass against the unedited one, a file, and what cannot be compared."""

from dataclasses import replace

import torch
from PySide6.QtCore import Qt
from PySide6.QtGui import QImage, QPainter

from tests.ui.conftest import wait_paused
from tests.ui.test_edit_tensor import STAGE, open_dialog
from tests.ui.user_actions import open_snapshot, pick, press, run_to_stage, type_into
from tfdebug.core.compare import pass_entries
from tfdebug.io.recording import Recording
from tfdebug.io.snapshot import save_snapshot
from tfdebug.ui.i18n import language as i18n
from tfdebug.ui.features.compare.view import FIRST_BG


def compare_dialog(window, qtbot):
    window.activateWindow()  # a dialog closed just before may still be the active window
    qtbot.waitUntil(window.isActiveWindow)
    press(window, Qt.Key_D, Qt.ControlModifier | Qt.ShiftModifier)
    qtbot.waitUntil(lambda: window.compare_tools.dialog is not None and window.compare_tools.dialog.isVisible())
    return window.compare_tools.dialog


def compared_tensors(tools, name: str):
    """The whole tensors of stage `name` in the two passes the Compare tool compared here (A, B)."""
    (captures_a, get_a), (captures_b, get_b) = (pass_entries(p) for p in tools.passes)
    return (get_a(next(c for c in captures_a if c.name == name)),
            get_b(next(c for c in captures_b if c.name == name)))


def run_comparison(window, qtbot, dialog):
    before = window.compare_tools.result
    qtbot.mouseClick(dialog.compare_button, Qt.LeftButton)
    qtbot.waitUntil(lambda: window.compare_tools.result is not before, timeout=30000)
    return window.compare_tools.result


def test_zeroing_a_head_diverges_first_at_that_stage(window, qtbot):
    run_to_stage(window, qtbot, STAGE)
    dialog = open_dialog(window, qtbot)
    pick(qtbot, dialog.operation, "Zero a head")
    qtbot.mouseClick(dialog.apply_button, Qt.LeftButton)
    dialog.close()
    press(window, Qt.Key_F5)
    qtbot.waitUntil(lambda: window.ctl.stepper.state == "finished")
    wait_paused(qtbot, window, "logits")

    chooser = compare_dialog(window, qtbot)
    assert chooser.a.kind.currentText() == "The pass on screen"
    assert chooser.b.kind.currentText() == "The pass before the last edit"
    result = run_comparison(window, qtbot, chooser)
    assert result.first_divergent.name == STAGE
    assert result["logits"].diverges and result["logits"].max_abs > 1e-3  # the logits differ from the unedited pass
    names = [r.name for r in result.stages]
    assert not any(r.diverges for r in result.stages[:names.index(STAGE)])

    view = window.compare_tools.view
    assert window.compare_tools.dock.isVisible()
    assert view.selected_stage() == STAGE
    row = view.rows[STAGE]
    assert view.table.item(row, 1).text() == "DIVERGES"
    assert view.table.item(row, 0).background().color() == FIRST_BG
    assert "First divergent stage: dec.1.cross_attn.probs." in view.summary.text()
    # A − B of head 0 is −(the unedited probabilities): every cell negative, each row summing to −1
    a, b = compared_tensors(window.compare_tools, STAGE)
    assert (a[0, 0] == 0).all() and torch.allclose((a - b)[0, 0].sum(-1), -torch.ones(4))
    assert view.caption.text().startswith(f"{STAGE}: query × key at batch 0, head 0")
    assert view.images[2].image is not None and view.images[2].image.shape == (4, 3, 4)

    i18n.set_language("zh")  # View ▸ Language: the table, summary and caption are said again in Chinese
    try:
        qtbot.waitUntil(lambda: view.table.item(row, 1).text() == "有分歧")
        summary = view.summary.text()
        assert "B：上一次编辑之前的前向过程（dec.1.cross_attn.probs：头 0 置零）　绝对容差 1e-05" in summary
        assert summary.endswith("第一个分歧阶段：dec.1.cross_attn.probs。")
        assert view.caption.text().startswith(f"{STAGE}：查询 × 键，位于 批次 0, 头 0 · A − B 从 ")
    finally:
        i18n.set_language("en")
    qtbot.waitUntil(lambda: view.table.item(row, 1).text() == "DIVERGES")
    assert "First divergent stage: dec.1.cross_attn.probs." in view.summary.text()

    qtbot.mouseClick(view.go_button, Qt.LeftButton)  # Go: the window shows the stage
    wait_paused(qtbot, window, STAGE)


def test_compare_with_a_file_and_with_another_input(window, qtbot, tmp_path):
    press(window, Qt.Key_F5)
    qtbot.waitUntil(lambda: window.ctl.stepper.state == "finished")
    path = tmp_path / "same.safetensors"
    save_snapshot(Recording.from_session(window.ctl.session, window.ctl.stepper.history), path)

    chooser = compare_dialog(window, qtbot)
    pick(qtbot, chooser.b.kind, "A snapshot or export file")
    type_into(qtbot, chooser.b.path, str(path))
    result = run_comparison(window, qtbot, chooser)
    assert result.first_divergent is None and len(result.stages) == len(window.ctl.stepper.history)
    assert "No stage diverges." in window.compare_tools.view.summary.text()

    chooser = compare_dialog(window, qtbot)
    pick(qtbot, chooser.b.kind, "Another input on the same model")
    type_into(qtbot, chooser.b.fields["src"], "I love apples")
    result = run_comparison(window, qtbot, chooser)
    assert result.first_divergent.name == "src.embed"
    assert window.compare_tools.view.table.item(0, 1).text() == "DIVERGES"


def test_what_cannot_be_compared_is_one_sentence(window, qtbot):
    chooser = compare_dialog(window, qtbot)  # paused at the first stage
    assert chooser.b.kind.currentText() == "A snapshot or export file"  # no edit yet
    # a pass here reads a snapshot on this machine and places its reference on any device (the capabilities say so)
    assert not window.ctl.capabilities.snapshots_there and not chooser.b.browse.isHidden()
    assert not window.ctl.capabilities.reference_device_fixed and not chooser.b.placement.device.isHidden()
    qtbot.mouseClick(chooser.compare_button, Qt.LeftButton)
    assert chooser.error_label.text() == "Choose the snapshot or export file to compare."
    pick(qtbot, chooser.b.kind, "The pass before the last edit")
    qtbot.mouseClick(chooser.compare_button, Qt.LeftButton)
    assert chooser.error_label.text().startswith("The pass on screen is paused mid-forward and holds the model")
    pick(qtbot, chooser.b.kind, "A snapshot or export file")
    type_into(qtbot, chooser.b.path, "/nonexistent/pass.safetensors")
    type_into(qtbot, chooser.atol, "abc")
    qtbot.mouseClick(chooser.compare_button, Qt.LeftButton)
    assert chooser.error_label.text() == "The atol value 'abc' is not a number." and chooser.isVisible()
    type_into(qtbot, chooser.atol, "1e-5")
    qtbot.mouseClick(chooser.compare_button, Qt.LeftButton)  # the file is read off the UI thread
    qtbot.waitUntil(lambda: window.last_error == "The file /nonexistent/pass.safetensors does not exist.")
    assert window.compare_tools.result is None


def test_a_replayed_snapshot_compares_but_cannot_be_edited(window, qtbot, tmp_path):
    press(window, Qt.Key_F5)
    qtbot.waitUntil(lambda: window.ctl.stepper.state == "finished")
    session, history = window.ctl.session, window.ctl.stepper.history
    save_snapshot(Recording.from_session(session, history), tmp_path / "a.safetensors")
    changed = Recording.from_session(session, [replace(c, tensor=c.tensor.clone()) for c in history])
    changed["enc.1.ffn.hidden"].tensor.view(-1)[3] += 1e-3
    save_snapshot(changed, tmp_path / "b.safetensors")

    assert open_snapshot(qtbot, window, tmp_path / "a.safetensors")
    qtbot.waitUntil(lambda: not window.ctl.is_live and window.ctl.current is not None)
    assert not window.actions_by_id["tfdebug.edit.tensor"].isEnabled()
    chooser = compare_dialog(window, qtbot)
    type_into(qtbot, chooser.b.path, str(tmp_path / "b.safetensors"))
    result = run_comparison(window, qtbot, chooser)
    assert result.first_divergent.name == "enc.1.ffn.hidden"
    assert [r.name for r in result.stages if r.diverges] == ["enc.1.ffn.hidden"]
    qtbot.mouseClick(window.compare_tools.view.go_button, Qt.LeftButton)
    wait_paused(qtbot, window, "enc.1.ffn.hidden")


def test_inputs_of_another_length_say_which_stages_differ_in_shape(window, qtbot):
    press(window, Qt.Key_F5)
    qtbot.waitUntil(lambda: window.ctl.stepper.state == "finished")
    chooser = compare_dialog(window, qtbot)
    pick(qtbot, chooser.b.kind, "Another input on the same model")
    type_into(qtbot, chooser.b.fields["src"], "I love my mother")  # 4 source words against 3
    result = run_comparison(window, qtbot, chooser)
    # Every source-side stage differs in shape and cannot be compared cell by cell: the summary says so
    # before naming the first stage of the same shape that diverges (the target side comes later).
    summary = window.compare_tools.view.summary.text()
    assert result.first_divergent.name != "src.embed"
    assert "stages differ in shape and are not compared cell by cell; the first is src.embed." in summary


def _drawn_labels(axis):
    """The tick labels an axis draws, as (rect, text), laid out the way its paint does."""
    image = QImage(int(axis.width()) + 1, int(axis.height()) + 1, QImage.Format_ARGB32)
    painter = QPainter(image)
    try:
        specs = axis.generateDrawSpecs(painter)
    finally:
        painter.end()
    return [(rect, text) for rect, _flags, text in specs[2]] if specs else []


def test_the_three_small_plots_draw_tick_labels_that_do_not_overlap(window, qtbot):
    press(window, Qt.Key_F5)
    qtbot.waitUntil(lambda: window.ctl.stepper.state == "finished")
    chooser = compare_dialog(window, qtbot)
    pick(qtbot, chooser.b.kind, "Another input on the same model")
    type_into(qtbot, chooser.b.fields["src"], "I love apples")
    run_comparison(window, qtbot, chooser)
    view = window.compare_tools.view
    view.show_stage("enc.0.attn.context")  # query × head_dim: 32 columns in a plot a third of the dock wide
    qtbot.waitUntil(lambda: all(len(_drawn_labels(plot.getAxis("bottom"))) >= 3 for plot in view.plots))  # laid out
    for plot in view.plots:
        labels = _drawn_labels(plot.getAxis("bottom"))
        assert len(labels) >= 3
        rects = sorted((r for r, _ in labels), key=lambda r: r.left())
        assert all(a.right() <= b.left() for a, b in zip(rects, rects[1:])), [t for _, t in labels]
