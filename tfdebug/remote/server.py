"""`RemoteServer`: one served session, one attached window, over a ZeroMQ ROUTER socket on loopback.

One thread runs `serve_forever`: it reads every message (validated by tfdebug.remote.protocol
before anything acts on it), answers the attached window, forwards the stepper's events and
sends heartbeats. Unknown peers get one refusal per message and no state is kept for them;
libzmq bounds what any peer can make the server hold (MAXMSGSIZE, the handshake timeout, the
queue limits), so a hostile client costs bounded time and memory and the attached window is
served throughout.

A window that goes away (closed, or its network gone) is detached after `client_timeout_s`
of silence; the pass stays paused where it was, and the next window with the token attaches.
"""

from __future__ import annotations

import collections
import hmac
import secrets
import socket
import threading
import time
from pathlib import Path
from typing import Callable, Mapping

import numpy as np
import zmq

from tfdebug import __version__
from tfdebug.sessions.session import DebugSession
from tfdebug.core.devices import device_description
from tfdebug.core.errors import ExportCancelledError, TfdebugError
from tfdebug.core.recorder import held_bytes
from tfdebug.core.stepper import StepperEvent
from tfdebug.models.sampling import DecodingSettings
from tfdebug.remote import wire
from tfdebug.remote.errors import AuthError, FrameError, to_reply
from tfdebug.remote.faults import FaultLog
from tfdebug.remote.handlers import ServedSession
from tfdebug.remote.security import bind, needs_encryption, secure_server, server_keys
from tfdebug.remote.protocol import (ATTACHED_MAX_HEADER, DEFAULT_MAX_UPLOAD, EXPORT_CHUNK, EXPORT_WINDOW, MAX_FRAMES,
                                     PLAN_PART, REQUESTS, SERVER_MAX_HEADER, Message, decode, encode, peek)

HANDSHAKE_MS = 2000      # a peer that has not finished ZeroMQ's greeting by then is dropped (slow loris)
SEND_QUEUE = 1000        # messages queued for one peer; beyond it sends wait for the next turn
MESSAGES_PER_TURN = 64   # so heartbeats and events are never starved by a flood


class RemoteServer:
    """Serve `make_session(texts, settings)`'s DebugSession (tfdebug.remote.handlers.ServedSession) on tcp://host:port (port 0: a free one).

    `token` (default: a fresh random one) is what a window must say to attach. Heartbeats go
    to the attached window every `heartbeat_s`; it is detached after `client_timeout_s` silent.
    A pass's plan crosses in parts of at most `plan_part_bytes` of JSON.
    Off loopback (or with `encrypt`) the socket takes only CURVE-encrypted peers; `server_key`
    is then the public key a window needs (tfdebug.remote.security).
    """

    def __init__(self, make_session: Callable[[Mapping[str, str] | None, DecodingSettings | None], DebugSession], *, host: str = "127.0.0.1",
                 port: int = 0, token: str | None = None, heartbeat_s: float = 0.2, client_timeout_s: float = 3.0,
                 max_upload_bytes: int = DEFAULT_MAX_UPLOAD, export_dir: str | Path = ".", encrypt: bool = False,
                 plan_part_bytes: int = PLAN_PART):
        encrypt = needs_encryption(host, encrypt)
        self.plan_part_bytes = plan_part_bytes
        self.token = token or secrets.token_urlsafe(24)
        self.heartbeat_s, self.client_timeout_s = heartbeat_s, client_timeout_s
        self.max_upload_bytes = max_upload_bytes
        self._events: collections.deque[StepperEvent] = collections.deque()
        self._wake_r, self._wake_w = socket.socketpair()
        self._wake_r.setblocking(False)
        self._wake_w.setblocking(False)
        self._stop = threading.Event()
        self.faults = FaultLog()  # requests (and chores) that failed unexpectedly: answered, logged, served on
        self._context = zmq.Context()
        self._socket = self._context.socket(zmq.ROUTER)
        for option, value in ((zmq.LINGER, 0), (zmq.MAXMSGSIZE, max_upload_bytes + ATTACHED_MAX_HEADER),
                              (zmq.HANDSHAKE_IVL, HANDSHAKE_MS), (zmq.SNDHWM, SEND_QUEUE), (zmq.RCVHWM, SEND_QUEUE),
                              (zmq.ROUTER_MANDATORY, 1)):
            self._socket.setsockopt(option, value)
        self.server_key: str | None = None
        if encrypt:
            public, secret = server_keys()
            secure_server(self._socket, public, secret)
            self.server_key = public.decode("ascii")
        try:  # listening first: a port in use is said before the pass is planned (which runs the model)
            self.address = bind(self._socket, host, port)
            self.served = ServedSession(make_session, export_dir, self._on_event)
            self.served.keepalive = self._keepalive
        except BaseException:
            self._socket.close(0)
            self._context.term()
            self._wake_r.close()
            self._wake_w.close()
            raise
        if host in ("0.0.0.0", "::"):  # every interface: the desktop needs a name it can reach
            self.address = f"tcp://{socket.getfqdn()}:{self.address.rpartition(':')[2]}"
        self.device = device_description(self.served.session.adapter.device)
        self._peer: bytes | None = None      # the attached window's routing id
        self._resume: str | None = None      # the key that lets the same window reattach at once
        self._last_heard = 0.0
        self._last_beat = 0.0
        self._sent_pass = 0
        self._sent_len = 0
        self._sent_flags: list[tuple[bool, bool]] = []
        self._sent_generation: dict | None = None  # a generation's tokens and strip as last sent
        self.refused = collections.Counter()  # why messages were refused: the tests and the log read it

    # ----- what prints for the user ------------------------------------------------------------
    def paste_line(self) -> str:
        """The one line to run on the desktop."""
        key = f" --server-key {self.server_key}" if self.server_key else ""
        return f"tfdebug gui --connect {self.address} --token {self.token}{key}"

    # ----- the loop ---------------------------------------------------------------------------
    def _on_event(self, event: StepperEvent) -> None:
        """From the forward's thread: queue the event and wake the loop."""
        self._events.append(event)
        try:
            self._wake_w.send(b"\0")
        except (BlockingIOError, OSError):
            pass  # the pipe is full: the loop is awake already

    def stop(self) -> None:
        """End `serve_forever` (from any thread)."""
        self._stop.set()
        self._on_event(StepperEvent("stopped"))

    def serve_forever(self) -> None:
        poller = zmq.Poller()
        poller.register(self._socket, zmq.POLLIN)
        poller.register(self._wake_r, zmq.POLLIN)
        try:
            while not self._stop.is_set():
                ready = dict(poller.poll(int(self.heartbeat_s * 1000 / 2)))
                if self._wake_r.fileno() in ready:
                    try:
                        while self._wake_r.recv(4096):
                            pass
                    except BlockingIOError:
                        pass
                for _ in range(MESSAGES_PER_TURN):
                    try:
                        frames = self._socket.recv_multipart(zmq.NOBLOCK)
                    except zmq.Again:
                        break
                    self._guarded(self._receive, frames)
                for chore in (self._forward_events, self._stream_exports, self._answer_comparisons, self._beat):
                    self._guarded(chore)
        finally:
            self.close()

    def _guarded(self, work: Callable, frames: list[bytes] | None = None) -> None:
        """Run `work(frames)` (one message) or `work()` (one of a turn's chores). An unexpected error in it is
        logged and answered (to the message's sender, with its request id), and the loop serves on: no input and
        no failure of one request ends the server."""
        try:
            work() if frames is None else work(frames)
        except Exception as exc:  # noqa: BLE001 - the served session outlives any one request's failure
            if frames is None:
                self.faults.record(exc, work.__name__.strip("_").replace("_", " "))
                return
            kind, request_id = peek(frames[1:], ATTACHED_MAX_HEADER)
            error = self.faults.record(exc, f"{kind or 'message'} request")
            self._send(frames[0], "reply", {"ok": False, "error": to_reply(error)}, id=request_id)

    def close(self) -> None:
        for job in self.served.exports.values():
            job.close()
        self.served.exports.clear()
        self.served.close()
        self._socket.close(0)
        self._context.term()
        self._wake_r.close()
        self._wake_w.close()

    # ----- inbound ----------------------------------------------------------------------------
    def _receive(self, frames: list[bytes]) -> None:
        peer, body = frames[0], frames[1:]
        attached = peer == self._peer
        max_header = ATTACHED_MAX_HEADER if attached else SERVER_MAX_HEADER
        try:
            if len(body) > MAX_FRAMES:
                raise FrameError("A message must have 1 to {n} frames, not {got}.", id="remote.frames", n=MAX_FRAMES,
                                 got=len(body))
            message = decode(body, max_header=max_header, max_buffer=self.max_upload_bytes if attached else 0,
                             accept=REQUESTS)
        except TfdebugError as exc:
            self.refused[exc.id] += 1
            self._send(peer, "reply", {"ok": False, "error": to_reply(exc)}, id=peek(body, max_header)[1])
            return
        if message.type == "hello":
            self._hello(peer, message)
            return
        if not attached:
            self.refused["remote.not_attached"] += 1
            self._send(peer, "reply", {"ok": False, "error": to_reply(AuthError(
                "Attach with the token first.", id="remote.not_attached"))}, id=message.id)
            return
        self._last_heard = time.monotonic()
        if message.type == "ping":
            return
        if message.type == "bye":
            self._detach()
            return
        if message.type == "transfer":
            self._transfer(message)
            return
        pass_id = self.served.pass_id
        try:
            reply = self.served.handle(message)
        except TfdebugError as exc:
            if self.served.pass_id != pass_id:  # a refused open ran the old inputs again: a new pass
                self._send_pass()
            self._send(peer, "reply", {"ok": False, "error": to_reply(exc), "state": self._state()}, id=message.id)
            return
        finally:
            self._last_heard = time.monotonic()  # the window waited on us: our work is not its silence
        if reply is None:
            return  # made on a thread: `_answer_comparisons` replies when it is done
        fields, buffers = reply
        if message.type in ("open", "backward"):  # a new pass: its metadata first
            self._send_pass()
        self._forward_events()  # what the command made happen arrives before its reply, as a local call's events do
        self._send(peer, "reply", {"ok": True, "result": fields, "state": self._state()}, buffers, id=message.id)

    def _hello(self, peer: bytes, message: Message) -> None:
        if not hmac.compare_digest(message["token"].encode(), self.token.encode()):
            self.refused["remote.token"] += 1
            error = AuthError("The token is wrong: copy the whole line tfdebug serve printed.", id="remote.token")
            self._send(peer, "reply", {"ok": False, "error": to_reply(error)}, id=message.id)
            return
        silent = time.monotonic() - self._last_heard > self.client_timeout_s
        same_window = (message["resume"] is not None and self._resume is not None
                       and hmac.compare_digest(message["resume"].encode(), self._resume.encode()))
        if self._peer is not None and self._peer != peer and not silent and not same_window:
            self.refused["remote.busy"] += 1
            error = AuthError("Another window is attached to this server. Close it (or disconnect it) first; "
                              "a window that lost its connection is let go after {s:g} s.", id="remote.busy",
                              s=self.client_timeout_s)
            self._send(peer, "reply", {"ok": False, "error": to_reply(error)}, id=message.id)
            return
        self._peer, self._resume = peer, secrets.token_urlsafe(16)
        self.served.follow = None  # the view is the new window's to tell
        self._last_heard = time.monotonic()
        self._sent_pass, self._sent_len, self._sent_flags = 0, 0, []
        self._send(peer, "welcome", {"server": {"version": __version__, "device": self.device},
                                     "resume": self._resume, "heartbeat_s": self.heartbeat_s}, id=message.id)
        self._send_pass()
        self._send(peer, "event", {"event": {"type": "attached"}, "state": self._state()})

    def _detach(self) -> None:
        self._peer = None
        self._resume = None

    # ----- outbound ---------------------------------------------------------------------------
    def _send(self, peer: bytes | None, kind: str, fields: dict, buffers=(), id: int | None = None) -> bool:
        if peer is None:
            return False
        try:
            self._socket.send_multipart([peer, *encode(kind, fields, buffers, id=id)], zmq.NOBLOCK, copy=False)
            return True
        except (zmq.Again, zmq.ZMQError):  # its queue is full, or it is gone: nothing waits on it
            return False

    def _send_pass(self) -> None:
        """The pass's metadata; its plan in parts of at most `plan_part_bytes` (a long generation's is large)."""
        fields = self.served.pass_fields()
        parts = wire.plan_parts(fields["plan"], self.plan_part_bytes)
        fields["plan"], fields["plan_total"] = parts[0], len(fields["plan"])
        sent, start = self._send(self._peer, "pass", {"pass": fields}), len(parts[0])
        for part in parts[1:]:
            sent = sent and self._send(self._peer, "plan", {"pass": fields["pass"], "from": start, "entries": part})
            start += len(part)
        if sent:
            self._sent_pass, self._sent_len, self._sent_flags = self.served.pass_id, 0, []

    def _state(self) -> dict:
        """The stepper's state, with the history entries the window has not had yet (and changed flags)."""
        stepper = self.served.stepper
        history = list(stepper.history)
        if self._sent_pass != self.served.pass_id or len(history) < self._sent_len:
            self._sent_pass, self._sent_len, self._sent_flags = self.served.pass_id, 0, []
        flags = [(c.edited, c.dropped) for c in history]
        changed = {i: wire.entry(history[i]) for i in range(min(len(self._sent_flags), len(flags)))
                   if flags[i] != self._sent_flags[i]}
        state = {"pass": self.served.pass_id, "state": stepper.state, "cursor": stepper.cursor,
                 "live": stepper.live_index, "from": self._sent_len,
                 "entries": [wire.entry(c) for c in history[self._sent_len:]], "changed": changed,
                 "undo": stepper.edits_to_undo, "held": held_bytes(history),
                 "error": to_reply(stepper.error) if stepper.error is not None else None}
        generation = self.served.generation_fields()  # only when it changed (heartbeats come every 0.2 s)
        if self._sent_len == 0 or generation != self._sent_generation:
            state["generation"] = self._sent_generation = generation
        # Optimistic: a message that could not be queued is followed by a fresh state soon, sent from `from`.
        self._sent_len, self._sent_flags = len(history), flags
        return state

    def _forward_events(self) -> None:
        captured = False
        while self._events:
            event = self._events.popleft()
            if event.type == "captured":
                captured = True  # many per Continue: one state message per turn carries them all
                continue
            captured = False
            if event.type == "finished":  # a plan grown from other lengths that missed the pass: plan them again
                confirm = getattr(self.served.session, "confirm_plan", None)
                if confirm is not None:
                    confirm(self.served.stepper.history)
            fields = {"type": event.type, "index": event.index, "reason": event.reason,
                      "breakpoint": wire.breakpoint_fields(event.breakpoint) if event.breakpoint else None,
                      "error": to_reply(event.error) if event.error is not None else None}
            pushed = self._pushed(event)
            self._send_state("event", {"event": fields, **({"slice": pushed[0]} if pushed else {})},
                             pushed[1] if pushed else ())
        if captured:
            self._send_state("event", {"event": {"type": "captured", "index": len(self.served.stepper.history) - 1}})

    def _pushed(self, event: StepperEvent):
        """The followed view's slice of the stage an event shows (the window would ask for it next)."""
        if self._peer is None or event.index is None or event.type not in ("paused", "moved", "replaced", "finished"):
            return None
        try:
            return self.served.pushed_slice(event.index)
        except (TfdebugError, ValueError, IndexError, RuntimeError):
            return None  # the window asks, and hears why, when it shows the stage

    def _send_state(self, kind: str, fields: dict, buffers=()) -> None:
        if self._peer is None:
            return
        mark = (self._sent_pass, self._sent_len, self._sent_flags, self._sent_generation)
        if not self._send(self._peer, kind, {**fields, "state": self._state()}, buffers):
            # not queued: resend those entries (and the generation) later
            self._sent_pass, self._sent_len, self._sent_flags, self._sent_generation = mark

    def _keepalive(self) -> None:
        """During a long request: the heartbeat when it is due, so the window does not take the work for a lost
        server (nothing is let go here: the window's own pings wait unread until the request is answered)."""
        now = time.monotonic()
        if self._peer is not None and now - self._last_beat >= self.heartbeat_s:
            self._last_beat = now
            self._send_state("heartbeat", {})

    def _beat(self) -> None:
        now = time.monotonic()
        if self._peer is not None and now - self._last_heard > self.client_timeout_s:
            self._detach()  # gone quiet: the pass stays paused where it is, for the next window
        if now - self._last_beat >= self.heartbeat_s:
            self._last_beat = now
            self._send_state("heartbeat", {})

    def _transfer(self, message: Message) -> None:
        """The window's receipt for an export's chunks (more may come), or its cancel (the export ends)."""
        request_id = message["export"]
        job = self.served.exports.get(request_id)
        if job is None:
            return  # it ended already
        if message["cancel"]:
            job.close()
            del self.served.exports[request_id]
            self._send(self._peer, "reply", {"ok": False, "error": to_reply(ExportCancelledError(
                "The export was cancelled; nothing was written.", id="export.cancelled"))}, id=request_id)
            return
        job.received = max(job.received, min(message["received"], job.offset))

    def _answer_comparisons(self) -> None:
        """The reply of each comparison made since the last turn (its table, or why it could not be made)."""
        for request_id, job in list(self.served.comparisons.items()):
            if not job.ready:
                continue
            del self.served.comparisons[request_id]
            try:
                fields, buffers = job.reply()
            except Exception as exc:  # noqa: BLE001 - a typed refusal, or a fault answering that request only
                error = exc if isinstance(exc, TfdebugError) else self.faults.record(exc, "compare request")
                self._send(self._peer, "reply", {"ok": False, "error": to_reply(error)}, id=request_id)
                continue
            self._send(self._peer, "reply", {"ok": True, "result": fields}, buffers, id=request_id)

    def _stream_exports(self) -> None:
        for request_id, job in list(self.served.exports.items()):
            if not job.ready:
                continue  # still being written
            try:
                self._stream_export(request_id, job)
            except Exception as exc:  # noqa: BLE001 - one export's failure (its file gone) ends that export only
                error = self.faults.record(exc, "export request")
                self._send(self._peer, "reply", {"ok": False, "error": to_reply(error)}, id=request_id)
                job.close()
                self.served.exports.pop(request_id, None)

    def _stream_export(self, request_id: int | None, job) -> None:
        """The next chunks of one written export, as far as the window's receipts allow."""
        if job.error is not None or self._peer is None:
            if job.error is not None:
                self._send(self._peer, "reply", {"ok": False, "error": to_reply(job.error)}, id=request_id)
            job.close()
            del self.served.exports[request_id]
            return
        # Up to EXPORT_WINDOW chunks beyond what the window has written: memory stays bounded on both sides.
        while job.offset - job.received < EXPORT_WINDOW * EXPORT_CHUNK:
            total, start = job.total, job.offset
            data = job.next_chunk(EXPORT_CHUNK)
            last = job.offset >= total
            if not self._send(self._peer, "chunk", {"offset": start, "total": total, "last": last},
                              [np.frombuffer(data, dtype=np.uint8)], id=request_id):
                job.rewind(start)  # not queued: the same chunk next turn
                return
            if last:
                job.close()
                del self.served.exports[request_id]
                return
