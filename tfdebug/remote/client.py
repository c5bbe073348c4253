"""`RemoteClient`: the window's end of the connection (Qt-free): requests, replies, heartbeats.

One I/O thread owns the ZeroMQ DEALER socket (ZeroMQ sockets belong to one thread): other
threads queue requests and wait on a Future. Everything from the server is validated by
tfdebug.remote.protocol; pushed messages (the pass, events, heartbeats) go to `on_message`
from the I/O thread, as a local stepper's events come from its worker thread. When nothing
has come for `timeout_s` (the server sends a heartbeat every 0.2 s; 3 s by default, so a loaded
machine or a network's hiccup is not taken for a dead server) the connection is lost:
`on_lost(error)` is called once and every waiting request fails with ConnectionLostError.
"""

from __future__ import annotations

import collections
import itertools
import socket
import threading
import time
from concurrent.futures import Future
from concurrent.futures import TimeoutError as FutureTimeout
from contextlib import contextmanager
from typing import Any, Callable, Iterator, Sequence

import numpy as np
import zmq

from tfdebug.core.errors import TfdebugError
from tfdebug.core.foreign import reason_of
from tfdebug.core.phrases import Phrase
from tfdebug.remote.errors import ConnectionLostError, FrameError, RemoteError, from_reply
from tfdebug.remote.security import secure_client
from tfdebug.remote.protocol import CLIENT_MAX_BUFFER, CLIENT_MAX_HEADER, Message, decode, encode

PUSHED = ("welcome", "pass", "plan", "event", "reply", "chunk", "heartbeat")


def normalise_address(address: str) -> str:
    """'127.0.0.1:5757' or 'tcp://127.0.0.1:5757' -> 'tcp://127.0.0.1:5757'."""
    address = address.strip()
    if not address.startswith("tcp://"):
        address = "tcp://" + address
    host, _, port = address[len("tcp://"):].rpartition(":")
    if not host or not port.isdigit() or not 0 < int(port) < 65536:
        raise RemoteError("'{address}' is not a server address: give HOST:PORT, as tfdebug serve printed it.",
                          id="remote.address", address=address)
    return address


def parse_connect_line(line: str) -> tuple[str, str, str | None] | None:
    """(address, token, server key or None) from the line tfdebug serve printed, or None when it is not one."""
    words = line.split()
    try:
        address, token = words[words.index("--connect") + 1], words[words.index("--token") + 1]
    except (ValueError, IndexError):
        return None
    key = words[words.index("--server-key") + 1] if "--server-key" in words[:-1] else None
    return address, token, key


class RemoteClient:
    """A connection to `tfdebug serve` at `address`, attached with `token`."""

    def __init__(self, address: str, token: str, *, server_key: str | None = None, timeout_s: float = 3.0,
                 heartbeat_s: float = 0.2,
                 on_message: Callable[[Message], None] | None = None,
                 on_lost: Callable[[TfdebugError], None] | None = None):
        self.address = normalise_address(address)
        self.token = token
        self.server_key = server_key  # the server's CURVE public key: the connection is encrypted to it
        self.timeout_s, self.heartbeat_s = timeout_s, heartbeat_s
        self.on_message = on_message or (lambda m: None)
        self.on_lost = on_lost or (lambda e: None)
        self.server: dict = {}
        self.resume: str | None = None
        self.lost: TfdebugError | None = None
        self._ids = itertools.count(1)
        self._link: _Link | None = None
        self.bytes_sent = 0       # every frame of every connection, both ways (the bench reads these)
        self.bytes_received = 0
        self.requests = 0         # requests sent (a slice the server pushed needs none)
        #: the reference dtype the server was last told over this connection (RemoteSession.set_reference)
        self.told_reference: str | None = None

    def connect(self, timeout: float = 10.0) -> dict:
        """Attach (again, after a lost connection: the server keeps the pass paused for the same window).

        Returns the server's description ({"version", "device"}); raises AuthError, VersionError
        or ConnectionLostError with the reason.
        """
        if self._link is not None:
            self._link.close()
        self.lost = None
        self._link = _Link(self)
        fields = {"token": self.token, "resume": self.resume, "client": "tfdebug window"}
        try:
            welcome = self.request("hello", fields, timeout=timeout)
        except TfdebugError:
            self._link.close()
            self._link = None
            raise
        self.server, self.resume = dict(welcome["server"] or {}), welcome["resume"]
        self._link.attached = True
        return self.server

    @property
    def connected(self) -> bool:
        return self._link is not None and self.lost is None

    def request(self, kind: str, fields: dict | None = None, buffers: Sequence[np.ndarray] = (),
                timeout: float | None = 60.0, on_chunk: Callable[[Message], None] | None = None) -> Message:
        """Send one request and wait for its reply (a TfdebugError from the server is raised here).

        `on_chunk(message)` receives an export's chunks (from the I/O thread) until the last one.
        """
        link = self._link
        if link is None or self.lost is not None:
            raise self.lost or ConnectionLostError("Not connected to a tfdebug server.", id="remote.not_connected")
        request_id = next(self._ids)
        self.requests += 1
        future = link.send(encode(kind, fields, buffers, id=request_id), request_id, on_chunk)
        try:
            return future.result(timeout)
        except FutureTimeout:
            link.forget(request_id)
            hint = "" if self.server_key else Phrase(" If tfdebug serve printed a --server-key, give it too.",
                                                     id="remote.hint_key")
            raise ConnectionLostError("The server did not answer within {s:g} s.{hint}", id="remote.no_answer",
                                      s=timeout, hint=hint) from None

    def answer(self, kind: str, fields: dict | None, read: Callable[[Any, list], Any],
               buffers: Sequence[np.ndarray] = (), **options) -> Any:
        """`read(result, buffers)` of the reply to one request, read under `reading(kind)`: a reply that is not
        what the request asks for (a result of another type, missing fields or arrays) ends the connection in one
        sentence."""
        reply = self.request(kind, fields, buffers, **options)
        with self.reading(kind):
            return read(reply["result"], reply.buffers)

    @contextmanager
    def reading(self, kind: str) -> Iterator[None]:
        """Around reading anything the server sent: the header schema lets the server's data through as it is
        (`protocol.anything`), so reading it is where it is checked. A value of the wrong type or shape (a number
        where a list belongs, a reply without its arrays) is a server that broke the protocol: the connection is
        closed cleanly and a FrameError says so in one sentence."""
        try:
            yield
        except FrameError as exc:  # a reader found the data inconsistent and said how
            self.drop(exc)
            raise
        except READ_ERRORS as exc:
            error = FrameError("The server's {kind} message is malformed ({reason}); tfdebug closed the connection.",
                               id="remote.bad_reply", kind=kind, reason=reason_of(exc))
            self.drop(error)
            raise error from None

    def drop(self, error: TfdebugError) -> None:
        """Close the connection because of `error` (a server that broke the protocol): every waiting request
        fails with it, the window is told once, and `connect` can attach again at once."""
        link, self._link = self._link, None
        if link is not None:
            link._fail(error, tell=False)
            link.send(encode("bye"), None, None)  # the server lets this window go: it may attach again
            link.close(flush=True)
        self._lose(error)

    def send_only(self, kind: str, fields: dict | None = None) -> None:
        """A message no reply answers (bye)."""
        if self._link is not None and self.lost is None:
            self._link.send(encode(kind, fields), None, None)

    def close(self) -> None:
        """Detach (the server keeps the pass) and end the I/O thread."""
        if self._link is not None:
            self.send_only("bye")
            self._link.close(flush=True)
            self._link = None

    def _lose(self, error: TfdebugError) -> None:
        if self.lost is None:
            self.lost = error
            self.on_lost(error)


#: what reading a value of the wrong type or shape raises (`RemoteClient.reading`)
READ_ERRORS = (TypeError, KeyError, AttributeError, IndexError, ValueError)


class _Link:
    """One socket and its I/O thread; a reconnect makes a new one."""

    def __init__(self, client: RemoteClient):
        self.client = client
        self._context = zmq.Context.instance()
        self._socket = self._context.socket(zmq.DEALER)
        for option, value in ((zmq.LINGER, 0), (zmq.MAXMSGSIZE, CLIENT_MAX_HEADER + CLIENT_MAX_BUFFER),
                              (zmq.RECONNECT_IVL, 100), (zmq.RECONNECT_IVL_MAX, 1000)):
            self._socket.setsockopt(option, value)
        if client.server_key:
            secure_client(self._socket, client.server_key)
        if client.address.startswith("tcp://["):
            self._socket.setsockopt(zmq.IPV6, 1)
        self._socket.connect(client.address)
        self._wake_r, self._wake_w = socket.socketpair()
        self._wake_r.setblocking(False)
        self._outbox: collections.deque[list] = collections.deque()
        self._pending: dict[int, tuple[Future, Callable | None]] = {}
        self._lock = threading.Lock()
        self._closing = False
        self._flush = False
        self.attached = False  # the heartbeat clock runs from the welcome on (connect has its own timeout)
        self._thread = threading.Thread(target=self._loop, name="tfdebug-remote", daemon=True)
        self._thread.start()

    def send(self, frames: list, request_id: int | None, on_chunk) -> Future:
        future: Future = Future()
        with self._lock:
            if request_id is not None:
                self._pending[request_id] = (future, on_chunk)
            self._outbox.append(frames)
        self._wake()
        return future

    def forget(self, request_id: int) -> None:
        with self._lock:
            self._pending.pop(request_id, None)

    def _wake(self) -> None:
        try:
            self._wake_w.send(b"\0")
        except OSError:
            pass  # full (the loop is awake) or closed

    def close(self, flush: bool = False) -> None:
        self._closing, self._flush = True, flush
        self._wake()
        if self._thread is not threading.current_thread():
            self._thread.join(5)

    def _loop(self) -> None:
        poller = zmq.Poller()
        poller.register(self._socket, zmq.POLLIN)
        poller.register(self._wake_r, zmq.POLLIN)
        client = self.client
        last_heard = last_ping = time.monotonic()
        try:
            while not self._closing:
                poller.poll(int(client.heartbeat_s * 1000 / 2))
                try:
                    while self._wake_r.recv(4096):
                        pass
                except BlockingIOError:
                    pass
                self._send_outbox()
                while True:
                    try:
                        # Not copied: a slice plane's array is made straight on the frame's memory.
                        frames = self._socket.recv_multipart(zmq.NOBLOCK, copy=False)
                    except zmq.Again:
                        break
                    last_heard = time.monotonic()
                    client.bytes_received += sum(len(f) for f in frames)
                    self._receive(frames)
                    if self._closing:  # a malformed message closed this link: nothing after it is read
                        break
                now = time.monotonic()
                if now - last_ping >= client.heartbeat_s:
                    last_ping = now
                    self._outbox.append(encode("ping"))
                    self._send_outbox()
                if self.attached and client.lost is None and now - last_heard > client.timeout_s:
                    self._fail(ConnectionLostError(
                        "Connection lost: the server at {address} has not answered for {s:.1f} s (it ended, or the "
                        "network went away).", id="remote.lost", address=client.address, s=now - last_heard))
            if self._flush:
                self._send_outbox()
        finally:
            self._fail(ConnectionLostError("The connection was closed.", id="remote.closed"), tell=False)
            self._socket.close(0)
            self._wake_r.close()
            self._wake_w.close()

    def _send_outbox(self) -> None:
        while True:
            with self._lock:
                if not self._outbox:
                    return
                frames = self._outbox.popleft()
            try:
                self._socket.send_multipart(frames, zmq.NOBLOCK, copy=False)
                self.client.bytes_sent += sum(len(f) if isinstance(f, bytes) else f.nbytes for f in frames)
            except zmq.Again:  # not connected yet or the queue is full: keep it for the next turn
                with self._lock:
                    self._outbox.appendleft(frames)
                return

    def _receive(self, frames: list[bytes]) -> None:
        try:
            message = decode(frames, max_header=CLIENT_MAX_HEADER, max_buffer=CLIENT_MAX_BUFFER, accept=PUSHED)
        except FrameError as exc:  # the server broke the protocol: nothing it says can be trusted now
            self._fail(exc)
            return
        if message.type in ("reply", "welcome", "chunk") and message.id is not None:
            with self._lock:
                pending = self._pending.get(message.id)
            if message.type != "chunk" and message["state"] is not None:
                self._deliver(message)  # the state first: the caller sees it when its reply returns
            if pending is None:
                return
            future, on_chunk = pending
            if message.type == "chunk":
                if on_chunk is not None:
                    on_chunk(message)
                if not message["last"]:
                    return
            elif message.type == "reply" and not message["ok"]:
                self.forget(message.id)
                future.set_exception(from_reply(message["error"] or {}))
                return
            elif on_chunk is not None and message.type == "reply":
                on_chunk(message)  # an export: the reply says it started; its last chunk ends it
                return
            self.forget(message.id)
            future.set_result(message)
            return
        if message.type == "reply" and not message["ok"]:  # a refusal no request of ours waits for
            error = from_reply(message["error"] or {})
            if error.id == "remote.not_attached":  # another window took over, or the server let this one go
                self._fail(error)
            return
        self._deliver(message)

    def _deliver(self, message: Message) -> None:
        try:
            with self.client.reading(message.type):
                self.client.on_message(message)
        except TfdebugError as exc:
            self._fail(exc)

    def _fail(self, error: TfdebugError, tell: bool = True) -> None:
        with self._lock:
            pending, self._pending = self._pending, {}
        for future, _ in pending.values():
            if not future.done():
                future.set_exception(error)
        if tell:
            self.client._lose(error)
