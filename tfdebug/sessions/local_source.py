"""`LocalSource`: a pass in this process as a pass source (`sessions.source.PassSource`).

It wraps a live DebugSession or GenerationSession, or a replayed snapshot, and answers the window's questions
here: its display is a `sessions.display.LocalDisplay` on its stepper, its lens and patching read the pass's
own tensors (or a snapshot's, with the model it names), and its backward runs in this process.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Mapping, Sequence

from tfdebug.core.layout import build_layout
from tfdebug.core.plan import Plan
from tfdebug.core.recorder import held_bytes
from tfdebug.io.atomic import ProgressCallback
from tfdebug.io.recording import Recording, recording_on_screen
from tfdebug.sessions.display import LocalDisplay
from tfdebug.sessions.source import Backwarded, Capabilities

if TYPE_CHECKING:

    pass


class LocalSource:
    """A pass in this process: a live `session` (DebugSession or GenerationSession), or a replay of
    `replayed` (a Recording read lazily by `stepper`)."""

    host = ""
    lost = None

    def __init__(self, stepper, session=None, replayed: Recording | None = None,
                 tokens: Mapping[str, Sequence[str]] | None = None, title: str = ""):
        self.stepper, self.session, self.replayed = stepper, session, replayed
        self.display = LocalDisplay(stepper, replayed)
        if session is not None:
            self.plan, self.layout, self._title = session.plan, session.layout, session.title
        else:
            self.plan = Plan(stepper.history)
            self.layout, self._title = build_layout(self.plan), title
        self._tokens = {k: list(v) for k, v in (tokens or {}).items()}
        self._model = None  # a replayed snapshot's model, loaded for its lens (`_recorded_model`)
        self._backward_budget: int | None = None  # the budget `make_room_for_backward` checked against
        self._compared: tuple[Recording, Recording] | None = None  # (A, B) of the last `compare`
        model = session is not None
        reruns = model and getattr(session, "adapter", None) is not None and hasattr(session, "verify")
        self.capabilities = Capabilities(  # a GenerationSession has no single pass to run again (no `verify`)
            tensors_here=True, model_here=model, runs_texts=model, reruns_here=reruns, references=reruns)

    @classmethod
    def live(cls, session) -> "LocalSource":
        """The pass of a live DebugSession or GenerationSession."""
        return cls(session.stepper, session)

    @classmethod
    def replay(cls, stepper, tokens: Mapping[str, Sequence[str]], title: str,
               recording: Recording | None = None) -> "LocalSource":
        """A recorded pass (Stepper.replay over `recording`, which closes with the source)."""
        return cls(stepper, None, recording, tokens, title)

    @property
    def title(self) -> str:
        """The pass in one line, for the window's title."""
        return self._title

    @property
    def model_name(self) -> str:
        """The model's name ('recorded' for a snapshot)."""
        return self.session.adapter.name if self.session is not None else "recorded"

    @property
    def device(self) -> str:
        """The model's device, or a recording's current stage's ('' when none is shown)."""
        if self.session is not None:
            return str(self.session.adapter.device)
        current = self.stepper.current
        return str(current.device) if current is not None else ""

    @property
    def dtype(self) -> str:
        """The model's precision ('bfloat16'), or a recording's current stage's ('' when none is shown)."""
        if self.session is not None:
            return str(self.session.adapter.dtype).removeprefix("torch.")
        current = self.stepper.current
        return str(current.dtype).removeprefix("torch.") if current is not None else ""

    @property
    def runs_on(self) -> str:
        """The torch device the model runs on; '' for a recording."""
        return str(self.session.adapter.device) if self.session is not None else ""

    @property
    def tokens(self) -> dict[str, list[str]]:
        """Token strings per stream (a live session's, or the recording's)."""
        if self.session is not None:
            return self.session.tokens
        return {k: list(v) for k, v in self._tokens.items()}

    @property
    def texts(self) -> dict[str, str]:
        """The typed texts per input field ({} for a recording)."""
        return self.session.texts if self.session is not None else {}

    @property
    def image(self):
        """The picture the model read (the live pass's or the snapshot's), or None."""
        if self.session is not None:
            return getattr(self.session.prepared, "image", None)
        return getattr(self.replayed, "image", None)

    @property
    def input_fields(self) -> list[tuple[str, str, str]]:
        """(key, label, placeholder) of each input the pass took."""
        if self.session is not None:
            return [(f.key, f.label, f.placeholder) for f in self.session.adapter.inputs]
        labels = self.replayed.input_labels if self.replayed is not None else {}
        return [(k, labels.get(k) or k.capitalize(), "") for k in self._tokens]

    @property
    def chat(self) -> bool:
        """Whether the texts went in as a user's chat turn (never for a recording)."""
        return self.session is not None and self.session.adapter.chat

    def can_chat(self) -> bool:
        """Whether the model can take its texts as a chat turn (never for a recording)."""
        return self.session is not None and self.session.adapter.can_chat()

    @property
    def is_generation(self) -> bool:
        """Whether the pass is a generation, token by token."""
        return bool(getattr(self.session, "is_generation", False))

    def held_bytes(self) -> int:
        """Bytes the stepper's captured tensors hold."""
        return held_bytes(self.stepper.history)

    def recording(self) -> tuple[Recording | None, str]:
        """The pass on screen as a Recording, and a note when it is partial."""
        return recording_on_screen(self.stepper, self.session, self.replayed)

    def exportable(self) -> list[str]:
        """The stages of the pass on screen's `recording()` ([] before a live pass has run a stage)."""
        recording, _ = self.recording()
        return recording.names() if recording is not None else []

    def export(self, path: str | os.PathLike, progress: ProgressCallback | None = None,
               stages: Sequence[str] | None = None, fmt: str | None = None) -> str:
        """Write the pass on screen (its `recording()`: a live pass's stages so far, or the snapshot replayed), or
        only `stages`, to `path`; the note when it is partial. ExportError when there is no pass to write yet."""
        from tfdebug.core.errors import ExportError
        from tfdebug.io.exports import export_pass

        recording, note = self.recording()
        if recording is None:
            raise ExportError("There is no recorded pass to export yet: run a pass or open a snapshot first.")
        export_pass(recording, path, stages, fmt, progress)
        return str(note)

    def vocabulary(self) -> list[str] | None:
        """The adapter's token strings of a live pass; None for a recording (its model is not loaded here)."""
        return self.session.adapter.vocabulary() if self.session is not None else None

    def token_id(self, text: str) -> int:
        """The token `text` names, by the live pass's adapter, or a replayed snapshot's model (`why().token_id`)."""
        from tfdebug.sessions.why import token_id

        if self.session is not None:
            return token_id(self.session.adapter, text)
        return self.why().token_id(text)

    def rerun(self, texts: Mapping[str, str], generate, chat: bool | None) -> None:
        """None: Run starts a new pass here through the window's loader (its model, device and precision may be
        other than this pass's)."""
        return None

    def runs_as(self, placement) -> bool:
        """Whether `placement` is where and how the live pass's model already runs (False for a recording)."""
        from tfdebug.core.devices import resolve_device, resolve_dtype

        if self.session is None:
            return False
        adapter = self.session.adapter
        return (adapter.dtype == resolve_dtype(placement.dtype) and adapter.device == resolve_device(placement.device)
                and placement.attention == getattr(adapter, "attention", "eager") and placement.model is None)

    def set_reference(self, placement, held=None) -> None:
        """The stepper compares with `held(placement)`, the window's reference pass computed here (None: with none;
        a StepperStateError without `held`)."""
        from tfdebug.core.errors import StepperStateError

        self.stepper.reference = None
        if placement is None:
            return
        if held is None:
            raise StepperStateError("A pass in this process compares with the window's reference pass: none was given.")
        self.stepper.reference = held(placement)

    def compare(self, against: str, atol: float, rtol: float, *, on_screen: str = "a", dtype: str | None = None,
                path: str | None = None, attention: str | None = None):
        """With `against` "placed", the pass so far compared with the reference pass its stepper holds
        (`set_reference`'s, in its own dtype), the stages not in both left out; no transplant. Another pass (a
        snapshot, the pass before an edit) is made and compared here by `compare_with`: a CompareError, as
        without a reference."""
        from tfdebug.core.compare import compare
        from tfdebug.core.errors import CompareError

        reference, (recording, _) = self.stepper.reference, self.recording()
        if against != "placed" or reference is None or recording is None:
            raise CompareError("A pass in this process is compared with its reference pass here; other passes from "
                               "the window's recordings.")
        names = {c.name for c in recording.captures}
        held = Recording(captures=[c for c in reference.captures if c.name in names], tokens=recording.tokens,
                         model_name=recording.model_name, dtype=reference.key[2].dtype)
        passes = (held, recording) if on_screen == "b" else (recording, held)
        result = compare(*passes, atol=atol, rtol=rtol)
        self._compared = passes
        return result, None

    def compare_with(self, a, b, atol: float, rtol: float, held):
        """Both sides made here and compared in this process (`sessions.compare_sides.compare_here`)."""
        from tfdebug.sessions.compare_sides import compare_here

        return compare_here(self, a, b, atol, rtol, held)

    def compared_planes(self, name: str, indices_by_name: dict[str, int], max_size: tuple[int, int]):
        """A, B and A − B of stage `name` in the last `compare`, cut here (core.compare_planes); a CompareError
        before one."""
        from tfdebug.core.compare_planes import compared_planes
        from tfdebug.core.errors import CompareError

        if self._compared is None:
            raise CompareError("A pass in this process is compared with its reference pass here; other passes from "
                               "the window's recordings.")
        return compared_planes(*self._compared, name, indices_by_name, max_size)

    def why(self):
        """The lens, attribution and patching of the finished live pass, or of a replayed snapshot read out with the
        model it names (loaded here once); ReadoutError for a recording without that model or a pass not
        finished (`finished_why`'s refusals)."""
        from tfdebug.core.readout import ReadoutError
        from tfdebug.sessions.why import finished_why, recorded_why

        if self.session is None:
            if self.replayed is None:
                raise ReadoutError("A recorded pass has no model to read its residual stream out with: open the "
                                   "model and run the pass live to see its lens and attribution.")
            return recorded_why(self.replayed, self._recorded_model())
        return finished_why(self.session)

    def _recorded_model(self):
        """The model a replayed snapshot names, loaded once (the lens, the attribution and patching share it)."""
        from tfdebug.sessions.why import recorded_model

        if self._model is None:
            assert self.replayed is not None
            self._model = recorded_model(self.replayed)
        return self._model

    def can_backward(self) -> bool:
        """Whether Backward applies now: a live pass, not a generation, that has finished."""
        stepper = self.stepper
        return (self.session is not None and not self.is_generation and stepper.is_live and not stepper.alive
                and stepper.state == "finished")

    def make_room_for_backward(self) -> int | None:
        """The backward's stated peak, checked with this pass's captures counted as free; they are let go when it
        fits (`sessions.gradient_session.make_room`), and the next `backward` is checked against that budget."""
        from tfdebug.sessions.gradient_session import make_room

        room = make_room(self.session)
        self._backward_budget = room.budget
        return room.peak

    def backward(self, objective) -> Backwarded:
        """The backward of the finished pass under `objective`, its gradients as a replayed source."""
        from tfdebug.sessions.gradient_session import backward_of

        budget, self._backward_budget = self._backward_budget, None
        gradients = backward_of(self.session, objective, budget)
        source = LocalSource.replay(gradients.stepper, gradients.tokens, gradients.title, gradients.replayed)
        return Backwarded(source, gradients.loss, gradients.first_nonfinite, gradients.summary(), gradients.peak)

    def close(self) -> None:
        """Stop the session or the live stepper, and close a replayed snapshot."""
        if self.session is not None:
            self.session.close()
        elif self.stepper.is_live:
            self.stepper.stop()
        if self.replayed is not None:
            self.replayed.close()
