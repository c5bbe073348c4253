"""Plan: the stages of one pass in forward order, with a name → index map, and how to make one
without running the model for real (`plan_pass`), once per model and kind of input (`plan_key`)."""

from __future__ import annotations

import hashlib
import threading
import weakref
from collections import OrderedDict
from typing import Callable, Hashable, Iterable, Iterator, Sequence

import torch
from torch import Tensor, nn
from torch.utils._python_dispatch import TorchDispatchMode
from torch.utils._pytree import tree_leaves, tree_map_only

from tfdebug.core.names import unknown_stage
from tfdebug.core.recorder import Capture, Recorder, stage_plan


class Plan(Sequence[Capture]):
    """Ordered captures (a plan carries shapes but no tensors) that look up names in O(1).

    `method` says how it was made ("meta": without a real forward, "real", or "" when
    given ready-made captures); `note` why a meta plan fell back to a real forward.
    """

    def __init__(self, captures: Iterable[Capture] = (), method: str = "", note: str = ""):
        self._captures = list(captures)
        self.method = method
        self.note = note
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
        i = self._index.get(name)
        return None if i is None else self._captures[i]

    def names(self) -> list[str]:
        return [c.name for c in self._captures]


# Forward FLOPs (≈ 2 × parameters × tokens) from which planning on the meta device is cheaper than a real
# forward: planning costs ~0.1–1 ms per operation whatever the sizes, a real forward grows with them. A GPU
# runs a real forward so fast that only very large passes are worth planning on meta.
META_PLAN_FLOPS = {"cpu": 2e9, "cuda": 2e12}
OTHER_DEVICE_META_PLAN_FLOPS = 2e11


PLANS_KEPT = 8  # plans kept per model: a window's Runs go back and forth between a few inputs
_plans: weakref.WeakKeyDictionary[nn.Module, OrderedDict[tuple, Plan]] = weakref.WeakKeyDictionary()
_plans_lock = threading.Lock()  # planned on worker threads


def plan_key(model: nn.Module, inputs: Iterable[object], method: str, context: Hashable = ()) -> tuple:
    """What makes two plans of `model` differ: where and in which dtype its weights are, the planning
    method, `context` (how the caller runs the pass: its options besides the tensors), and per input
    tensor its shape, dtype and device and, for integer and boolean tensors, where they hold 0 (a
    padding token or a masked position changes which stages exist: a `masked` stage where padding is
    masked). Other token values change no stage: inputs of the same length share a plan."""
    weights = sorted({(str(t.dtype), str(t.device)) for t in (*model.parameters(), *model.buffers())})
    parts = []
    for t in inputs:
        if not isinstance(t, Tensor):
            continue
        zeros = ""
        if not t.is_floating_point() and not t.is_complex():
            zeros = hashlib.blake2b((t == 0).cpu().numpy().tobytes(), digest_size=16).hexdigest()
        parts.append((tuple(t.shape), str(t.dtype), str(t.device), zeros))
    return (method, model.training, tuple(weights), context, tuple(parts))


def plan_pass(model: nn.Module, run: Callable[[], object], inputs: Iterable[object] = (),
              method: str = "auto", context: Hashable | None = None) -> Plan:
    """The Plan of one call of `run` (`make_plan`; `method` as there), made once per `plan_key` when
    `context` is given: a Run of the same input again, or of another input of the same length, reuses it
    (each model keeps its last PLANS_KEPT plans). Without `context` it is always made anew."""
    inputs = list(inputs)
    if context is None:
        return make_plan(model, run, inputs, method)
    key = plan_key(model, inputs, method, context)
    with _plans_lock:
        kept = _plans.setdefault(model, OrderedDict())
        plan = kept.get(key)
        if plan is not None:
            kept.move_to_end(key)
            return plan
    plan = make_plan(model, run, inputs, method)
    with _plans_lock:
        kept[key] = plan
        while len(kept) > PLANS_KEPT:
            kept.popitem(last=False)
    return plan


def make_plan(model: nn.Module, run: Callable[[], object], inputs: Iterable[object] = (),
              method: str = "auto") -> Plan:
    """The Plan of one call of `run`: stage names, shapes and dtypes, before any real pass.

    method "meta" runs the pass on the meta device: computations on the model's weights
    produce shapes only, while those on the inputs alone (checks of token ids, masks)
    run for real, since a model's code may branch on their values. Where its code needs
    the values of computed tensors (a data-dependent branch), the plan falls back to a
    real forward and `Plan.note` says why. "auto" (the default) plans on meta only where
    that is cheaper than a real forward (`inputs`, the tensors the pass takes, size the
    estimate); "real" always runs the forward.
    """
    if method == "auto":
        method = "meta" if _meta_is_cheaper(model, inputs) else "real"
    note = ""
    if method == "meta":
        devices = {p.device for p in model.parameters()} | {b.device for b in model.buffers()}
        if len(devices) == 1:
            try:
                return Plan(_meta_plan(model, run, devices.pop()), method="meta")
            except Exception as exc:  # noqa: BLE001 - whatever the model's code did, a real pass answers
                note = (f"planned with a real forward: the model's code needs real values "
                        f"({type(exc).__name__}: {str(exc).splitlines()[0][:160] if str(exc) else 'no message'})")
        else:
            note = "planned with a real forward: the model's weights are on several devices"
    return Plan(stage_plan(model, run), method="real", note=note)


def _meta_is_cheaper(model: nn.Module, inputs: Iterable[object]) -> bool:
    params = [p for p in model.parameters()]
    if not params:
        return False
    tokens = max((t.numel() if not t.is_floating_point() else t.numel() // max(1, t.shape[-1]) if t.dim() else 1
                  for t in inputs if isinstance(t, torch.Tensor)), default=1)
    flops = 2.0 * sum(p.numel() for p in params) * tokens
    return flops >= META_PLAN_FLOPS.get(params[0].device.type, OTHER_DEVICE_META_PLAN_FLOPS)


class _MetaPass(TorchDispatchMode):
    """Runs on the meta device every operation a weight (or a tensor computed from one) flows into;
    the rest, computed from the inputs alone, runs for real on the model's device."""

    def __init__(self, weights: set[int], device: torch.device):
        super().__init__()
        self._weights = weights
        self._device = device
        self._meta: dict[int, Tensor] = {}  # the meta twin of each weight, made once per pass
        # What an operation gave for arguments of these shapes, strides, dtypes and values: a Transformer
        # repeats each operation once per layer on the same shapes, and torch's meta kernels cost Python
        # time per call (a layer norm's decomposition ~1.5 ms), so each is worked out once per pass.
        self._results: dict[tuple, object] = {}

    def _to_meta(self, t: Tensor) -> Tensor:
        if t.is_meta:
            return t
        if id(t) in self._weights:
            twin = self._meta.get(id(t))
            if twin is None:
                twin = self._meta[id(t)] = t.to("meta")
            return twin
        return t.to("meta")

    def _planned(self, values) -> bool:
        """Whether a weight or a planned (meta) tensor is among `values` (an op's arguments, one level of lists)."""
        weights = self._weights
        for a in values:
            if isinstance(a, Tensor):
                if a.is_meta or id(a) in weights:
                    return True
            elif isinstance(a, (list, tuple)) and any(isinstance(b, Tensor) and (b.is_meta or id(b) in weights)
                                                      for b in tree_leaves(a)):
                return True
        return False

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        if not (self._planned(args) or (kwargs and self._planned(kwargs.values()))):
            device = kwargs.get("device")
            if device is not None and torch.device(device).type == "meta":
                # `x.device` of a planned tensor says meta; what is made from it alone is real.
                kwargs = {**kwargs, "device": self._device}
            return func(*args, **kwargs)
        key = _result_key(func, args, kwargs)
        if key is not None:
            known = self._results.get(key)
            if known is not None:
                return tree_map_only(Tensor, _like, known)
        args, kwargs = tree_map_only(Tensor, self._to_meta, (args, kwargs))
        result = func(*args, **kwargs)
        if key is not None and all(t.is_meta for t in tree_leaves(result) if isinstance(t, Tensor)):
            self._results[key] = result
        return result


_FRESH: dict[object, bool] = {}  # operator → whether its results are new tensors (no view, nothing written)


def _returns_fresh(func) -> bool:
    fresh = _FRESH.get(func)
    if fresh is None:
        schema = func._schema
        fresh = _FRESH[func] = not schema.is_mutable and all(r.alias_info is None for r in schema.returns)
    return fresh


def _signature(value):
    """A hashable description of an argument that decides a meta result's shape, strides and dtype; None when
    there is none (an argument of a kind not described here: the result is then not reused)."""
    if isinstance(value, Tensor):
        return ("T", tuple(value.shape), value.stride(), value.dtype)
    if isinstance(value, (list, tuple)):
        parts = tuple(_signature(v) for v in value)
        return None if any(p is None for p in parts) else (type(value).__name__, parts)
    if value is None:
        return _NONE
    if isinstance(value, (bool, int, float, str, torch.dtype, torch.device, torch.layout, torch.memory_format)):
        return (type(value).__name__, value)
    return None


_NONE = ("None",)


def _result_key(func, args: tuple, kwargs: dict) -> tuple | None:
    """The key under which an operation's meta result is reused within one pass, or None: never reused."""
    if not _returns_fresh(func):
        return None
    parts = _signature(args)
    named = _signature(tuple(sorted(kwargs.items()))) if kwargs else ()
    return None if parts is None or named is None else (func, parts, named)


def _like(t: Tensor) -> Tensor:
    """A new meta tensor with `t`'s shape, strides and dtype."""
    return torch.empty_strided(t.shape, t.stride(), dtype=t.dtype, device="meta")


def _meta_plan(model: nn.Module, run: Callable[[], object], device: torch.device) -> list[Capture]:
    weights = {id(p) for p in model.parameters()} | {id(b) for b in model.buffers()}
    with torch.no_grad(), _MetaPass(weights, device), Recorder(model, keep=False) as rec:
        run()
    for capture in rec.captures:
        if capture.device.type == "meta":
            capture.device = device  # where the real pass will put it
    return rec.captures
