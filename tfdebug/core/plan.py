"""Plan: the stages of one pass in forward order, with a name → index map, and how to make one
without running the model for real (`plan_pass`), once per model and kind of input (`plan_key`)."""

from __future__ import annotations

import hashlib
import threading
import weakref
from collections import OrderedDict
from typing import TYPE_CHECKING, Callable, Hashable, Iterable, Iterator, Sequence

from tfdebug.core import plan_growth
from tfdebug.core.names import unknown_stage
from tfdebug.core.recorder import Capture, stage_plan

if TYPE_CHECKING:  # torch loads when a function first needs it, not with the window
    from torch import nn


class Plan(Sequence[Capture]):
    """Ordered captures (a plan carries shapes but no tensors) that look up names in O(1).

    `method` says how it was made ("meta": without a real forward, "real", "grown" from another length's plan
    (`plan_growth`), or "" when given ready-made captures); `note` why a meta plan fell back to a real forward, or
    which length a plan was grown from; `family` the key of the plans it grows among (an anchor's or a grown plan's,
    `plan_growth`), or ().
    """

    def __init__(self, captures: Iterable[Capture] = (), method: str = "", note: str = ""):
        self._captures = list(captures)
        self.method = method
        self.note = note
        self.family: tuple = ()
        self._index = {c.name: i for i, c in enumerate(self._captures)}

    def __len__(self) -> int:
        return len(self._captures)

    def __getitem__(self, i):
        return self._captures[i]

    def __iter__(self) -> Iterator[Capture]:
        return iter(self._captures)

    def __contains__(self, name: object) -> bool:
        return name in self._index

    def index_of(self, name: str) -> int:
        """Position of the stage called `name`; UnknownStageError when the pass has none."""
        try:
            return self._index[name]
        except KeyError:
            raise unknown_stage(name, self._index, id="plan.unknown_stage") from None

    def find(self, name: str) -> Capture | None:
        """The capture named `name`, or None."""
        i = self._index.get(name)
        return None if i is None else self._captures[i]

    def names(self) -> list[str]:
        """The captures' names, in order."""
        return [c.name for c in self._captures]


# Forward FLOPs (≈ 2 × parameters × tokens) from which planning on the meta device is cheaper than a real
# forward: planning costs ~0.1–1 ms per operation whatever the sizes, a real forward grows with them. A GPU
# runs a real forward so fast that only very large passes are worth planning on meta.
META_PLAN_FLOPS = {"cpu": 2e9, "cuda": 2e12}
OTHER_DEVICE_META_PLAN_FLOPS = 2e11


PLANS_KEPT = 8  # plans kept per model: a window's Runs go back and forth between a few inputs
_plans: weakref.WeakKeyDictionary[nn.Module, OrderedDict[tuple, Plan]] = weakref.WeakKeyDictionary()
_plans_lock = threading.Lock()  # planned on worker threads


def forget_plans(model: nn.Module) -> None:
    """Forget every plan of `model`, and the lengths its plans grow from (`plan_growth`): its next Run plans anew."""
    with _plans_lock:
        _plans.pop(model, None)
    plan_growth.forget(model)


def weights_of(model: nn.Module) -> list:
    """`model`'s parameters and buffers, walked once for all a plan asks of them (each walk visits every module)."""
    return [*model.parameters(), *model.buffers()]


def plan_key(model: nn.Module, inputs: Iterable[object], method: str, context: Hashable = (),
             weights: list | None = None) -> tuple:
    """What makes two plans of `model` differ: where and in which dtype its weights are, the planning
    method, `context` (how the caller runs the pass: its options besides the tensors), and per input
    tensor its shape, dtype and device and, for integer and boolean tensors, where they hold 0 (a
    padding token or a masked position changes which stages exist: a `masked` stage where padding is
    masked). Other token values change no stage: inputs of the same length share a plan. `weights`:
    `weights_of(model)` where the caller has it."""
    from torch import Tensor
    where = sorted({(str(t.dtype), str(t.device)) for t in (weights if weights is not None else weights_of(model))})
    parts = []
    for t in inputs:
        if not isinstance(t, Tensor):
            continue
        zeros = ""
        if not t.is_floating_point() and not t.is_complex():
            zeros = hashlib.blake2b((t == 0).cpu().numpy().tobytes(), digest_size=16).hexdigest()
        parts.append((tuple(t.shape), str(t.dtype), str(t.device), zeros))
    return (method, model.training, tuple(where), context, tuple(parts))


def plan_pass(model: nn.Module, run: Callable[[], object], inputs: Iterable[object] = (),
              method: str = "auto", context: Hashable | None = None) -> Plan:
    """The Plan of one call of `run` (`make_plan`; `method` as there), made once per `plan_key` when
    `context` is given: a Run of the same input again, or of another input of the same length, reuses it
    (each model keeps its last PLANS_KEPT plans), and a Run of another length is grown from the plans of two
    earlier lengths where these show the model's stages grow with the input (`plan_growth`). Without `context` it
    is always made anew."""
    inputs, weights = list(inputs), weights_of(model)
    if context is None:
        return make_plan(model, run, inputs, method, weights)
    key = plan_key(model, inputs, method, context, weights)
    with _plans_lock:
        kept = _plans.setdefault(model, OrderedDict())
        plan = kept.get(key)
        if plan is not None:
            kept.move_to_end(key)
            return plan
    family = plan_growth.family_of(model, inputs, method, context, key[2])
    plan = plan_growth.grown_plan(model, family) if family is not None else None
    if plan is None:
        plan = make_plan(model, run, inputs, method, weights)
        if family is not None and plan.method == "meta":
            plan_growth.add_anchor(model, family, plan)
    with _plans_lock:
        kept[key] = plan
        while len(kept) > PLANS_KEPT:
            kept.popitem(last=False)
    return plan


def make_plan(model: nn.Module, run: Callable[[], object], inputs: Iterable[object] = (),
              method: str = "auto", weights: list | None = None) -> Plan:
    """The Plan of one call of `run`: stage names, shapes and dtypes, before any real pass.

    method "meta" runs the pass on the meta device: computations on the model's weights
    produce shapes only, while those on the inputs alone (checks of token ids, masks)
    run for real, since a model's code may branch on their values. Where its code needs
    the values of computed tensors (a data-dependent branch), the plan falls back to fake
    tensors, then to a real forward, and `Plan.note` says why. "auto" (the default) plans on
    meta only where that is cheaper than a real forward (`inputs`, the tensors the pass takes,
    size the estimate); "real" always runs the forward. `weights`: `weights_of(model)` where the caller has it.
    """
    weights = weights if weights is not None else weights_of(model)
    if method == "auto":
        method = "meta" if _meta_is_cheaper(weights, inputs) else "real"
    note = ""
    costly = method == "meta"  # a real forward costs more than planning: fake tensors are tried before one
    if method == "meta":
        devices = {t.device for t in weights}
        if len(devices) == 1:
            from tfdebug.core.meta_plan import meta_plan

            try:
                return Plan(meta_plan(model, run, devices.pop(), weights), method="meta")
            except Exception as exc:  # noqa: BLE001 - whatever the model's code did, a real pass answers
                note = (f"planned with a real forward: the model's code needs real values "
                        f"({type(exc).__name__}: {str(exc).splitlines()[0][:160] if str(exc) else 'no message'})")
        else:
            note = "planned with a real forward: the model's weights are on several devices"
    return Plan(stage_plan(model, run, fake=costly), method="real", note=note)


def _meta_is_cheaper(weights: list, inputs: Iterable[object]) -> bool:
    import torch
    params = [p for p in weights if isinstance(p, torch.nn.Parameter)]
    if not params:
        return False
    tokens = max((t.numel() if not t.is_floating_point() else t.numel() // max(1, t.shape[-1]) if t.dim() else 1
                  for t in inputs if isinstance(t, torch.Tensor)), default=1)
    flops = 2.0 * sum(p.numel() for p in params) * tokens
    return flops >= META_PLAN_FLOPS.get(params[0].device.type, OTHER_DEVICE_META_PLAN_FLOPS)
