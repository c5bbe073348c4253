"""Drive the real window the way a person does, for the docs' pictures: typed inputs, Return, keys, clicks.

Each picture is saved with a JSON beside it (`NAME.json` for `NAME.png`) holding the texts the
window showed when it was taken: the stage, the status bar, the menus, the toolbar, the visible
docks and the captions of the heatmap and heads. `tests/test_doc_pictures.py` reruns a script
headless and compares those texts with the committed JSON, so a picture whose window has
changed (another stage count, a new menu, a renamed dock) fails the suite until it is made again.

Chinese tokens need a CJK font; on a machine without one installed, name font files in
TFDEBUG_DOCS_FONTS (separated by os.pathsep), e.g. the WenQuanYi Micro Hei file that .ci/run installs.
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path

from PySide6.QtCore import QSettings, Qt
from PySide6.QtGui import QFontDatabase, QInputMethodEvent
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication, QLabel, QTabBar, QWidget

from tests.ui.user_actions import choose_file, paste  # a file dialog answered as the suite answers it
from tfdebug.ui.panels.navigator import NAME, NAME_ROLE
from tfdebug.ui.widgets.steady_text import SteadyText


def wait(until, timeout_s: float = 120.0) -> None:
    """Turn the event loop until `until()` is true (TimeoutError after `timeout_s`)."""
    app = QApplication.instance()
    for _ in range(int(timeout_s * 100)):
        app.processEvents()
        if until():
            return
        QTest.qWait(10)
    raise TimeoutError("the window did not get there in time")


def type_into(widget: QWidget, text: str) -> None:
    """Select what the field holds and type `text` over it, key by key."""
    widget.setFocus()
    QTest.keyClick(widget, Qt.Key_A, Qt.ControlModifier)
    QTest.keyClick(widget, Qt.Key_Backspace)
    for char in text:
        if char.isascii():
            QTest.keyClicks(widget, char)
        else:  # what an input method sends for a character no key makes (Chinese)
            event = QInputMethodEvent()
            event.setCommitString(char)
            QApplication.sendEvent(widget, event)


def visible_labels(widget: QWidget) -> list[str]:
    """The texts of the visible, non-empty labels inside `widget` (QLabels and the window's SteadyTexts, which
    paint a text a step changes), in layout order."""
    return [label.text() for label in widget.findChildren(QWidget) if isinstance(label, (QLabel, SteadyText))
            and label.isVisible() and label.text().strip()]


class Driver:
    """A window on temporary settings, driven by keys and clicks; `shot` saves a PNG and its texts."""

    def __init__(self, out: Path, only: set[str] | None = None, language: str = "en"):
        from tfdebug.ui.i18n import language as i18n
        from tfdebug.ui.shell.window import MainWindow

        self.out, self.only = out, only
        self.app = QApplication.instance() or QApplication(["tfdebug-docs"])
        for font in filter(None, os.environ.get("TFDEBUG_DOCS_FONTS", "").split(os.pathsep)):
            # A CJK font file for a machine without one installed (the pictures show Chinese tokens).
            if QFontDatabase.addApplicationFont(font) < 0:
                raise OSError(f"could not load the font {font}")
        i18n.apply_cjk_font(self.app)  # as `tfdebug` does at start-up
        i18n.set_language(language)
        self._settings_dir = tempfile.TemporaryDirectory()
        settings = QSettings(str(Path(self._settings_dir.name) / "screens.ini"), QSettings.IniFormat)
        self.window = MainWindow(settings=settings, persist=False)
        self.window.resize(1600, 1000)
        self.window.show()
        self.ctl = self.window.ctl

    def wanted(self, name: str) -> bool:
        return self.only is None or name in self.only

    def close(self) -> None:
        self.window.close()
        self.ctl.close()
        self._settings_dir.cleanup()

    # ----- getting somewhere ----------------------------------------------------------------

    def paused(self, name: str | None = None) -> bool:
        current = self.ctl.current
        return (current is not None and self.ctl.stepper is not None and self.ctl.stepper.state != "running"
                and current is self.ctl.stepper.current and not self.ctl.loader.busy
                and (name is None or current.name == name))

    def launch(self) -> None:
        """Start as `tfdebug` does on fresh settings: the default model, its first preset, paused at stage 0."""
        from tfdebug.adapters.registry import default_model_name
        from tfdebug.core.view import RunInputs

        self.window.start(RunInputs(default_model_name(), "cpu", {}))
        wait(lambda: self.paused() and self.ctl.stepper.position_of(self.ctl.current.name) == 0)

    def run(self, model: str, texts: dict[str, str] | None = None) -> None:
        """Type the model (and the texts) into the input bar and press Return: the loading path.
        Without `texts` the model opens on its first preset."""
        if self.ctl.session is None:
            self.launch()
        bar, before = self.window.input_bar, self.ctl.session
        type_into(bar.model.lineEdit(), model)
        if texts is None or set(bar.fields) != set(texts):  # Return in the Model box loads it on its first preset
            QTest.keyClick(bar.model.lineEdit(), Qt.Key_Return)
            wait(lambda: self.ctl.session is not before and self.paused()
                 and self.ctl.stepper.position_of(self.ctl.current.name) == 0)
            if texts is None:
                return
            before = self.ctl.session
        for key, text in texts.items():
            type_into(bar.field(key), text)
        QTest.keyClick(bar.field(next(iter(texts))), Qt.Key_Return)
        wait(lambda: self.ctl.session is not before and self.paused() and self.ctl.stepper.position_of(self.ctl.current.name) == 0)

    def key(self, key, modifiers=Qt.NoModifier) -> None:
        """Press a key in the main window (made the active window first: its shortcuts live there)."""
        self.window.activateWindow()
        wait(self.window.isActiveWindow, timeout_s=10)
        QTest.keyClick(self.window, key, modifiers)

    def generate(self, tokens: int) -> None:
        """Press Generate (Ctrl+G), then Next Token (Ctrl+T) until `tokens` tokens have been chosen."""
        before = self.ctl.session
        self.key(Qt.Key_G, Qt.ControlModifier)
        wait(lambda: self.ctl.session is not before and self.paused())
        start = len(self.ctl.session.generated)
        while len(self.ctl.session.generated) < start + tokens:
            chosen = len(self.ctl.session.generated)
            self.key(Qt.Key_T, Qt.ControlModifier)
            wait(lambda: self.paused() and len(self.ctl.session.generated) > chosen)

    def step_to(self, name: str) -> None:
        """Press F10 until the window shows stage `name`."""
        while self.ctl.current.name != name:
            before = len(self.ctl.stepper.history)
            self.key(Qt.Key_F10)
            wait(lambda: self.paused() and len(self.ctl.stepper.history) > before)

    def choose_capture_budget(self, megabytes: str) -> None:
        """Debug ▸ Capture Budget…: type `megabytes` into "At most" and press OK (the dialog is modal)."""
        from PySide6.QtCore import QTimer
        from PySide6.QtWidgets import QDialogButtonBox

        def answer() -> None:
            dialog = self.window.dialogs.get("budget")
            if dialog is None or not dialog.isVisible():
                QTimer.singleShot(50, answer)
                return
            type_into(dialog.mb.lineEdit(), megabytes)
            click(dialog.findChild(QDialogButtonBox).button(QDialogButtonBox.Ok))
        QTimer.singleShot(50, answer)
        self.window.capture_budget_action.trigger()

    def rerun(self) -> None:
        """Ctrl+Return (Run) on the inputs on screen, until the new pass is paused at its first stage."""
        before = self.ctl.session
        self.key(Qt.Key_Return, Qt.ControlModifier)
        wait(lambda: self.ctl.session is not before and self.paused())

    def answer_dialog(self, find, fill) -> None:
        """Once `find()` gives a visible dialog (a modal one blocks the caller), call `fill(dialog)` on it."""
        from PySide6.QtCore import QTimer

        def answer() -> None:
            dialog = find()
            if dialog is None or not dialog.isVisible():
                QTimer.singleShot(50, answer)
                return
            fill(dialog)
        QTimer.singleShot(50, answer)

    def connect(self, line: str) -> None:
        """File ▸ Connect to Server…: paste the line tfdebug serve printed into Address, OK; wait for the pass."""
        from PySide6.QtWidgets import QDialogButtonBox

        def fill(dialog) -> None:
            dialog.address.setFocus()
            QTest.keyClicks(dialog.address, line)
            click(dialog.findChild(QDialogButtonBox).button(QDialogButtonBox.Ok))
        self.answer_dialog(lambda: self.window.dialogs.get("connect"), fill)
        self.window.actions_by_id["tfdebug.file.connect"].trigger()
        wait(lambda: self.ctl.capabilities.passes_there and self.paused() and self.window.heatmap_panel.slice is not None)

    def break_on_nan(self) -> None:
        """Breakpoints ▸ Conditions…: tick "contains NaN", OK."""
        from PySide6.QtWidgets import QDialogButtonBox

        def fill(dialog) -> None:
            click(dialog.nan)
            click(dialog.findChild(QDialogButtonBox).button(QDialogButtonBox.Ok))
        self.answer_dialog(lambda: self.window.tools.conditions.dialog, fill)
        self.window.actions_by_id["tfdebug.breakpoints.conditions"].trigger()
        wait(lambda: any(b.by == "condition" and b.value == "nan" for b in self.ctl.breakpoints.points))

    def edit_cell(self, value: str) -> None:
        """Edit Tensor… (Ctrl+Shift+E): Set to a value, One cell, type `value`, Apply; the dialog stays open."""
        self.key(Qt.Key_E, Qt.ControlModifier | Qt.ShiftModifier)
        wait(lambda: self.window.edit_tools.dialog is not None and self.window.edit_tools.dialog.isVisible())
        dialog = self.window.edit_tools.dialog
        choose(dialog.operation, "Set to a value")
        choose(dialog.target, "One cell")
        type_into(dialog.value, value)
        click(dialog.apply_button)
        wait(lambda: self.ctl.current.edited and self.window.heatmap_panel.slice is not None
             and self.window.heatmap_panel.slice.stats.nan > 0)

    def export(self, path: Path) -> None:
        """File ▸ Export…: type the file name, OK; wait until it is written."""
        from PySide6.QtWidgets import QDialogButtonBox

        def fill(dialog) -> None:
            type_into(dialog.path_edit, str(path))
            click(dialog.findChild(QDialogButtonBox).button(QDialogButtonBox.Ok))
        from PySide6.QtWidgets import QApplication as App

        from tfdebug.ui.features.export.dialog import ExportDialog
        self.answer_dialog(lambda: next((w for w in App.topLevelWidgets() if isinstance(w, ExportDialog)
                                         and w.isVisible()), None), fill)
        self.window.actions_by_id["tfdebug.file.export"].trigger()
        wait(lambda: self.window.exports.job is not None and self.window.exports.job.done and path.exists())

    def click_tab(self, text: str) -> None:
        """Click the tab called `text` in the window's tabbed docks (e.g. "Capture" beside "Stats")."""
        bar = next(b for b in self.window.findChildren(QTabBar) if text in [b.tabText(i) for i in range(b.count())])
        index = [bar.tabText(i) for i in range(bar.count())].index(text)
        QTest.mouseClick(bar, Qt.LeftButton, Qt.NoModifier, bar.tabRect(index).center())
        wait(lambda: bar.currentIndex() == index)

    def run_to(self, name: str) -> None:
        """Filter the Stages tree to `name`, click its row, press Ctrl+F10 (Run to Stage)."""
        navigator = self.window.navigator
        type_into(navigator.filter, name)
        tree = navigator.tree
        item = next(i for i in _items(tree) if i.data(NAME, NAME_ROLE) == name and not i.isHidden())
        tree.scrollToItem(item)
        QTest.mouseClick(tree.viewport(), Qt.LeftButton, Qt.NoModifier, tree.visualItemRect(item).center())
        wait(lambda: self.ctl.selected_stage == name)
        self.key(Qt.Key_F10, Qt.ControlModifier)
        wait(lambda: self.paused(name))
        type_into(navigator.filter, "")

    # ----- what the window says ---------------------------------------------------------------

    def texts(self) -> dict:
        """The texts on screen that say what the picture shows (no tensor statistics)."""
        w = self.window
        docks = sorted(name for name, dock in w.docks.items() if dock.isVisible() and not dock.visibleRegion().isEmpty())
        return {
            "size": [w.width(), w.height()],
            "stage": self.ctl.current.name if self.ctl.current is not None else None,
            "status": [label.text() for label in (w.status_stage, w.status_model, w.status_device, w.status_state)],
            "menus": [a.text() for a in w.menuBar().actions() if a.isVisible()],
            "toolbar": [a.text() for a in w.debug_toolbar.actions() if a.isVisible() and a.text()],
            "docks": docks,
            "heatmap": w.heatmap_panel.caption.text(),
            "heads": visible_labels(w.docks["heads"]) if "heads" in docks else [],
            **({"capture": visible_labels(w.docks["capture"])} if "capture" in docks else {}),
            **({"model_view": visible_labels(w.docks["model_view"])} if "model_view" in docks else {}),
        }

    def save(self, name: str, widget: QWidget, texts: dict) -> None:
        """Write NAME.png (the widget as drawn) and NAME.json (the texts it showed)."""
        self.save_picture(name, widget.grab(), texts)

    def shot(self, name: str, width: int, height: int, **more) -> None:
        """Resize the window, let docks and plots settle, save the picture and its texts (and `more`)."""
        if not self.wanted(name):
            return
        self.window.resize(width, height)
        wait(lambda: self.window.width() == width and self.window.height() == height)
        QTest.qWait(500)  # docks, plots and thumbnails laid out at their final size
        # ... and the display worker's thumbnails drawn (on a loaded machine they take longer than that)
        heads = self.window.heads_panel
        wait(lambda: self.ctl.shown.settled() and (not heads.isVisible() or heads.settled()))
        self.save(name, self.window, {**self.texts(), **more})
    def file_open(self, folder: Path, picture: str) -> None:
        """File ▸ Open (Ctrl+O), its folder pasted into the file name and Open; then the picture: the window
        with the dialog drawn where it stands (the dialog's texts beside the window's); then Cancel."""
        from PySide6.QtCore import QTimer
        from PySide6.QtGui import QPainter
        from PySide6.QtWidgets import QTreeView

        def answer() -> None:
            shown = _file_dialog()
            if shown is None or not _in_folder(shown, folder):
                QTimer.singleShot(50, answer)
                return
            tree = shown.findChild(QTreeView)
            model, root = tree.model(), tree.rootIndex()
            if not getattr(answer, "settled", False):
                answer.settled = True
                QTimer.singleShot(500, answer)  # the listing and its columns laid out
                return
            if self.wanted(picture):
                drawn = self.window.grab()
                painter = QPainter(drawn)
                painter.drawPixmap(self.window.mapFromGlobal(shown.mapToGlobal(shown.rect().topLeft())), shown.grab())
                painter.end()
                texts = {**self.texts(), "dialog": {
                    "title": shown.windowTitle(),
                    "labels": visible_labels(shown),
                    "columns": [model.headerData(c, Qt.Horizontal) for c in range(model.columnCount(root))],
                    "types": sorted({model.index(r, 2, root).data() for r in range(model.rowCount(root))})}}
                self.save_picture(picture, drawn, texts)
            shown.reject()

        QTimer.singleShot(50, answer)
        self.key(Qt.Key_O, Qt.ControlModifier)  # returns when the dialog closes

    def open_file(self, path: Path) -> None:
        """File ▸ Open (Ctrl+O) as a person uses it: the file's folder pasted into the file name and Open,
        then a click on the file's row and Open (`user_actions.choose_file` says why not its name pasted).
        Returns once the dialog has closed; the window then reads the file. A dialog still up after the
        click, or an error while answering it, cancels the dialog and is raised here (no script waits
        on a modal dialog for ever)."""
        from PySide6.QtCore import QTimer

        state: dict = {}

        def answer() -> None:
            shown = _file_dialog()
            try:
                if "chosen" in state:
                    if shown is not None:
                        raise TimeoutError(f"File ▸ Open's dialog stayed up after {path.name} was chosen")
                    return
                if shown is None or not _in_folder(shown, path.parent):
                    QTimer.singleShot(50, answer)
                    return
                state["chosen"] = True
                choose_file(shown, path.name)
                QTimer.singleShot(1000, answer)
            except Exception as exc:  # noqa: BLE001 - raised below, once the dialog no longer blocks
                state["error"] = exc
                if shown is not None:
                    shown.reject()

        QTimer.singleShot(50, answer)
        self.key(Qt.Key_O, Qt.ControlModifier)  # returns when the dialog closes
        if "error" in state:
            raise state["error"]

    def save_picture(self, name: str, picture, texts: dict) -> None:
        """Write NAME.png (a drawn picture) and NAME.json (the texts it showed)."""
        path = self.out / f"{name}.png"
        if not picture.save(str(path), "PNG"):
            raise OSError(f"could not write {path}")
        (self.out / f"{name}.json").write_text(json.dumps(texts, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
        print(f"saved {path}")


def _file_dialog():
    """The file dialog on screen, or None."""
    from PySide6.QtWidgets import QFileDialog

    return next((w for w in QApplication.topLevelWidgets() if isinstance(w, QFileDialog) and w.isVisible()), None)


def _in_folder(dialog, folder: Path) -> bool:
    """Whether `dialog` shows `folder` with its listing read; if it shows another folder, paste `folder`
    into the file name and click Open (a folder's name opens it)."""
    from PySide6.QtWidgets import QTreeView

    tree = dialog.findChild(QTreeView)
    if tree is None:
        return False
    if dialog.directory().absolutePath() != str(folder):
        paste(dialog.findChild(QLabel, "fileNameLabel").buddy(), str(folder))
        return False
    return tree.model().rowCount(tree.rootIndex()) > 0


def _items(tree):
    stack = [tree.topLevelItem(i) for i in range(tree.topLevelItemCount())]
    while stack:
        item = stack.pop()
        yield item
        stack.extend(item.child(i) for i in range(item.childCount()))


def choose(combo, text: str) -> None:
    """Pick `text` in a combo box with the arrow keys, as a person walks its list (Down, then Up)."""
    combo.setFocus()
    for key in (Qt.Key_Down, Qt.Key_Up):
        for _ in range(combo.count()):
            if combo.currentText() == text:
                return
            QTest.keyClick(combo, key)
    raise LookupError(f"{text!r} is not among {[combo.itemText(i) for i in range(combo.count())]}")


def click(widget: QWidget) -> None:
    """A left click at the centre of `widget`; on a check box, on its box (a check box as wide as its
    dialog takes clicks on its box and words only, not on the empty space at its centre)."""
    from PySide6.QtCore import QPoint
    from PySide6.QtWidgets import QCheckBox

    point = QPoint(8, widget.height() // 2) if isinstance(widget, QCheckBox) else widget.rect().center()
    QTest.mouseClick(widget, Qt.LeftButton, Qt.NoModifier, point)


def command_line(description: str, pictures: tuple[str, ...], main, argv: list[str] | None = None) -> None:
    """A picture script's command line: `[OUT_DIR] [--only NAME ...]` (OUT_DIR defaults to docs/), then
    `main(out, only)`."""
    import argparse
    import sys

    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("out", nargs="?", type=Path, default=Path(__file__).resolve().parent)
    parser.add_argument("--only", nargs="+", choices=pictures, help="make only these pictures")
    args = parser.parse_args(sys.argv[1:] if argv is None else argv)
    main(args.out, set(args.only) if args.only else None)
