"""The Stats panel's histogram as a learner sees it, reached by typing a sentence and stepping."""

from PySide6.QtCore import Qt

from tests.ui.conftest import wait_paused
from tests.ui.user_actions import press, run_to_stage, type_into


def test_a_constant_stage_draws_its_one_bar_at_its_value(window, qtbot):
    # A one-word source: every encoder softmax row has one key, so the probabilities are all exactly 1.
    source = window.input_bar.field("src")
    type_into(qtbot, source, "you")
    press(source, Qt.Key_Return, Qt.ControlModifier)  # Run
    qtbot.waitUntil(lambda: window.ctl.session.texts["src"] == "you", timeout=15000)
    wait_paused(qtbot, window, "src.embed")
    run_to_stage(window, qtbot, "enc.0.attn.probs")
    panel = window.stats_panel
    qtbot.waitUntil(lambda: panel.text("min") == panel.text("max") == "1")
    edges, counts = panel.bars.getData()  # step mode: len(edges) == len(counts) + 1
    [bar] = [i for i, c in enumerate(counts) if c > 0]
    assert counts[bar] == 4 and edges[bar] < 1.0 < edges[bar + 1]  # batch 1 × 4 heads × 1 query × 1 key
    def centred() -> bool:  # in the middle of the axis, not at its edge (the view ranges itself when it next draws)
        left, right = panel.plot.getViewBox().viewRange()[0]
        return abs((left + right) / 2 - 1.0) < 0.05 * (right - left)
    qtbot.waitUntil(centred)
