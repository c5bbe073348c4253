"""Typed errors of remote sessions, each with a sentence a user understands."""

from __future__ import annotations

import math
import string
from typing import Any, TypeGuard

from tfdebug.core import errors as core_errors
from tfdebug.core.errors import TfdebugError
from tfdebug.core.phrases import Choices, Phrase
from tfdebug.core.readout import ReadoutError  # noqa: F401 - rebuilt by name (`from_reply`): the lens's refusals


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


class BindError(RemoteError):
    """The server cannot listen where it was asked to (a port in use, an address not this machine's)."""


class ServerFaultError(RemoteError):
    """The server failed unexpectedly while answering one request; it goes on serving."""


MAX_PARAMS = 32        # values one error sentence may carry
MAX_PHRASE_DEPTH = 4   # a phrase inside a phrase inside …: deeper is read as its English text
PHRASE_CONTEXTS = ("phrases", "errors")


def from_reply(error: dict) -> TfdebugError:
    """The typed error a server's reply describes: the same class when core has it, else RemoteError.

    Only the class name crosses; it is looked up among tfdebug's own error classes, never imported.
    The sentence comes back with its stable id, English template and values (phrases among them kept
    as phrases), so the window translates it as it does a local error; a template that its values do
    not fill exactly is dropped and the English sentence shown.
    """
    if not isinstance(error, dict):
        error = {}
    name = str(error.get("class", ""))
    cls = getattr(core_errors, name, None) or globals().get(name)
    if not (isinstance(cls, type) and issubclass(cls, TfdebugError)) or cls is VersionError:
        cls = RemoteError
    exc = cls.__new__(cls)
    message = str(error.get("message", "The server refused the request."))[:2000]
    TfdebugError.__init__(exc, message)
    exc.id = str(error.get("id", ""))[:100]
    params = _values(error.get("params"), 0)
    template = error.get("template")
    if exc.id and params is not None and _fills(template, params):
        exc.template, exc.params = template, params
    return exc


def to_reply(exc: TfdebugError) -> dict:
    """What a reply says about a typed error: its class name, id, English sentence, template and values."""
    return {"class": type(exc).__name__, "id": exc.id, "message": exc.message, "template": exc.template,
            "params": {str(k): _wire_value(v, 0) for k, v in list(exc.params.items())[:MAX_PARAMS]}}


def _wire_value(value, depth: int):
    """One value of a sentence as JSON: a Phrase or Choices keeps its structure; numbers, truth values and
    None stay themselves; anything else (a path, a shape) becomes the text it reads as in the sentence."""
    if isinstance(value, Phrase) and depth < MAX_PHRASE_DEPTH:
        return {"phrase": {"template": value.template, "id": value.id, "english": str(value),
                           "context": value.context,
                           "params": {str(k): _wire_value(v, depth + 1) for k, v in
                                      list(value.params.items())[:MAX_PARAMS]}}}
    if isinstance(value, Choices):
        return {"choices": [str(item) for item in value.items]}
    if value is None or isinstance(value, (bool, int)) or (isinstance(value, float) and math.isfinite(value)):
        return value
    return str(value)


def _values(params, depth: int) -> dict | None:
    """`_wire_value`'s JSON back as the values of a sentence; None when any is not one it writes."""
    if not isinstance(params, dict) or len(params) > MAX_PARAMS:
        return None
    values = {}
    for key, value in params.items():
        value = _value(value, depth)
        if value is _BAD or not str(key).isidentifier():
            return None
        values[str(key)] = value
    return values


_BAD = object()


def text_wire(value: str) -> Any:
    """A text a window shows (a Phrase keeps its id, template and values for the window to translate) as JSON."""
    return _wire_value(value, 0)


def text_of(data: Any) -> str | None:
    """`text_wire`'s JSON read back as a Phrase or a plain text; None when it is neither."""
    value = _value(data, 0)
    return value if isinstance(value, str) else None


def _value(value, depth: int):
    if value is None or isinstance(value, (bool, int, float)):
        return value
    if isinstance(value, str):
        return value[:2000]
    if isinstance(value, dict) and set(value) == {"choices"} and isinstance(value["choices"], list) \
            and len(value["choices"]) <= 64 and all(isinstance(c, str) for c in value["choices"]):
        return Choices(c[:200] for c in value["choices"])
    if isinstance(value, dict) and set(value) == {"phrase"} and isinstance(value["phrase"], dict) \
            and depth < MAX_PHRASE_DEPTH:
        p = value["phrase"]
        params = _values(p.get("params"), depth + 1)
        template, english = p.get("template"), p.get("english")
        if (params is None or not _fills(template, params) or not isinstance(english, str)
                or not isinstance(p.get("id"), str) or p.get("context") not in PHRASE_CONTEXTS):
            return _BAD
        return Phrase(template, id=p["id"][:100], english=english[:2000], context=p["context"], **params)
    return _BAD


def _fills(template: object, params: dict) -> TypeGuard[str]:
    """Whether `template` is a sentence `params` fills exactly: only plain names (no attribute or index
    lookups a hostile template could use to reach into the values), each of them given."""
    if not isinstance(template, str) or len(template) > 2000:
        return False
    try:
        fields = [(name, spec) for _, name, spec, _ in string.Formatter().parse(template) if name is not None]
        if not all(name.isidentifier() and name in params and "{" not in (spec or "") for name, spec in fields):
            return False
        template.format(**params)  # a format spec that does not suit its value (":d" of a text) fails here
    except (ValueError, KeyError, IndexError, TypeError):
        return False
    return True
