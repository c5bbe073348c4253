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
from tfdebug.ui.render.stage_text import fmt_bytes
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
        self._lost.connect(self._on_lost)
        self.ctl.session_changed.connect(self._follow)

    def _follow(self) -> None:
        """A new pass over the same connection shown by someone else (a served backward's gradients): it is the
        one this follows from now on (its lost connection, Run, Reconnect), titled as a served pass."""
        session, source = self.session, self.ctl.source
        if session is None or source is None or source is session or getattr(source, "client", None) is not \
                session.client:
            return
        self.session = source
        source.on_lost = self._lost.emit  # the controller names it as served from its source (host, lost)

    # ----- connecting -----------------------------------------------------------------------------
    def connect_to(self, address: str, token: str, server_key: str | None = None) -> None:
        """Attach to the server at `address` off the GUI thread; the pass shows once it has come."""
        from tfdebug.remote.session import RemoteSession

        self.window.status_state.setText(self.tr("connecting…"))
        job = self.job = Job(lambda job: RemoteSession.connect(address, token, server_key=server_key), name="connect",
                             describe_failure=lambda exc: said(lambda: self.tr("Could not connect to the server.")))
        job.finished.connect(self.attach)
        job.failed.connect(lambda sentence, details: self.ctl.say(
            Message("error", sentence, details, topic="remote")))
        job.start()

    def attach(self, session, announce: bool = True) -> None:
        """Show `session` (a connected RemoteSession) as the window's pass."""
        ctl = self.ctl
        self.session = session
        session.on_lost = self._lost.emit
        # The status bar names the server and its device (its precision is the Compare and Conditions dialogs'): the
        # controller reads them from the source (its host, its device, whether its connection is lost).
        ctl.show_source(session)
        host = session.host
        if announce:
            ctl.inform(said(lambda: self.tr("Connected to {host}: the model runs there.").format(host=host)))

    def shown(self):
        """The RemoteSession on screen, or None (the window shows another pass)."""
        session = self.session
        return session if session is not None and self.ctl.source is session else None

    # ----- losing it and getting it back ----------------------------------------------------------
    def _on_lost(self, error) -> None:
        session = self.session
        if session is None or self.shown() is not session:
            return  # a connection the window has already left (the status bar says it is lost: ctl.device)
        self.ctl.say(Message("error", error_phrase(error) if isinstance(error, RemoteError) else str(error),
                                 topic="remote"))
        self.ctl.announce_state()

    def lost(self) -> bool:
        """Whether the shown pass is remote and its connection is lost (Reconnect applies)."""
        session = self.shown()
        return session is not None and session.lost is not None

    def reconnect(self) -> None:
        """Attach again to the same server (its pass stayed paused where it was)."""
        session = self.shown()
        if session is None:
            return
        self.window.status_state.setText(self.tr("connecting…"))
        job = self.job = Job(lambda job: session.reconnect(), name="reconnect",
                             describe_failure=lambda exc: said(lambda: self.tr("Could not reconnect to the server.")))
        job.finished.connect(lambda _: self._reconnected(session))
        job.failed.connect(lambda sentence, details: self.ctl.say(
            Message("error", sentence, details, topic="remote")))
        job.start()

    # ----- export on the server ---------------------------------------------------------------------
    def export_on_server(self, name: str) -> Job | None:
        """Write the pass as a snapshot named `name` into the server's export folder (tfdebug serve --export-dir)."""
        session = self.shown()
        if session is None:
            return None
        job = Job(lambda job: session.export_on_server(name), name="remote-export", describe_failure=lambda exc: said(
            lambda: self.tr("The server could not write the snapshot.")))
        job.finished.connect(lambda result: self._written_on_server(result))
        job.failed.connect(lambda sentence, details: self.ctl.say(Message("error", sentence, details,
                                                                           topic="export")))
        job.start()
        return job

    def _written_on_server(self, result: dict) -> None:
        path, size = str(result.get("path", "")), fmt_bytes(int(result.get("bytes") or 0))
        self.ctl.inform(said(lambda: self.tr("The server wrote {path} ({size}).").format(path=path, size=size)))
        note = str(result.get("note") or "")
        if note:
            self.ctl.say(Message("info", note, topic="export"))

    def _reconnected(self, session) -> None:
        if self.shown() is not session:
            return
        self.ctl.forget_messages("remote")
        self.ctl.breakpoints.share_with(session.stepper)  # what changed while the connection was lost reaches the server
        self.ctl.shown.show_current()
        self.ctl.announce_state()
        host = session.host
        self.ctl.inform(said(lambda: self.tr("Reconnected to {host}.").format(host=host)))


@actions.action("tfdebug.file.connect", QT_TRANSLATE_NOOP("actions", "Connect to Server…"), None,
                QT_TRANSLATE_NOOP("actions", "Step through a model that tfdebug serve runs on another machine"),
                toolbar=False,
                menu="file", group=2, order=0)
def connect_action(ctx: ActionContext) -> None:
    from tfdebug.ui.remote.dialog import ConnectDialog

    dialog = ConnectDialog(ctx.window)
    ctx.window.dialogs["connect"] = dialog  # tests reach the open dialog here
    if dialog.exec():
        ctx.tools.remote.connect_to(*dialog.values())
    dialog.deleteLater()


@actions.action("tfdebug.file.reconnect", QT_TRANSLATE_NOOP("actions", "Reconnect"), None,
                QT_TRANSLATE_NOOP("actions", "Attach again to the server whose connection was lost"),
                enabled=lambda ctl: ctl.source is not None and ctl.source.lost is not None, toolbar=False,
                menu="file", group=2, order=10)
def reconnect_action(ctx: ActionContext) -> None:
    ctx.tools.remote.reconnect()


@actions.action("tfdebug.file.export_on_server", QT_TRANSLATE_NOOP("actions", "Export Snapshot on Server…"), None,
                QT_TRANSLATE_NOOP("actions", "Write the pass as a snapshot into the server's export folder, where the "
                                  "model runs (File ▸ Export… writes it on this machine)"),
                enabled=lambda ctl: ctl.source is not None and bool(ctl.source.host) and ctl.source.lost is None,
                toolbar=False,
                menu="file", group=2, order=20)
def export_on_server_action(ctx: ActionContext) -> None:
    from PySide6.QtCore import QCoreApplication
    from PySide6.QtWidgets import QInputDialog

    name, ok = QInputDialog.getText(ctx.window, QCoreApplication.translate("RemoteTools", "Export Snapshot on Server"),
                                    QCoreApplication.translate("RemoteTools", "File name in the server's export folder:"),
                                    text="pass.safetensors")
    if ok and name.strip():
        ctx.tools.remote.export_on_server(name.strip())


def install(window) -> RemoteTools:
    """The tools that File ▸ Connect to Server…, Reconnect and Export Snapshot on Server… drive, which the shell
    keeps as `window.tools.remote` (the actions declare their places in the File menu)."""
    return RemoteTools(window)
