"""A served pass's export: the snapshot streamed from the server in chunks and written here.

`export_served` is `RemoteSession.export`: each chunk is written to disk before the server may send more (at
most EXPORT_WINDOW chunks in flight, the server's side in tfdebug.remote.handlers); a progress callback
returning False cancels, the server stops and no file is left.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, Sequence

from tfdebug.core.errors import ExportCancelledError, TfdebugError
from tfdebug.io.atomic import ProgressCallback, atomic_write, report
from tfdebug.io.exports import export_pass
from tfdebug.io.formats import format_for
from tfdebug.io.snapshot import open_snapshot
from tfdebug.remote.errors import FrameError
from tfdebug.remote.handlers import SUFFIX as SNAPSHOT_SUFFIX
from tfdebug.remote.protocol import Message

if TYPE_CHECKING:
    from tfdebug.remote.session import RemoteSession


def export_served(session: RemoteSession, path: str | os.PathLike, progress: ProgressCallback | None = None,
                  stages: Sequence[str] | None = None, fmt: str | None = None) -> str:
    """Stream the pass as a snapshot to this machine and write it to `path` (atomically); the server's note.

    The snapshot comes in chunks, each written to disk before the server may send more (at most
    EXPORT_WINDOW chunks are in flight). `progress(done, total)` returning False cancels: the server
    stops and no file is left. Another format than a snapshot, or only some `stages`, is written here
    from the streamed snapshot (tfdebug.io.exports.export_pass)."""
    if stages is None and format_for(path, fmt, scope="pass").suffix == SNAPSHOT_SUFFIX:
        return _stream(session, path, progress)
    with tempfile.TemporaryDirectory(prefix="tfdebug-remote-") as folder:
        streamed = Path(folder) / ("pass" + SNAPSHOT_SUFFIX)
        note = _stream(session, streamed, progress)
        with open_snapshot(streamed) as recording:
            export_pass(recording, path, stages, fmt, progress)
    return note


def _stream(session: RemoteSession, path: str | os.PathLike, progress: ProgressCallback | None) -> str:
    state: dict = {"note": "", "cancelled": False, "error": None}
    with atomic_write(path) as file:
        def on_chunk(message: Message) -> None:  # on the connection's thread, one chunk at a time
            if message.type == "reply":  # the export has started: what the server says about it
                state["note"] = str((message["result"] or {}).get("note") or "")
                return
            if state["cancelled"]:
                return
            if file.tell() != message["offset"]:
                state["error"] = FrameError("The server's snapshot chunks do not follow on.", id="remote.chunks")
            else:
                file.write(message.buffers[0].data if message.buffers else b"")
                try:
                    report(progress, file.tell(), int(message["total"]))
                except TfdebugError as exc:
                    state["error"] = exc
            state["cancelled"] = state["error"] is not None
            session.client.send_only("transfer", {"export": message.id, "received": file.tell(),
                                               "cancel": state["cancelled"]})
        try:
            session.request("export", {"to": "window"}, on_chunk=on_chunk, timeout=3600)
        except ExportCancelledError:
            if state["error"] is None:
                raise
        if state["error"] is not None:  # raised inside the write: the temporary file goes
            raise state["error"]
    return state["note"]
