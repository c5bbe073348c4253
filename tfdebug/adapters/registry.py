"""The registry of model specs: `demo`, `random`, a folder, and prefixed specs (`hf:…`, `torch:…`).

Adding a kind of model means a new adapter module plus one line here: an `Entry`
naming the loader as "module:function" (imported only when used, so optional
dependencies stay optional).
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import torch

from tfdebug.core.devices import resolve_device
from tfdebug.core.errors import ConfigError, ModelLoadError


@dataclass(frozen=True)
class Entry:
    """A model spec (an exact name, or a prefix when it ends with ':') and the loader behind it."""

    spec: str
    loader: str                    # "module:function(spec, device, dtype) -> ModelAdapter"
    listed: bool = True            # shown in the window's model list
    available: str | None = None   # "module:function() -> bool": can it load here?
    help: str = ""
    placed: bool = False           # the loader also takes device_map= and download= (Hugging Face models)


ENTRIES: tuple[Entry, ...] = (
    Entry("demo", "tfdebug.adapters.reference:load_reference", available="tfdebug.models.loader:demo_available",
          help="the bundled English→Chinese translator"),
    Entry("random", "tfdebug.adapters.reference:load_reference", help="a small random reference model"),
    Entry("notes", "tfdebug.adapters.notes:load_notes",
          help="the notes' shapes: d_model 512, 8 heads, batch 32, 10 tokens (random weights)"),
    Entry("torch:", "tfdebug.adapters.torch_nn.adapter:load_torch", listed=False,
          help="package.module:factory, a module calling scaled_dot_product_attention or a torch.nn Transformer"),
    Entry("tiny-gpt2", "tfdebug.adapters.hf.hub:load_bundled", available="tfdebug.adapters.hf.load:tiny_gpt2_available",
          help="the bundled tiny GPT-2-style language model (needs tfdebug[hf])", placed=True),
    Entry("hf:", "tfdebug.adapters.hf.hub:load", listed=False, placed=True,
          help="a Hugging Face model folder, or ORG/NAME[@REVISION] from the local hub cache (needs tfdebug[hf])"),
)
# A folder with the reference model's files (config.json, model.safetensors, vocab.*.txt).
FOLDER_ENTRY = Entry("FOLDER", "tfdebug.adapters.reference:load_reference", listed=False,
                     help="a reference-model folder")


def _resolve(target: str) -> Callable:
    module, _, func = target.partition(":")
    return getattr(importlib.import_module(module), func)


def find_entry(spec: str) -> Entry:
    """The entry that loads `spec`: an exact name, a prefix, or a reference-model folder."""
    for entry in ENTRIES:
        if entry.spec == spec or (entry.spec.endswith(":") and spec.startswith(entry.spec)):
            return entry
    if spec and Path(spec).is_dir():
        return FOLDER_ENTRY
    shown = {"torch:": "torch:package.module:factory", "hf:": "hf:FOLDER or hf:ORG/NAME"}
    names = ", ".join(shown.get(e.spec, e.spec) for e in ENTRIES)
    import difflib

    close = difflib.get_close_matches(spec, [e.spec for e in ENTRIES if not e.spec.endswith(":")], n=1, cutoff=0.6)
    if close:
        raise ModelLoadError("Unknown model '{name}' (did you mean {close}?): use {names} or a model folder.",
                             id="model.unknown_close", name=spec, close=close[0], names=names)
    raise ModelLoadError("Unknown model '{name}': use {names} or a model folder.", id="model.unknown_spec", name=spec,
                         names=names)


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
    for entry in ENTRIES:
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
