"""Typed errors of remote sessions, each with a sentence a user understands."""

from __future__ import annotations

from tfdebug.core import errors as core_errors
from tfdebug.core.errors import TfdebugError


class RemoteError(TfdebugError):
    """Something about the connection to a tfdebug server (not the model) went wrong."""


class FrameError(RemoteError):
    """A message that breaks the protocol: malformed, oversized, or not what was expected."""


class VersionError(FrameError):
    """The other side speaks another protocol version."""

    def __init__(self, theirs, ours: int | None = None):
        from tfdebug.remote.protocol import PROTOCOL_VERSION

        ours = PROTOCOL_VERSION if ours is None else ours
        super().__init__("The other side speaks tfdebug remote protocol version {theirs}; this one speaks version "
                         "{ours}. Install the same tfdebug version on both machines.", id="remote.version",
                         theirs=repr(theirs)[:20], ours=ours)


class AuthError(RemoteError):
    """The token is wrong, or another window is attached."""


class ConnectionLostError(RemoteError):
    """The server stopped answering (it ended, or the network went away)."""


class InsecureBindError(RemoteError):
    """Serving on an interface other than loopback was asked for without encryption."""


def from_reply(error: dict) -> TfdebugError:
    """The typed error a server's reply describes: the same class when core has it, else RemoteError.

    Only the class name crosses; it is looked up among tfdebug's own error classes, never imported.
    """
    name = str(error.get("class", ""))
    cls = getattr(core_errors, name, None) or globals().get(name)
    if not (isinstance(cls, type) and issubclass(cls, TfdebugError)) or cls is VersionError:
        cls = RemoteError
    exc = cls.__new__(cls)
    TfdebugError.__init__(exc, str(error.get("message", "The server refused the request."))[:2000])
    exc.id = str(error.get("id", ""))[:100]
    return exc


def to_reply(exc: TfdebugError) -> dict:
    """What a reply says about a typed error: its class name, id and English sentence."""
    return {"class": type(exc).__name__, "id": exc.id, "message": exc.message}
