"""File menu: open snapshots (Open…, Open Recent, drag and drop) and Export… with progress and Cancel.

`install(window)` adds the actions to `window.file_menu` and takes the window's drop
handler. Opening shows the snapshot in replay mode through `window.load_replay`; a bad
file shows its one sentence through `window.show_error` and the app goes on. Pass
exports run on a worker thread behind a QProgressDialog whose Cancel stops the write
(nothing is left behind); heatmap exports (CSV, PNG, SVG) are quick and run in place.
"""

from __future__ import annotations

import threading
from functools import partial
from pathlib import Path
from typing import Callable

from PySide6.QtCore import QObject, Qt, Signal
from PySide6.QtGui import QKeySequence
from PySide6.QtWidgets import QDialog, QFileDialog, QProgressDialog

from tfdebug.core.errors import ExportCancelledError, ExportError, TfdebugError
from tfdebug.io.exports import export_pass, export_view as write_view
from tfdebug.io.formats import View, format_for
from tfdebug.io.recording import Recording
from tfdebug.io.snapshot import open_snapshot as read_snapshot
from tfdebug.ui.export_dialog import ExportDialog

RECENT_KEY = "files/recent"
FOLDER_KEY = "files/folder"
MAX_RECENT = 10
CANCELLED = "Export cancelled; nothing was written."


# ----- recent files ----------------------------------------------------------------------------
def recent_files(settings) -> list[str]:
    """Recently opened snapshots, newest first (QSettings may hand back a str or None)."""
    value = settings.value(RECENT_KEY)
    if value is None:
        return []
    items = [value] if isinstance(value, str) else list(value)
    return [str(p) for p in items if p]


def add_recent(settings, path: str) -> None:
    path = str(Path(path).resolve())
    items = [path] + [p for p in recent_files(settings) if p != path]
    settings.setValue(RECENT_KEY, items[:MAX_RECENT])
    settings.setValue(FOLDER_KEY, str(Path(path).parent))


# ----- opening ---------------------------------------------------------------------------------
def open_snapshot(window, path: str) -> bool:
    """Show the snapshot at `path` in replay mode; on a bad file, show its sentence. True when shown."""
    try:
        recording = read_snapshot(path)
        stepper = recording.stepper()  # reads the first stage, which may fail too
    except TfdebugError as exc:
        window.show_error(exc.message)
        return False
    except Exception as exc:  # whatever a file does, the app stays up and says so
        window.show_error(f"Cannot open {path}: {exc or 'the file could not be read'}.")
        return False
    tokens = recording.tokens
    title = f"{Path(path).name} · " + " → ".join(" ".join(words) for words in tokens.values())
    window.load_replay(stepper, tokens, title)
    state = getattr(window, "file_actions", None)
    if state is not None:
        state.set_recording(recording, stepper)
    add_recent(window.settings, path)
    return True


# ----- what to export --------------------------------------------------------------------------
def current_recording(window) -> tuple[Recording | None, str]:
    """The pass the window shows as a Recording, and a note when it is incomplete.

    A replayed snapshot exports as it was opened; a live pass exports the stages it has
    run so far (with any edits), since the model cannot run twice at once.
    """
    stepper = window.stepper
    state = getattr(window, "file_actions", None)
    if stepper is None:
        return None, ""
    if not stepper.is_live:
        if state is not None and state.recording is not None and state.stepper is stepper:
            return state.recording, ""
        return None, ""
    session = window.session
    history = list(stepper.history)
    if session is None or not history:
        return None, ""
    note = ""
    if stepper.state != "finished":
        total = len(session.plan) if session.stages is None else len(history)
        note = (f"The pass has run {len(history)} of {total} stages; only those are exported. "
                f"Continue to the end to export them all.")
    return Recording.from_session(session, history), note


def _labels(window, axis: int, shown: int, source: int, source_index: Callable[[int], int]) -> list[str] | None:
    ctl = getattr(window, "ctl", None)
    labels = ctl.axis_labels(axis) if ctl is not None and axis >= 0 else None
    if not labels:
        return None
    if len(labels) == shown:
        return list(labels)
    if len(labels) == source:  # downsampled: each shown cell starts at a source token
        return [labels[source_index(i)] for i in range(shown)]
    return None


def export_view(window, path: str, suffix: str) -> bool:
    """Export the heatmap being shown as CSV (its values), PNG or SVG; errors go to show_error."""
    shown = window.current_slice()
    if shown is None:
        window.show_error("No heatmap is shown: step to a stage first.")
        return False
    panel = window.heatmap_panel

    def render(target: str, picture: str) -> None:
        (panel.export_png if picture == ".png" else panel.export_svg)(target)

    rows, cols = shown.values.shape
    view = View(shown, _labels(window, shown.row_axis, rows, shown.source_shape[0], shown.source_row),
                _labels(window, shown.col_axis, cols, shown.source_shape[1], shown.source_col), render)
    try:
        write_view(view, path, suffix)
    except TfdebugError as exc:
        window.show_error(exc.message)
        return False
    except Exception as exc:  # an image writer's own failure
        window.show_error(f"Cannot export the heatmap to {path}: {exc}.")
        return False
    window.statusBar().showMessage(f"Exported the heatmap to {path}", 8000)
    return True


# ----- the export worker -----------------------------------------------------------------------
class ExportJob(QObject):
    """One pass export on a worker thread, with a progress dialog whose Cancel stops it.

    `finished(message)` arrives on the UI thread: None on success, else the sentence
    (CANCELLED after a cancel). `done` and `message` say the same afterwards.
    """

    progressed = Signal(object, object)
    finished = Signal(object)

    def __init__(self, window, work: Callable[[Callable], None], path: str, stages: int):
        super().__init__(window)
        self.window, self.path, self.stages = window, path, stages
        self.done, self.message = False, None
        self._cancel = threading.Event()
        self.dialog = QProgressDialog(f"Exporting {stages} stages to {Path(path).name}…", "Cancel", 0, 1000, window)
        self.dialog.setObjectName("export-progress")
        self.dialog.setWindowTitle("Export")
        self.dialog.setWindowModality(Qt.WindowModal)
        self.dialog.setMinimumDuration(300)
        self.dialog.setAutoClose(False)
        self.dialog.setAutoReset(False)
        self.dialog.canceled.connect(self.cancel)
        self.progressed.connect(self._on_progress)
        self.finished.connect(self._on_finished)
        cancel = self._cancel
        window.destroyed.connect(lambda *_: cancel.set())
        self._thread = threading.Thread(target=self._run, args=(work,), daemon=True, name="tfdebug-export")

    def start(self) -> None:
        self._thread.start()

    def cancel(self) -> None:
        self._cancel.set()

    def wait(self, timeout: float | None = None) -> None:
        """Join the worker thread (tests; the UI never blocks on it)."""
        self._thread.join(timeout)

    def _progress(self, done: int, total: int) -> bool:
        self._emit(self.progressed, done, total)
        return not self._cancel.is_set()

    def _run(self, work) -> None:
        try:
            work(self._progress)
        except ExportCancelledError:
            message = CANCELLED
        except TfdebugError as exc:
            message = exc.message
        except Exception as exc:  # reported, never raised into Qt
            message = f"The export failed: {exc or 'the writer stopped'}."
        else:
            message = None
        self._emit(self.finished, message)

    @staticmethod
    def _emit(signal, *args) -> None:
        try:
            signal.emit(*args)
        except RuntimeError:  # the window was closed meanwhile
            pass

    def _on_progress(self, done, total) -> None:
        if not self.done:
            self.dialog.setValue(int(1000 * done / total) if total else 0)

    def _on_finished(self, message) -> None:
        self.done, self.message = True, message
        self.dialog.close()
        if message is None:
            self.window.statusBar().showMessage(f"Exported {self.stages} stages to {self.path}", 8000)
        elif message == CANCELLED:
            self.window.statusBar().showMessage(message, 8000)
        else:
            self.window.show_error(message)


def start_export(window, path: str, stages: list[str] | None = None, fmt: str | None = None) -> ExportJob | None:
    """Export to `path` (format from `fmt` or the extension); returns the running job for pass formats."""
    try:
        chosen = format_for(path, fmt)
    except ExportError as exc:
        window.show_error(exc.message)
        return None
    suffix = chosen.suffix
    if chosen.scope == "view":
        export_view(window, path, suffix)
        return None
    state = getattr(window, "file_actions", None)
    if state is not None and state.job is not None and not state.job.done:
        window.show_error("An export is already running; wait for it or cancel it.")
        return None
    recording, _ = current_recording(window)
    if recording is None:
        window.show_error("There is no recorded pass to export yet: run a pass or open a snapshot first.")
        return None
    try:
        selected = recording.select(stages)
    except TfdebugError as exc:
        window.show_error(exc.message)
        return None
    job = ExportJob(window, partial(export_pass, selected, path, None, suffix), path, len(selected.captures))
    if state is not None:
        state.job = job
    job.start()
    return job


# ----- the menu --------------------------------------------------------------------------------
class FileActions(QObject):
    """The window's File menu entries and the snapshot it shows (kept open for lazy reads)."""

    def __init__(self, window):
        super().__init__(window)
        self.window = window
        self.recording: Recording | None = None
        self.stepper = None
        self.job: ExportJob | None = None
        menu = window.file_menu
        self.open_action = menu.addAction("Open Snapshot…", self.open_dialog)
        self.open_action.setObjectName("tfdebug.file.open")
        self.open_action.setShortcut(QKeySequence.Open)
        self.recent_menu = menu.addMenu("Open Recent")
        self.recent_menu.setObjectName("menu-recent")
        self.recent_menu.aboutToShow.connect(self.rebuild_recent)
        self.rebuild_recent()
        menu.addSeparator()
        self.export_action = menu.addAction("Export…", self.export_dialog)
        self.export_action.setObjectName("tfdebug.file.export")
        self.export_action.setShortcut(QKeySequence("Ctrl+E"))
        window.drop_handler = self.drop
        window.ctl.session_changed.connect(self._session_changed)

    def _session_changed(self) -> None:
        """Release the snapshot's file once the window shows another pass."""
        if self.recording is not None and self.window.ctl.stepper is not self.stepper:
            self.set_recording(None, None)

    def folder(self) -> str:
        return str(self.window.settings.value(FOLDER_KEY) or Path.home())

    def set_recording(self, recording: Recording | None, stepper) -> None:
        old, self.recording, self.stepper = self.recording, recording, stepper
        if old is not None:
            old.close()

    def open_dialog(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self.window, "Open Snapshot", self.folder(),
                                              "tfdebug snapshots (*.safetensors);;All files (*)")
        if path:
            open_snapshot(self.window, path)

    def rebuild_recent(self) -> None:
        menu = self.recent_menu
        menu.clear()
        paths = recent_files(self.window.settings)
        for path in paths:
            action = menu.addAction(Path(path).name, partial(open_snapshot, self.window, path))
            action.setToolTip(path)
            action.setData(path)
        if not paths:
            menu.addAction("No recent snapshots").setEnabled(False)
            return
        menu.addSeparator()
        menu.addAction("Clear Recent", self.clear_recent)

    def clear_recent(self) -> None:
        self.window.settings.setValue(RECENT_KEY, [])
        self.rebuild_recent()

    def drop(self, paths: list[str]) -> None:
        snapshots = [p for p in paths if p.lower().endswith(".safetensors")]
        if not snapshots:
            self.window.show_error("Drop a .safetensors snapshot on the window to open it.")
            return
        open_snapshot(self.window, snapshots[0])

    def export_dialog(self) -> None:
        window = self.window
        recording, note = current_recording(window)
        has_slice = window.current_slice() is not None
        if recording is None and not has_slice:
            window.show_error("There is nothing to export yet: run a pass or open a snapshot first.")
            return
        current = window.stepper.current.name if window.stepper and window.stepper.current else None
        dialog = ExportDialog(recording.names() if recording else [], current, self.folder(), note,
                              has_slice, window)
        if recording is None:
            dialog.set_format(".png")
        if dialog.exec() != QDialog.Accepted:
            return
        path, suffix, stages = dialog.choice()
        window.settings.setValue(FOLDER_KEY, str(Path(path).parent))
        start_export(window, path, stages, suffix)


def install(window) -> FileActions:
    """Add Open…, Open Recent and Export… to the window's File menu and handle dropped files."""
    window.file_actions = FileActions(window)
    return window.file_actions
