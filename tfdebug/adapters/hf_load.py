"""Loading a Hugging Face model folder, locally only, and refusing what tfdebug should not load.

A folder needs `config.json`, weights as `model.safetensors` (or a sharded
`model.safetensors.index.json` with its shards) and `tokenizer.json`. A pickle-only
checkpoint (`pytorch_model.bin`) is refused without being opened. Nothing reaches a
model hub: every call passes `local_files_only=True`.
"""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import torch
from torch import nn

from tfdebug.core.errors import ModelLoadError, UnsupportedModelError
from tfdebug.core.phrases import Phrase

INSTALL_HINT = 'Hugging Face models need the optional extra: pip install "tfdebug[hf]" (transformers and tokenizers).'
BUNDLED = {"tiny-gpt2": "tiny-gpt2"}


def transformers_available() -> bool:
    """Whether transformers and tokenizers can be imported here."""
    try:
        return all(importlib.util.find_spec(m) is not None for m in ("transformers", "tokenizers"))
    except (ImportError, ValueError):
        return False


def require_transformers() -> None:
    """Raise ModelLoadError, saying which pip line installs it, when transformers is not installed."""
    if not transformers_available():
        raise ModelLoadError('Hugging Face models need the optional extra: pip install "tfdebug[hf]" '
                             '(transformers and tokenizers).', id="hf.install_hint")  # = INSTALL_HINT


def bundled_folder(name: str) -> Path:
    """Where a bundled tiny model lives (resources/<name>)."""
    from importlib.resources import files

    return Path(str(files("tfdebug.resources"))) / BUNDLED[name]


def tiny_gpt2_available() -> bool:
    """The bundled tiny GPT-2-style model is listed when the extra is installed and its files are present."""
    return transformers_available() and (bundled_folder("tiny-gpt2") / "model.safetensors").is_file()


def check_folder(folder: Path) -> dict:
    """The folder's config as a dict, after checking every file a load needs; ModelLoadError naming what is wrong."""
    if not folder.is_dir():
        raise ModelLoadError("No model folder at {folder}.", id="hf.no_folder", folder=str(folder))
    config_file = folder / "config.json"
    if not config_file.is_file():
        raise ModelLoadError("{folder} has no config.json, so it is not a Hugging Face model folder.",
                             id="hf.no_config", folder=str(folder))
    has_weights = (folder / "model.safetensors").is_file() or (folder / "model.safetensors.index.json").is_file()
    if not has_weights:
        pickles = sorted(p.name for p in folder.glob("*.bin"))
        if pickles:
            raise ModelLoadError(
                "{folder} holds only a pickle checkpoint ({pickle}); tfdebug loads safetensors only and "
                "does not open pickles: save the model with save_pretrained(..., safe_serialization=True).",
                id="hf.pickle_only", folder=str(folder), pickle=pickles[0])
        raise ModelLoadError("{folder} has no model.safetensors (or model.safetensors.index.json).",
                             id="hf.no_weights", folder=str(folder))
    _check_shards(folder)
    if not (folder / "tokenizer.json").is_file():
        raise ModelLoadError("{folder} has no tokenizer.json (a tokenizer saved by the tokenizers library).",
                             id="hf.no_tokenizer", folder=str(folder))
    try:
        config = json.loads(config_file.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ModelLoadError("{file} is not readable JSON ({reason}).", id="hf.config_unreadable",
                             file=str(config_file), reason=str(exc)) from None
    if not isinstance(config, dict):
        raise ModelLoadError("{file} does not hold a JSON object.", id="hf.config_not_object",
                             file=str(config_file))
    return config


def _check_shards(folder: Path) -> None:
    index = folder / "model.safetensors.index.json"
    if (folder / "model.safetensors").is_file() or not index.is_file():
        return
    try:
        weight_map = json.loads(index.read_text(encoding="utf-8"))["weight_map"]
        shards = sorted(set(weight_map.values()))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError, KeyError, TypeError, AttributeError):
        raise ModelLoadError("{index} is not a readable shard index.", id="hf.bad_index", index=str(index)) from None
    missing = [s for s in shards if not (folder / str(s)).is_file()]
    if missing:
        raise ModelLoadError("{folder} is missing the weight shard {shard} named in its index.",
                             id="hf.missing_shard", folder=str(folder), shard=str(missing[0]))


def load_folder(folder: Path, device: torch.device, dtype: torch.dtype, device_map: str | None = None):
    """(model, tokenizer) from a checked folder, on `device` in `dtype`, in eval mode; with a
    `device_map` ("auto", "balanced", "cpu", "cuda:N") accelerate places it instead of `device`."""
    require_transformers()
    config_dict = check_folder(folder)
    from tfdebug.adapters.hf_names import FAMILIES

    model_type = config_dict.get("model_type", "")
    if model_type not in FAMILIES:
        raise UnsupportedModelError(
            "tfdebug cannot tap Hugging Face model type '{model_type}': supported are {supported}.",
            id="hf.unsupported_type", model_type=model_type or Phrase("unknown", id="hf.unknown_type"),
            supported=", ".join(sorted(FAMILIES)))
    import transformers
    from tokenizers import Tokenizer

    config = transformers.AutoConfig.from_pretrained(str(folder), local_files_only=True)
    model_class = _model_class(config)
    try:
        model = model_class.from_pretrained(str(folder), config=config, local_files_only=True, use_safetensors=True,
                                            dtype=dtype, **({"device_map": device_map} if device_map else {}))
    except (OSError, ValueError, RuntimeError) as exc:
        raise ModelLoadError("Could not load the weights in {folder}: {reason}", id="hf.weights_failed",
                             folder=str(folder), reason=str(exc).splitlines()[0]) from None
    try:
        tokenizer = Tokenizer.from_file(str(folder / "tokenizer.json"))
    except Exception as exc:  # the tokenizers library raises its own exception type
        raise ModelLoadError("{file} is not a tokenizer the tokenizers library reads ({reason}).",
                             id="hf.bad_tokenizer", file=str(folder / "tokenizer.json"), reason=str(exc)) from None
    return (model if device_map else model.to(device)).eval(), tokenizer


def execution_device(module: nn.Module) -> torch.device:
    """Where `module` computes. A module a Hugging Face `device_map` offloads (to "disk", or to
    the CPU for a GPU) keeps its weights on the meta device and has accelerate's hook bring them
    to its execution device for each call: inputs must go there, not to the weights' device."""
    device = getattr(getattr(module, "_hf_hook", None), "execution_device", None)
    if device is not None:
        return torch.device("cuda", device) if isinstance(device, int) else torch.device(device)
    return next(module.parameters()).device


def _model_class(config):
    """The class named in config.architectures when transformers has it, else the family's usual head."""
    import transformers

    for name in getattr(config, "architectures", None) or ():
        cls = getattr(transformers, name, None)
        if cls is not None:
            return cls
    if config.model_type == "t5":
        return transformers.AutoModelForSeq2SeqLM
    if config.model_type == "bert":
        return transformers.AutoModel
    return transformers.AutoModelForCausalLM
