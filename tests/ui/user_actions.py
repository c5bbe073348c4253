"""Driving the window as a person does: clicks in the Stages tree, key presses, toolbar buttons."""

import warnings

from PySide6.QtCore import QPoint, Qt, QTimer
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QAbstractButton, QApplication, QFileDialog, QLabel, QTreeView

from tests.ui.conftest import wait_paused


def press(window, key, modifier=Qt.NoModifier):
    """A key press delivered to the focused window (shortcuts fire through Qt's shortcut map)."""
    window.activateWindow()
    if QApplication.activeWindow() is not window:
        # A person types into the window they look at. (The offscreen platform can leave a
        # closed combo-box popup "active" after its deactivation event arrives late.)
        with warnings.catch_warnings():  # deprecated in Qt 6, and the one call that is synchronous
            warnings.simplefilter("ignore", DeprecationWarning)
            QApplication.setActiveWindow(window)
    QTest.keyClick(window, key, modifier)


def click_stage(window, qtbot, name, column=1):
    """Click stage `name` in the Stages tree (its groups opened and scrolled to first, as a person would)."""
    nav = window.navigator
    item = nav.items[name]
    parent = item.parent()
    while parent is not None:
        parent.setExpanded(True)
        parent = parent.parent()
    nav.tree.scrollToItem(item)
    rect = nav.tree.visualItemRect(item)
    x = nav.tree.header().sectionViewportPosition(column) + 12
    qtbot.mouseClick(nav.tree.viewport(), Qt.LeftButton, pos=QPoint(x, rect.center().y()))


def run_to_stage(window, qtbot, name):
    """Select `name` in the Stages tree and press Ctrl+F10 (Run to Stage); wait until it shows."""
    click_stage(window, qtbot, name)
    qtbot.waitUntil(lambda: window.ctl.selected_stage == name)
    if window.ctl.current is None or window.ctl.current.name != name:
        press(window, Qt.Key_F10, Qt.ControlModifier)
    wait_paused(qtbot, window, name)


def choose_axes(window, qtbot, row, col):
    """Pick the heatmap's row and column axes by name: open each combo box's list and click the entry."""
    heatmap = window.heatmap_panel
    for combo, name in ((heatmap.row_combo, row), (heatmap.col_combo, col)):
        index = next(i for i in range(combo.count()) if combo.itemText(i).split(" ")[0] == name)
        if combo.currentIndex() == index:
            continue
        combo.showPopup()
        view = combo.view()
        qtbot.waitUntil(view.isVisible)
        rect = view.visualRect(view.model().index(index, 0))
        qtbot.mouseClick(view.viewport(), Qt.LeftButton, pos=rect.center())
        qtbot.waitUntil(lambda: not view.isVisible())
    names = window.ctl.axes.names()
    qtbot.waitUntil(lambda: (names[window.current_slice().row_axis], names[window.current_slice().col_axis])
                    == (row, col))


def pick(qtbot, combo, text):
    """Open a combo box's list and click the entry `text`, as a person does."""
    index = combo.findText(text)
    assert index >= 0, text
    if combo.currentIndex() == index:
        return
    combo.showPopup()
    view = combo.view()
    qtbot.waitUntil(view.isVisible)
    qtbot.mouseClick(view.viewport(), Qt.LeftButton, pos=view.visualRect(view.model().index(index, 0)).center())
    qtbot.waitUntil(lambda: not view.isVisible())
    assert combo.currentIndex() == index


def type_into(qtbot, line_edit, text):
    """Replace a line edit's text by typing `text` into it."""
    line_edit.selectAll()
    qtbot.keyClicks(line_edit, text)


def tooltip_as_read(tooltip: str) -> str:
    """What a person reads in a tooltip (Qt renders it as rich text when it looks like markup)."""
    from PySide6.QtGui import Qt as GuiQt
    from PySide6.QtGui import QTextDocument

    document = QTextDocument()
    if GuiQt.mightBeRichText(tooltip):
        document.setHtml(tooltip)
    else:
        document.setPlainText(tooltip)
    return document.toPlainText()


def open_snapshot(qtbot, window, path) -> bool:
    """File ▸ Open with a file, waited for as a person waits: the file is read off the UI thread.
    True when the window replays this file."""
    from pathlib import Path

    from tfdebug.ui.actions.snapshots import recent_files

    window.open_snapshot(str(path))
    qtbot.waitUntil(lambda: not window.ctl.loader.busy, timeout=30000)
    recent = recent_files(window.settings)
    return window.ctl.replayed is not None and bool(recent) and recent[0] == str(Path(path).resolve())


def register_model(monkeypatch, spec: str, loader: str) -> None:
    """Add `spec` to the model registry for this test the way an adapter author does (one `Entry`;
    `loader` is "module:function(spec, device, dtype) -> ModelAdapter")."""
    from tfdebug.adapters import specs

    monkeypatch.setattr(specs, "ENTRIES", specs.ENTRIES + (specs.Entry(spec, loader, listed=False),))


def run_model(qtbot, window, spec: str, texts: dict, first: str | None = None, timeout: int = 60000) -> None:
    """Type `spec` and `texts` into the input bar and press Run (Ctrl+Return), waiting for the
    first stage as a person does: the model loads and the pass is planned off the UI thread."""
    window.input_bar.set_values(spec, "cpu", texts)
    press(window, Qt.Key_Return, Qt.ControlModifier)
    wait_paused(qtbot, window, first, timeout=timeout)


def paste(edit, text: str) -> None:
    """Paste `text` over a file dialog's file name and click its Open button (a folder's name opens the
    folder). Typed key by key, each key would ask the dialog's completer to list a folder."""
    from PySide6.QtWidgets import QDialogButtonBox

    edit.setFocus()
    edit.selectAll()
    edit.insert(text)
    completer = edit.completer()
    if completer is not None and completer.popup().isVisible():  # Escape closes the list of completions
        QTest.keyClick(completer.popup(), Qt.Key_Escape)          # (a click outside it would only close it)
    button = edit.window().findChild(QDialogButtonBox).button(QDialogButtonBox.Open)
    QTest.mouseClick(button, Qt.LeftButton, Qt.NoModifier, button.rect().center())


def choose_file(dialog, name: str) -> None:
    """Click the row `name` in a file dialog's listing, then Open, as a person chooses a file.

    Not its name pasted into the file name: when the dialog is not the active window (the offscreen
    platform rarely makes it one) the field has no focus, and Qt then adds the name's row to the rows
    already selected instead of replacing them. The folder pasted a moment before is one of them, so
    Open opens that folder again, clears the name and leaves the dialog up: its `exec()` never returns.
    A click on the row selects that row alone."""
    from PySide6.QtWidgets import QDialogButtonBox

    tree = dialog.findChild(QTreeView)
    model, root = tree.model(), tree.rootIndex()
    row = next((model.index(r, 0, root) for r in range(model.rowCount(root)) if model.index(r, 0, root).data() == name),
               None)
    if row is None:
        raise LookupError(f"the file dialog does not list {name}")
    tree.scrollTo(row)
    QTest.mouseClick(tree.viewport(), Qt.LeftButton, Qt.NoModifier, tree.visualRect(row).center())
    button = dialog.findChild(QDialogButtonBox).button(QDialogButtonBox.Open)
    QTest.mouseClick(button, Qt.LeftButton, Qt.NoModifier, button.rect().center())


def answer_file_dialog(path, seen: dict) -> None:
    """Once File ▸ Open's dialog shows (it is modal): go to `path`'s folder by pasting it, note what the
    dialog says there, click the file's row and Open. An error rejects the dialog (no hang)."""
    dialogs = [w for w in QApplication.topLevelWidgets() if isinstance(w, QFileDialog) and w.isVisible()]
    if not dialogs:
        QTimer.singleShot(20, lambda: answer_file_dialog(path, seen))
        return
    dialog = dialogs[0]
    try:
        edit = dialog.findChild(QLabel, "fileNameLabel").buddy()
        tree = dialog.findChild(QTreeView)
        model, root = tree.model(), tree.rootIndex()
        listed = {model.index(r, 0, root).data() for r in range(model.rowCount(root))}
        if dialog.directory().absolutePath() != str(path.parent) or path.name not in listed:
            if dialog.directory().absolutePath() != str(path.parent):
                paste(edit, str(path.parent))
            QTimer.singleShot(20, lambda: answer_file_dialog(path, seen))
            return
        seen["labels"] = [label.text() for label in dialog.findChildren(QLabel) if label.isVisible()]
        seen["buttons"] = [b.text() or b.toolTip() for b in dialog.findChildren(QAbstractButton) if b.isVisible()]
        seen["header"] = [model.headerData(c, Qt.Horizontal) for c in range(4)]
        seen["rows"] = {model.index(r, 0, root).data(): [model.index(r, c, root).data() for c in range(4)]
                        for r in range(model.rowCount(root))}
        choose_file(dialog, path.name)
    except Exception as exc:  # noqa: BLE001 - reported by the test, not lost in the event loop
        seen["error"] = repr(exc)
        dialog.reject()


def open_through_the_dialog(qtbot, window, path) -> dict:
    """File ▸ Open Snapshot through Qt's own dialog (the Chinese window's): its folder pasted, then the
    file's row clicked and Open; returns what the dialog said. Waits until the window has read the file."""
    seen: dict = {}
    QTimer.singleShot(20, lambda: answer_file_dialog(path, seen))
    window.actions_by_id["tfdebug.file.open"].trigger()  # returns once the dialog is answered
    assert "error" not in seen, seen
    qtbot.waitUntil(lambda: not window.ctl.loader.busy, timeout=30000)
    return seen


def choose_in_menu_button(button, action) -> None:
    """Click a menu button (its menu pops up), then the menu's entry for `action`, as a person does."""
    menu = button.menu()

    def click_entry() -> None:
        if not menu.isVisible():
            QTimer.singleShot(20, click_entry)
            return
        QTest.mouseClick(menu, Qt.LeftButton, Qt.NoModifier, menu.actionGeometry(action).center())
    QTimer.singleShot(20, click_entry)
    QTest.mouseClick(button, Qt.LeftButton)  # returns once the menu is answered
