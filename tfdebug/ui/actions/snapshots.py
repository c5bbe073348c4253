"""Opening recorded passes: File → Open Snapshot…, Open Recent, and files dropped on the window.

Every pass format the export registry reads back opens here (a .safetensors snapshot, a .npz or
.pt export), through the same `io.passes.open_pass` as Compare and `tfdebug diff`.

A snapshot is read and checked off the UI thread (`Loader.load_in_background`, `ctl.loader`),
then opens in replay mode through `DebugController.load_replay`, which keeps the
recording open so stages are read when shown; a bad file is one sentence in the message
bar and the app goes on. The menu items are registry actions
(`tfdebug.file.open`, `tfdebug.file.clear_recent`); the recent files are settings.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication, QObject, QSettings
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QMenu, QWidget

from tfdebug.io.formats import suffixes
from tfdebug.io.passes import open_pass
from tfdebug.ui.actions import registry as actions
from tfdebug.ui.actions.context import ActionContext
from tfdebug.ui.i18n.language import said
from tfdebug.ui.render.plain_text import plain_tooltip
from tfdebug.ui.state.controller import DebugController
from tfdebug.ui.widgets.file_dialog import open_file_name

RECENT_KEY = "files/recent"
FOLDER_KEY = "files/folder"
MAX_RECENT = 10
MAX_PATH_CHARS = 4096  # PATH_MAX on Linux


# ----- recent files ----------------------------------------------------------------------------
def recent_files(settings: QSettings) -> list[str]:
    """Recently opened snapshots, newest first (QSettings may hand back a str, a list or None)."""
    value = settings.value(RECENT_KEY)
    if value is None:
        return []
    items = [value] if isinstance(value, str) else value[:MAX_RECENT] if isinstance(value, (list, tuple)) else []
    # Only texts that could be paths (a damaged or hostile file may hold anything there)
    return [p for p in items if isinstance(p, str) and p and len(p) <= MAX_PATH_CHARS and "\0" not in p][:MAX_RECENT]


def add_recent(settings: QSettings, path: str) -> None:
    path = str(Path(path).resolve())
    items = [path] + [p for p in recent_files(settings) if p != path]
    settings.setValue(RECENT_KEY, items[:MAX_RECENT])
    settings.setValue(FOLDER_KEY, str(Path(path).parent))


def last_folder(settings: QSettings) -> str:
    """The folder of the last snapshot opened or exported (the home folder at first)."""
    value = settings.value(FOLDER_KEY)
    return value if isinstance(value, str) and value and len(value) <= MAX_PATH_CHARS else str(Path.home())


def pass_filter() -> str:
    """The file dialogs' filter for recorded passes: every pass format the export registry can read back."""
    patterns = " ".join(f"*{suffix}" for suffix in suffixes("pass"))
    return QCoreApplication.translate("SnapshotActions", "Recorded passes ({patterns});;All files (*)").format(
        patterns=patterns)


def is_pass_file(path: str) -> bool:
    """Whether `path` names a format File ▸ Open reads (by its suffix, as the registry knows them)."""
    return Path(path).suffix.lower() in suffixes("pass")


# ----- the actions -----------------------------------------------------------------------------
class SnapshotActions(QObject):
    """Opens snapshots into the controller; `parent` is the widget its file dialog belongs to."""

    def __init__(self, ctl: DebugController, settings: QSettings, parent: QWidget):
        super().__init__(parent)
        self.ctl, self.settings, self.widget = ctl, settings, parent

    def open(self, path: str) -> None:
        """Show the snapshot at `path` in replay mode; on a bad file, say why.

        The file is read and checked off the UI thread (a large pass's manifest and first
        stage would hold the window for ~100 ms); the window is busy meanwhile, as when a
        model loads, and the replay replaces the pass on screen only once the file passed.
        """
        if not self.ctl.loader.load_in_background(lambda job: _read(path), lambda opened: self._show(path, *opened),
                                           lambda exc: _cannot_open(path, exc)):
            self.ctl.fail(said(lambda: self.tr(
                "A model or snapshot is still loading: open {name} once it is on screen.").format(name=Path(path).name)))

    def _show(self, path: str, recording, stepper) -> None:
        tokens = recording.tokens
        title = f"{Path(path).name} · " + " → ".join(" ".join(words) for words in tokens.values())
        backward = recording.backward
        self.ctl.load_replay(stepper, tokens, ("backward · " if backward else "") + title, recording)
        if backward:  # the stages hold gradients, logits first
            what, loss = backward["objective"], float(backward["loss"])
            self.ctl.inform(said(lambda: self.tr(
                "A backward pass: each stage's gradient of {objective} (loss {loss:.5g}), logits first.").format(
                objective=what, loss=loss)))
        add_recent(self.settings, path)

    def open_dialog(self) -> None:
        path = open_file_name(self.widget, self.tr("Open Snapshot"), last_folder(self.settings), pass_filter())
        if path:
            self.open(path)

    def fill_recent(self, menu: QMenu, clear: QAction) -> None:
        """Rebuild the Open Recent menu: one entry per file, then `clear` (the registry's Clear Recent)."""
        menu.clear()
        paths = recent_files(self.settings)
        for path in paths:
            entry = menu.addAction(Path(path).name)
            entry.triggered.connect(lambda checked=False, p=path: self.open(p))
            entry.setToolTip(plain_tooltip(path))  # a file name may look like markup
            entry.setData(path)
        if not paths:
            menu.addAction(self.tr("No recent snapshots")).setEnabled(False)
            return
        menu.addSeparator()
        menu.addAction(clear)

    def clear_recent(self) -> None:
        self.settings.setValue(RECENT_KEY, [])

    def drop(self, paths: list[str]) -> None:
        """Files dropped on the window: open the first snapshot among them."""
        snapshots = [p for p in paths if is_pass_file(p)]
        if not snapshots:
            self.ctl.fail(said(lambda: self.tr("Drop a recorded pass ({suffixes}) on the window to open it.").format(
                suffixes=", ".join(suffixes("pass")))))
            return
        self.open(snapshots[0])


def _read(path: str):
    """(recording, stepper) of the snapshot at `path`: on the worker thread, with its first stage read."""
    recording = open_pass(path)  # a .safetensors snapshot lazily, a .npz / .pt export whole
    try:
        return recording, recording.stepper()  # reads the first stage, which may fail too
    except BaseException:
        recording.close()
        raise


def _cannot_open(path: str, exc: BaseException):
    """What the message bar says about a file that failed in a way no typed error names."""
    reason = str(exc)
    return said(lambda: QCoreApplication.translate("SnapshotActions", "Cannot open {path}: {reason}.").format(
        path=path, reason=reason or QCoreApplication.translate("SnapshotActions", "the file could not be read")))


@actions.action("tfdebug.file.open", QT_TRANSLATE_NOOP("actions", "Open Snapshot…"), "Ctrl+O",
                QT_TRANSLATE_NOOP("actions", "Open a recorded pass (.safetensors) and replay it"), toolbar=False,
                menu="file", group=0, order=10)
def open_snapshot_dialog(ctx: ActionContext) -> None:
    ctx.tools.snapshots.open_dialog()


@actions.action("tfdebug.file.clear_recent", QT_TRANSLATE_NOOP("actions", "Clear Recent"),
                tip=QT_TRANSLATE_NOOP("actions", "Forget the recently opened snapshots"), toolbar=False)
def clear_recent(ctx: ActionContext) -> None:
    ctx.tools.snapshots.clear_recent()
