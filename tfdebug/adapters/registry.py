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
from tfdebug.core.errors import ModelLoadError


@dataclass(frozen=True)
class Entry:
    """A model spec (an exact name, or a prefix when it ends with ':') and the loader behind it."""

    spec: str
    loader: str                    # "module:function(spec, device, dtype) -> ModelAdapter"
    listed: bool = True            # shown in the window's model list
    available: str | None = None   # "module:function() -> bool": can it load here?
    help: str = ""


ENTRIES: tuple[Entry, ...] = (
    Entry("demo", "tfdebug.adapters.reference:load_reference", available="tfdebug.models.loader:demo_available",
          help="the bundled English→Chinese translator"),
    Entry("random", "tfdebug.adapters.reference:load_reference", help="a small random reference model"),
    Entry("notes", "tfdebug.adapters.notes:load_notes",
          help="the notes' shapes: d_model 512, 8 heads, batch 32, 10 tokens (random weights)"),
    Entry("torch:", "tfdebug.adapters.sdpa:load_torch", listed=False,
          help="package.module:factory, a module calling scaled_dot_product_attention or a torch.nn Transformer"),
    Entry("tiny-gpt2", "tfdebug.adapters.hf:load_bundled", available="tfdebug.adapters.hf_load:tiny_gpt2_available",
          help="the bundled tiny GPT-2-style language model (needs tfdebug[hf])"),
    Entry("hf:", "tfdebug.adapters.hf:load", listed=False, help="a Hugging Face model folder (needs tfdebug[hf])"),
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
    names = ", ".join(e.spec + ("FOLDER" if e.spec.endswith(":") else "") for e in ENTRIES)
    raise ModelLoadError("Unknown model '{name}': use {names} or a model folder.", id="model.unknown_spec", name=spec,
                         names=names)


def load_adapter(spec: str, device: str | torch.device | None = "cpu", dtype: str | torch.dtype = "float32"):
    """Load the model `spec` names onto `device` as a ModelAdapter."""
    entry = find_entry(spec)
    dev = device if isinstance(device, torch.device) else resolve_device(device)
    return _resolve(entry.loader)(spec, dev, dtype)


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
