"""Attaching the window to `tfdebug serve`: File ▸ Connect to Server…, Reconnect, and what the window says.

`RemoteTools.connect(address, token, server_key)` attaches off the GUI thread (a Job) and hands the
controller the RemoteSession as its pass: stepping, breakpoints and the heatmap then go through the
server. The title and status bar say "remote: host" and the server's device; a lost connection is an
error in the message bar and in the status bar ("connection lost"), the window keeps what it has
shown, and File ▸ Reconnect attaches again (the server kept the pass paused where it was).
"""

from __future__ import annotations

from PySide6.QtCore import QT_TRANSLATE_NOOP, QObject, Signal

from tfdebug.remote.errors import RemoteError
from tfdebug.ui.actions import registry as actions
from tfdebug.ui.actions.context import ActionContext
from tfdebug.ui.i18n.language import error_phrase, said
from tfdebug.ui.state.messages import Message
from tfdebug.ui.workers.jobs import Job


class RemoteTools(QObject):
    """The window's remote connection: at most one RemoteSession, shown by the window's controller."""

    _lost = Signal(object)   # from the connection's thread: queued to the GUI thread

    def __init__(self, window):
        super().__init__(window)
        self.window, self.ctl = window, window.ctl
        self.session = None
        self.job: Job | None = None
        self.export_job: Job | None = None
        self.exported: str | None = None  # the last snapshot streamed from the server
        self._lost.connect(self._on_lost)

    # ----- connecting -----------------------------------------------------------------------------
    def connect_to(self, address: str, token: str, server_key: str | None = None) -> None:
        """Attach to the server at `address` off the GUI thread; the pass shows once it has come."""
        from tfdebug.remote.session import RemoteSession

        self.window.status_state.setText(self.tr("connecting…"))
        job = self.job = Job(lambda job: RemoteSession.connect(address, token, server_key=server_key), name="connect",
                             describe_failure=lambda exc: said(lambda: self.tr("Could not connect to the server.")))
        job.finished.connect(self.attach)
        job.failed.connect(lambda sentence, details: self.ctl.message.emit(
            Message("error", sentence, details, topic="remote")))
        job.start()

    def attach(self, session) -> None:
        """Show `session` (a connected RemoteSession) as the window's pass."""
        ctl = self.ctl
        ctl._replace_stepper(session.stepper, session, session.plan, session.layout, session.tokens,
                             self._title(session))
        self.session = ctl.remote = session
        session.on_lost = self._lost.emit
        ctl.model_name = session.model_name
        ctl.device = self._device(session)
        ctl.clear_messages.emit("")
        ctl.session_changed.emit()
        ctl._show_current()
        ctl.state_changed.emit()
        host = session.host
        ctl.info.emit(said(lambda: self.tr("Connected to {host}: the model runs there.").format(host=host)))

    @staticmethod
    def _title(session) -> str:
        return f"remote: {session.host} — {session.title}"

    def _device(self, session, lost: bool = False) -> str:
        text = f"remote: {session.host} · {session.device}"
        return text + " · " + self.tr("connection lost") if lost else text

    # ----- losing it and getting it back ----------------------------------------------------------
    def _on_lost(self, error) -> None:
        session = self.session
        if session is None or self.ctl.remote is not session:
            return  # a connection the window has already left
        self.ctl.device = self._device(session, lost=True)
        self.ctl.message.emit(Message("error", error_phrase(error) if isinstance(error, RemoteError) else str(error),
                                      topic="remote"))
        self.ctl.state_changed.emit()

    def lost(self) -> bool:
        """Whether the shown pass is remote and its connection is lost (Reconnect applies)."""
        session = self.ctl.remote
        return session is not None and session.client.lost is not None

    def reconnect(self) -> None:
        """Attach again to the same server (its pass stayed paused where it was)."""
        session = self.ctl.remote
        if session is None:
            return
        self.window.status_state.setText(self.tr("connecting…"))
        job = self.job = Job(lambda job: session.reconnect(), name="reconnect",
                             describe_failure=lambda exc: said(lambda: self.tr("Could not reconnect to the server.")))
        job.finished.connect(lambda _: self._reconnected(session))
        job.failed.connect(lambda sentence, details: self.ctl.message.emit(
            Message("error", sentence, details, topic="remote")))
        job.start()

    # ----- export -----------------------------------------------------------------------------------
    def export_to(self, path: str) -> Job | None:
        """Stream the remote pass as a snapshot into `path` on this machine, off the GUI thread."""
        session = self.ctl.remote
        if session is None:
            return None

        def work(job: Job):
            def progress(done: int, total: int) -> bool:
                job.progress.emit(done, total)
                return not job.cancelled
            return session.export(path, progress)
        job = self.export_job = Job(work, name="remote-export", describe_failure=lambda exc: said(
            lambda: self.tr("The snapshot could not be streamed from the server.")))
        job.finished.connect(lambda note: self._exported(path, note))
        job.failed.connect(lambda sentence, details: self.ctl.message.emit(Message("error", sentence, details)))
        job.start()
        return job

    def _exported(self, path: str, note: str) -> None:
        self.exported = path
        self.ctl.info.emit(said(lambda: self.tr("Exported the server's pass to {path}.").format(path=path)))
        if note:
            self.ctl.message.emit(Message("info", note, topic="export"))

    def _reconnected(self, session) -> None:
        if self.ctl.remote is not session:
            return
        self.ctl.device = self._device(session)
        self.ctl.clear_messages.emit("remote")
        self.ctl._show_current()
        self.ctl.state_changed.emit()
        host = session.host
        self.ctl.info.emit(said(lambda: self.tr("Reconnected to {host}.").format(host=host)))


@actions.action("tfdebug.file.connect", QT_TRANSLATE_NOOP("actions", "Connect to Server…"), None,
                QT_TRANSLATE_NOOP("actions", "Step through a model that tfdebug serve runs on another machine"),
                toolbar=False)
def connect_action(ctx: ActionContext) -> None:
    from tfdebug.ui.remote.dialog import ConnectDialog

    dialog = ConnectDialog(ctx.window)
    ctx.window.connect_dialog = dialog  # tests reach the open dialog here
    if dialog.exec():
        ctx.tools.remote.connect_to(*dialog.values())
    dialog.deleteLater()


@actions.action("tfdebug.file.reconnect", QT_TRANSLATE_NOOP("actions", "Reconnect"), None,
                QT_TRANSLATE_NOOP("actions", "Attach again to the server whose connection was lost"),
                enabled=lambda ctl: ctl.remote is not None and ctl.remote.client.lost is not None, toolbar=False)
def reconnect_action(ctx: ActionContext) -> None:
    ctx.tools.remote.reconnect()


@actions.action("tfdebug.file.export_remote", QT_TRANSLATE_NOOP("actions", "Export Snapshot from Server…"), None,
                QT_TRANSLATE_NOOP("actions", "Stream the server's pass to a snapshot file on this machine"),
                enabled=lambda ctl: ctl.remote is not None and ctl.remote.client.lost is None, toolbar=False)
def export_remote_action(ctx: ActionContext) -> None:
    from PySide6.QtCore import QCoreApplication
    from PySide6.QtWidgets import QFileDialog

    path, _ = QFileDialog.getSaveFileName(ctx.window, QCoreApplication.translate("RemoteTools", "Export Snapshot"),
                                          "pass.safetensors", QCoreApplication.translate(
                                              "SnapshotActions", "Recorded passes ({patterns});;All files (*)").format(
                                              patterns="*.safetensors"))
    if path:
        ctx.tools.remote.export_to(path)


def install(window) -> None:
    """File ▸ Connect to Server… and Reconnect, and the tools they drive."""
    window.tools.remote = RemoteTools(window)
    window.file_menu.addSeparator()
    window.file_menu.addAction(window.actions_by_id["tfdebug.file.connect"])
    window.file_menu.addAction(window.actions_by_id["tfdebug.file.reconnect"])
    window.file_menu.addAction(window.actions_by_id["tfdebug.file.export_remote"])
