"""One input on one model in two precisions or on two devices, compared stage by stage.

    result = compare_placements("hf:Qwen/Qwen3-0.6B", {"prompt": "…"},
                                reference=Placement("float32"), other=Placement("bfloat16"))
    result.first_divergent        # the first stage beyond tolerance (core.compare semantics)

The reference pass runs first and keeps its stages (filter them with `stages` on a big
model); its model is let go before the other one loads, and each stage of the other
pass is compared as it runs and then let go, so at most one model and one stage beside
the reference's stages are held. The tolerance defaults to what the coarser dtype can
hold (`default_tolerance`): rounding is not divergence, an overflow (a cell ±Inf or NaN
in one pass only) always is.

`divergence_predicate` makes the same judgement live, for a stepper: it stops a pass at
the first stage that diverges from a reference pass (`Stepper.run_until`).
"""

from __future__ import annotations

import gc
from dataclasses import dataclass
from typing import Callable, Mapping, Sequence

import torch

from tfdebug.core.compare import Comparison, StageComparison, compare
from tfdebug.core.devices import DTYPES, resolve_dtype
from tfdebug.core.recorder import Capture

# (atol, rtol) a stage of this dtype is held to against a more precise pass: a few of its epsilons,
# loose enough for rounding that compounds over layers, far tighter than any overflow.
TOLERANCES = {torch.float16: (1e-2, 2e-2), torch.bfloat16: (5e-2, 1e-1), torch.float32: (1e-5, 1e-4)}


@dataclass(frozen=True)
class Placement:
    """How a model is loaded for one of the two passes: a dtype, a device, an accelerate device map."""

    dtype: str = "float32"
    device: str | None = "cpu"
    device_map: str | None = None

    def describe(self) -> str:
        return f"{self.dtype} on {self.device_map or self.device or 'auto'}"


def parse_against(text: str, other: Placement) -> Placement:
    """The reference placement `--against TEXT` names: a dtype, a device, or both as DTYPE@DEVICE; the rest
    as in `other`."""
    dtype, _, device = text.partition("@")
    if dtype not in DTYPES:
        dtype, device = other.dtype, text
    return Placement(dtype, device or other.device, None if device else other.device_map)


def default_tolerance(a: torch.dtype, b: torch.dtype) -> tuple[float, float]:
    """(atol, rtol) for comparing passes in dtypes `a` and `b`: the coarser one's."""
    tolerances = [TOLERANCES.get(d, TOLERANCES[torch.float32]) for d in (a, b)]
    return max(t[0] for t in tolerances), max(t[1] for t in tolerances)


def compare_placements(spec: str, texts: Mapping[str, str] | None, reference: Placement, other: Placement,
                       stages: Sequence[str] | None = None, atol: float | None = None, rtol: float | None = None,
                       load: Callable | None = None,
                       progress: Callable[[str, int], None] | None = None) -> Comparison:
    """Run `texts` through model `spec` placed as `reference`, then as `other`; compare stage by stage.

    `load(spec, device=, dtype=, device_map=)` loads an adapter (default: the registry's);
    `progress(phase, stages_done)` follows the two passes ("reference", "other").
    """
    from tfdebug.adapters.registry import load_adapter
    from tfdebug.adapters.session import DebugSession

    load = load or load_adapter
    default_atol, default_rtol = default_tolerance(resolve_dtype(reference.dtype), resolve_dtype(other.dtype))
    atol = default_atol if atol is None else atol
    rtol = default_rtol if rtol is None else rtol

    adapter = load(spec, device=reference.device, dtype=reference.dtype, device_map=reference.device_map)
    session = DebugSession(adapter, texts, stages=stages)
    held: list[Capture] = []

    def keep(capture: Capture) -> None:
        held.append(capture)
        if progress is not None:
            progress("reference", len(held))
    session.capture_all(on_capture=keep)
    by_name = {c.name: c for c in held}
    texts = session.texts
    del adapter, session
    gc.collect()  # the reference model goes before the other one loads

    adapter = load(spec, device=other.device, dtype=other.dtype, device_map=other.device_map)
    session = DebugSession(adapter, texts, stages=stages)
    rows: list[StageComparison] = []

    def judge(capture: Capture) -> None:
        reference_capture = by_name.get(capture.name)
        if reference_capture is not None:
            rows.extend(compare([reference_capture], [capture], atol=atol, rtol=rtol).stages)
        if progress is not None:
            progress("other", len(rows))
    session.capture_all(on_capture=lambda capture: (judge(capture), capture.drop()))
    return Comparison(tuple(rows), float(atol), float(rtol))


def divergence_predicate(reference: Mapping[str, Capture], atol: float, rtol: float,
                         found: Callable[[StageComparison], None] | None = None) -> Callable[[Capture], bool]:
    """A stepper predicate: True at the first stage whose tensor diverges from the same stage of `reference`
    (name → Capture holding a tensor). `found` receives that stage's comparison (for the A, B, A − B view)."""
    def diverges(capture: Capture) -> bool:
        ref = reference.get(capture.name)
        if ref is None or capture.tensor is None or tuple(ref.shape) != tuple(capture.shape):
            return False
        row = compare([ref], [capture], atol=atol, rtol=rtol).stages[0]
        if row.diverges and found is not None:
            found(row)
        return row.diverges
    return diverges
