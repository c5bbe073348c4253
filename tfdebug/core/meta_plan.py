"""Planning a pass on the meta device (tfdebug.core.plan.make_plan's "meta" method): every operation a
weight flows into runs on meta, giving shapes only; the rest runs for real.

Its own module so that importing tfdebug.core.plan (the Plan a window holds) does not import torch.
"""

from __future__ import annotations

from typing import Callable, TypeVar, cast

import torch
from torch import Tensor, nn
from torch.utils._python_dispatch import TorchDispatchMode
from torch.utils._pytree import tree_leaves, tree_map_only

from tfdebug.core.recorder import Capture, Recorder


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
                return _map_tensors(known, _like)
        result = func(*_map_tensors(args, self._to_meta), **_map_tensors(kwargs, self._to_meta))
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
_V = TypeVar("_V")


def _result_key(func, args: tuple, kwargs: dict) -> tuple | None:
    """The key under which an operation's meta result is reused within one pass, or None: never reused."""
    if not _returns_fresh(func):
        return None
    parts = _signature(args)
    named = _signature(tuple(sorted(kwargs.items()))) if kwargs else ()
    return None if parts is None or named is None else (func, parts, named)


def _map_tensors(value: _V, fn: Callable[[Tensor], Tensor]) -> _V:
    """`value` (an operation's arguments or result) with `fn` applied to each tensor in it: `tree_map_only(Tensor,
    fn, value)` without pytree's flattening, which cost a plan a fifth of its time; plain tuples, lists and dicts
    are walked here, any other container (a named tuple torch returns) handed to pytree."""
    kind = type(value)
    if isinstance(value, Tensor):
        return cast(_V, fn(value))
    if kind is tuple or kind is list:
        return cast(_V, kind(_map_tensors(v, fn) for v in value))  # type: ignore[call-arg]
    if isinstance(value, dict) and kind is dict:
        return cast(_V, {k: _map_tensors(v, fn) for k, v in value.items()})
    if isinstance(value, (tuple, list, dict)):
        return cast(_V, tree_map_only(Tensor, fn, value))
    return value


def _like(t: Tensor) -> Tensor:
    """A new meta tensor with `t`'s shape, strides and dtype."""
    return torch.empty_strided(t.shape, t.stride(), dtype=t.dtype, device="meta")


def meta_plan(model: nn.Module, run: Callable[[], object], device: torch.device,
              weights: list[Tensor]) -> list[Capture]:
    """The captures of one call of `run` with `model`'s weights (its parameters and buffers, `plan.weights_of`) on
    the meta device (tfdebug.core.plan.make_plan), each placed on `device`, where the real pass will put it."""
    with torch.no_grad(), _MetaPass({id(t) for t in weights}, device), Recorder(model, keep=False) as rec:
        run()
    for capture in rec.captures:
        if capture.device.type == "meta":
            capture.device = device  # where the real pass will put it
    return rec.captures
