"""Learn → Attention Playground: the notes' toy example, edited cell by cell, recomputed at once."""

from PySide6.QtCore import QPoint, Qt
from PySide6.QtWidgets import QLineEdit

from tests.ui.user_actions import press


def open_from_menu(window, qtbot):
    action = next(a for a in window.learn_menu.actions() if a.objectName() == "tfdebug.learn.playground")
    assert action is window.actions_by_id["tfdebug.learn.playground"]  # the registry's action, in the menu
    action.trigger()
    dialog = window.tools.learn.playground
    qtbot.waitExposed(dialog)
    return dialog


def shown(table, col):
    return [table.item(r, col).text() for r in range(table.rowCount())]


def type_in_cell(qtbot, table, row, col, text):
    """Open the cell's editor, select what is there, type, Tab to the next cell: as a person edits a table."""
    table.window().activateWindow()
    table.setCurrentCell(row, col)
    table.editItem(table.item(row, col))
    editor = table.viewport().findChild(QLineEdit)
    editor.setFocus()
    editor.selectAll()
    qtbot.keyClicks(editor, text)
    qtbot.keyClick(editor, Qt.Key_Tab)


def test_the_notes_figures_unscaled_then_scaled(make_window, qtbot):
    window = make_window()
    dialog = open_from_menu(window, qtbot)
    assert shown(dialog.results, 0) == ["1.2000", "1.1500", "0.1500"]
    assert shown(dialog.results, 2) == ["0.4346", "0.4134", "0.1521"]
    assert "output w·V = [3.9784, 3.4779]" in dialog.output.text()
    assert "[0.45, 0.43, 0.12]" in dialog.note.text() and "[4.09, 3.27]" in dialog.note.text()
    qtbot.mouseClick(dialog.scale, Qt.LeftButton)
    assert dialog.scale.isChecked()
    assert shown(dialog.results, 1) == ["0.8485", "0.8132", "0.1061"]
    assert shown(dialog.results, 2) == ["0.4096", "0.3954", "0.1950"]
    assert "output w·V = [3.8247, 3.7601]" in dialog.output.text() and "softmax(scores ÷ √2)" in dialog.output.text()


def test_editing_a_cell_updates_the_figures(window, qtbot):
    press(window, Qt.Key_L, Qt.ControlModifier | Qt.ShiftModifier)
    learn = window.tools.learn
    qtbot.waitUntil(lambda: learn.playground is not None and learn.playground.isVisible())
    dialog = learn.playground
    type_in_cell(qtbot, dialog.keys, 2, 0, "2")  # chair's key becomes [2, 0.1]: q·k = 2.05
    assert shown(dialog.results, 0) == ["1.2000", "1.1500", "2.0500"]
    weights = [float(w) for w in shown(dialog.results, 2)]
    assert weights[2] > weights[0] > weights[1] and abs(sum(weights) - 1) < 2e-4
    type_in_cell(qtbot, dialog.values, 0, 0, "x")  # not a number: marked, figures kept
    assert "not a number" in dialog.problem.text()
    table = dialog.values
    bad = table.item(0, 0)
    qtbot.mouseClick(table.viewport(), Qt.LeftButton, pos=table.visualItemRect(bad).center())  # select it
    qtbot.waitUntil(lambda: bad.isSelected())
    colour = table.viewport().grab().toImage().pixelColor(table.visualItemRect(bad).topLeft() + QPoint(3, 3))
    assert colour.red() > colour.green() + 60 and colour.red() > colour.blue() + 60, colour.name()  # red, as the note says
    assert shown(dialog.results, 0)[2] == "2.0500"
    qtbot.mouseClick(dialog.reset_button, Qt.LeftButton)
    assert dialog.problem.text() == "" and shown(dialog.results, 2) == ["0.4346", "0.4134", "0.1521"]


def test_the_learn_menu_holds_registry_actions_that_speak_the_window_language(window, qtbot):
    from tfdebug.ui.i18n import language as i18n

    menu_ids = [a.objectName() for a in window.learn_menu.actions()]
    assert menu_ids == ["tfdebug.learn.explain", "tfdebug.learn.playground"]
    explain = window.docks["explain"]
    explain.close()
    press(window, Qt.Key_F1)  # Learn ▸ Explain's shortcut brings the closed dock back
    qtbot.waitUntil(explain.isVisible)
    try:
        i18n.set_language("zh")
        qtbot.waitUntil(lambda: window.learn_menu.title() == "学习(&L)")
        assert [a.text() for a in window.learn_menu.actions()] == ["讲解", "注意力演练场…"]
        assert window.actions_by_id["tfdebug.learn.playground"].toolTip() == (
            "笔记中的玩具注意力示例，以可编辑的表格呈现 (Ctrl+Shift+L)")
    finally:
        i18n.set_language("en")
