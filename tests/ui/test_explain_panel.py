"""The Explain dock: texts per stage kind in the window's language, this pass's shapes, live checks, PE curves."""

import numpy as np
from PySide6.QtCore import Qt

from tests.ui.conftest import wait_paused
from tests.ui.user_actions import press, run_to_stage
from tfdebug.core.explain import EXPLANATIONS
from tfdebug.core.view import RunInputs
from tfdebug.ui.i18n import language as i18n
from tfdebug.ui.panels.explain import CROSS


def checks_shown(window, qtbot):
    panel = window.explain_panel
    qtbot.waitUntil(lambda: panel.checks is not None and "computing…" not in panel.plain_text())
    return panel


def test_ticks_at_masked_and_probs_of_the_decoder(window, qtbot):
    run_to_stage(window, qtbot, "dec.0.self_attn.masked")
    panel = checks_shown(window, qtbot)
    text = panel.plain_text()
    assert "✓ −∞ everywhere strictly above the diagonal" in text
    assert "✓ Nothing on or below the diagonal is masked" in text and CROSS not in text
    assert "This pass masks: causal: the future is hidden" in text
    assert "M (1,1,4,4) broadcast over (1,4,4,4)" in text  # random model: 4 heads; <bos> 我 爱 你
    assert EXPLANATIONS["mask"].what in text
    press(window, Qt.Key_F10)  # Step: the softmax
    wait_paused(qtbot, window, "dec.0.self_attn.probs")
    qtbot.waitUntil(lambda: "✓ Every row sums to 1" in panel.plain_text())
    text = panel.plain_text()
    assert "✓ 0 wherever the mask is −∞ (strictly above the diagonal)" in text and CROSS not in text


def test_the_panel_follows_the_window_language(window, qtbot):
    run_to_stage(window, qtbot, "dec.0.self_attn.probs")
    panel = checks_shown(window, qtbot)
    assert i18n.set_language("zh")
    qtbot.waitUntil(lambda: i18n.phrase_text(EXPLANATIONS["softmax"].what) in panel.plain_text())
    text = panel.plain_text()
    assert "✓ 每一行的和都是 1" in text and "对本张量的检查" in text
    assert window.docks["explain"].windowTitle() == "讲解"
    assert window.learn_menu.title() == "学习(&L)"
    i18n.set_language("en")
    qtbot.waitUntil(lambda: EXPLANATIONS["softmax"].what in panel.plain_text())


def test_a_cross_when_an_edit_breaks_the_promise(window, qtbot):
    run_to_stage(window, qtbot, "enc.0.attn.probs")
    panel = checks_shown(window, qtbot)
    assert "✓ Every row sums to 1" in panel.plain_text()
    stepper = window.ctl.stepper
    probs = stepper.current.tensor
    window.ctl.steps.command(stepper.replace, probs * 2)  # rows now sum to 2
    qtbot.waitUntil(lambda: "✗ Every row sums to 1" in panel.plain_text())


def test_pe_curves_from_the_explain_panel_of_a_pos_stage(window, qtbot):
    press(window, Qt.Key_F10)
    wait_paused(qtbot, window, "src.pe")
    panel = checks_shown(window, qtbot)
    assert "✓ Row 0 is exactly [0, 1, 0, 1, …]" in panel.plain_text()
    press(window, Qt.Key_F10)
    wait_paused(qtbot, window, "src.pos")
    assert panel.pe_button.isVisible()
    qtbot.mouseClick(panel.pe_button, Qt.LeftButton)
    qtbot.waitUntil(lambda: window.tools.learn.pe_view is not None)  # the table is read on the display worker
    view = window.tools.learn.pe_view
    qtbot.waitExposed(view)
    assert view.dimensions() == [0, 1, 2, 3]
    dots = [item for item in view.plot.listDataItems() if item.opts["symbol"] == "o"]
    assert len(dots) == 4
    x, y = dots[1].getData()  # dimension 1: cos, 1 at position 0
    table = window.ctl.stepper.history[window.ctl.stepper.position_of("src.pe")].tensor.numpy()
    assert list(x) == [0, 1, 2] and np.allclose(y, table[:, 1]) and y[0] == 1.0
    view.first.setValue(62)  # the last four dimensions at most: the slow ones
    assert view.dimensions() == [60, 61, 62, 63]
    dots = [item for item in view.plot.listDataItems() if item.opts["symbol"] == "o"]
    assert np.ptp(dots[-1].getData()[1]) < 1e-3  # dim 63 hardly moves over three positions
    press(window, Qt.Key_F10)
    wait_paused(qtbot, window, "enc.0.attn.norm")
    assert not panel.pe_button.isVisible()


def test_notes_preset_in_the_window_shows_the_notes_shapes(make_window, qtbot):
    window = make_window()
    window.start(RunInputs("notes", "cpu", {}))
    wait_paused(qtbot, window, "src.embed", timeout=30000)
    run_to_stage(window, qtbot, "dec.0.self_attn.q_split")
    assert "(32,10,512) —view→ (32,10,8,64) —transpose→ (32,8,10,64)" in window.explain_panel.plain_text()
    assert "(32,10,512) —view→ (32,10,8,64) —transpose→ (32,8,10,64)" in window.shape_panel.plain_text()
    run_to_stage(window, qtbot, "dec.0.self_attn.masked")
    panel = checks_shown(window, qtbot)
    assert "M (1,1,10,10) broadcast over (32,8,10,10)" in panel.plain_text()
    window.ctl.close()


def test_a_typed_special_token_is_named_like_an_unknown_word(make_window, qtbot):
    window = make_window()
    window.start(RunInputs("notes", "cpu", {}))
    wait_paused(qtbot, window, "src.embed", timeout=30000)
    field = window.input_bar.field("src")
    field.selectAll()
    qtbot.keyClick(field, Qt.Key_Backspace)
    qtbot.keyClicks(field, "I love <eos> you")
    qtbot.keyClick(field, Qt.Key_Return, Qt.ControlModifier)  # Run
    qtbot.waitUntil(lambda: window.ctl.tokens.get("src", [])[:4] == ["i", "love", "<eos>", "you"], timeout=30000)
    wait_paused(qtbot, window, "src.embed", timeout=30000)
    assert "<eos>" in window.message_bar.text() and "<unk>" in window.message_bar.text()
    src, _ = window.ctl.session.prepared.args
    assert src[0, 2].item() == 3  # read as <unk>, not as the id of <eos> (2)
    window.ctl.close()


def test_a_reopened_snapshot_keeps_the_checks_that_read_other_stages(make_window, loaded, qtbot, tmp_path,
                                                                      monkeypatch):
    # A snapshot's stages are read when shown: the checks of scores (Q, K) and of src.pos (embedding + PE)
    # said "enc.0.attn.q_split is not in this pass's history" or nothing at all.
    from PySide6.QtWidgets import QFileDialog

    from tests.ui.conftest import SRC, TGT
    from tfdebug.adapters.reference import ReferenceAdapter
    from tfdebug.sessions.session import DebugSession
    from tfdebug.io.recording import Recording
    from tfdebug.io.snapshot import save_snapshot

    path = tmp_path / "pass.safetensors"
    save_snapshot(Recording.from_session(DebugSession(ReferenceAdapter(loaded), {"src": SRC, "tgt": TGT})), path)
    window = make_window()
    monkeypatch.setattr(QFileDialog, "getOpenFileName", staticmethod(lambda *a, **k: (str(path), "")))
    window.actions_by_id["tfdebug.file.open"].trigger()  # File ▸ Open Snapshot…
    wait_paused(qtbot, window, "src.embed")
    for stage, tick in (("src.pos", "✓ Exactly the embedding + the PE table"),
                        ("enc.0.attn.scores", "✓ Equal to Q·Kᵀ recomputed")):
        run_to_stage(window, qtbot, stage)
        panel = checks_shown(window, qtbot)
        assert tick in panel.plain_text() and "not in this pass" not in panel.plain_text()
