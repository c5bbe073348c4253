"""Counting host synchronisations without a GPU.

On a GPU every read of device data by the host makes the host wait for the device:
`.item()`, `.tolist()`, `.cpu()`, `bool(t)` / `int(t)` / `float(t)` (so also `if t > 0:`),
`nonzero` and boolean-mask indexing (their output size depends on the data), and
`torch.tensor(host_data, device=d)` (a host-to-device copy the host waits on).
`HostSyncCounter` counts exactly those calls, from every thread (the stepper's forward
runs in a worker), on any device — so sync budgets are tested on the CPU.

With `device_path=True` (the default) tfdebug's display math takes the code path it
takes on a GPU even for CPU tensors: on the CPU it reads data back freely because that
costs nothing, and those reads are not what the budget is about.
"""

from __future__ import annotations

import threading
from collections import Counter

import torch

_TENSOR_METHODS = ("item", "tolist", "cpu", "__bool__", "__int__", "__float__", "__index__", "nonzero")
_TORCH_FUNCTIONS = ("nonzero", "masked_select")


def _targets_host(args, kwargs) -> bool:
    """Whether a `Tensor.to(...)` call names the CPU as its target device."""
    for value in (*args, kwargs.get("device")):
        if isinstance(value, torch.device):
            return value.type == "cpu"
        if isinstance(value, str):
            return value.startswith("cpu")
    return False


def _is_mask_index(index) -> bool:
    items = index if isinstance(index, tuple) else (index,)
    return any(isinstance(i, torch.Tensor) and i.dtype == torch.bool for i in items)


class HostSyncCounter:
    """Context manager counting host synchronisations (see the module docstring).

        with HostSyncCounter() as syncs:
            ...
        syncs.count, syncs.by_kind  # total, and per operation ("tolist", "cpu", ...)

    It patches torch.Tensor and a few torch functions for its duration (restored on
    exit): it is a measuring instrument for tests and `tfdebug bench`, not for an app.
    """

    def __init__(self, device_path: bool = True):
        self.device_path = device_path
        self.by_kind: Counter[str] = Counter()
        self._lock = threading.Lock()
        self._saved: list[tuple[object, str, object, bool]] = []

    @property
    def count(self) -> int:
        return sum(self.by_kind.values())

    def reset(self) -> None:
        with self._lock:
            self.by_kind.clear()

    def _note(self, kind: str) -> None:
        with self._lock:
            self.by_kind[kind] += 1

    def _patch(self, owner, name: str, replacement) -> None:
        self._saved.append((owner, name, getattr(owner, name), name in vars(owner)))
        setattr(owner, name, replacement)

    def _counting(self, kind: str, original, when=None):
        note = self._note

        def wrapper(*args, **kwargs):
            if when is None or when(args, kwargs):
                note(kind)
            return original(*args, **kwargs)
        wrapper.__name__ = getattr(original, "__name__", kind)
        return wrapper

    def __enter__(self) -> "HostSyncCounter":
        for name in _TENSOR_METHODS:
            self._patch(torch.Tensor, name, self._counting(name, getattr(torch.Tensor, name)))
        self._patch(torch.Tensor, "to", self._counting(
            "to(cpu)", torch.Tensor.to, lambda a, k: _targets_host(a[1:], k)))
        self._patch(torch.Tensor, "__getitem__", self._counting(
            "mask index", torch.Tensor.__getitem__, lambda a, k: len(a) > 1 and _is_mask_index(a[1])))
        for name in _TORCH_FUNCTIONS:
            self._patch(torch, name, self._counting(name, getattr(torch, name)))
        for name in ("tensor", "as_tensor"):
            self._patch(torch, name, self._counting(
                f"{name}(host data, device=)", getattr(torch, name),
                lambda a, k: k.get("device") is not None and not isinstance(a[0] if a else None, torch.Tensor)))
        if self.device_path:
            from tfdebug.core import display, stats
            for module in (display, stats):  # each module's own name: a slice's math and a whole tensor's stats
                self._patch(module, "on_host", lambda tensor: False)
        return self

    def __exit__(self, *exc) -> None:
        while self._saved:
            owner, name, original, own = self._saved.pop()
            if own:
                setattr(owner, name, original)
            else:
                delattr(owner, name)


def sync_counts(model_name: str = "random", texts: dict[str, str] | None = None) -> dict:
    """Host syncs of the budgets, counted on the CPU with HostSyncCounter:

    captured_forward: one forward under the Recorder (budget 1);
    conditions_fast / conditions_exact: Continue from the first stage to the end with
    every condition breakpoint set (budget 1 per forward / at most 1 per stage);
    display_step: the shown slice with its stats, then whole-tensor stats (budget 2);
    heads: every head's thumbnail (budget 1).
    """
    from tfdebug.adapters.reference import ReferenceAdapter
    from tfdebug.sessions.session import DebugSession
    from tfdebug.core.breakpoints import Breakpoint
    from tfdebug.core.display import display_slice
    from tfdebug.core.stats import tensor_stats
    from tfdebug.core.thumbnails import head_thumbnails
    from tfdebug.core.stepper import EXACT, FAST
    from tfdebug.models.loader import load_model

    adapter = ReferenceAdapter(load_model(model_name))
    texts = texts or {"src": "I love you", "tgt": "我 爱 你"}
    out: dict = {}
    session = DebugSession(adapter, texts)
    try:
        session.capture_all()  # warm-up
        with HostSyncCounter() as syncs:
            captures, _ = session.capture_all()
        out["captured_forward"] = syncs.count
        out["stages"] = len(captures)
        masked = next(c for c in captures if c.info.kind == "mask" and c.tensor.dim() == 4)
        with HostSyncCounter() as syncs:
            display_slice(masked.tensor, 2, 3, {0: 0, 1: 0})
            tensor_stats(masked.tensor)
        out["display_step"] = syncs.count
        with HostSyncCounter() as syncs:
            head_thumbnails(masked.tensor, 2, 3, 1, {0: 0})
        out["heads"] = syncs.count
    finally:
        session.close()
    for mode in (FAST, EXACT):
        session = DebugSession(adapter, texts)
        stepper = session.stepper
        try:
            stepper.set_condition_mode(mode)
            stepper.start()
            stepper.wait()
            for bp in (Breakpoint.on_nan(), Breakpoint.on_inf(), Breakpoint.on_abs_above(1e30)):
                stepper.add_breakpoint(bp)
            with HostSyncCounter() as syncs:
                stepper.continue_()
                stepper.wait()
            out[f"conditions_{mode}"] = syncs.count
        finally:
            session.close()
    return out
