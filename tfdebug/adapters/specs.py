"""Model specs without torch: which loader a spec names, and refusing a spec that cannot load.

`demo`, `random`, a folder, `hf:…`, `torch:…`: `find_entry` says which loader takes a spec,
and `check_spec` refuses what is wrong with it (an unknown name, a folder that is not there
or not a model, a hub id absent from the cache) from the file system alone. Neither imports
torch or transformers, so the command line answers a mistyped `--model` in a fraction of
a second instead of after seconds of imports (tfdebug.adapters.registry loads the model).
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass
from pathlib import Path

from tfdebug.core.errors import ModelLoadError


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
    Entry("demo", "tfdebug.adapters.reference:load_reference", available="tfdebug.models.bundled:demo_available",
          help="the bundled English→Chinese translator"),
    Entry("random", "tfdebug.adapters.reference:load_reference", help="a small random reference model"),
    Entry("notes", "tfdebug.adapters.notes:load_notes",
          help="the notes' shapes: d_model 512, 8 heads, batch 32, 10 tokens (random weights)"),
    Entry("torch:", "tfdebug.adapters.torch_nn.adapter:load_torch", listed=False,
          help="package.module:factory, a module calling scaled_dot_product_attention or a torch.nn Transformer"),
    Entry("tiny-gpt2", "tfdebug.adapters.hf.hub:load_bundled", available="tfdebug.adapters.bundled:tiny_gpt2_available",
          help="the bundled tiny GPT-2-style language model (needs tfdebug[hf])", placed=True),
    Entry("tiny-vit", "tfdebug.adapters.hf.vision:load_bundled_vision",
          available="tfdebug.adapters.bundled:tiny_vit_available",
          help="the bundled tiny Vision Transformer (random weights; an image in, needs tfdebug[hf])", placed=True),
    Entry("tiny-clip", "tfdebug.adapters.hf.clip:load_bundled_clip",
          available="tfdebug.adapters.bundled:tiny_clip_available",
          help="the bundled tiny CLIP (random weights; an image and captions in, needs tfdebug[hf])", placed=True),
    Entry("tiny-siglip", "tfdebug.adapters.hf.clip:load_bundled_clip",
          available="tfdebug.adapters.bundled:tiny_siglip_available",
          help="the bundled tiny SigLIP (random weights; an image and captions in, needs tfdebug[hf])", placed=True),
    Entry("tiny-llava", "tfdebug.adapters.hf.vlm:load_bundled_vlm",
          available="tfdebug.adapters.bundled:tiny_llava_available",
          help="the bundled tiny LLaVA (random weights; an image and a prompt in, needs tfdebug[hf])", placed=True),
    Entry("tiny-whisper", "tfdebug.adapters.hf.speech:load_bundled_speech",
          available="tfdebug.adapters.bundled:tiny_whisper_available",
          help="the bundled tiny Whisper (random weights; an audio file in, needs tfdebug[hf])", placed=True),
    Entry("hf:", "tfdebug.adapters.hf.hub:load", listed=False, placed=True,
          help="a Hugging Face model folder, ORG/NAME[@REVISION] from the local hub cache, or a GGUF file (needs "
               "tfdebug[hf]; tfdebug[gguf] for GGUF)"),
)
# A folder with the reference model's files (config.json, model.safetensors, vocab.*.txt).
FOLDER_ENTRY = Entry("FOLDER", "tfdebug.adapters.reference:load_reference", listed=False,
                     help="a reference-model folder")
HF_PREFIX = "hf:"


def find_entry(spec: str) -> Entry:
    """The entry that loads `spec`: an exact name, a prefix, or a reference-model folder."""
    for entry in ENTRIES:
        if entry.spec == spec or (entry.spec.endswith(":") and spec.startswith(entry.spec)):
            return entry
    if spec and Path(spec).is_dir():
        return FOLDER_ENTRY
    shown = {"torch:": "torch:package.module:factory", "hf:": "hf:FOLDER or hf:ORG/NAME"}
    names = ", ".join(shown.get(e.spec, e.spec) for e in ENTRIES)
    close = difflib.get_close_matches(spec, [e.spec for e in ENTRIES if not e.spec.endswith(":")], n=1, cutoff=0.6)
    if close:
        raise ModelLoadError("Unknown model '{name}' (did you mean {close}?): use {names} or a model folder.",
                             id="model.unknown_close", name=spec, close=close[0], names=names)
    raise ModelLoadError("Unknown model '{name}': use {names} or a model folder.", id="model.unknown_spec", name=spec,
                         names=names)


def check_spec(spec: str, download: bool = False) -> Entry:
    """The entry that loads `spec`, after the checks the file system alone can make; ModelLoadError otherwise.

    A Hugging Face folder is checked as a load checks it (config, weights' headers, tokenizer
    file; tfdebug.adapters.hf.folder); a hub id must be in the cache unless `download`. What
    only the model can say (its architecture, a `torch:` factory) is left to the load.
    """
    entry = find_entry(spec)
    if entry.spec == HF_PREFIX:
        from tfdebug.adapters.hf.folder import check_folder, is_gguf
        from tfdebug.adapters.hf.hub import cached_repo, local_folder, parse_hub_id

        rest = spec[len(HF_PREFIX):]
        if is_gguf(rest):  # a GGUF file: what it holds is read when it loads
            from tfdebug.adapters.hf.gguf import checked_file

            checked_file(Path(rest).expanduser())
            return entry
        hub_id = parse_hub_id(rest)
        if hub_id is None:
            check_folder(local_folder(rest))
        elif not download:
            cached_repo(hub_id)
    return entry
