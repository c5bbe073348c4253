"""A backward pass shown as a pass of its own: the gradients of a finished pass, stepped logits first.

`backward_of(session, objective)` runs the objective's backward on a live DebugSession that has run to its end
(`sessions.backward.run_backward`, refused before it runs when its stated peak is over the device's budget) and
returns a `GradientSession`: a replay (`Stepper.replay`) over each stage's gradient in backward order, with the
model's adapter, tokens and texts of the pass it came from. A window shows it as it shows a replayed snapshot
(`sessions.local_source.LocalSource.backward`); `tfdebug serve` serves it as its pass (`remote.backwards`), so a served
window steps the gradients through the same requests as any pass.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import torch

from tfdebug.core.errors import StepperStateError
from tfdebug.core.plan import Plan
from tfdebug.core.stepper import Stepper
from tfdebug.sessions.backward import BackwardPass, Objective, run_backward

TITLE_PREFIX = "backward · "
LARGEST = 12  # the largest parameter gradients a summary lists


@dataclass
class BackwardSummary:
    """What a backward says beside its gradients: per token of the first embedding stage (batch row 0) its label
    and saliency (Σ gradient × embedding, ‖gradient × embedding‖₂; empty when no embedding stage has a gradient);
    the parameters' gradient norm per layer (or module outside the layers) in the model's order; the largest
    parameter gradients by norm, largest first; the parameters' gradient norm per place and module, rows (stack,
    layer, module, norm) in the model's order (`BackwardPass.module_norms`: the overview plot's points); and for
    a speech model, per frame of its spectrogram (Σ, ‖·‖₂) of gradient × activation at the first stage along
    frames (`BackwardPass.frame_saliency`; empty otherwise)."""

    tokens: list[str] = field(default_factory=list)
    saliency: list[tuple[float, float]] = field(default_factory=list)
    layers: list[tuple[str, float]] = field(default_factory=list)
    largest: list[tuple[str, float]] = field(default_factory=list)
    modules: list[tuple[str, int | None, str, float]] = field(default_factory=list)
    frames: list[tuple[float, float]] = field(default_factory=list)


def summary_of(result: BackwardPass, streams: dict[str, list[str]]) -> BackwardSummary:
    """`result`'s BackwardSummary, its tokens labelled from `streams` (a pass's token strings per stream)."""
    from tfdebug.core.stages import token_labels

    saliency = result.saliency() or []
    labels: list[str] = []
    embedding = result.saliency_stage()
    if saliency and embedding is not None:
        refs = [embedding.info.tokens.get(axis) for axis in embedding.info.axes]
        ref = next((r for r in refs if r), None)
        labels = (token_labels(streams, ref) if ref else None) or []
    if len(labels) != len(saliency):
        labels = [str(i) for i in range(len(saliency))]
    largest = sorted(result.parameters.items(), key=lambda item: -item[1])[:LARGEST]
    return BackwardSummary(labels, [(total, norm) for total, norm in saliency], list(result.layer_norms().items()),
                           [(name, norm) for name, norm in largest], result.module_norms(),
                           [(total, norm) for total, norm in result.frame_saliency() or []])


def check_finished(session) -> None:
    """StepperStateError in one sentence unless `session` is a live pass (not a generation, not a backward's
    gradients) that has run to its end."""
    stepper = session.stepper if session is not None else None
    if stepper is None or not stepper.is_live:
        raise StepperStateError("Backward needs a live pass of a model: a recorded pass or a backward's gradients "
                                "cannot be backpropagated again; run the model first.", id="backward.not_live")
    if getattr(session, "is_generation", False):
        raise StepperStateError("Backward reads one pass; a generation's steps are not backpropagated.",
                                id="backward.generation")
    if stepper.alive or stepper.state != "finished":
        raise StepperStateError("The pass has not reached its logits yet: run it to the end first (F5).",
                                id="backward.not_finished")


class GradientSession:
    """The gradients of `source`'s finished pass (a DebugSession) under `result`'s objective, as a replayed pass:
    `stepper` steps them logits first; `adapter`, `prepared`, `tokens` and `texts` are the forward's."""

    is_generation = False

    def __init__(self, source, result: BackwardPass):
        self.adapter, self.prepared, self.result = source.adapter, source.prepared, result
        self.tokens, self.texts, self.stages = source.tokens, source.texts, source.stages
        self.unknown_words, self.notes = source.unknown_words, source.notes
        self.title = TITLE_PREFIX + source.title
        self.replayed = result.recording(source)  # what Export writes: the gradients, the objective in the manifest
        captures = self.replayed.captures
        self.stepper = Stepper.replay(captures)
        self.plan = Plan(captures)
        from tfdebug.sessions.session import layout_of

        self.layout = layout_of(self.adapter, self.plan)

    @property
    def loss(self) -> float:
        """The objective's value."""
        return self.result.loss

    @property
    def peak(self) -> int | None:
        """The peak in bytes the backward stated before it ran (None: it was given no plan to state it from)."""
        return self.result.peak

    @property
    def first_nonfinite(self) -> str | None:
        """The first stage, in backward order, whose gradient holds NaN or ±Inf; None when all are finite."""
        return self.result.first_nonfinite

    def summary(self) -> BackwardSummary:
        """Each token's saliency and the parameters' gradient norms (`summary_of`)."""
        return summary_of(self.result, self.tokens)

    def close(self) -> None:
        """Let the gradients go (the model stays loaded: it is the forward's)."""
        self.stepper.forget_history()
        self.replayed.close()


@dataclass(frozen=True)
class BackwardRoom:
    """What `make_room` found and did: the backward's `peak` stated before it runs (bytes), the `budget` it was
    checked against (None: no limit known) and the bytes of the pass's captures `released` to make room."""

    peak: int
    budget: int | None
    released: int


def make_room(session) -> BackwardRoom:
    """Room for the backward of `session`'s finished pass, whose gradients then replace the pass (the window's
    Debug ▸ Backward): the backward runs a forward of its own, so the pass's captures (`session.stepper`'s history)
    need not be held meanwhile. Its peak is stated and checked against the device's default budget with the bytes
    that letting go of the pass frees counted as free (`core.budget.default_capture_budget(releasing=…)`), and with
    the memory the process has freed but kept (`core.memory`'s tuning keeps up to 2 GiB) handed back first, so the
    budget counts what is in use; when it is over, InputError in one sentence and nothing is let go (the pass can
    still be stepped). When it fits, the pass is let go (`let_go_of_pass`; its stages stay named: it can be run
    again, not stepped) before the backward runs."""
    from tfdebug.core.budget import default_capture_budget
    from tfdebug.core.memory import release_freed_memory
    from tfdebug.sessions.backward_peak import check_backward_fits, parameter_bytes

    check_finished(session)
    adapter = session.adapter
    release_freed_memory()  # the resident memory the budget subtracts is then the memory in use
    freed = freed_by_letting_go(session)
    budget = default_capture_budget(adapter.device, releasing=freed)
    peak, _ = check_backward_fits(list(session.plan), budget, parameter_bytes(adapter.module))
    let_go_of_pass(session)
    return BackwardRoom(peak, budget, freed)


def freed_by_letting_go(session) -> int:
    """Bytes of distinct storage `let_go_of_pass` frees: the captures' tensors and the pass's output."""
    def key(t: torch.Tensor) -> tuple:
        return t.untyped_storage().data_ptr(), str(t.device)

    stepper = session.stepper
    output = getattr(stepper, "output", None)
    tensors = [c.tensor for c in stepper.history if isinstance(c.tensor, torch.Tensor) and not c.recipe]
    tensors += [output] if isinstance(output, torch.Tensor) else []
    return sum({key(t): t.untyped_storage().nbytes() for t in tensors}.values())


def let_go_of_pass(session) -> None:
    """Drop every tensor of `session`'s finished pass: each capture's tensor (a panel that still holds a capture
    holds no tensor through it), the history, the pass's output (its logits, handed to the check of the pass), and
    the adapter's references to the stages that check compares (a check already running holds its own until it
    ends, and the backward's forward waits for it: `core.model_lock`; one not yet started finds them gone and
    calls those stages unchecked); the memory goes back (`core.memory.release_freed_memory`)."""
    from tfdebug.core.memory import release_freed_memory
    from tfdebug.sessions.backward import CHECKED

    stepper = session.stepper
    for capture in list(stepper.history):
        capture.tensor = None
    stepper.forget_history()
    stepper.output = None
    for key in CHECKED:
        vars(session.adapter).pop(key, None)
    release_freed_memory()


def backward_of(session, objective: Objective = Objective(), budget: int | None = None) -> GradientSession:
    """The backward of `session`'s finished pass under `objective` as a GradientSession; the peak is stated and
    checked against `budget` before it runs (None: the device's default capture budget)."""
    from tfdebug.core.budget import default_capture_budget

    check_finished(session)
    adapter = session.adapter
    budget = default_capture_budget(adapter.device) if budget is None else budget
    result = run_backward(adapter, session.prepared, objective, plan=list(session.plan), budget=budget)
    return GradientSession(session, result)
