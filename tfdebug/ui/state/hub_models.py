"""The models the window offers beside the bundled ones: the local Hugging Face cache, scanned off the
GUI thread, and downloads into it.

`HubModels` scans with huggingface_hub's own `scan_cache_dir` (through `adapters.hub.scan_cache`,
which honours HF_HOME / HF_HUB_CACHE and checks each model's files and config without reading a
weight) in a `Job`, and downloads a hub id with `adapters.hub.resolve(download=True)` in another,
reporting its bytes and stopping when cancelled. The Model box and the Models dialog both read it.
"""

from __future__ import annotations

from PySide6.QtCore import QObject, Signal

from tfdebug.adapters.hf import hub
from tfdebug.ui.i18n.language import said
from tfdebug.ui.workers.jobs import Job, JobCancelled


class HubModels(QObject):
    """The cached models (`rows`, a list of hub.CachedModel), a rescan, and at most one download at a time."""

    scanned = Signal()                     # `rows` (and `scan_error`) changed
    download_progress = Signal(object, object)  # (done bytes, total bytes)
    download_finished = Signal(str)        # the spec now in the cache ("hf:org/name")
    download_failed = Signal(object)       # a sentence (a Message content): no network, no such model …
    download_cancelled = Signal()

    def __init__(self, parent: QObject | None = None):
        super().__init__(parent)
        self.rows: list[hub.CachedModel] = []
        self.scan_error = ""  # a sentence when the cache could not be scanned (huggingface_hub missing)
        self.scanned_once = False
        self._scan: Job | None = None
        self._again = False  # scan once more when the running scan ends
        self._download: Job | None = None

    @property
    def scanning(self) -> bool:
        """A scan of the cache is running."""
        return self._scan is not None

    @property
    def downloading(self) -> bool:
        """A download is running."""
        return self._download is not None

    def scan(self) -> None:
        """Scan the cache again on a worker thread. A scan already running may have read the cache
        before what changed it (a download ending): it finishes, and one more scan follows it."""
        if self._scan is not None:
            self._again = True
            return
        self._again = False
        job = self._scan = Job(lambda job: hub.scan_cache(), name="scan-cache",
                               describe_failure=lambda exc: said(lambda: self.tr(
                                   "The Hugging Face cache could not be read.")))
        job.finished.connect(lambda rows: self._scanned(rows, ""))
        job.failed.connect(lambda sentence, details: self._scanned([], sentence))
        job.cancelled_signal.connect(self._scan_cancelled)
        job.start()

    def _scanned(self, rows, error) -> None:
        self._scan = None
        self.rows, self.scan_error, self.scanned_once = list(rows), error, True
        self.scanned.emit()
        if self._again:
            self.scan()

    def _scan_cancelled(self) -> None:
        self._again = False  # cancelled as the window closes: no scan after it
        self._scanned(self.rows, self.scan_error)

    def row(self, spec: str) -> hub.CachedModel | None:
        """The cached model `spec` names, or None."""
        return next((r for r in self.rows if r.spec == spec), None)

    def download(self, text: str) -> bool:
        """Fetch the hub id in `text` ("org/name", "hf:org/name@rev") on a worker thread; False (and
        `download_failed` said why) when it is not a hub id or a download is running."""
        hub_id = hub.parse_hub_id(text.strip().removeprefix("hf:"))
        if hub_id is None or self._download is not None:
            self.download_failed.emit(said(lambda: self.tr(
                "{text} is not a Hugging Face model id (write it as org/name).").format(text=text.strip()[:100]))
                if hub_id is None else said(lambda: self.tr("A download is already running.")))
            return False

        def work(job: Job):
            try:
                hub.resolve(hub_id, download=True, progress=job.report, cancelled=lambda: job.cancelled)
            except hub.DownloadCancelledError:
                raise JobCancelled() from None
            return hub_id.spec
        job = self._download = Job(work, name="download", describe_failure=lambda exc: said(lambda: self.tr(
            "The download failed unexpectedly.")))
        job.progress.connect(self.download_progress.emit)
        job.finished.connect(self._downloaded)
        job.failed.connect(lambda sentence, details: self._download_ended(self.download_failed, sentence))
        job.cancelled_signal.connect(lambda: self._download_ended(self.download_cancelled))
        job.start()
        return True

    def cancel_download(self) -> None:
        """Stop the running download at its next chunk (the cache keeps only complete files)."""
        if self._download is not None:
            self._download.cancel()

    def _downloaded(self, spec: str) -> None:
        self._download = None
        self.download_finished.emit(spec)
        self.scan()

    def _download_ended(self, signal, *args) -> None:
        self._download = None
        signal.emit(*args)

    def shutdown(self, timeout: float = 10.0) -> None:
        """The window closes: stop a download and join both workers."""
        for job in (self._download, self._scan):
            if job is not None:
                job.cancel()
                job.wait(timeout)
