"""The window in Chinese and English: the catalogue is complete, View ▸ Language switches at run
time and is remembered, --lang overrides, core errors are translated by id, Chinese has a font."""

import os
import shutil
import subprocess
import sys

import pytest
from PySide6.QtCore import QLocale, QSettings
from PySide6.QtWidgets import QApplication

from tfdebug.adapters.reference import ReferenceAdapter
from tfdebug.core.errors import EmptyInputError, TfdebugError
from tfdebug.ui.i18n import catalog as i18n_catalog
from tfdebug.ui.i18n import language as i18n

HOW_TO_FIX = (
    "Every user-visible string in tfdebug/ui needs a Chinese entry. Fix it like this:\n"
    "  1. python -m tfdebug.ui.i18n.catalog        (regenerates core_strings.py, the .ts and the .qm)\n"
    "  2. write the Chinese of each entry listed above in resources/i18n/tfdebug_zh_CN.ts\n"
    "     (pyside6-linguist resources/i18n/tfdebug_zh_CN.ts, or edit its <translation> elements\n"
    "     and remove type=\"unfinished\"), keeping every {placeholder} of the English\n"
    "  3. python -m tfdebug.ui.i18n.catalog again (builds the .qm), and commit the .ts and .qm\n"
    "Strings must reach the catalogue through self.tr(\"…\") / QCoreApplication.translate(\"ctx\", \"…\")\n"
    "(or QT_TRANSLATE_NOOP for data), with literal text and .format(name=…) instead of f-strings.")


def test_every_ui_string_has_a_finished_chinese_translation(tmp_path):
    committed = i18n_catalog.TS_FILES["zh"]
    updated = tmp_path / committed.name
    shutil.copy2(committed, updated)
    i18n_catalog.run_lupdate(updated, i18n_catalog.ui_sources())
    problems = i18n_catalog.problems(updated, committed)
    assert not problems, "\n".join(problems) + "\n\n" + HOW_TO_FIX


def test_core_strings_and_the_compiled_catalogue_are_current(tmp_path):
    generated = i18n_catalog.render_core_strings(i18n_catalog.core_strings())
    assert i18n_catalog.CORE_STRINGS.read_text(encoding="utf-8") == generated, (
        "tfdebug/ui/i18n/core_strings.py is out of date (a kind, title, input label or error id changed).\n" + HOW_TO_FIX)
    committed = i18n_catalog.TS_FILES["zh"]
    qm = tmp_path / "built.qm"
    i18n_catalog.run_lrelease(committed, qm)
    assert qm.read_bytes() == committed.with_suffix(".qm").read_bytes(), (
        "resources/i18n/tfdebug_zh_CN.qm is older than its .ts: run python -m tfdebug.ui.i18n.catalog and commit it.")


def test_no_text_reaches_the_window_without_tr(tmp_path):
    found = i18n_catalog.untranslated_literals()
    assert not found, "These texts are handed to Qt without tr():\n" + "\n".join(found) + "\n\n" + HOW_TO_FIX
    # The check itself sees such a text in a label, a painter's text, a plot label and a message.
    sample = tmp_path / "sample.py"
    sample.write_text('QLabel("Hello world")\npainter.drawText(rect, 0, "Nothing loaded")\n'
                      'plot.setLabel("left", f"count of {n}")\nMessage("error", "It failed.")\n'
                      'QLabel(self.tr("Fine"))\nQLabel("atol")\nQLabel(f"{a} × {b}")\n', encoding="utf-8")
    found = i18n_catalog.untranslated_literals([sample])
    assert [line.split(": ", 1)[1] for line in found] == ["'Hello world'", "'Nothing loaded'", "'count of '",
                                                           "'It failed.'"]


def test_the_catalogue_holds_the_core_vocabulary():
    strings = i18n_catalog.core_strings()
    assert ("Softmax", "") in strings["kinds"] and ("Masked self-attention", "") in strings["titles"]
    assert ("Source sentence", "") in strings["inputs"]
    assert ("−∞ above the diagonal", "") in strings["formulas"]
    ids = [error_id for _, error_id in strings["errors"]]
    assert len(ids) == len(set(ids)), "an error id is used with two different sentences"


def _menu_titles(window):
    return [a.text() for a in window.menuBar().actions()]


def _choose_language(window, qtbot, code):
    view = window.view_menu
    view.popup(window.mapToGlobal(window.rect().center()))
    window.language_menu.aboutToShow.emit()
    item = next(a for a in window.language_menu.actions() if a.objectName() == f"language-{code}")
    item.trigger()
    view.hide()


def test_view_language_switches_the_window_at_run_time_and_is_remembered(window, qtbot, settings):
    assert _menu_titles(window)[:4] == ["&File", "&Debug", "&Breakpoints", "&View"]
    assert window.docks["navigator"].windowTitle() == "Stages"
    step = window.actions_by_id["tfdebug.step.next"]
    assert step.text() == "Step"

    _choose_language(window, qtbot, "zh")
    qtbot.waitUntil(lambda: window.docks["navigator"].windowTitle() == "阶段")
    assert _menu_titles(window)[:4] == ["文件(&F)", "调试(&D)", "断点(&B)", "视图(&V)"]
    assert window.docks["heatmap"].windowTitle() == "热力图"
    assert step.text() == "单步" and step.toolTip() == "下一个阶段 (F10)"
    assert window.status_stage.text().startswith("第 1 / ")
    assert window.message_bar.dismiss_button.toolTip() == "关闭"
    assert settings.value(i18n.SETTING) == "zh"
    assert i18n.initial_language(settings) == "zh"  # the next launch opens in Chinese
    # The panels too: input labels, heatmap controls, the stage tree's groups, shape and stats.
    bar = window.input_bar
    assert [label.text() for label in bar._labels] == ["源句子", "目标前缀"]
    assert bar.fields["src"].placeholderText() == "英文，词与词之间用空格分隔"
    heatmap = window.heatmap_panel
    assert heatmap.rows_label.text() == "行" and heatmap.pin_button.text() == "固定轴"
    assert heatmap.readout.text() == "将鼠标悬停在单元格上可读取其数值。"
    top = window.navigator.tree.topLevelItem(0)
    assert top.text(1) == "源端嵌入 + 位置编码"
    assert window.navigator.tree.headerItem().text(1) == "阶段"
    assert "形状" in window.shape_panel.plain_text() and "批次=1" in window.shape_panel.plain_text()
    assert window.stats_panel.row_titles["min"].text() == "最小值"

    _choose_language(window, qtbot, "en")
    qtbot.waitUntil(lambda: window.docks["navigator"].windowTitle() == "Stages")
    assert step.text() == "Step" and window.status_stage.text().startswith("Stage 1 of ")
    assert window.navigator.tree.topLevelItem(0).text(1) == "Source embedding + PE"
    assert "Shape" in window.shape_panel.plain_text() and heatmap.rows_label.text() == "Rows"
    assert settings.value(i18n.SETTING) == "en"


def test_the_language_defaults_to_the_system_locale_and_lang_overrides(tmp_path):
    settings = QSettings(str(tmp_path / "s.ini"), QSettings.IniFormat)
    system = QLocale.system().language()
    assert i18n.initial_language(settings) == ("zh" if system == QLocale.Chinese else "en")
    assert i18n.initial_language(settings, "zh") == "zh"
    settings.setValue(i18n.SETTING, "zh")
    assert i18n.initial_language(settings) == "zh"
    assert i18n.initial_language(settings, "en") == "en"  # --lang en beats the remembered choice
    assert [i18n.normalise(c) for c in ("zh_CN", "zh-Hans", "en_US", "fr", "")] == ["zh", "zh", "en", None, None]


def test_core_errors_are_translated_by_their_id(qapp, loaded):
    with pytest.raises(EmptyInputError) as raised:
        ReferenceAdapter(loaded).check_texts({"src": " ", "tgt": ""})
    error = raised.value
    assert error.id == "input.empty" and error.params == {"field": "source sentence"}
    assert error.message == "The source sentence is empty: type at least one word."  # the English default
    assert i18n.error_text(error) == error.message
    assert i18n.set_language("zh")
    assert i18n.error_text(error) == "源句子为空：请至少输入一个词。"
    plain = TfdebugError("A sentence with no id.")
    assert i18n.error_text(plain) == "A sentence with no id."  # no id: the English stays


def test_titles_and_kinds_are_translated(qapp):
    i18n.set_language("zh")
    assert i18n.kind_title("softmax") == "Softmax 归一化"
    assert i18n.title("Encoder layer 3") == "编码器层 3"
    assert i18n.title("Masked self-attention") == "掩码自注意力"
    assert i18n.title("my_block 2") == "my_block 2"  # not in the catalogue: unchanged
    assert i18n.formula_text("Q·Kᵀ / √d_k + M  (M: −∞ above the diagonal)") == "Q·Kᵀ / √d_k + M  (M: 对角线以上为 −∞)"


def test_chinese_text_gets_a_cjk_font(qapp):
    family = i18n.cjk_family()
    if family is None:
        pytest.skip("no CJK font installed here (README: Translations)")
    assert i18n.apply_cjk_font(QApplication.instance()) == family
    assert family in QApplication.font().families()


def test_lang_zh_opens_the_window_in_chinese(tmp_path):
    # A separate process, as a user runs it: the language, font and catalogue come from a fresh start.
    path = tmp_path / "zh.png"
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen")
    proc = subprocess.run([sys.executable, "-m", "tfdebug", "gui", "--lang", "zh", "--model", "random",
                           "--goto", "dec.0.self_attn.masked", "--screenshot", str(path)],
                          capture_output=True, text=True, timeout=300, env=env)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert path.stat().st_size > 10_000


def test_errors_and_notices_reach_the_window_in_chinese(window, qtbot):
    from PySide6.QtCore import Qt
    from PySide6.QtWidgets import QMenu

    from tests.ui.user_actions import press

    i18n.set_language("zh")
    qtbot.waitUntil(lambda: window.docks["navigator"].windowTitle() == "阶段")
    source = window.input_bar.field("src")
    source.selectAll()
    qtbot.keyClick(source, Qt.Key_Backspace)
    window.actions_by_id["tfdebug.session.run"].trigger()  # Run with an empty source sentence
    qtbot.waitUntil(lambda: window.last_error is not None and not window.ctl.loader.busy)
    assert window.message_bar.text() == "源句子为空：请至少输入一个词。"  # the core's error, by its id
    window.message_bar.dismiss()
    kinds = window.breakpoints_menu.findChild(QMenu)  # Breakpoints ▸ Break on Every… ▸ Softmax
    assert kinds.title() == "在每种类型处中断…"
    softmax = next(a for a in kinds.actions() if a.objectName() == "break-kind-softmax")
    assert softmax.text() == "Softmax 归一化"
    softmax.trigger()
    press(window, Qt.Key_F5)
    qtbot.waitUntil(lambda: window.message_bar.text().startswith("停在 enc.0.attn.probs"))
    assert window.message_bar.text() == "停在 enc.0.attn.probs：断点条件为 每个“Softmax 归一化”。"
