"""The Shape panel says what the check against the unmodified model found for the stage shown, once
the background check of a finished pass arrives."""

from __future__ import annotations

from PySide6.QtCore import Qt

from tests.adapters import hf_tiny
from tests.ui.conftest import wait_paused
from tests.ui.user_actions import click_stage, press, run_to_stage


def test_checked_stages_are_verified_with_their_delta_and_the_rest_unchecked(make_window, qtbot, tmp_path):
    folder = hf_tiny.save_folder(hf_tiny.llama(), tmp_path / "llama")
    window = make_window()
    window.input_bar.set_values(f"hf:{folder}", "cpu", {"prompt": "I love you"})
    press(window, Qt.Key_Return, Qt.ControlModifier)
    wait_paused(qtbot, window, timeout=60000)
    run_to_stage(window, qtbot, "dec.0.self_attn.probs")
    assert "verified against" not in window.shape_panel.plain_text()  # the pass has not finished: no check yet
    press(window, Qt.Key_F5)
    qtbot.waitUntil(lambda: window.ctl.loader.verification is not None, timeout=60000)
    verification = window.ctl.loader.verification
    assert verification.ok and "dec.0.self_attn.probs" in verification.checked
    # The stage the finished pass rests on (logits, checked) is told as soon as the check arrives.
    assert window.ctl.current.name == "logits"
    qtbot.waitUntil(lambda: "verified against the unmodified model" in window.shape_panel.plain_text())
    click_stage(window, qtbot, "dec.0.self_attn.probs")
    press(window, Qt.Key_F10, Qt.ControlModifier)
    wait_paused(qtbot, window, "dec.0.self_attn.probs")
    check = verification.stage_check("dec.0.self_attn.probs")
    assert check.diff == 0.0 and check.tolerance == 0.0  # the same model's eager pass: exact
    qtbot.waitUntil(lambda: "verified against the unmodified model: exactly equal" in window.shape_panel.plain_text())
    run_to_stage(window, qtbot, "dec.0.self_attn.q")
    qtbot.waitUntil(lambda: "unchecked: the unmodified model returns nothing to compare this stage with"
                    in window.shape_panel.plain_text())
    assert "the first stage that differs" not in window.shape_panel.plain_text()
