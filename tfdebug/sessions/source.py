"""The pass-source protocol: everything a window asks of a pass, wherever the pass runs.

A window holds one `PassSource` and talks to it only through the members below, so every panel
works for every pass by construction: `LocalSource` wraps a pass in this process (a live
DebugSession, a GenerationSession, or a replayed snapshot), and tfdebug.remote.session.RemoteSession
is a pass that `tfdebug serve` runs on another machine. Where the two differ, the difference is a
method here with two implementations, or a field of its `Capabilities` that says what the source can do
(`capabilities.tensors_here`, `capabilities.passes_there` …), never which kind it is.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Mapping, Protocol, Sequence

from tfdebug.core.checks import Check
from tfdebug.core.display import DisplaySlice, Stats
from tfdebug.core.layout import PassLayout, build_layout
from tfdebug.core.plan import Plan
from tfdebug.core.recorder import Capture, held_bytes
from tfdebug.core.stepper_like import StepperLike
from tfdebug.core.thumbnails import HeadThumbnails
from tfdebug.core.tiles import Tile
from tfdebug.io.atomic import ProgressCallback
from tfdebug.io.recording import Recording, recording_on_screen
from tfdebug.sessions.display import LocalDisplay

if TYPE_CHECKING:
    from torch import Tensor

    from tfdebug.core.compare import Comparison
    from tfdebug.core.compare_planes import ComparedPlanes
    from tfdebug.core.errors import TfdebugError
    from tfdebug.core.images import InputImage
    from tfdebug.sessions.transplant import Transplant
    from tfdebug.sessions.why_view import WhyView


class PassDisplay(Protocol):
    """The display operations of a pass, answered where its tensors live (tfdebug.core.display's math)."""

    def follow(self, pinned: tuple[str, str] | None, indices_by_name: Mapping[str, int], max_size: tuple[int, int],
               moments: bool = True, stats_up_to: int | None = None) -> None:
        """The window's view (core.view.ViewSelection's pinned axes and indices): a source that can sends each
        stage's slice (and its stats, up to `stats_up_to` bytes) with the event that shows it."""
        ...

    def mask_of(self, capture: Capture) -> Tensor | None:
        """The mask tensor a softmax stage read when it is in this process (drawn masked too), else None."""
        ...

    def slice_of(self, capture: Capture, row: int, col: int, indices: Mapping[int, int],
                 max_size: tuple[int, int], moments: bool = True) -> DisplaySlice:
        """The shown 2-D slice, downsampled to at most `max_size`, with its stats."""
        ...

    def moments_of(self, capture: Capture, row: int, col: int, indices: Mapping[int, int], partial: Stats) -> Stats:
        """`partial` (a slice's stats without mean and std) completed."""
        ...

    def heads_of(self, capture: Capture, row: int, col: int, head: int, indices: Mapping[int, int],
                 max_size: tuple[int, int]) -> HeadThumbnails:
        """Every head's thumbnail of the shown slice."""
        ...

    def tile_of(self, capture: Capture, row: int, col: int, indices: Mapping[int, int], rows: tuple[int, int],
                cols: tuple[int, int], max_size: tuple[int, int], row_max: bool = False) -> Tile:
        """Rows × columns of the shown slice at most `max_size`."""
        ...

    def stats_of(self, capture: Capture) -> Stats:
        """Whole-tensor stats of the stage."""
        ...

    def checks_of(self, capture: Capture) -> list[Check]:
        """The live checks of the stage (tfdebug.core.checks), computed where its tensor is."""
        ...

    def statistics_of(self, captures: Sequence[Capture], statistic: str) -> list[float]:
        """The Overview's statistic of each capture (NaN where no tensor is kept)."""
        ...


@dataclass(frozen=True)
class Capabilities:
    """What a pass source can do, whatever kind it is: the window reads these fields (and calls the source's
    methods), never asks whether the pass is live, replayed or served. Every field is False for no pass
    (`NO_PASS`)."""

    #: the captures' tensors are in this process (False: only `display` and `export` reach them)
    tensors_here: bool = False
    #: the model runs in this process: Run loads it here, a batch runs here, the verification runs here
    model_here: bool = False
    #: the pass is of a model on typed texts (here or on its server), which Run can start again on new ones
    #: (False: a recording, whose inputs are fixed)
    runs_texts: bool = False
    #: new passes of its model (Run, Generate), its divergence reference and Compare's other pass are made where
    #: the pass runs, on its device (`set_reference`, `compare`, `compared_planes`; Run and Generate on that
    #: machine); False: in this window's process
    passes_there: bool = False
    #: one pass of a model in this process that can be run again (not a generation): a reference pass, the check
    #: against the unmodified model, a transplant, another input and the capture estimate are made here
    reruns_here: bool = False


#: the capabilities when no pass is on screen
NO_PASS = Capabilities()


@dataclass
class Backwarded:
    """What a pass source's `backward` gives back: the gradients as a pass source of their own (stepped logits
    first, as a replay), the objective's value, the first stage in backward order whose gradient holds NaN or
    ±Inf (None when every gradient is finite), and its summary (saliency, parameters' gradient norms)."""

    source: "PassSource"
    loss: float
    first_nonfinite: str | None
    #: each token's saliency and the parameters' gradient norms (`sessions.gradient_session.BackwardSummary`)
    summary: object = None
    #: the peak in bytes the backward stated before it ran (None where it was not told: a served pass)
    peak: int | None = None


class PassSource(Protocol):
    """One pass as the window sees it: stepping, its stages, their display, and what it says about itself."""

    @property
    def stepper(self) -> StepperLike:
        """The pass's stepper: commands (step, continue, run_to, edit …), history and events (core.stepper_like)."""
        ...

    plan: Plan
    layout: PassLayout

    @property
    def display(self) -> PassDisplay:
        """The display operations of the pass, answered where its tensors live."""
        ...

    @property
    def capabilities(self) -> Capabilities:
        """What this source can do (a frozen record the window reads instead of asking its kind)."""
        ...

    # Any: a DebugSession or GenerationSession here, a served pass's RemoteSession, each read by what it has
    @property
    def session(self) -> Any:
        """The live session of the pass (its adapter, texts, prepared inputs), or None for a recording."""
        ...

    @property
    def title(self) -> str:
        """The pass in one line, for the window's title."""
        ...

    @property
    def model_name(self) -> str:
        """The model's name ('recorded' for a snapshot)."""
        ...

    @property
    def device(self) -> str:
        """Where the pass runs, in words."""
        ...

    @property
    def dtype(self) -> str:
        """The pass's precision ('bfloat16'), or '' when unknown."""
        ...

    @property
    def runs_on(self) -> str:
        """The torch device the model runs on ('cuda:0'), where a reference pass of it runs; '' for a recording."""
        ...

    @property
    def tokens(self) -> dict[str, list[str]]:
        """Token strings per stream (a generation's stream as far as it has got)."""
        ...

    @property
    def texts(self) -> dict[str, str]:
        """The typed texts per input field ({} for a recording)."""
        ...

    @property
    def image(self) -> InputImage | None:
        """The picture (or spectrogram) the model read (`core.images.InputImage`: a live pass's, the one a snapshot
        carries, or a served pass's bounded copy), or None."""
        ...

    @property
    def input_fields(self) -> list[tuple[str, str, str]]:
        """(key, label, placeholder) of each input the pass took."""
        ...

    @property
    def chat(self) -> bool:
        """Whether the texts went in as a user's chat turn (the tokenizer's chat template)."""
        ...

    def can_chat(self) -> bool:
        """Whether the model can take its texts as a chat turn (the input bar's Chat toggle can be on)."""
        ...

    @property
    def is_generation(self) -> bool:
        """Whether the pass generates token by token (Next Token and Run to Token apply)."""
        ...

    @property
    def host(self) -> str:
        """The machine the pass runs on, '' for this one (its own export folder, reconnecting: tfdebug serve)."""
        ...

    @property
    def lost(self) -> TfdebugError | None:
        """Why the pass can no longer be reached (a TfdebugError), or None."""
        ...

    def held_bytes(self) -> int:
        """Bytes the captured tensors hold, wherever they are."""
        ...

    def recording(self) -> tuple[Recording | None, str]:
        """The pass as a Recording in this process and a note when partial; None when its tensors are elsewhere
        (a served pass's `export` streams them here as a snapshot)."""
        ...

    def export(self, path: str | os.PathLike, progress: ProgressCallback | None = None,
               stages: Sequence[str] | None = None, fmt: str | None = None) -> str:
        """Write the pass (or only `stages`) to `path` in the format `fmt` or its extension names, reporting
        `progress(done, total)` (False cancels); a note on what was written ('' when none). A served pass streams
        its snapshot here first."""
        ...

    def vocabulary(self) -> list[str] | None:
        """The model's token strings in id order (a `vocab` axis's labels), or None where no word list is here."""
        ...

    def token_id(self, text: str) -> int:
        """The one token `text` names ('#123' an id, else a word of the vocabulary), looked up by the pass's own
        model: its adapter here, the server's for a served pass; ReadoutError when it names none."""
        ...

    def set_reference(self, dtype: str | None) -> None:
        """Where `capabilities.passes_there`: the divergence condition's reference is this input in `dtype` on the
        pass's device, computed and compared with there (None: none). Elsewhere a StepperStateError: the window
        computes the reference in this process and sets it on the stepper."""
        ...

    def compare(self, against: str, atol: float, rtol: float, *, on_screen: str = "a", dtype: str | None = None,
                path: str | None = None, attention: str | None = None) -> tuple[Comparison, Transplant | None]:
        """Where `capabilities.passes_there`: compare this pass with another made where it runs ("placed": this
        input in `dtype` / `attention`, "unedited", or "file": the snapshot `path` there) and the transplant made
        at the first divergent stage (tfdebug.remote.comparing). Elsewhere a CompareError: the window compares
        recordings in this process."""
        ...

    def compared_planes(self, name: str, indices_by_name: dict[str, int],
                        max_size: tuple[int, int]) -> ComparedPlanes:
        """A, B and A − B of stage `name` in the last `compare`, cut where it ran (a CompareError where it did
        not run there)."""
        ...

    def why(self) -> WhyView:
        """The lens, attribution and patching of the finished pass (a `sessions.why_view.WhyView`: the local
        `sessions.why.Why`, or a served pass's, computed on the server); ReadoutError saying why there is none (a
        pass not run to its end, a recording without its model, a model without a language-model head)."""
        ...

    def can_backward(self) -> bool:
        """Whether Backward applies now: a live pass of a model (not a generation, not a backward's gradients)
        that has run to its end."""
        ...

    def make_room_for_backward(self) -> int | None:
        """Before a backward whose gradients replace this pass on screen (call it on the GUI thread, with nothing
        reading the pass's tensors): its peak stated and checked against this machine's budget with the pass's
        captures counted as free; a TfdebugError in one sentence when it does not fit (nothing is let go: the pass
        can still be stepped), else the pass's captures are let go (it can be run again, not stepped) and the
        stated peak in bytes comes back. None where the pass's tensors are not here (a served pass: its server
        states and checks its own backward)."""
        ...

    def backward(self, objective) -> Backwarded:
        """The backward of the finished pass under `objective` (`sessions.backward.Objective`), run where the model
        is (here, or on the server of a served pass), its peak stated and checked against that machine's budget
        before it runs (the budget `make_room_for_backward` found, when it was called); a TfdebugError in one
        sentence when there is no finished live pass or it does not fit."""
        ...

    def close(self) -> None:
        """Stop or detach the pass and free what it holds."""
        ...


class LocalSource:
    """A pass in this process: a live `session` (DebugSession or GenerationSession), or a replay of
    `replayed` (a Recording read lazily by `stepper`)."""

    host = ""
    lost = None

    def __init__(self, stepper, session=None, replayed: Recording | None = None,
                 tokens: Mapping[str, Sequence[str]] | None = None, title: str = ""):
        self.stepper, self.session, self.replayed = stepper, session, replayed
        self.display = LocalDisplay(stepper)
        if session is not None:
            self.plan, self.layout, self._title = session.plan, session.layout, session.title
        else:
            self.plan = Plan(stepper.history)
            self.layout, self._title = build_layout(self.plan), title
        self._tokens = {k: list(v) for k, v in (tokens or {}).items()}
        self._model = None  # a replayed snapshot's model, loaded for its lens (`_recorded_model`)
        self._backward_budget: int | None = None  # the budget `make_room_for_backward` checked against
        model = session is not None
        self.capabilities = Capabilities(  # a GenerationSession has no single pass to run again (no `verify`)
            tensors_here=True, model_here=model, runs_texts=model,
            reruns_here=model and getattr(session, "adapter", None) is not None and hasattr(session, "verify"))

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

    def set_reference(self, dtype: str | None) -> None:
        """Refused: a pass here gets its reference from the window (computed here, set on the stepper)."""
        from tfdebug.core.errors import StepperStateError

        raise StepperStateError("A pass in this process gets its reference pass from the window, not from its source.")

    def compare(self, against: str, atol: float, rtol: float, *, on_screen: str = "a", dtype: str | None = None,
                path: str | None = None, attention: str | None = None):
        """Refused: a pass here is compared by the window, from recordings in this process."""
        from tfdebug.core.errors import CompareError

        raise CompareError("A pass in this process is compared from its recording here, not by its source.")

    def compared_planes(self, name: str, indices_by_name: dict[str, int], max_size: tuple[int, int]):
        """Refused: the planes of a comparison made here are cut from its recordings (core.compare_planes)."""
        from tfdebug.core.errors import CompareError

        raise CompareError("A pass in this process is compared from its recording here, not by its source.")

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
