"""What a Hugging Face model folder holds, read and checked before transformers sees any of it.

Every file is read through tfdebug.core.files (regular files only, bounded in size and JSON
nesting). The weights are `model.safetensors` or the shards a `model.safetensors.index.json`
names; each shard name must be a `.safetensors` file inside the folder (no absolute path,
no `..`, no symlink leading elsewhere — except into the Hugging Face cache's own blob store
beside a snapshot folder), and each file must start with a safetensors header, so a pickle
under any name is never handed to a loader. The headers give what the weights hold (element
count, numbered layers), which a config must not exceed.
"""

from __future__ import annotations

import json
import os
import re
import struct
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from tfdebug.adapters.hf.config import check_config, configured_layers
from tfdebug.core.errors import ModelLoadError
from tfdebug.core.files import open_regular, read_json
from tfdebug.core.safe_text import has_unsafe, terminal_safe

MAX_CONFIG_BYTES = 16 * 2**20        # real configs are a few kB; the largest known ~100 kB
MAX_INDEX_BYTES = 64 * 2**20         # a 671B model's index is ~9 MB
MAX_TOKENIZER_BYTES = 256 * 2**20    # the largest real tokenizer.json files are ~35 MB
MAX_HEADER_BYTES = 100 * 2**20       # safetensors' own limit
MAX_SHARDS = 10_000
INDEX = "model.safetensors.index.json"
WEIGHTS = "model.safetensors"
# `model.layers.7.mlp…`, `transformer.h.7.attn…`, `encoder.block.7.layer.0…`, `encoder.layer.7…`
_LAYER = re.compile(r"(?:^|\.)(?:layers|layer|h|block|blocks)\.(\d+)(?:\.|$)")


@dataclass(frozen=True)
class Weights:
    """What the folder's safetensors files hold, from their headers alone."""

    files: tuple[Path, ...]
    elements: int
    layers: int  # 1 + the highest layer number in a tensor name (0 when none is numbered)


def _shown(path: Path | str) -> str:
    return terminal_safe(os.fspath(path), 300)


def is_gguf(path: str | os.PathLike) -> bool:
    """Whether `path` names a GGUF file (by its suffix: what it holds is checked when it loads, adapters.hf.gguf)."""
    return Path(path).suffix.lower() == ".gguf"


def check_readable_folder(folder: Path) -> None:
    """A folder tfdebug may list and read; one sentence otherwise."""
    if not folder.is_dir():
        raise ModelLoadError("No model folder at {folder}.", id="hf.no_folder", folder=_shown(folder))
    if not os.access(folder, os.R_OK | os.X_OK):
        raise ModelLoadError("The model folder {folder} cannot be read: permission denied.",
                             id="hf.folder_permission", folder=_shown(folder))


def read_config(folder: Path) -> dict:
    """config.json as a dict: bounded, UTF-8, a JSON object at most 64 levels deep."""
    return read_json(inside(folder, "config.json"), MAX_CONFIG_BYTES, ModelLoadError)


def _roots(folder: Path) -> list[Path]:
    """Where the folder's files may really live: the folder, and for a hub cache snapshot its repository."""
    real = folder.resolve()
    roots = [real]
    if folder.parent.name == "snapshots":  # models--ORG--NAME/snapshots/REV/FILE -> ../../blobs/HASH
        roots.append(folder.parent.parent.resolve())
    return roots


def confined(folder: Path, name: object, named_by: str) -> Path:
    """The path of the weight file `name` (as an index names it) inside `folder`; ModelLoadError otherwise."""
    parts = PurePosixPath(name).parts if isinstance(name, str) else ()
    if (not isinstance(name, str) or not name.endswith(".safetensors") or len(name) > 1024 or has_unsafe(name)
            or "\\" in name or os.path.isabs(name) or not parts or ".." in parts or ":" in parts[0]):
        raise ModelLoadError("{index} names the weight file {shard}, which is not a .safetensors file inside the "
                             "folder; tfdebug reads only a folder's own safetensors files.", id="hf.shard_outside",
                             index=_shown(named_by), shard=terminal_safe(repr(name), 80))
    return inside(folder, name)


def inside(folder: Path, name: str) -> Path:
    """`folder / name`, refused when a symbolic link makes it lead outside the folder."""
    path = folder / name
    try:
        real = path.resolve()
    except (OSError, RuntimeError):  # a symbolic link loop (RuntimeError before Python 3.13)
        raise ModelLoadError("{name} in {folder} is a symbolic link that leads to itself (a loop), so the model "
                             "was not read.", id="hf.link_loop", name=_shown(name), folder=_shown(folder)) from None
    if path.exists() and not any(real.is_relative_to(root) for root in _roots(folder)):
        raise ModelLoadError("{name} in {folder} leads outside the folder (to {target}); tfdebug reads only a "
                             "folder's own files.", id="hf.file_outside", name=_shown(name),
                             folder=_shown(folder), target=_shown(real))
    return path


def weight_files(folder: Path) -> list[Path]:
    """model.safetensors, or every shard its index names, each confined to the folder and present."""
    if (folder / WEIGHTS).is_file():
        return [confined(folder, WEIGHTS, folder / WEIGHTS)]
    index_file = inside(folder, INDEX)
    index = read_json(index_file, MAX_INDEX_BYTES, ModelLoadError)
    weight_map = index.get("weight_map")
    if not isinstance(weight_map, dict) or not weight_map or not all(
            isinstance(k, str) and isinstance(v, str) for k, v in weight_map.items()):
        raise ModelLoadError("{index} is not a readable shard index: its 'weight_map' is not a map of tensor "
                             "names to shard files.", id="hf.bad_index", index=_shown(index_file))
    names = sorted(set(weight_map.values()))
    if len(names) > MAX_SHARDS:
        raise ModelLoadError("{index} names {n} shards (at most {most}).", id="hf.too_many_shards",
                             index=_shown(index_file), n=f"{len(names):,}", most=f"{MAX_SHARDS:,}")
    shards = [confined(folder, name, index_file) for name in names]
    for name, path in zip(names, shards):
        if not path.is_file():
            raise ModelLoadError("{folder} is missing the weight shard {shard} named in its index.",
                                 id="hf.missing_shard", folder=_shown(folder), shard=_shown(name))
    if not isinstance(index.get("metadata"), dict):
        raise ModelLoadError("{index} has no 'metadata' object (an index saved by save_pretrained has one).",
                             id="hf.index_metadata", index=_shown(index_file))
    return shards


def _header(path: Path) -> dict:
    """The JSON header of a safetensors file; a pickle or any other file under that name is refused unopened."""
    not_safetensors = ModelLoadError("{file} is not a safetensors file (it does not start with a safetensors "
                                     "header); tfdebug loads safetensors only and never opens pickles.",
                                     id="hf.not_safetensors", file=_shown(path))
    with open_regular(path, ModelLoadError) as f:
        size = os.fstat(f.fileno()).st_size
        head = f.read(8)
        if len(head) < 8:
            raise not_safetensors
        (n,) = struct.unpack("<Q", head)
        if not 2 <= n <= min(MAX_HEADER_BYTES, size - 8):
            raise not_safetensors
        raw = f.read(n)
    try:
        doc = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        raise not_safetensors from None
    if not isinstance(doc, dict):
        raise not_safetensors
    return doc


def read_weights(files: list[Path]) -> Weights:
    """What `files` hold, from their headers; a malformed entry is refused with the file's name."""
    elements, layers = 0, 0
    for path in files:
        for name, entry in _header(path).items():
            if name == "__metadata__":
                continue
            shape = entry.get("shape") if isinstance(entry, dict) else None
            if not isinstance(shape, list) or not all(isinstance(d, int) and d >= 0 for d in shape):
                raise ModelLoadError("{file} is damaged: tensor {name} has no valid shape.", id="hf.bad_tensor_shape",
                                     file=_shown(path), name=terminal_safe(name, 80))
            count = 1
            for d in shape:
                count *= d
            elements += count
            for match in _LAYER.finditer(name):
                layers = max(layers, int(match.group(1)) + 1)
    return Weights(files=tuple(files), elements=elements, layers=layers)


def check_folder(folder: Path, activations: frozenset[str] | None = None) -> tuple[dict, Weights]:
    """The folder's config and what its weights hold, after checking every file a load reads.

    ModelLoadError names what is wrong, in one sentence, before anything is built.
    """
    check_readable_folder(folder)
    # lexists: a FIFO or a dangling link is "there" and is refused by name when read, not called missing.
    if not os.path.lexists(folder / "config.json"):
        raise ModelLoadError("{folder} has no config.json, so it is not a Hugging Face model folder.",
                             id="hf.no_config", folder=str(folder))
    has_weights = (folder / WEIGHTS).is_file() or (folder / INDEX).is_file()
    if not has_weights:
        pickles = sorted(p.name for p in folder.glob("*.bin"))
        if pickles:
            raise ModelLoadError(
                "{folder} holds only a pickle checkpoint ({pickle}); tfdebug loads safetensors only and "
                "does not open pickles: save the model with save_pretrained(..., safe_serialization=True).",
                id="hf.pickle_only", folder=str(folder), pickle=pickles[0])
        raise ModelLoadError("{folder} has no model.safetensors (or model.safetensors.index.json).",
                             id="hf.no_weights", folder=str(folder))
    files = weight_files(folder)
    # An image model's input is prepared by its preprocessor_config.json's processor, not a tokenizer.
    if not os.path.lexists(folder / "tokenizer.json") and not os.path.lexists(folder / "preprocessor_config.json"):
        raise ModelLoadError("{folder} has no tokenizer.json (a tokenizer saved by the tokenizers library).",
                             id="hf.no_tokenizer", folder=str(folder))
    config = read_config(folder)
    config_file = str(folder / "config.json")
    check_config(config, config_file, activations)
    if (folder / "generation_config.json").exists():  # transformers reads it too: bounded here first
        read_json(inside(folder, "generation_config.json"), MAX_CONFIG_BYTES, ModelLoadError)
    weights = read_weights(files)
    wanted = configured_layers(config)
    if weights.layers and wanted > weights.layers:
        raise ModelLoadError("{file} asks for {wanted} layers but the weights hold {held}; the config does not "
                             "describe these weights.", id="hf.config_layers", file=config_file,
                             wanted=f"{wanted:,}", held=f"{weights.layers:,}")
    return config, weights
