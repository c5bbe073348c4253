"""A stage above the size limit is shown through its slice only: the heatmap draws it, the
whole-tensor stats are not computed (they would read all of it), and the panels say so; the head
thumbnails are drawn (each head read on a strided grid). Below the limit everything is back."""

import pytest
import torch
from PySide6.QtCore import Qt

from tests.ui.conftest import wait_paused
from tests.ui.user_actions import press
from tfdebug.core.recorder import Capture
from tfdebug.core.stages import StageInfo
from tfdebug.core.stepper import Stepper
from tfdebug.io.recording import Recording

N = 256  # (1, 4, 256, 256) float32: 1 MiB, above the 256 KiB limit the test sets


def _captures():
    captures = []
    for i, (stage, kind, n) in enumerate((("scaled", "scale", 8), ("probs", "softmax", N))):
        info = StageInfo(name=f"enc.0.attn.{stage}", kind=kind, site="enc.attn", layer=0,
                         axes=("batch", "head", "query", "key"), formula="x")
        captures.append(Capture.of(info, torch.rand(1, 4, n, n) + i))
    return captures


def _open_large(window, qtbot) -> None:
    """The two stages replayed, the second above a 256 KiB limit; paused at the first."""
    window.docks["stats"].show()
    window.ctl.shown.large_stage_bytes = 256 * 1024
    captures = _captures()
    window.ctl.load_replay(Stepper.replay(captures), {"src": [], "tgt": []}, "large",
                           Recording(captures, {"src": [], "tgt": []}))
    wait_paused(qtbot, window, "enc.0.attn.scaled")


def _step(window, qtbot, key, modifier, name):
    window.activateWindow()
    qtbot.waitUntil(window.isActiveWindow)
    press(window, key, modifier)
    wait_paused(qtbot, window, name)
    qtbot.waitUntil(lambda: window.ctl.shown.settled() and window.heads_panel.settled())


def test_a_stage_above_the_limit_is_shown_by_its_slice_only(make_window, qtbot):
    window = make_window()
    window.docks["heads"].show()
    _open_large(window, qtbot)
    stats, heads = window.stats_panel, window.heads_panel
    qtbot.waitUntil(lambda: window.ctl.shown.current_stats is not None and heads.graphics.isVisible())

    _step(window, qtbot, Qt.Key_F10, Qt.NoModifier, "enc.0.attn.probs")
    sl = window.heatmap_panel.slice
    assert sl is not None and sl.source_shape == (N, N)
    assert window.ctl.shown.current_stats is None and window.ctl.shown.ensure_stats() is None
    assert stats.text("min", 1) == "–" and stats.text("min", 2) != "–"  # the slice is summarised
    assert stats.note.isVisible() and "1.0 MB" in stats.note.text() and "256.0 KB" in stats.note.text()
    assert stats.bars.yData.sum() == sl.stats.hist_counts.sum() > 0  # the histogram is the slice's
    # The heads are drawn: each is read on its own strided grid, never the whole stage at once.
    qtbot.waitUntil(lambda: heads.graphics.isVisible() and "4 heads of enc.0.attn.probs" in heads.note.text())

    overview = window.overview  # the per-stage overview reads no stage above the limit either
    window.docks["overview"].show()
    window.docks["overview"].raise_()
    qtbot.waitUntil(lambda: len(overview.values) == 2 and overview.values[0] == overview.values[0])
    assert overview.values[1] != overview.values[1]  # NaN: not computed

    _step(window, qtbot, Qt.Key_F10, Qt.ShiftModifier, "enc.0.attn.scaled")
    qtbot.waitUntil(lambda: window.ctl.shown.current_stats is not None and heads.graphics.isVisible())
    assert not stats.note.isVisible() and stats.text("min", 1) != "–"


@pytest.mark.parametrize("size", [(1280, 720), (1366, 768), (1600, 1000), (1920, 1080)])
def test_the_stats_table_is_never_squeezed_below_its_lines(make_window, qtbot, size):
    """Issue 52: at a large stage the note took the table's height, its header was cut and the rows were
    squeezed to 9 px, so "65,536" read "65.536". Each row keeps a line's height and the histogram its least
    height; what does not fit (the notes) scrolls."""
    window = make_window()
    window.resize(*size)
    qtbot.waitUntil(lambda: (window.width(), window.height()) == size)
    _open_large(window, qtbot)
    _step(window, qtbot, Qt.Key_F10, Qt.NoModifier, "enc.0.attn.probs")
    stats = window.stats_panel
    qtbot.waitUntil(lambda: stats.note.isVisible() and stats.text("count", 2) == f"{N * N:,}")
    qtbot.wait(100)  # laid out
    line = stats.fontMetrics().height()
    viewport = stats.scroll.viewport()
    for label in (stats.tensor_title, stats.slice_title, *stats.row_titles.values(), *stats.cells.values()):
        assert label.height() >= line, (label.text(), label.height(), line)
        bottom = label.mapTo(viewport, label.rect().bottomLeft()).y()
        assert bottom <= viewport.height(), label.text()  # in view without scrolling
    assert stats.plot.height() >= stats.plot.minimumHeight()
    assert stats.plot.mapTo(viewport, stats.plot.rect().bottomLeft()).y() <= viewport.height() + 1
