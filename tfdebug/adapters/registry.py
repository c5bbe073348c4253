"""The registry of model specs: `demo`, `random`, a folder, and prefixed specs (`hf:…`, `torch:…`).

Adding a kind of model means a new adapter module plus one line in tfdebug.adapters.specs: an
`Entry` naming the loader as "module:function" (imported only when used, so optional
dependencies stay optional).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Callable

from tfdebug.adapters import specs
from tfdebug.adapters.specs import find_entry
from tfdebug.core.devices import resolve_device
from tfdebug.core.errors import ConfigError

if TYPE_CHECKING:  # torch loads when a function first needs it, not with the window
    import torch


def _resolve(target: str) -> Callable:
    module, _, func = target.partition(":")
    return getattr(importlib.import_module(module), func)


DEVICE_MAPS = ("auto", "balanced", "balanced_low_0", "sequential")


def check_device_map(device_map: str | None) -> str | None:
    """`device_map` when it is one accelerate takes ("auto", "balanced", …, "cpu", "cuda:N"), else ConfigError."""
    if device_map is None or device_map in DEVICE_MAPS:
        return device_map
    if device_map.startswith(("cpu", "cuda")):
        return str(resolve_device(device_map))
    raise ConfigError("--device-map takes auto, balanced, cpu or cuda:N, not {name}.", id="device_map.bad_name",
                      name=repr(device_map)[:60])


def load_adapter(spec: str, device: str | torch.device | None = "cpu", dtype: str | torch.dtype = "float32",
                 device_map: str | None = None, download: bool = False):
    """Load the model `spec` names onto `device` in `dtype` as a ModelAdapter.

    `device_map` places a Hugging Face model with accelerate instead (over several GPUs, or
    part on the CPU); a model of another kind runs on one device, so "cpu"/"cuda:N" is that
    device and "auto" the best one here. `download` lets a hub id be fetched when missing.
    """
    import torch
    entry = find_entry(spec)
    device_map = check_device_map(device_map)
    if entry.placed:
        dev = device if isinstance(device, torch.device) else resolve_device(device)
        if device_map is not None:
            _require_accelerate()
        return _resolve(entry.loader)(spec, dev, dtype, device_map=device_map, download=download)
    if device_map is not None and device_map != "auto" and not device_map.startswith(("cpu", "cuda")):
        raise ConfigError("--device-map {name} spreads a Hugging Face model over devices; {spec} runs on one "
                          "device: use --device.", id="device_map.single_device", name=device_map, spec=spec)
    if device_map is not None:
        device = None if device_map == "auto" else device_map
    dev = device if isinstance(device, torch.device) else resolve_device(device)
    return _resolve(entry.loader)(spec, dev, dtype)


def accelerate_available() -> bool:
    """Whether accelerate (the `hf` extra), which device maps need, is installed."""
    import importlib.util

    return importlib.util.find_spec("accelerate") is not None


def _require_accelerate() -> None:
    if not accelerate_available():
        raise ConfigError('--device-map needs accelerate: pip install "tfdebug[hf]".', id="device_map.no_accelerate")


def available_models() -> list[str]:
    """Model specs the window lists, in order: those whose dependencies and files are here."""
    out = []
    for entry in specs.ENTRIES:
        if not entry.listed:
            continue
        try:
            ok = entry.available is None or bool(_resolve(entry.available)())
        except ImportError:
            ok = False
        if ok:
            out.append(entry.spec)
    return out


def default_model_name() -> str:
    """The model the window and the CLI open when none is named: the first available one."""
    return available_models()[0]
