"""The Architecture dock stays readable at 30 layers: every layer but the current one folds into a row
of its blocks, the current layer stays open, the map scrolls to follow the stage, and a click on a
folded block still runs to it."""

import pytest
from PySide6.QtCore import QPointF, Qt

from tests.ui.conftest import wait_paused
from tests.ui.user_actions import press, run_to_stage
from tfdebug.ui.panels.archmap import FOLD_H
from tfdebug.ui.i18n.language import title

pytest.importorskip("transformers")


def test_thirty_layers_fold_into_readable_rows_and_the_map_follows_the_stage(make_window, qtbot, tmp_path):
    from PySide6.QtGui import QFontMetrics

    from tests.adapters import hf_tiny

    folder = hf_tiny.save_folder(hf_tiny.llama(n_layer=30), tmp_path / "deep")
    window = make_window()
    window.resize(1600, 1000)
    window.input_bar.set_values(f"hf:{folder}", "cpu", {"prompt": "I love you"})
    press(window, Qt.Key_Return, Qt.ControlModifier)  # Run
    wait_paused(qtbot, window, "tok.embed", timeout=120000)
    amap = window.architecture_map
    run_to_stage(window, qtbot, "dec.27.self_attn.probs")
    qtbot.waitUntil(lambda: amap.scrollbar.isVisible())
    assert amap.is_folded() and len(amap.parts) > 60
    metrics = QFontMetrics(amap.label_font())
    for part in amap.parts:  # every box a line high, its title whole or cut with "…"
        assert part.rect.height() >= FOLD_H
        flags, text = amap.shown_label(part)
        drawn = metrics.boundingRect(part.rect.adjusted(4, 0, -4, 0).toRect(), int(flags), text)
        assert drawn.height() <= part.rect.height() and (text == title(part.label) or text.endswith("…"))
    current = amap.part("dec.27.self_attn")
    assert current.rect.height() > FOLD_H  # the layer being stepped is open
    assert amap.part("dec.3.self_attn").rect.height() == FOLD_H  # the others are rows
    offset = amap.scrollbar.value()
    assert offset > 0 and offset <= current.rect.top() and current.rect.bottom() <= offset + amap.height()

    folded = amap.part("dec.28.ffn")  # a click on a folded block (scrolled into view) runs to it
    qtbot.mouseClick(amap, Qt.LeftButton, pos=(folded.rect.center() - QPointF(0, offset)).toPoint())
    wait_paused(qtbot, window, folded.stages[0], timeout=60000)
    qtbot.waitUntil(lambda: amap.part("dec.28.ffn").rect.height() > FOLD_H)  # now open
    window.ctl.close()
