"""`RemoteSession`: a served pass, a pass source (tfdebug.sessions.source.PassSource) like a local one.

It has what a window reads of any pass (plan, layout, tokens, texts, title, the model's name and
device, the bytes its captures hold, a `stepper`) and a `display` (tfdebug.remote.display.RemoteDisplay)
with the methods of tfdebug.sessions.display.LocalDisplay; its `stepper` is a
tfdebug.remote.stepper.RemoteStepper.
"""

from __future__ import annotations

import dataclasses
import os
import threading
from typing import Callable, Mapping, Sequence

from tfdebug.sessions.generation import TokenEntry
from tfdebug.core.errors import TfdebugError
from tfdebug.core.images import InputImage
from tfdebug.core.layout import PassLayout, build_layout
from tfdebug.core.plan import Plan
from tfdebug.core.stages import StageInfo, token_labels
from tfdebug.io.atomic import ProgressCallback
from tfdebug.remote import wire
from tfdebug.remote.client import RemoteClient
from tfdebug.remote.display import RemoteDisplay
from tfdebug.remote.export_stream import export_served
from tfdebug.remote.errors import ConnectionLostError, FrameError
from tfdebug.models.sampling import DecodingSettings
from tfdebug.sessions.source import Capabilities, Rerun
from tfdebug.remote.protocol import MAX_PLAN, Message, wire_number
from tfdebug.remote.stepper import RemoteStepper


class RemoteSession:
    """A pass served by `tfdebug serve`, attached through `client` (connected by `connect`)."""

    adapter = None  # the model and its adapter are on the server
    #: only the display's answers cross; new passes, references and comparisons are made on the server
    capabilities = Capabilities(tensors_here=False, model_here=False, runs_texts=True, passes_there=True,
                                references=True, reference_device_fixed=True, reference_held_there=True,
                                snapshots_there=True)
    #: a successor's: why the server could not open the new pass (`reopen`), or None
    open_error: TfdebugError | None

    def __init__(self, client: RemoteClient, hook: bool = True):
        self.client = client
        self.stepper = RemoteStepper(self)
        self.display = RemoteDisplay(self)
        self.plan: Plan = Plan()
        self.layout: PassLayout = build_layout([])
        self.pass_info: dict = {}
        #: the picture or spectrogram the served model read (core.images.InputImage, at most MAX_IMAGE bytes), or None
        self.image: InputImage | None = None
        self._generation: tuple[dict[str, list[str]], list[TokenEntry]] | None = None  # the server's, with each state
        self._attached = threading.Event()  # the pass and the state after a hello have arrived
        self._partial_pass: tuple[dict, list, int] | None = None  # a pass whose plan is still coming in parts
        self.on_pass: Callable[[], None] = lambda: None      # a new pass's metadata arrived
        self.on_lost: Callable[[TfdebugError], None] = lambda e: None
        self._successor: RemoteSession | None = None  # the session a new pass (`reopen`) goes to
        self.handed_over = False  # the connection now belongs to the successor: closing this one leaves it
        if hook:
            self._hook()
        self.verification = None

    def _hook(self) -> None:
        self.client.on_message, self.client.on_lost = self._on_message, lambda e: self.on_lost(e)

    @classmethod
    def connect(cls, address: str, token: str, timeout: float = 10.0, **options) -> "RemoteSession":
        """Attach to the server at `address` and wait for its pass's metadata."""
        session = cls(RemoteClient(address, token, **options))
        session.reconnect(timeout)
        return session

    def reconnect(self, timeout: float = 10.0) -> None:
        """Attach (again): the server's pass is where it was; its history and state come anew."""
        self._attached.clear()
        self.display._followed = None  # a new attachment starts without the old view
        self.client.connect(timeout)
        if not self._attached.wait(timeout):
            raise ConnectionLostError("The server let the window in but sent no pass.", id="remote.no_pass")
        self.stepper.wait(timeout)  # a pass just started runs to its first stage

    def request(self, kind: str, fields: dict | None = None, buffers=(), **options) -> Message:
        return self.client.request(kind, fields, buffers, **options)

    def answer(self, kind: str, fields: dict | None, read, buffers=(), **options):
        """`read(result, buffers)` of the reply to a request; a malformed reply closes the connection in one
        sentence (`RemoteClient.answer`)."""
        return self.client.answer(kind, fields, read, buffers, **options)

    def _on_message(self, message: Message) -> None:
        successor = self._successor
        if message.type == "pass" and successor is not None:  # the new pass `reopen` asked for: its session's now
            self.handed_over = True
            successor._hook()
            successor._on_message(message)
            return
        if message.type == "pass":
            self._take_pass(message["pass"])
            return
        if message.type == "plan":
            self._take_plan_part(message)
            return
        state = message["state"]
        if state is not None:
            if isinstance(state, dict) and "generation" in state:  # sent when it changed; first: the events read it
                self._take_generation(state["generation"])
            self.stepper.apply(state)
        if message.type == "event":
            self.display.take_pushed(message["slice"], message.buffers)
            event = message["event"] or {}
            self.stepper.emit(event)
            if event.get("type") == "attached":
                self._attached.set()

    def _take_pass(self, data: dict) -> None:
        """A new pass's metadata, with its plan whole or its first part (the rest comes in `plan` messages)."""
        try:
            entries = list(data["plan"])
            total = int(data.get("plan_total", len(entries)))
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            raise FrameError("The server's pass cannot be read: {why}", id="remote.pass", why=str(exc)[:200]) from None
        if not len(entries) <= total <= MAX_PLAN:
            raise FrameError("The server's plan of {n} stages is more than the {limit} a window takes.",
                             id="remote.plan_size", n=total, limit=MAX_PLAN)
        self._partial_pass = (data, entries, total)
        self._take_whole_pass()

    def _take_plan_part(self, message: Message) -> None:
        """The next part of the plan the last `pass` message began."""
        partial = self._partial_pass
        if partial is None or message["pass"] != partial[0].get("pass") or message["from"] != len(partial[1]) \
                or len(partial[1]) + len(message["entries"]) > partial[2]:
            raise FrameError("A part of the server's plan does not follow on from the parts before it.",
                             id="remote.plan_part")
        partial[1].extend(message["entries"])
        self._take_whole_pass()

    def _take_whole_pass(self) -> None:
        assert self._partial_pass is not None  # a pass message or a part of its plan set it
        data, entries, total = self._partial_pass
        if len(entries) < total:
            return  # more parts follow (ZeroMQ keeps their order)
        self._partial_pass = None
        try:
            plan = Plan(wire.capture_of(e) for e in entries)
            titles = data["titles"]
            layout = build_layout(plan, titles["layer"], titles["site"], titles["stack"])
        except (KeyError, TypeError) as exc:
            raise FrameError("The server's pass cannot be read: {why}", id="remote.pass", why=str(exc)[:200]) from None
        self.image = wire.image_of(data.get("image"))
        self.plan, self.layout, self.pass_info = plan, layout, {**data, "plan": entries}
        self.on_pass()

    def _take_generation(self, data) -> None:
        if data is None:
            self._generation = None
            return
        try:
            tokens = {str(k): [str(w) for w in v] for k, v in data["tokens"].items()}
            entries = [wire.token_entry_of(e) for e in data["entries"]]
        except (KeyError, TypeError, AttributeError) as exc:
            raise FrameError("The server's generation cannot be read: {why}", id="remote.generation",
                             why=str(exc)[:200]) from None
        self._generation = (tokens, entries)

    # ----- a generation served (tfdebug.sessions.generation.GenerationSession on the server) ------------
    @property
    def is_generation(self) -> bool:
        """Whether the served pass generates token by token (Next Token and the Generation dock apply)."""
        return bool(self.pass_info.get("generation"))

    def entries(self) -> list[TokenEntry]:
        """The token strip as the server's generation has it: the prompt, then each chosen token."""
        generation = self._generation
        return list(generation[1]) if generation is not None else []

    def next_token(self) -> None:
        """Run on the server to the end of this step (GenerationSession.next_token there)."""
        self.stepper._command("next_token")

    def run_to_token(self, n: int) -> None:
        """Run on the server until generated token `n` has been chosen (GenerationSession.run_to_token)."""
        self.stepper._command("run_to_token", index=n)

    def runs_as(self, placement) -> bool:
        """Whether a reference in `placement` would run as the served pass does: its dtype with eager attention (the
        server places it on its own device)."""
        return placement.dtype == self.dtype and placement.attention == "eager"

    def set_reference(self, placement, held=None) -> None:
        """The divergence condition's reference pass: this input in `placement`'s dtype on the server's device,
        computed and compared with there (None: none; `held`, the window's, is not needed). Told once per
        connection and dtype: a new pass over the same connection (`reopen`) keeps what the server was told, and
        None is not sent to a connection told nothing. A generation is refused (StepperStateError), as locally."""
        dtype = placement.dtype if placement is not None else None
        told = self.client.told_reference
        if told == dtype or (dtype is None and told is None):
            return
        self.request("breakpoint", {"op": "reference", "dtype": dtype})
        self.client.told_reference = dtype

    def compare(self, against: str, atol: float, rtol: float, *, on_screen: str = "a", dtype: str | None = None,
                path: str | None = None, attention: str | None = None):
        """This pass compared on the server with another it makes there, and the transplant it made
        (tfdebug.remote.comparing.divergence_on_server): only the table crosses."""
        from tfdebug.remote.comparing import divergence_on_server

        return divergence_on_server(self, against, atol, rtol, on_screen=on_screen, dtype=dtype, path=path,
                                    attention=attention)

    def compare_with(self, a, b, atol: float, rtol: float, held):
        """The other side made on the server and compared there (tfdebug.remote.comparing.compare_with_on_server)."""
        from tfdebug.remote.comparing import compare_with_on_server
        return compare_with_on_server(self, a, b, atol, rtol, held)

    def compared_planes(self, name: str, indices_by_name: dict[str, int], max_size: tuple[int, int]):
        """A, B and A − B of stage `name` in the last comparison the server made (only the three planes cross)."""
        from tfdebug.remote.comparing import planes_on_server

        return planes_on_server(self, name, indices_by_name, max_size)

    def vocabulary(self) -> list[str] | None:
        """None: the served model's word list stays on the server (`token_id` asks it)."""
        return None

    def token_id(self, text: str) -> int:
        """The token `text` names, looked up on the server (`why().token_id`)."""
        if text.startswith("#") and text[1:].isdigit():
            return int(text[1:])
        return self.why().token_id(text)

    # ----- what the window reads of a pass source ------------------------------------------------
    @property
    def session(self) -> "RemoteSession":
        """The live session of the pass: this one (its texts, generation and new passes are the server's)."""
        return self

    @property
    def dtype(self) -> str:
        """The served pass's precision, as the server says it ('' from a server that does not)."""
        return str(self.pass_info.get("dtype") or "")

    @property
    def lost(self):
        """Why the connection was lost (a TfdebugError; Reconnect applies), or None while it holds."""
        return self.client.lost

    @property
    def runs_on(self) -> str:
        """The torch device the served model runs on ('cuda:0')."""
        return str(self.pass_info.get("device") or "cpu")

    def why(self):
        """The served pass's lens, attribution and patching (`tfdebug.remote.explaining.RemoteWhy`), each computed
        on the server; ReadoutError (the server's) when the pass cannot be read yet."""
        from tfdebug.remote.explaining import RemoteWhy

        return RemoteWhy.fetch(self)

    def can_backward(self) -> bool:
        """Whether the served pass is a pass of the model (not a generation, not a backward's gradients) that has
        run to its end: Backward then runs on the server."""
        return (not self.pass_info.get("gradients") and not self.is_generation and self.lost is None
                and self.stepper.state == "finished")

    def make_room_for_backward(self) -> int | None:
        """The backward's peak, stated and checked by the server against its own budget with the served pass's
        captures counted as free, which it then lets go (`remote.backwards.request_room`); its refusal, in one
        sentence, leaves the pass as it was."""
        from tfdebug.remote.backwards import request_room

        return request_room(self)

    def backward(self, objective):
        """The served pass's backward under `objective`, run on the server (`tfdebug.remote.backwards`): its
        gradients as a new RemoteSession over this connection (stepped logits first), the loss and the first
        non-finite stage; the server's refusal (in one sentence) leaves the pass as it was."""
        from tfdebug.remote.backwards import request_backward

        return request_backward(self, objective)

    def held_bytes(self) -> int:
        """Bytes the captures hold on the server, as its last state said."""
        return self.stepper.held

    def exportable(self) -> list[str]:
        """The stages the server kept (`export` streams them here as a snapshot)."""
        return [c.name for c in self.stepper.history if not c.dropped]

    def recording(self) -> tuple[None, str]:
        """None: the tensors are on the server (`export` streams them here as a snapshot)."""
        return None, ""

    @property
    def model_name(self) -> str:
        return str(self.pass_info.get("model", ""))

    @property
    def device(self) -> str:
        """The server's device in words ('cuda:0 (NVIDIA H200)')."""
        return str(self.client.server.get("device") or self.pass_info.get("device", ""))

    @property
    def host(self) -> str:
        """The machine the pass runs on."""
        return self.client.address[len("tcp://"):].rpartition(":")[0]

    @property
    def tokens(self) -> dict[str, list[str]]:
        """Token strings per stream (a generation's growing stream as far as the server has chosen)."""
        generation = self._generation
        if generation is not None:
            return {k: list(v) for k, v in generation[0].items()}
        return {k: list(v) for k, v in (self.pass_info.get("tokens") or {}).items()}

    @property
    def texts(self) -> dict[str, str]:
        return dict(self.pass_info.get("texts") or {})

    @property
    def title(self) -> str:
        return str(self.pass_info.get("title", ""))

    @property
    def unknown_words(self) -> list[str]:
        return list(self.pass_info.get("unknown") or [])

    @property
    def notes(self) -> list[str]:
        return list(self.pass_info.get("notes") or [])

    @property
    def stages(self):
        return self.pass_info.get("stages")

    def axis_labels(self, info: StageInfo, axis: int) -> list[str] | None:
        if not 0 <= axis < len(info.axes):
            return None
        which = info.tokens.get(info.axes[axis])
        return token_labels(self.tokens, which) if which else None

    @property
    def chat(self) -> bool:
        """Whether the served pass's texts went in as a user's chat turn (the tokenizer's chat template)."""
        return bool(self.pass_info.get("chat"))

    def can_chat(self) -> bool:
        """Whether the served model's tokenizer has a chat template (the window's Chat toggle can be on)."""
        return bool(self.pass_info.get("can_chat"))

    @property
    def input_fields(self) -> list[tuple[str, str, str]]:
        """(key, label, placeholder) of each text the served model takes."""
        fields = self.pass_info.get("inputs") or []
        return [(str(f[0]), str(f[1]), str(f[2])) for f in fields if isinstance(f, list) and len(f) == 3]

    def reopen(self, texts: Mapping[str, str], timeout: float = 600.0,
               generate: DecodingSettings | None = None, chat: bool | None = None) -> "RemoteSession":
        """A new pass of the served model on `texts` (checked on the server), paused at its first stage,
        as a new RemoteSession over the same connection; this one then closes without detaching. With
        `generate`, the new pass generates token by token with those settings (a GenerationSession there);
        `chat` sends the texts as a user's chat turn, or not (None: as the pass before).

        Texts the server refuses raise its typed error and leave this session and its pass as they were.
        When the server could not plan the new pass and ran the old inputs again, that pass is returned,
        with the error in `open_error`."""
        successor = RemoteSession(self.client, hook=False)
        self._successor = successor
        try:
            settings = None if generate is None else {k: (wire_number(v) if isinstance(v, float) else v)
                                                      for k, v in dataclasses.asdict(generate).items()}
            self.request("open", {"texts": dict(texts), "generate": settings, "chat": chat}, timeout=timeout)
            successor.open_error = None
        except TfdebugError as exc:
            if not self.handed_over:
                raise
            successor.open_error = exc
        finally:
            self._successor = None
        if not self.handed_over:
            raise FrameError("The server started no new pass.", id="remote.no_new_pass")
        successor.stepper.wait()
        return successor

    def rerun(self, texts: Mapping[str, str], generate: DecodingSettings | None,
              chat: bool | None) -> Callable[[], Rerun]:
        """Run on the server: the work (off the GUI thread) that `reopen`s the served model's pass on `texts`, with
        the error that refused them when the server ran the old ones again."""
        def start() -> Rerun:
            new = self.reopen(texts, generate=generate, chat=chat)
            return Rerun(new, new.open_error)
        return start

    # ----- export ----------------------------------------------------------------------------
    def export(self, path: str | os.PathLike, progress: ProgressCallback | None = None,
               stages: Sequence[str] | None = None, fmt: str | None = None) -> str:
        """Stream the pass as a snapshot to this machine and write it to `path` (atomically); the server's note
        (tfdebug.remote.export_stream.export_served: chunks, cancelling, another format written here)."""
        return export_served(self, path, progress, stages, fmt)

    def export_on_server(self, name: str) -> dict:
        """Write the snapshot into the server's export folder; {"path", "bytes", "note"} there."""
        return self.answer("export", {"to": "server", "path": name}, lambda result, _: dict(result))

    def close(self) -> None:
        """Detach; the server keeps the pass paused for the next window (a session whose connection went
        on to a new pass leaves it open)."""
        if not self.handed_over:
            self.client.close()

