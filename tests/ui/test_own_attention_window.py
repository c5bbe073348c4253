"""A model that computes attention in its own code (BLOOM's ALiBi), opened in the window from its folder and
stepped with keys: its ALiBi stage is there with its formula, and its probabilities are verified."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt

from tests.ui.conftest import wait_paused
from tests.ui.user_actions import click_stage, press, run_model, run_to_stage

pytest.importorskip("transformers")


def test_bloom_steps_to_its_alibi_stage_and_its_probabilities_are_verified(make_window, qtbot, tmp_path):
    from tests.adapters import hf_archs, hf_tiny

    folder = hf_tiny.save_folder(hf_archs.build(hf_archs.BY_TYPE["bloom"]), tmp_path / "bloom")
    window = make_window()
    run_model(qtbot, window, f"hf:{folder}", {"prompt": "the cat sat on the mat"}, "tok.embed")
    run_to_stage(window, qtbot, "dec.0.self_attn.alibi")
    assert window.ctl.current.info.kind == "position_bias"
    assert "ALiBi" in window.ctl.current.info.formula
    press(window, Qt.Key_F10)  # one step on: the mask, then the softmax
    wait_paused(qtbot, window, "dec.0.self_attn.masked")
    press(window, Qt.Key_F5)
    qtbot.waitUntil(lambda: window.ctl.loader.verification is not None, timeout=60000)
    assert window.ctl.loader.verification.ok
    click_stage(window, qtbot, "dec.1.self_attn.probs")
    press(window, Qt.Key_F10, Qt.ControlModifier)
    wait_paused(qtbot, window, "dec.1.self_attn.probs")
    qtbot.waitUntil(lambda: "verified against the unmodified model: exactly equal" in window.shape_panel.plain_text())
    window.ctl.close()
