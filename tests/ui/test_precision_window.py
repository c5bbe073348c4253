"""Precision in the window (issue 26): the Stats panel shows the stage dtype's range and flags values near
float16's overflow; the Stages tree says which stages the capture budget did not keep and why, and a
stage it drops is still shown while the pass is paused at it."""

from __future__ import annotations

import pytest
import torch
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication

from tests.ui.conftest import SRC, TGT, wait_paused
from tests.ui.user_actions import click_stage, press

HALF_MAX = 65504.0


def _plain(tooltip: str) -> str:
    """A tooltip as a person reads it (the tree's tooltips are escaped rich text, to wrap)."""
    from PySide6.QtGui import QTextDocument

    document = QTextDocument()
    document.setHtml(tooltip)
    return document.toPlainText().replace("\xa0", " ")


@pytest.fixture(scope="module")
def loud_gpt2(tmp_path_factory):
    """A tiny GPT-2 folder whose token embedding is scaled up on purpose: every entry 40,000 (over half of
    float16's 65,504, still finite), so its first stage is near float16's overflow."""
    pytest.importorskip("transformers")
    from tests.adapters.hf_tiny import gpt2, save_folder

    model = gpt2()
    with torch.no_grad():
        model.transformer.wte.weight.fill_(40_000.0)
    return save_folder(model, tmp_path_factory.mktemp("loud") / "gpt2")


def _run(window, qtbot, spec, dtype):
    bar = window.input_bar
    bar.set_values(spec, "cpu", {"prompt": "I love you"})
    bar.dtype.setCurrentIndex(bar.dtype.findText(dtype))
    window.activateWindow()
    qtbot.waitUntil(lambda: QApplication.activeWindow() is window)
    press(window, Qt.Key_Return, Qt.ControlModifier)
    wait_paused(qtbot, window, "tok.embed", timeout=60000)
    stats = window.stats_panel
    qtbot.waitUntil(lambda: window.ctl.shown.current_stats is not None and stats.precision.text() != "")
    return stats


def test_the_stats_panel_shows_the_float16_range_and_flags_values_near_its_overflow(make_window, qtbot, loud_gpt2):
    window = make_window()
    stats = _run(window, qtbot, f"hf:{loud_gpt2}", "float16")
    current = window.ctl.current
    assert current.dtype == torch.float16 and current.tensor.dtype == torch.float16  # kept as computed
    info = torch.finfo(torch.float16)
    assert stats.precision.text() == (f"float16: largest {info.max:.5g}, smallest normal {info.tiny:.2g}, "
                                      f"eps {info.eps:.2g}")
    assert stats.precision.text() == "float16: largest 65504, smallest normal 6.1e-05, eps 0.00098"
    qtbot.waitUntil(stats.overflow.isVisible)
    assert stats.overflow.text() == ("|x| reaches 4e+04, over half of float16's largest value 65504: one doubling "
                                     "more and it becomes ±Inf.")
    assert float(current.tensor.abs().max()) > 0.5 * HALF_MAX  # what the panel read, from torch
    window.ctl.close()


def test_a_float32_pass_is_flagged_where_float16_would_overflow(make_window, qtbot, tmp_path):
    pytest.importorskip("transformers")
    from tests.adapters.hf_tiny import gpt2, save_folder

    model = gpt2()
    with torch.no_grad():
        model.transformer.wte.weight.fill_(100_000.0)  # fine in float32, ±Inf in float16
    window = make_window()
    stats = _run(window, qtbot, f"hf:{save_folder(model, tmp_path / 'gpt2')}", "float32")
    assert window.ctl.current.dtype == torch.float32
    assert stats.precision.text().startswith("float32: largest 3.4028e+38, smallest normal 1.2e-38")
    qtbot.waitUntil(stats.overflow.isVisible)
    assert stats.overflow.text() == ("|x| reaches 1e+05, beyond float16's largest value 65504: this stage would "
                                     "hold ±Inf if the pass ran in float16.")
    assert torch.isinf(window.ctl.current.tensor.half()).any()  # so it would, says torch
    window.ctl.close()


def test_the_stages_tree_says_what_the_budget_did_not_keep_and_a_dropped_stage_shows_while_paused(
        make_window, qtbot, settings):
    from tfdebug.ui.state.capture_budget import SETTING_KEY

    settings.setValue(SETTING_KEY, "0.03")  # 30 kB of a ~96 kB pass …
    settings.setValue("capture/keep", "first")  # … kept in forward order
    window = make_window()
    window.input_bar.set_values("random", "cpu", {"src": SRC, "tgt": TGT})
    press(window, Qt.Key_Return, Qt.ControlModifier)
    wait_paused(qtbot, window, "src.embed", timeout=30000)
    estimate = window.ctl.session.capture_estimate()
    late = estimate.dropped[len(estimate.dropped) // 2]  # a stage the budget will not keep
    click_stage(window, qtbot, late, column=0)  # a breakpoint in its gutter
    press(window, Qt.Key_F5)
    wait_paused(qtbot, window, late, timeout=20000)
    # Paused at it, it is shown live: its tensor is on the device and the heatmap draws it.
    assert window.ctl.current.tensor is not None and window.heatmap_panel.slice is not None
    qtbot.waitUntil(lambda: window.ctl.shown.current_stats is not None)  # whole-tensor stats, from the display worker
    item = window.navigator.items[late]
    press(window, Qt.Key_F10)
    qtbot.waitUntil(lambda: window.ctl.current.name != late)
    qtbot.waitUntil(lambda: item.text(2).endswith(" · not kept"))
    reasons = window.ctl.stepper.drop_reasons
    assert late in reasons
    tip = _plain(item.toolTip(1))
    assert tip.endswith("\nNot kept: the 30.0 kB capture budget was full when this stage ran.")
    assert tip.startswith(late + " — ")
    assert _plain(item.toolTip(2)) == "Not kept: the 30.0 kB capture budget was full when this stage ran."
    kept = next(c.name for c in window.ctl.stepper.history if not c.dropped)
    assert not window.navigator.items[kept].text(2).endswith(" · not kept")
    # Clicked afterwards it says it was not kept rather than drawing nothing under old axes.
    click_stage(window, qtbot, late)
    qtbot.waitUntil(lambda: f"{late} was not kept" in window.heatmap_panel.caption.text())
    window.ctl.close()
