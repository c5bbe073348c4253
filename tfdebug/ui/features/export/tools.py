"""Exporting: File → Export… for the pass on screen (every stage, or chosen ones) and the heatmap.

Pass exports (snapshot, .npz, .pt …) run as a `Job` (the one worker pattern) behind a
progress dialog whose Cancel stops the write; nothing is left behind. Heatmap exports
(CSV, PNG, SVG) are quick and run in place. Every outcome reaches the user through the
controller: an error sentence in the message bar, or a notice in the status bar.
"""

from __future__ import annotations

from pathlib import Path
from typing import Callable

from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication, QObject, QSettings, Qt
from PySide6.QtWidgets import QDialog, QProgressDialog, QWidget

from tfdebug.core.display import held_values
from tfdebug.core.errors import ExportCancelledError, ExportError, TfdebugError
from tfdebug.io.exports import export_view as write_view
from tfdebug.io.formats import View, format_for
from tfdebug.ui.actions import registry as actions
from tfdebug.ui.actions.context import ActionContext
from tfdebug.ui.actions.snapshots import FOLDER_KEY, add_recent, is_pass_file, last_folder
from tfdebug.ui.features.export.dialog import ExportDialog, file_stem
from tfdebug.ui.i18n.language import said
from tfdebug.ui.panels.heatmap import HeatmapPanel
from tfdebug.ui.state.controller import DebugController
from tfdebug.ui.workers.jobs import Job, JobCancelled

CANCELLED = QT_TRANSLATE_NOOP("ExportActions", "Export cancelled; nothing was written.")


class ExportActions(QObject):
    """Exports of the pass on screen. `job` is the running (or last) pass export.

    `outcome` says how the last pass export ended: None while running or after success,
    else the sentence shown (CANCELLED after a cancel).
    """

    def __init__(self, ctl: DebugController, settings: QSettings, heatmap: HeatmapPanel, parent: QWidget):
        super().__init__(parent)
        self.ctl, self.settings, self.heatmap, self.widget = ctl, settings, heatmap, parent
        self.job: Job | None = None
        self.dialog: QProgressDialog | None = None
        self.outcome: str | None = None

    # ----- the dialog ------------------------------------------------------------------------
    def export_dialog(self) -> None:
        ctl = self.ctl
        _, note = ctl.recording()
        names = _exportable(ctl)
        has_slice = ctl.shown.current_slice is not None
        if not names and not has_slice:
            ctl.fail(said(lambda: self.tr("There is nothing to export yet: run a pass or open a snapshot first.")))
            return
        current = ctl.current.name if ctl.current is not None else None
        dialog = ExportDialog(names, current, last_folder(self.settings), note, has_slice, self.widget,
                              stem=file_stem(ctl.model_name, current))
        if not names:
            dialog.set_format(".png")
        if dialog.exec() != QDialog.DialogCode.Accepted:
            return
        path, suffix, stages = dialog.choice()
        self.settings.setValue(FOLDER_KEY, str(Path(path).parent))
        self.start(path, stages, suffix)

    # ----- exporting -------------------------------------------------------------------------
    def start(self, path: str, stages: list[str] | None = None, fmt: str | None = None) -> Job | None:
        """Export to `path` (format from `fmt` or the extension); returns the running job for pass formats."""
        ctl = self.ctl
        try:
            chosen = format_for(path, fmt)
        except ExportError as exc:
            ctl.refuse(exc)
            return None
        if chosen.scope == "view":
            self.export_view(path, chosen.suffix)
            return None
        if self.job is not None and not self.job.done:
            ctl.fail(said(lambda: self.tr("An export is already running; wait for it or cancel it.")))
            return None
        source, names = ctl.source, _exportable(ctl)
        if source is None or not names:
            ctl.fail(said(lambda: self.tr(
                "There is no recorded pass to export yet: run a pass or open a snapshot first.")))
            return None
        # The source writes it: from its recording here, or streamed here from where a served pass keeps it.
        count = len(stages) if stages is not None else len(names)
        return self._run(lambda report: source.export(path, report, stages, chosen.suffix), count, path)

    def _run(self, write: Callable[[Callable[[int, int], bool]], object], stages: int, path: str) -> Job:
        """Run `write(progress)` (the export of `stages` stages to `path`) behind a progress dialog with Cancel."""
        def work(job: Job) -> None:
            try:
                write(job.report)
            except ExportCancelledError:
                raise JobCancelled() from None

        def failure(exc: BaseException):
            reason = str(exc)
            return said(lambda: self.tr("The export failed: {reason}.").format(reason=reason or self.tr("the writer stopped")))

        job = Job(work, name="export", describe_failure=failure)
        dialog = QProgressDialog(self.tr("Exporting {n} stages to {name}…").format(n=stages, name=Path(path).name),
                                 self.tr("Cancel"), 0, 1000, self.widget)
        dialog.setObjectName("export-progress")
        dialog.setWindowTitle(self.tr("Export"))
        dialog.setWindowModality(Qt.WindowModality.WindowModal)
        dialog.setMinimumDuration(300)
        dialog.setAutoClose(False)
        dialog.setAutoReset(False)
        dialog.canceled.connect(job.cancel)
        job.progress.connect(lambda done, total: job.done or dialog.setValue(int(1000 * done / total) if total else 0))
        exported = said(lambda: self.tr("Exported {n} stages to {path}").format(n=stages, path=path))  # noqa: E731
        cancelled = said(lambda: QCoreApplication.translate("ExportActions", CANCELLED))  # noqa: E731
        job.finished.connect(lambda _result: self._ended(dialog, None, exported))
        if is_pass_file(path):  # a pass the user wrote is one File ▸ Open Recent offers back
            job.finished.connect(lambda _result: add_recent(self.settings, path))
        job.cancelled_signal.connect(lambda: self._ended(dialog, CANCELLED, cancelled))
        job.failed.connect(lambda sentence, details: self._ended(dialog, sentence, None))
        self.job, self.dialog, self.outcome = job, dialog, None
        job.start()
        return job

    def _ended(self, dialog: QProgressDialog, outcome, notice) -> None:
        """`outcome`: None when written, CANCELLED, or the failure's Message content; `notice` what to say."""
        self.outcome = outcome
        dialog.close()
        if notice is not None:
            self.ctl.inform(notice)
        else:
            self.ctl.fail(outcome)

    def export_view(self, path: str, suffix: str) -> bool:
        """Export the heatmap being shown as CSV (its values), PNG or SVG; errors go to the message bar."""
        ctl = self.ctl
        shown = ctl.shown.current_slice
        if shown is None:
            ctl.fail(said(lambda: self.tr("No heatmap is shown: step to a stage first.")))
            return False
        heatmap = self.heatmap

        def render(target: str, picture: str) -> None:
            (heatmap.render_png if picture == ".png" else heatmap.render_svg)(target)

        rows, cols = shown.values.shape
        kind = ctl.current.info.kind if ctl.current is not None else None
        view = View(held_values(shown.values, kind), self._labels(shown.row_axis, rows, shown.source_shape[0],
                                                                  shown.source_row),
                    self._labels(shown.col_axis, cols, shown.source_shape[1], shown.source_col), render)
        try:
            write_view(view, path, suffix)
        except TfdebugError as exc:
            ctl.refuse(exc)
            return False
        except Exception as exc:  # an image writer's own failure
            reason = str(exc)
            ctl.fail(said(lambda: self.tr("Cannot export the heatmap to {path}: {reason}.").format(path=path,
                                                                                              reason=reason)))
            return False
        ctl.inform(said(lambda: self.tr("Exported the heatmap to {path}").format(path=path)))
        return True

    def _labels(self, axis: int, shown: int, source: int, source_index) -> list[str] | None:
        """Token labels of the shown rows or columns; a downsampled axis takes each cell's first token."""
        labels = self.ctl.axes.labels(axis) if axis >= 0 else None
        if not labels:
            return None
        if len(labels) == shown:
            return list(labels)
        if len(labels) == source:
            return [labels[source_index(i)] for i in range(shown)]
        return None


@actions.action("tfdebug.file.export", QT_TRANSLATE_NOOP("actions", "Export…"), "Ctrl+E",
                QT_TRANSLATE_NOOP("actions",
                                  "Export the pass (snapshot, NumPy, PyTorch) or the heatmap (CSV, PNG, SVG)"),
                toolbar=False,
                menu="file", group=1, order=0)
def export(ctx: ActionContext) -> None:
    ctx.tools.exports.export_dialog()


def _exportable(ctl: DebugController) -> list[str]:
    """The stages the pass on screen's source can export ([] with no pass, or none run yet)."""
    return ctl.source.exportable() if ctl.source is not None else []
