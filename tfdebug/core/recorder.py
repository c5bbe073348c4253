"""Recorder: attach hooks to a model's taps for one block of code, keep what they see.

    with Recorder(model) as rec:
        logits = model(src, tgt)
    rec.captures  # forward order, tensors detached on their own device

Hooks (Tap.attach) are removed in `finally`, also when the forward raises. Entering a
Recorder changes nothing process-wide (see tfdebug.core.memory for the opt-in
allocator tuning and for handing a dropped capture's memory back).
"""

from __future__ import annotations

import fnmatch
import math
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Callable, Iterable, Sequence

from tfdebug.core.errors import RecorderBusyError, UnknownStageError
from tfdebug.core.recipes import Plane
from tfdebug.core.stages import StageInfo

if TYPE_CHECKING:  # torch loads when a function first needs it, not with the window
    import torch
    from torch import Tensor, nn

    from tfdebug.core.tap import Tap


@dataclass
class Capture:
    """One captured stage: its description and its tensor (None in a plan, which keeps no data).

    Holds no reference to the model. `edited` marks a tensor the user replaced;
    `dropped` one a capture budget left out of the history (shape and dtype remain).
    """

    info: StageInfo
    shape: tuple[int, ...]
    dtype: torch.dtype
    device: torch.device
    tensor: Tensor | None = None
    edited: bool = field(default=False)
    #: left out of the history by a capture budget (tfdebug.core.budget): its tensor is gone
    dropped: bool = field(default=False)
    #: a tokens² plane kept as a recipe (tfdebug.core.recipes): computed when looked at, holds no plane
    recipe: bool = field(default=False)

    @property
    def name(self) -> str:
        """The stage's name."""
        return self.info.name

    @property
    def nbytes(self) -> int:
        """Size of the stage's tensor (elements × element size)."""
        return math.prod(self.shape) * self.dtype.itemsize

    @property
    def held_nbytes(self) -> int:
        """Bytes the stage itself keeps: a recipe's inputs are other stages, so it keeps none."""
        return 0 if self.recipe else self.nbytes

    def drop(self) -> None:
        """Let the tensor go (a capture budget has no room for it); the description stays."""
        self.tensor, self.dropped = None, True

    @classmethod
    def of(cls, info: StageInfo, tensor: Tensor, keep: bool = True) -> "Capture":
        """A capture of `tensor` at the stage `info`; `keep` False records only its shape, dtype and device."""
        # Positional, with the plane test inline: this runs at every stage of every step of a generation.
        return cls(info, tuple(tensor.shape), tensor.dtype, tensor.device, tensor.detach() if keep else None,
                   False, False, isinstance(tensor, Plane))


# A capture callback may return a tensor to replace the stage's output, or None.
CaptureCallback = Callable[[Capture], "Tensor | None"]


def matches(name: str, patterns: Sequence[str] | None) -> bool:
    """Whether a stage name matches any glob pattern (no patterns: everything matches)."""
    return patterns is None or any(fnmatch.fnmatchcase(name, p) for p in patterns)


def check_patterns(names: Sequence[str], patterns: Sequence[str] | None) -> None:
    """UnknownStageError naming the first pattern that matches none of `names` (a typo would capture
    nothing and say nothing), with the closest stage name as an example."""
    import difflib

    for pattern in patterns or ():
        if names and not any(fnmatch.fnmatchcase(name, pattern) for name in names):
            [like] = difflib.get_close_matches(pattern, names, n=1, cutoff=0)
            raise UnknownStageError("No stage matches '{pattern}'; stage names look like {example}.",
                                    id="stages.no_match", pattern=pattern, example=like)


class Recorder:
    """Context manager recording the taps of `model` that match `stages` (glob patterns).

    keep=False records descriptions, shapes and dtypes only (a plan of the pass).
    `on_capture` runs inside the hook, in the thread running the forward; what it
    returns, when not None, replaces the stage's tensor downstream. `relabel`, when
    given, turns a tap's description (and its tensor) into the description captured (a generation names each
    step's stages `gen.{t}.…`); `stages` patterns match the taps' own names.
    """

    def __init__(self, model: nn.Module, stages: Sequence[str] | None = None, *, keep: bool = True,
                 on_capture: CaptureCallback | None = None,
                 relabel: Callable[[StageInfo, Tensor], StageInfo] | None = None):
        from tfdebug.core.tap import iter_taps

        self.model_taps: list[Tap] = [t for t in iter_taps(model) if matches(t.info.name, stages)]
        self.keep = keep
        self.on_capture = on_capture
        self.relabel = relabel
        self.captures: list[Capture] = []

    def __enter__(self) -> "Recorder":
        busy = [t.info.name for t in self.model_taps if t.hook is not None]
        if busy:
            raise RecorderBusyError("Stage {name} is already being recorded by another pass of this model: "
                                    "stop that pass first.", id="recorder.busy", name=busy[0])
        for tap in self.model_taps:
            tap.attach(self._hook)
        return self

    def __exit__(self, *exc) -> None:
        for tap in self.model_taps:
            tap.detach()
        # Only descriptions stay: the tap modules themselves are not referenced.
        self.model_taps = []

    def _hook(self, tap: Tap, output: Tensor) -> Tensor:
        info = tap.info if self.relabel is None else self.relabel(tap.info, output)
        capture = Capture.of(info, output, keep=self.keep)
        self.captures.append(capture)
        if self.on_capture is not None:
            replacement = self.on_capture(capture)
            if replacement is not None:
                return replacement
        return output

    def __getitem__(self, name: str) -> Capture:
        for capture in self.captures:
            if capture.name == name:
                return capture
        raise UnknownStageError("Nothing recorded a stage named '{name}'.", id="recorder.unknown_stage", name=name)

    def names(self) -> list[str]:
        """The recorded stages' names, in order."""
        return [c.name for c in self.captures]


def stage_plan(model: nn.Module, run: Callable[[], object], fake: bool = True) -> list[Capture]:
    """The stages one call of `run` passes through, in order, with shapes but no tensors.

    With `fake`, first tried with fake tensors (shapes and dtypes only, no arithmetic: a 1.2 B-parameter
    model plans in about a second instead of a whole forward); a model whose forward reads
    values (a Python branch on a tensor) cannot run that way, and is planned by running it.
    Without it, planned by running it: the first fake tensor mode of a process costs about a second
    (it imports torch's compiler and sympy), more than a small model's whole forward.
    """
    import torch
    plan = _fake_plan(model, run) if fake else None
    if plan is not None:
        return plan
    with torch.no_grad(), Recorder(model, keep=False) as rec:
        run()
    return rec.captures


def _fake_plan(model: nn.Module, run: Callable[[], object]) -> list[Capture] | None:
    import torch
    try:
        from torch._subclasses.fake_tensor import FakeTensorMode
    except ImportError:
        return None
    try:
        with torch.no_grad(), FakeTensorMode(allow_non_fake_inputs=True), Recorder(model, keep=False) as rec:
            run()
    except Exception:  # data-dependent control flow, an op fake tensors lack: plan by running instead
        return None
    return rec.captures


def tap_names(model: nn.Module) -> list[str]:
    """The stage names of every Tap in `model`, in module order."""
    from tfdebug.core.tap import iter_taps

    return [t.info.name for t in iter_taps(model)]


def held_bytes(captures: Iterable[Capture]) -> int:
    """Bytes of distinct storage kept alive by captured tensors (views share storage)."""
    seen: dict[tuple, int] = {}
    for capture in captures:
        t = capture.tensor
        if t is None or capture.recipe:
            continue
        storage = t.untyped_storage()
        seen[(storage.data_ptr(), str(t.device))] = storage.nbytes()
    return sum(seen.values())
