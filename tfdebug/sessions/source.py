"""The pass-source protocol: everything a window asks of a pass, wherever the pass runs.

A window holds one `PassSource` and talks to it only through the members below, so every panel
works for every pass by construction: `sessions.local_source.LocalSource` wraps a pass in this process (a live
DebugSession, a GenerationSession, or a replayed snapshot), and tfdebug.remote.session.RemoteSession
is a pass that `tfdebug serve` runs on another machine. Where the two differ, the difference is a
method here with two implementations, or a field of its `Capabilities` that says what the source can do
(`capabilities.tensors_here`, `capabilities.passes_there` …), never which kind it is.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable, Mapping, Protocol, Sequence

from tfdebug.core.checks import Check
from tfdebug.core.display import DisplaySlice
from tfdebug.core.stats import Stats
from tfdebug.core.layout import PassLayout
from tfdebug.core.plan import Plan
from tfdebug.core.recorder import Capture
from tfdebug.core.stepper_like import StepperLike
from tfdebug.core.thumbnails import HeadThumbnails
from tfdebug.core.tiles import Tile
from tfdebug.io.atomic import ProgressCallback
from tfdebug.io.recording import Recording

if TYPE_CHECKING:
    from torch import Tensor

    from tfdebug.core.compare import Comparison
    from tfdebug.core.compare_planes import ComparedPlanes
    from tfdebug.core.errors import TfdebugError
    from tfdebug.core.images import InputImage
    from tfdebug.core.reference import ReferencePass
    from tfdebug.models.sampling import DecodingSettings
    from tfdebug.sessions.compare_sides import Held, Side
    from tfdebug.sessions.compare_sides import Work as CompareWork
    from tfdebug.sessions.crosscheck import Placement
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

    def holds(self, capture: Capture) -> bool:
        """Whether the stage's tensor can be read by this display: kept by a pass in this process (or in the file
        a replay reads it from), or kept where a served pass runs; False when the capture budget left it out."""
        ...

    # Where each answer is worked out (the window asks these, never where the tensors are):

    def ready(self, capture: Capture) -> bool:
        """Whether the stage can be shown with no read first: its tensor in memory here, or kept where a served pass
        runs (False for a replayed stage still in its file and for one the capture budget left out)."""
        ...

    def reads_now(self, capture: Capture) -> bool:
        """Whether the stage's tensor is in memory in this process, so a small slice of it may be cut on the
        calling thread (the GUI's) with no read and no round trip; False: ask off the GUI thread."""
        ...

    def unread(self, capture: Capture) -> bool:
        """Whether the stage is kept but not read yet (a replayed stage still in its file here): a jump to it reads
        and prepares it first, off the GUI thread (tfdebug.sessions.display_cache)."""
        ...

    @property
    def reads_ahead(self) -> bool:
        """Whether the stages around the shown one are read, sliced and summarised ahead in this process
        (tfdebug.sessions.display_cache.prepare), so the next step draws at once."""
        ...

    @property
    def slices_bring_moments(self) -> bool:
        """Whether a slice is best asked with its mean and std (served: one answer, usually the one its pause
        brought), rather than its image first and its moments after (here: the image sooner)."""
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

    def summarised(self) -> list[Capture]:
        """The stages the Overview plots a statistic of: a live pass's stages so far (those the capture budget kept),
        every stage of the snapshot a replay reads, a served pass's history."""
        ...

    def summarises(self, capture: Capture, up_to: int) -> bool:
        """Whether the Overview's statistic of `capture` is worth computing when stages above `up_to` bytes are
        read only through the heatmap's slice: here, not above it (read whole, one would be gigabytes); a served
        pass's server summarises every stage where it is."""
        ...

    def statistics_known(self, captures: Sequence[Capture], statistic: str) -> list[float | None]:
        """What `statistics_of` computed before for each capture as it is now (None: not yet); cheap, asked on the
        GUI thread."""
        ...

    def statistics_of(self, captures: Sequence[Capture], statistic: str) -> list[float]:
        """The Overview's statistic of each capture (NaN where no tensor is kept), computed where the tensors are
        (off the GUI thread) and kept for `statistics_known`."""
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
    #: a reference pass of it can be made, to compare it with or to stop where it diverges (on its server, or here:
    #: `reruns_here`); `runs_as` says which placements would show nothing
    references: bool = False
    #: its reference pass (the divergence condition's, Compare With…'s "another dtype") runs on the pass's own
    #: device, which the window offers no choice of (a served pass's server places it there); False: on the device
    #: the window picks
    reference_device_fixed: bool = False
    #: its reference pass is held, and the divergence condition checked, by the machine that runs the pass (a served
    #: pass's server); False: the window computes it off its thread and keeps its stages on this host, within the
    #: capture budget
    reference_held_there: bool = False
    #: Compare With…'s snapshot side is a file the pass's machine reads, named alone in its export folder (this
    #: machine's files are not browsed for it); False: any file on this machine
    snapshots_there: bool = False


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
    #: the peak in bytes the backward stated before it ran (None where it was given no plan to state it from)
    peak: int | None = None


@dataclass(frozen=True)
class Rerun:
    """A new pass a source started where it runs (the work `PassSource.rerun` gives): its source, and the error that
    refused the new texts when the old ones ran again instead (None when the new texts ran)."""

    source: "PassSource"
    refused: "TfdebugError | None" = None


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

    def exportable(self) -> list[str]:
        """The stages `export` can write, in forward order ([] when there is nothing to export yet)."""
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

    def rerun(self, texts: Mapping[str, str], generate: DecodingSettings | None,
              chat: bool | None) -> Callable[[], Rerun] | None:
        """How Run (with `generate`, Generate) starts a new pass on `texts` (`chat`: as a user's chat turn; None: as
        this pass did). Where `capabilities.passes_there`, the work that starts it where the pass runs, to call off
        the GUI thread (a served pass: its server runs its own model on them; texts it refuses raise, or run the old
        ones again: `Rerun.refused`). None where the window's loader starts it in this process instead, with the
        input bar's model, device, precision and capture budget, which may differ from this pass's (a pass here;
        with no pass on screen the loader starts it too)."""
        ...

    def runs_as(self, placement: Placement) -> bool:
        """Whether a pass in `placement` would run as this one does (its reference there would show nothing): the
        model's dtype, device, attention kernel and weights here; a served pass's dtype and eager attention (the
        server places its reference on its own device)."""
        ...

    def set_reference(self, placement: Placement | None,
                      held: Callable[[Placement], ReferencePass] | None = None) -> None:
        """The divergence condition's reference: this input in `placement` (None: none). Where
        `capabilities.passes_there`, computed and compared with where the pass runs, told `placement`'s dtype (its
        server places it on its own device). Else `held(placement)`: the window's reference pass, computed in this
        process off the GUI thread (tfdebug.core.reference), which the stepper compares with as it runs (a
        StepperStateError without `held`). A TfdebugError says why there is none; the pass then has none."""
        ...

    def compare(self, against: str, atol: float, rtol: float, *, on_screen: str = "a", dtype: str | None = None,
                path: str | None = None, attention: str | None = None) -> tuple[Comparison, Transplant | None]:
        """Compare this pass with another made where it runs, and the transplant made at the first divergent stage
        (None where none is made). Where `capabilities.passes_there`: "placed" (this input in `dtype` /
        `attention`, or the divergence reference held there), "unedited", or "file" (the snapshot `path` there)
        (tfdebug.remote.comparing). Else only "placed" with the divergence reference its stepper holds
        (`set_reference`); other passes, a CompareError: `compare_with` makes and compares them here."""
        ...

    def compare_with(self, a: Side, b: Side, atol: float, rtol: float, held: Held) -> CompareWork:
        """File ▸ Compare With… of sides `a` and `b`: the work that makes and compares them, to call off the GUI thread
        with a `check` that raises to abandon it (`sessions.compare_sides.Compared`: the table, the passes when they
        are recordings here, the files to close, the transplant). A side that cannot be had raises its TfdebugError
        now. A pass here makes its sides here (`compare_sides.compare_here`, with `held`: the window's reference pass
        and the pass before its last edit); a served pass has its server make the side that is not the pass on
        screen and compare them there (tfdebug.remote.comparing.compare_with_on_server)."""
        ...

    def compared_planes(self, name: str, indices_by_name: dict[str, int],
                        max_size: tuple[int, int]) -> ComparedPlanes:
        """A, B and A − B of stage `name` in the last `compare`, cut where it ran (a CompareError before one)."""
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
        stated peak in bytes comes back. A served pass asks its server, which states the peak and checks it against
        its own budget, and lets go of the pass there."""
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
