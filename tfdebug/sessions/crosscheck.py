"""One input on one model in two precisions, on two devices, with two attention kernels or from two loadings
of its weights, compared stage by stage.

    result = compare_placements("hf:Qwen/Qwen3-0.6B", {"prompt": "…"},
                                reference=Placement("float32"), other=Placement("bfloat16"))
    result.first_divergent        # the first stage beyond tolerance (core.compare semantics)

The reference pass runs first and keeps its stages (`fill_reference`, which the window's
divergence condition and Compare With… use too; filter them with `stages` on a big
model); its model is let go before the other one loads, and each stage of the other
pass is compared as it runs and then let go, so at most one model and one stage beside
the reference's stages are held. The tolerance defaults to what the coarser dtype can
hold (`default_tolerance`): rounding is not divergence, an overflow (a cell ±Inf or NaN
in one pass only) always is.

`find_divergence` adds the transplant (tfdebug.sessions.transplant): the reference's tensor put in
at the first stage over tolerance of the other pass, which runs again, so the user sees how much
of the downstream difference starts there.

The same judgement live is a breakpoint condition (`Breakpoint.on_divergence`): a stepper
whose `reference` is a filled ReferencePass stops at the first stage that leaves it.
"""

from __future__ import annotations

import gc
import re
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Callable, Mapping, Sequence

from tfdebug.core.budget import CaptureBudget
from tfdebug.core.compare import Comparison, StageComparison, compare
from tfdebug.core.devices import DTYPES, resolve_device, resolve_dtype
from tfdebug.core.recipes import Plane, materialized
from tfdebug.core.recorder import Capture
from tfdebug.core.reference import ReferencePass

if TYPE_CHECKING:  # torch loads when a function first needs it, not with the window
    import torch

# (atol, rtol) a stage of this dtype is held to against a more precise pass: a few of its epsilons,
# loose enough for rounding that compounds over layers, far tighter than any overflow.
TOLERANCES = {"float16": (1e-2, 2e-2), "bfloat16": (5e-2, 1e-1), "float32": (1e-5, 1e-4)}


# Attention kernels `--against` names (transformers' attn_implementation values; "eager" is tfdebug's tapped one).
KERNELS = ("eager", "sdpa", "flex_attention", "flash_attention_2", "flash_attention_3", "flash_attention_4")
_DEVICE = re.compile(r"(cpu|cuda|mps|xpu|auto)(:\d+)?")


@dataclass(frozen=True)
class Placement:
    """How a model is loaded for one of the two passes: a dtype, a device, an accelerate device map, an
    attention kernel, and another model spec (a second folder of the same weights) or None for the same."""

    dtype: str = "float32"
    device: str | None = "cpu"
    device_map: str | None = None
    attention: str = "eager"
    model: str | None = None

    def describe(self) -> str:
        """'float32 on cpu', with the kernel and the other model when they are not the pass's own."""
        text = f"{self.dtype} on {self.device_map or resolve_device(self.device)}"
        if self.attention != "eager":
            text += f", {self.attention} attention"
        return f"{self.model}, {text}" if self.model else text


def available_kernels() -> tuple[str, ...]:
    """The kernels a reference pass can offer here: eager and sdpa everywhere; the flash kernels where this machine
    meets their requirements (`adapters.hf.kernels.kernel_available`: their package and a GPU)."""
    try:
        from tfdebug.adapters.hf.kernels import kernel_available
    except ImportError:  # without the Hugging Face side there are only tfdebug's and torch's kernels
        return ("eager", "sdpa")
    return tuple(k for k in KERNELS if k in ("eager", "sdpa") or (k.startswith("flash") and kernel_available(k)))


def parse_against(text: str, other: Placement) -> Placement:
    """The reference placement `--against TEXT` names: a dtype, a device, both as DTYPE@DEVICE, an attention
    kernel (sdpa …), or another model (a folder, hf:…); the rest as in `other` (with tfdebug's eager)."""
    if text in KERNELS:
        return Placement(other.dtype, other.device, other.device_map, attention=text)
    dtype, at, device = text.partition("@")
    if dtype in DTYPES:
        return Placement(dtype, device or other.device, None if device else other.device_map)
    if _DEVICE.fullmatch(text):
        return Placement(other.dtype, text, None)
    return Placement(other.dtype, other.device, other.device_map, model=text)


def load_placed(spec: str, placement: Placement, load: Callable | None = None):
    """The adapter of `spec` (or the placement's own model) loaded as `placement` says, kernel chosen."""
    from tfdebug.adapters.registry import load_adapter

    adapter = (load or load_adapter)(placement.model or spec, device=placement.device, dtype=placement.dtype,
                                     device_map=placement.device_map)
    adapter.use_attention(placement.attention)
    return adapter


def default_tolerance(a: torch.dtype, b: torch.dtype) -> tuple[float, float]:
    """(atol, rtol) for comparing passes in dtypes `a` and `b`: the coarser one's."""
    tolerances = [TOLERANCES.get(str(d).removeprefix("torch."), TOLERANCES["float32"]) for d in (a, b)]
    return max(t[0] for t in tolerances), max(t[1] for t in tolerances)


def fill_reference(reference: ReferencePass, spec: str, texts: Mapping[str, str] | None, placement: Placement,
                   stages: Sequence[str] | None = None, load: Callable | None = None, to_host: bool = True,
                   check: Callable[[], None] | None = None,
                   progress: Callable[[int], None] | None = None) -> Mapping[str, str]:
    """Run `texts` through model `spec` placed as `placement` and fill `reference` with its stages (within
    `reference.limit` bytes, in forward order; moved to the host with `to_host`); the model is let go after.

    `check()` may raise to abandon the pass (a cancelled Job); `progress(stages_done)` follows it. Returns
    the texts as the session read them (the same input for the other pass).
    """
    from tfdebug.sessions.session import DebugSession

    adapter = load_placed(spec, placement, load)
    session = DebugSession(adapter, texts, stages=stages)
    budget = CaptureBudget(reference.limit)
    kept: list[Capture] = []
    not_kept: list[str] = []

    def keep(capture: Capture) -> None:
        if check is not None:
            check()
        if to_host and capture.tensor is not None and capture.tensor.device.type != "cpu":
            # A recipe plane on a device is computed whole on the way to the host: it then holds a plane.
            capture.tensor, capture.recipe = materialized(capture.tensor).to("cpu"), False
        if budget.admit(capture):
            kept.append(capture)
        else:
            capture.drop()
            not_kept.append(capture.name)
        if progress is not None:
            progress(len(kept) + len(not_kept))
    session.capture_all(on_capture=keep, verify="never")  # the pass on screen is the one verified
    texts = session.texts
    del adapter, session
    gc.collect()  # the reference model goes before anything else loads
    reference.fill(kept, not_kept)
    return texts


def compare_placements(spec: str, texts: Mapping[str, str] | None, reference: Placement, other: Placement,
                       stages: Sequence[str] | None = None, atol: float | None = None, rtol: float | None = None,
                       load: Callable | None = None,
                       progress: Callable[[str, int], None] | None = None) -> Comparison:
    """Run `texts` through model `spec` placed as `reference`, then as `other`; compare stage by stage.

    `load(spec, device=, dtype=, device_map=)` loads an adapter (default: the registry's);
    `progress(phase, stages_done)` follows the two passes ("reference", "other").
    """
    return find_divergence(spec, texts, reference, other, stages, atol, rtol, load, progress, transplant=False)[0]


def find_divergence(spec: str, texts: Mapping[str, str] | None, reference: Placement, other: Placement,
                    stages: Sequence[str] | None = None, atol: float | None = None, rtol: float | None = None,
                    load: Callable | None = None, progress: Callable[[str, int], None] | None = None,
                    transplant: bool | str = True):
    """`compare_placements`' comparison and the transplant at its first stage over tolerance (or at the stage
    `transplant` names; none with False): (Comparison, Transplant or None)."""
    from tfdebug.sessions.session import DebugSession
    from tfdebug.sessions.transplant import transplant_stage

    default_atol, default_rtol = default_tolerance(resolve_dtype(reference.dtype), resolve_dtype(other.dtype))
    atol = default_atol if atol is None else atol
    rtol = default_rtol if rtol is None else rtol

    held = ReferencePass((spec, reference), reference.describe())
    texts = fill_reference(held, spec, texts, reference, stages=stages, load=load, to_host=False,
                           progress=None if progress is None else lambda n: progress("reference", n))
    adapter = load_placed(spec, other, load)
    session = DebugSession(adapter, texts, stages=stages)
    rows: list[StageComparison] = []

    def judge(capture: Capture) -> None:
        reference_capture = held.capture(capture.name)
        if reference_capture is not None:
            rows.extend(compare([reference_capture], [capture], atol=atol, rtol=rtol).stages)
        elif capture.name not in held.not_kept:  # a stage the reference does not have (another kernel's)
            rows.extend(compare([], [capture]).stages)
        if progress is not None:
            progress("other", len(rows))
    session.capture_all(on_capture=lambda capture: (judge(capture), capture.drop()))
    result = Comparison(tuple(rows), float(atol), float(rtol))
    if transplant is False:
        return result, None
    return result, transplant_stage(session, held.captures, result, None if transplant is True else transplant)


@dataclass(frozen=True)
class BackwardDivergence:
    """Two backward passes of one objective compared gradient by gradient: `comparison` lists the stages in the
    reference's backward order (the logits first), so its `first_divergent` is the first stage in backward order
    whose gradient leaves the tolerance; each pass's loss and first non-finite gradient beside it."""

    comparison: Comparison
    loss_a: float
    loss_b: float
    first_nonfinite_a: str | None
    first_nonfinite_b: str | None

    def to_dict(self) -> dict:
        """The losses and first non-finite gradients as JSON (a NaN or infinite loss as its string)."""
        def number(x: float):
            return x if x == x and abs(x) != float("inf") else str(x)
        return {"loss_a": number(self.loss_a), "loss_b": number(self.loss_b),
                "first_nonfinite_a": self.first_nonfinite_a, "first_nonfinite_b": self.first_nonfinite_b}


def compare_backward(spec: str, texts: Mapping[str, str] | None, reference: Placement, other: Placement,
                     objective=None, stages: Sequence[str] | None = None, atol: float | None = None,
                     rtol: float | None = None, load: Callable | None = None) -> BackwardDivergence:
    """Run `objective`'s backward (default the next-token loss; sessions.backward) of `texts` through model `spec`
    placed as `reference`, then as `other`, and compare every stage's gradient with `core.compare` (the tolerance
    as `compare_placements`' by default: what the coarser dtype holds; a cell ±Inf or NaN in one pass only always
    diverges). The reference's gradients are kept (on the host); its model is let go before the other loads."""
    import torch

    from tfdebug.sessions.backward import Objective, run_backward
    from tfdebug.sessions.session import DebugSession

    default_atol, default_rtol = default_tolerance(resolve_dtype(reference.dtype), resolve_dtype(other.dtype))
    atol = default_atol if atol is None else atol
    rtol = default_rtol if rtol is None else rtol
    objective = objective or Objective()

    def backward(placement: Placement, texts):
        adapter = load_placed(spec, placement, load)
        session = DebugSession(adapter, texts, stages=stages, planning="lazy")
        result = run_backward(adapter, session.prepared, objective, stages)
        result.forward.clear()  # only the gradients are compared
        return result, session.texts

    first, texts = backward(reference, texts)
    cpu = torch.device("cpu")
    # On the host: a gradient plane there stays a recipe (it holds no model); elsewhere it is computed and moved.
    first.gradients[:] = [_on_host(c, cpu) for c in first.gradients]
    gc.collect()  # the reference model goes before the other loads
    second, _ = backward(other, texts)
    result = compare(first.gradients, second.gradients, atol=atol, rtol=rtol)
    return BackwardDivergence(result, first.loss, second.loss, first.first_nonfinite, second.first_nonfinite)


def _on_host(gradient: Capture, cpu: torch.device) -> Capture:
    """A reference gradient kept on the host: a plane there as it is (a recipe), any other computed and moved."""
    tensor = gradient.tensor
    assert tensor is not None  # a backward's gradient has its tensor
    if isinstance(tensor, Plane) and tensor.device == cpu:
        return gradient
    return replace(gradient, tensor=materialized(tensor).detach().to(cpu), device=cpu, recipe=False)
