"""Every word the Chinese window shows is Chinese, Qt's own included: File ▸ Open's dialog (Qt's qtbase
catalogue, its dates in the window's locale), a replayed snapshot's input fields (named as the adapter
names them, in English too), Explain's formula, and the heatmap's vertical axis title (upright)."""

import re

from PySide6.QtCore import QFileInfo, QLocale, Qt
from PySide6.QtWidgets import QApplication

from tests.ui.user_actions import open_snapshot, open_through_the_dialog, run_to_stage
from tfdebug.io.snapshot import save_snapshot
from tfdebug.ui.i18n import language as i18n

WORD = re.compile(r"[A-Za-z]{2,}")


def test_file_open_in_the_chinese_window_is_qts_own_dialog_in_chinese(window, qtbot, tmp_path):
    recording, _ = window.ctl.recording()
    path = tmp_path / "pass.safetensors"
    save_snapshot(recording, path)
    (tmp_path / "folder").mkdir()
    i18n.set_language("zh")
    seen = open_through_the_dialog(qtbot, window, path)
    assert "error" not in seen, seen
    words = " ".join(seen["labels"] + seen["buttons"] + seen["header"] + seen["rows"]["folder"][1:])
    assert WORD.findall(words) == [], words
    assert seen["rows"]["folder"][2] == "文件夹"
    modified = QFileInfo(str(tmp_path / "folder")).lastModified()
    assert seen["rows"]["folder"][3] == QLocale(QLocale.Chinese, QLocale.China).toString(modified, QLocale.ShortFormat)
    assert window.ctl.replayed.path == str(path.resolve())
    # View ▸ Language back to English: Qt's own texts are English again.
    window.ctl.close()
    i18n.set_language("en")
    assert QApplication.translate("QFileDialog", "Look in:") == "Look in:"
    assert QLocale().language() == QLocale.English


def test_a_replayed_snapshot_names_its_fields_as_the_adapter_does_and_offers_a_live_pass(window, qtbot, tmp_path):
    recording, _ = window.ctl.recording()
    path = tmp_path / "pass.safetensors"
    save_snapshot(recording, path)
    assert open_snapshot(qtbot, window, path)
    bar = window.input_bar
    captions = [label.text() for label in bar._labels]
    assert captions == ["Source sentence", "Target prefix"]
    assert not bar.field("src").isEnabled()
    qtbot.waitUntil(bar.live_button.isVisible)
    assert "New Live Pass" in bar.live_button.text()
    i18n.set_language("zh")
    qtbot.waitUntil(lambda: [label.text() for label in bar._labels] == ["源句子", "目标前缀"])
    assert WORD.findall(bar.live_button.text()) == []
    i18n.set_language("en")
    qtbot.mouseClick(bar.live_button, Qt.LeftButton)
    qtbot.waitUntil(lambda: window.ctl.is_live and not window.ctl.loader.busy, timeout=30000)
    assert bar.field("src").isEnabled() and not bar.live_button.isVisible()


def test_chinese_explain_formula_and_an_upright_axis_title(window, qtbot):
    run_to_stage(window, qtbot, "enc.0.attn.probs")
    i18n.set_language("zh")
    window.docks["explain"].show()
    qtbot.waitUntil(lambda: "softmax(" in window.explain_panel.plain_text())
    text = window.explain_panel.plain_text()
    line = next(line for line in text.splitlines() if "softmax(" in line)
    assert WORD.findall(line.replace("softmax", "")) == [], line
    axis = window.heatmap_panel.plot.getAxis("left")
    qtbot.waitUntil(lambda: "查" in axis.labelText)
    box = axis.label.mapRectToParent(axis.label.boundingRect())
    assert axis.label.rotation() == 0
    assert box.height() > 1.5 * box.width()  # one character under the other, upright
    assert box.left() >= -8 and box.right() <= axis.width() + 8  # inside the axis' room
    i18n.set_language("en")
    qtbot.waitUntil(lambda: axis.labelText == "query")
    assert axis.label.rotation() == -90


# A word with a lowercase letter ("NaN", "atol", "head"): English left in the Chinese window. Capitals alone
# (the acronyms FFN, KV, RMS) and the letters A, B, Q, K, V of the formulas are how Chinese texts write them.
ENGLISH = re.compile(r"[A-Za-z]*[a-z][A-Za-z]*")


def english(texts) -> list[str]:
    return [w for t in texts for w in ENGLISH.findall(re.sub(r"<[^>]+>", "", t)) if len(w) > 1]


def test_stats_compare_and_the_axes_of_every_stage_kind_are_chinese(window, qtbot, tmp_path):
    from PySide6.QtWidgets import QLabel

    from tests.ui.test_compare_view import compare_dialog, run_comparison
    from tests.ui.user_actions import pick, press, type_into
    from tfdebug.io.recording import Recording

    press(window, Qt.Key_F5)
    qtbot.waitUntil(lambda: window.ctl.stepper.state == "finished")
    path = tmp_path / "same.safetensors"
    save_snapshot(Recording.from_session(window.ctl.session, window.ctl.stepper.history), path)
    chooser = compare_dialog(window, qtbot)
    pick(qtbot, chooser.b.kind, "A snapshot or export file")
    type_into(qtbot, chooser.b.path, str(path))
    run_comparison(window, qtbot, chooser)
    chooser.close()
    i18n.set_language("zh")
    try:
        stats = window.stats_panel
        qtbot.waitUntil(lambda: stats.row_titles["min"].text() != "min")  # the language change has arrived
        assert english(label.text() for label in stats.row_titles.values()) == []
        assert [stats.row_titles[r].text() for r in ("NaN", "+Inf", "−Inf")] == ["非数", "正无穷", "负无穷"]
        view = window.compare_tools.view
        headers = [view.table.horizontalHeaderItem(i).text() for i in range(view.table.columnCount())]
        assert english(headers) == [] and "最大 |Δ|" in headers
        summary = view.summary.text().replace(path.name, "").replace("I love you", "")  # data, as typed
        assert english([summary]) == [] and "绝对容差" in summary, summary
        overview = window.docks["overview"].widget().findChild(type(window.input_bar.dtype))
        assert english(overview.itemText(i) for i in range(overview.count())) == []
        dialog = compare_dialog(window, qtbot)  # its tolerances, named in Chinese
        labels = [label.text() for label in dialog.findChildren(QLabel) if label.isVisible()]
        assert english(labels) == [] and "绝对容差" in labels, labels
        dialog.close()
        # The axis titles of a stage of every kind this model has.
        first_of_kind = {}
        for capture in window.ctl.plan:
            first_of_kind.setdefault(capture.info.kind, capture.info.name)
        for kind, name in first_of_kind.items():
            window.ctl.steps.run_to(name)
            qtbot.waitUntil(lambda: window.ctl.current.name == name and window.ctl.shown.settled())
            plot = window.heatmap_panel.plot
            titles = [plot.getAxis(side).labelText for side in ("left", "bottom")]
            assert english(titles) == [], (kind, titles)
    finally:
        i18n.set_language("en")
