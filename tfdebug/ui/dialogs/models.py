"""Debug ▸ Models… (and the … button beside the Model box): the bundled models and the models in the
local Hugging Face cache, with architecture, size on disk and whether tfdebug opens them (and why
not), and a download of a hub id that is not in the cache (a progress bar and Cancel).

The cache is scanned off the GUI thread (`state.hub_models.HubModels`) when the window opens and
again after a download or on Rescan; choosing a row puts its spec in the Model box, and the next
Run loads it through the same path as `--model`.
"""

from __future__ import annotations

from PySide6.QtCore import QT_TRANSLATE_NOOP, Qt, Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QDialog,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QProgressBar,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from tfdebug.ui.actions import registry as actions
from tfdebug.ui.actions.context import ActionContext
from tfdebug.ui.i18n.language import phrase_text, shown_text
from tfdebug.ui.render.stage_text import fmt_bytes
from tfdebug.ui.state.hub_models import HubModels

MODEL, ARCHITECTURE, SIZE, SUPPORT = range(4)
SPEC_ROLE, SUPPORTED_ROLE = Qt.ItemDataRole.UserRole + 1, Qt.ItemDataRole.UserRole + 2


class ModelsDialog(QDialog):
    """The model table (bundled, then cached), Use, Rescan, and the download row."""

    chosen = Signal(str)  # a model spec the user picked

    def __init__(self, hub_models: HubModels, bundled: list[str], parent: QWidget | None = None):
        super().__init__(parent)
        self.hub_models, self.bundled = hub_models, list(bundled)
        self.setObjectName("models-dialog")
        self._select_after_scan = ""
        self.setWindowTitle(self.tr("Models"))
        self.where = QLabel()
        self.where.setTextFormat(Qt.TextFormat.PlainText)  # the cache's path
        self.where.setWordWrap(True)
        self.table = QTableWidget(0, 4)
        self.table.setObjectName("models-table")
        self.table.setHorizontalHeaderLabels([self.tr("Model"), self.tr("Architecture"), self.tr("Size on disk"),
                                              self.tr("tfdebug")])
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.horizontalHeader().setSectionResizeMode(SUPPORT, QHeaderView.ResizeMode.Stretch)
        self.table.verticalHeader().hide()
        self.table.itemSelectionChanged.connect(self._selection_changed)
        self.table.itemDoubleClicked.connect(lambda item: self.use())
        self.use_button = QPushButton(self.tr("Use"))
        self.use_button.clicked.connect(self.use)
        self.rescan_button = QPushButton(self.tr("Rescan"))
        self.rescan_button.clicked.connect(hub_models.scan)
        self.hub_id = QLineEdit()
        self.hub_id.setObjectName("models-hub-id")
        self.hub_id.setPlaceholderText(self.tr("org/name, e.g. Qwen/Qwen3-0.6B"))
        self.hub_id.returnPressed.connect(self.download)
        self.download_button = QPushButton(self.tr("Download"))
        self.download_button.clicked.connect(self.download)
        self.progress = QProgressBar()
        self.progress.setVisible(False)
        self.cancel_button = QPushButton(self.tr("Cancel"))
        self.cancel_button.setVisible(False)
        self.cancel_button.clicked.connect(hub_models.cancel_download)
        self.status = QLabel()
        self.status.setTextFormat(Qt.TextFormat.PlainText)  # it names a hub id the user typed
        self.status.setWordWrap(True)
        self.status.setObjectName("models-status")
        buttons = QHBoxLayout()
        buttons.addWidget(self.rescan_button)
        buttons.addStretch(1)
        buttons.addWidget(self.use_button)
        fetch = QHBoxLayout()
        fetch.addWidget(QLabel(self.tr("Download from the Hugging Face hub:")))
        fetch.addWidget(self.hub_id, 1)
        fetch.addWidget(self.download_button)
        fetch.addWidget(self.progress)
        fetch.addWidget(self.cancel_button)
        layout = QVBoxLayout(self)
        layout.addWidget(self.where)
        layout.addWidget(self.table, 1)
        layout.addLayout(buttons)
        layout.addLayout(fetch)
        layout.addWidget(self.status)
        hub_models.scanned.connect(self.fill)
        hub_models.scanned.connect(self._select_downloaded)  # after fill: the new row is in the table
        hub_models.download_progress.connect(self._progress)
        hub_models.download_finished.connect(self._downloaded)
        hub_models.download_failed.connect(lambda sentence: self._download_ended(shown_text(sentence)))
        hub_models.download_cancelled.connect(lambda: self._download_ended(self.tr("The download was cancelled.")))
        self.resize(900, 420)
        self.fill()

    # ----- the table ----------------------------------------------------------------------------
    def fill(self) -> None:
        """The bundled models, then the cache's (or a sentence while it is scanned or unreadable)."""
        from tfdebug.adapters.hf.hub import cache_dir

        hub = self.hub_models
        selected = self.selected_spec()
        rows = [(spec, self.tr("bundled with tfdebug"), "–", True, "") for spec in self.bundled]
        rows += [(r.spec, r.architecture, fmt_bytes(r.size_on_disk), r.supported, phrase_text(r.reason))
                 for r in hub.rows]
        self.table.setRowCount(len(rows))
        for i, (spec, architecture, size, supported, reason) in enumerate(rows):
            support = self.tr("yes") if supported else self.tr("no: {reason}").format(reason=reason)
            for column, text in enumerate((spec, architecture, size, support)):
                item = QTableWidgetItem(text)
                item.setData(SPEC_ROLE, spec)
                item.setData(SUPPORTED_ROLE, supported)
                item.setToolTip(support if column == SUPPORT else text)
                if not supported:
                    item.setForeground(Qt.GlobalColor.gray)
                self.table.setItem(i, column, item)
            if spec == selected:
                self.table.selectRow(i)
        self.table.resizeColumnsToContents()
        try:
            where = str(cache_dir())
        except ImportError:  # no huggingface_hub: the scan said so
            where = ""
        if hub.scanning or not hub.scanned_once:
            said = self.tr("Reading the Hugging Face cache {cache}…").format(cache=where)
        elif hub.scan_error:
            said = shown_text(hub.scan_error)
        else:
            said = self.tr("{count} models in the Hugging Face cache {cache}.").format(count=len(hub.rows), cache=where)
        self.where.setText(said)
        self._selection_changed()

    def selected_spec(self) -> str | None:
        """The spec of the selected row, or None."""
        items = self.table.selectedItems()
        return items[0].data(SPEC_ROLE) if items else None

    def select(self, spec: str) -> bool:
        """Select the row of `spec`; False when the table has none."""
        for i in range(self.table.rowCount()):
            if self.table.item(i, MODEL).data(SPEC_ROLE) == spec:
                self.table.selectRow(i)
                return True
        return False

    def _selection_changed(self) -> None:
        items = self.table.selectedItems()
        self.use_button.setEnabled(bool(items) and bool(items[0].data(SUPPORTED_ROLE)))

    def use(self) -> None:
        """Put the selected model in the Model box and close (a model tfdebug cannot open is not used)."""
        spec = self.selected_spec()
        if spec is not None and self.use_button.isEnabled():
            self.chosen.emit(spec)
            self.accept()

    # ----- downloads ----------------------------------------------------------------------------
    def download(self) -> None:
        """Start downloading the hub id typed in the download row (the sentence below says how it went)."""
        if not self.hub_id.text().strip() or not self.hub_models.download(self.hub_id.text()):
            return
        self.status.setText(self.tr("Downloading {model}…").format(model=self.hub_id.text().strip()))
        self.progress.setRange(0, 0)  # busy until the first bytes say the total
        for widget in (self.progress, self.cancel_button):
            widget.setVisible(True)
        self.download_button.setEnabled(False)

    def _progress(self, done, total) -> None:
        if total:
            self.progress.setRange(0, 1000)
            self.progress.setValue(int(1000 * min(done, total) / total))
            self.progress.setFormat(f"{fmt_bytes(done)} / {fmt_bytes(total)}")

    def _downloaded(self, spec: str) -> None:
        self._download_ended(self.tr("{model} is in the Hugging Face cache: select it and press Use.").format(model=spec))
        self._select_after_scan = spec

    def _select_downloaded(self) -> None:
        """Select the model just downloaded once a scan lists it (a scan that was already running
        when the download ended may not; the scan after it does)."""
        if self._select_after_scan and self.select(self._select_after_scan):
            self._select_after_scan = ""

    def _download_ended(self, sentence: str) -> None:
        self.status.setText(sentence)
        for widget in (self.progress, self.cancel_button):
            widget.setVisible(False)
        self.download_button.setEnabled(True)


class ModelTools:
    """The window's model list: the cache scan (started now, off the GUI thread), the Model box's entries
    and the Models dialog."""

    def __init__(self, window, bundled: list[str]):
        self.window = window
        self.bundled = list(bundled)
        self.hub_models = HubModels(window)
        self.dialog: ModelsDialog | None = None
        self.hub_models.scanned.connect(lambda: window.input_bar.show_cached(self.hub_models.rows))
        self.hub_models.scan()

    def open(self) -> ModelsDialog:
        """Show the Models dialog (made once), refilled, with the Model box's model selected."""
        if self.dialog is None:
            self.dialog = ModelsDialog(self.hub_models, self.bundled, self.window)
            self.dialog.chosen.connect(self.window.input_bar.choose_model)
        self.dialog.fill()
        self.dialog.select(self.window.input_bar.model_spec())
        self.dialog.open()
        return self.dialog


@actions.action("tfdebug.session.models", QT_TRANSLATE_NOOP("actions", "Models…"),
                tip=QT_TRANSLATE_NOOP("actions", "The bundled models and those in the Hugging Face cache, with their "
                                                 "architecture, size and support; download one"),
                toolbar=False, enabled=lambda ctl: not ctl.loader.busy,
                menu="debug", group=3, order=30)
def choose_model(ctx: ActionContext) -> None:
    ctx.tools.models.open()
