"""Loading a Hugging Face model folder, locally only, and refusing what tfdebug should not load.

A folder needs `config.json`, weights as `model.safetensors` (or a sharded
`model.safetensors.index.json` with its shards) and `tokenizer.json`. A pickle-only
checkpoint (`pytorch_model.bin`) is refused without being opened. Every file is read
bounded and checked first (tfdebug.adapters.hf.folder), the config is checked against
what building needs (tfdebug.adapters.hf.config) and against its weights (a skeleton on
the meta device), and any failure inside transformers or tokenizers — a Rust panic
included — is one sentence. Nothing reaches a model hub: every call passes
`local_files_only=True`.
"""

from __future__ import annotations

import logging
import os
import threading
from contextlib import contextmanager
from pathlib import Path

import torch
from torch import nn

# bundled_folder and transformers_available are imported from here too
from tfdebug.adapters.bundled import bundled_folder, require_transformers, transformers_available  # noqa: F401
from tfdebug.adapters.hf.folder import MAX_CONFIG_BYTES, MAX_TOKENIZER_BYTES, Weights, check_folder, inside
from tfdebug.core.errors import ModelLoadError
from tfdebug.core.files import read_text
from tfdebug.core.foreign import foreign_call
from tfdebug.core.safe_text import terminal_safe

INSTALL_HINT = 'Hugging Face models need the optional extra: pip install "tfdebug[hf]" (transformers and tokenizers).'

# Settings that choose transformers' attention kernel: tfdebug runs its own tapped attention, so a
# folder's choice (flash_attention_2 needs a package and a GPU) is not used.
ATTENTION_KEYS = ("attn_implementation", "_attn_implementation", "_attn_implementation_internal")
SLACK_ELEMENTS = 1 << 24  # parameters a checkpoint may leave out (a pooler, a head) beyond what it stores
MAX_BUFFER_ELEMENTS = 1 << 30
log = logging.getLogger("tfdebug")


def _config_object(config_dict: dict, folder: Path):
    import transformers

    clean = {k: v for k, v in config_dict.items() if k not in ATTENTION_KEYS}
    asked = sorted({str(config_dict[k]) for k in ATTENTION_KEYS if config_dict.get(k) not in (None, "eager")})
    if asked:  # said, not silently dropped: the numbers are tfdebug's eager attention's, not that kernel's
        log.warning("%s asks for the attention kernel %s; tfdebug runs its own tapped attention instead.",
                    terminal_safe(os.fspath(folder / "config.json"), 300), terminal_safe(", ".join(asked), 80))
    with foreign_call(ModelLoadError, "{file} is not a config transformers accepts: {reason}.",
                      id="hf.config_rejected", file=str(folder / "config.json")):
        return transformers.CONFIG_MAPPING[clean["model_type"]].from_dict(clean)


def _check_size(model_class, config, weights: Weights, folder: Path) -> int:
    """Build the model's skeleton on the meta device (no memory) and refuse one larger than its weights;
    the number of values it holds (parameters and buffers)."""
    with foreign_call(ModelLoadError, "{file} describes a model transformers cannot build: {reason}.",
                      id="hf.build_failed", file=str(folder / "config.json")):
        # A model class builds with _from_config, an Auto class (the family's usual head) with from_config.
        build = getattr(model_class, "_from_config", None) or model_class.from_config
        with torch.device("meta"):
            skeleton = build(config)
    params = sum(p.numel() for p in skeleton.parameters())
    buffers = sum(b.numel() for b in skeleton.buffers())
    if params > weights.elements + weights.elements // 20 + SLACK_ELEMENTS:
        raise ModelLoadError("{file} describes a model of {params} parameters but the weights hold {held}; the "
                             "config does not describe these weights.", id="hf.config_too_large",
                             file=str(folder / "config.json"), params=f"{params:,}", held=f"{weights.elements:,}")
    if buffers > MAX_BUFFER_ELEMENTS:
        raise ModelLoadError("{file} describes a model whose buffers hold {n} values; it would not fit in memory.",
                             id="hf.config_buffers", file=str(folder / "config.json"), n=f"{buffers:,}")
    return params + buffers


def _check_room(values: int, device: torch.device, dtype: torch.dtype, folder: Path) -> None:
    """Refuse, before loading, weights the device has no room for (the kernel would kill the load part way)."""
    from tfdebug.core.budget import format_bytes, free_memory

    needed, free = values * dtype.itemsize, free_memory(device)
    if free is not None and needed > free:
        raise ModelLoadError("The weights in {folder} need about {needed} in {dtype} but {device} has {free} free: "
                             "load them with --device-map auto, in a smaller dtype, or on another device.",
                             id="hf.no_room", folder=str(folder), needed=format_bytes(needed),
                             dtype=str(dtype).removeprefix("torch."), device=str(device), free=format_bytes(free))


def load_tokenizer(folder: Path):
    """tokenizer.json read bounded and parsed, then tried once: a panicking tokenizer is one sentence here."""
    from tokenizers import Tokenizer

    file = inside(folder, "tokenizer.json")
    text = read_text(file, MAX_TOKENIZER_BYTES, ModelLoadError)
    with foreign_call(ModelLoadError, "{file} is not a tokenizer the tokenizers library reads ({reason}).",
                      id="hf.bad_tokenizer", file=str(file)):
        tokenizer = Tokenizer.from_str(text)
        tokenizer.encode("Hello, world. 123")  # a pattern that makes the regex engine panic does so here
    return tokenizer


# Files transformers' AutoTokenizer reads beside tokenizer.json: each read bounded here first.
TOKENIZER_SIDE_FILES = ("tokenizer_config.json", "special_tokens_map.json", "added_tokens.json",
                        "chat_template.jinja", "chat_template.json")


def folder_tokenizer(folder: Path):
    """The tokenizer a user's transformers gives for this folder: `AutoTokenizer.from_pretrained(folder)`
    (local files, no remote code) when the folder says how to read its tokenizer (tokenizer_config.json, as
    every save_pretrained and published checkpoint has), else tokenizer.json as transformers' own
    `PreTrainedTokenizerFast(tokenizer_file=…)` reads it. ModelLoadError, one sentence, when transformers
    cannot read it. Each call makes a new one (the reference check builds its own)."""
    from transformers import AutoTokenizer, PreTrainedTokenizerFast

    for name in TOKENIZER_SIDE_FILES:
        if os.path.lexists(folder / name):
            read_text(inside(folder, name), MAX_CONFIG_BYTES, ModelLoadError)
    with quiet_transformers(), foreign_call(ModelLoadError, "transformers cannot read the tokenizer in {folder}: "
                                            "{reason}", id="hf.auto_tokenizer", folder=str(folder)):
        if os.path.lexists(folder / "tokenizer_config.json"):
            return AutoTokenizer.from_pretrained(str(folder), local_files_only=True, trust_remote_code=False)
        return PreTrainedTokenizerFast(tokenizer_file=str(inside(folder, "tokenizer.json")))


def load_folder(folder: Path, device: torch.device, dtype: torch.dtype, device_map: str | None = None):
    """(model, tokenizer) from a checked folder, on `device` in `dtype`, in eval mode (the tokenizer as
    transformers reads it: `folder_tokenizer`); with a
    `device_map` ("auto", "balanced", "cpu", "cuda:N") accelerate places it instead of `device`."""
    require_transformers()
    from transformers.activations import ACT2FN

    config_dict, weights = check_folder(folder, frozenset(ACT2FN))
    load_tokenizer(folder)  # before any model class is imported: the cheaper refusal first
    config = _config_object(config_dict, folder)
    model_class = _model_class(config)
    values = _check_size(model_class, config, weights, folder)
    if not device_map:  # accelerate places what does not fit (offloading to the CPU or disk)
        _check_room(values, device, dtype, folder)
    with quiet_transformers(), foreign_call(ModelLoadError, "Could not load the weights in {folder}: {reason}",
                                            id="hf.weights_failed", folder=str(folder)):
        model = model_class.from_pretrained(str(folder), config=config, local_files_only=True, use_safetensors=True,
                                            dtype=dtype, **({"device_map": device_map} if device_map else {}))
    return (model if device_map else model.to(device)).eval(), folder_tokenizer(folder)


def execution_device(module: nn.Module) -> torch.device:
    """Where `module` computes. A module a Hugging Face `device_map` offloads (to "disk", or to
    the CPU for a GPU) keeps its weights on the meta device and has accelerate's hook bring them
    to its execution device for each call: inputs must go there, not to the weights' device."""
    device = getattr(getattr(module, "_hf_hook", None), "execution_device", None)
    if device is not None:
        return torch.device("cuda", device) if isinstance(device, int) else torch.device(device)
    return next(module.parameters()).device


def _model_class(config):
    """The model class named in config.architectures when transformers has it, else the family's usual head.

    A name transformers does not have (a newer or custom class) falls back to the family's
    head; a name it has for something else (`architectures: ["pipeline"]`, a function) is refused.
    """
    import transformers

    for name in getattr(config, "architectures", None) or ():
        cls = getattr(transformers, name, None)
        if isinstance(cls, type) and issubclass(cls, transformers.PreTrainedModel):
            return cls
        if cls is not None:
            raise ModelLoadError("The config names the architecture '{name}', which in transformers is not a model "
                                 "class.", id="hf.config_not_model_class", name=name)
    if config.model_type == "t5":
        return transformers.AutoModelForSeq2SeqLM
    if config.model_type == "bert":
        return transformers.AutoModel
    return transformers.AutoModelForCausalLM


_QUIET_LOCK = threading.Lock()
_QUIET = {"depth": 0, "verbosity": None, "bars": True}


@contextmanager
def quiet_transformers():
    """transformers' progress bars and warnings off while tfdebug loads or runs a model: its own
    progress shows in the window or the CLI, and an error still raises. The first to enter saves
    transformers' settings and the last to leave puts them back (loads and checks run in threads)."""
    from transformers.utils import logging as hf_logging

    with _QUIET_LOCK:
        if _QUIET["depth"] == 0:
            _QUIET["verbosity"], _QUIET["bars"] = hf_logging.get_verbosity(), hf_logging.is_progress_bar_enabled()
            hf_logging.set_verbosity_error()
            hf_logging.disable_progress_bar()
        _QUIET["depth"] += 1
    try:
        yield
    finally:
        with _QUIET_LOCK:
            _QUIET["depth"] -= 1
            if _QUIET["depth"] == 0:
                hf_logging.set_verbosity(_QUIET["verbosity"])
                if _QUIET["bars"]:
                    hf_logging.enable_progress_bar()
