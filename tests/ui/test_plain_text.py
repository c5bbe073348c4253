"""Names and token strings from a file or a model are shown as text, never as markup (issue 18):
a replay whose stage name and tokens are HTML shows the tags literally in every label."""

import torch
from PySide6.QtCore import QPoint, Qt
from PySide6.QtGui import QTextDocument
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QLabel

from tests.ui.conftest import wait_paused
from tests.ui.user_actions import press
from tfdebug.core.recorder import Capture
from tfdebug.core.stages import StageInfo
from tfdebug.core.stepper import Stepper
from tfdebug.ui.widgets.steady_text import SteadyText

MARK = "<b>bold</b>"
TOKENS = [f"{MARK}{i}" for i in range(4)]


def _replay():
    probs = torch.full((1, 2, 4, 4), 0.25)
    captures = []
    for i, stage in enumerate(("scaled", f"{MARK}probs")):
        info = StageInfo(name=f"enc.0.attn.{stage}", kind="softmax", site="enc.attn", layer=0,
                         axes=("batch", "head", "query", "key"), formula=f"{MARK} = softmax(x)",
                         tokens={"query": "src", "key": "src"})
        captures.append(Capture.of(info, probs + i))
    return Stepper.replay(captures)


def _labels_showing(window, text):
    return [label for kind in (QLabel, SteadyText) for label in window.findChildren(kind)
            if text in label.text() and label.isVisible()]


def test_an_html_stage_name_and_html_tokens_show_as_plain_text(make_window, qtbot):
    window = make_window()
    window.resize(1400, 900)
    window.docks["heads"].show()
    window.ctl.load_replay(_replay(), {"src": TOKENS, "tgt": []}, f"{MARK} recording")
    wait_paused(qtbot, window)
    window.activateWindow()
    qtbot.waitUntil(window.isActiveWindow)
    press(window, Qt.Key_F10)
    wait_paused(qtbot, window, f"enc.0.attn.{MARK}probs")
    qtbot.waitUntil(lambda: window.ctl.shown.settled() and window.heads_panel.settled())
    heatmap = window.heatmap_panel
    # Hover a cell: the readout names its tokens.
    view = heatmap.graphics
    centre = view.mapFromScene(heatmap.plot.vb.mapViewToScene(heatmap.plot.vb.viewRect().center()))
    QTest.mouseMove(view.viewport(), QPoint(centre.x(), centre.y()))
    qtbot.waitUntil(lambda: MARK in heatmap.readout.text())

    shown = _labels_showing(window, MARK)
    assert heatmap.caption in shown and heatmap.readout in shown
    assert window.status_stage in shown
    assert window.heads_panel.note in shown
    rich = [(label.objectName() or type(label.parent()).__name__, label.text()) for label in shown
            if isinstance(label, QLabel) and label.textFormat() != Qt.PlainText]  # SteadyText paints plain text
    assert not rich, f"labels that would render a name as markup: {rich}"
    assert heatmap.caption.text().startswith(f"enc.0.attn.{MARK}probs")
    # Tooltips cannot be switched to plain text: the stage's is escaped, so it reads literally too.
    tip = window.navigator.items[f"enc.0.attn.{MARK}probs"].toolTip(1)
    document = QTextDocument()
    document.setHtml(tip)
    assert document.toPlainText().startswith(f"enc.0.attn.{MARK}probs")
    assert f"{MARK} = softmax(x)" in document.toPlainText()


def test_a_recent_file_whose_name_looks_like_markup_reads_literally(make_window, settings, tmp_path):
    from tfdebug.ui.actions.snapshots import add_recent

    path = str(tmp_path / f"{MARK}.safetensors")
    add_recent(settings, path)
    window = make_window(settings)
    window.recent_menu.aboutToShow.emit()
    entry = next(a for a in window.recent_menu.actions() if a.data() == path)
    document = QTextDocument()
    document.setHtml(entry.toolTip())
    assert document.toPlainText() == path
