"""Which bundled Hugging Face models can load here, from the file system alone (no torch, no transformers).

The window lists its models before torch is imported (tfdebug.adapters.registry.available_models):
these checks find the packages and the bundled files without importing them.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

from tfdebug.core.errors import ModelLoadError

BUNDLED = {name: name for name in
           ("tiny-gpt2", "tiny-vit", "tiny-clip", "tiny-siglip", "tiny-whisper", "tiny-llava")}


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


def tiny_vit_available() -> bool:
    """The bundled tiny Vision Transformer is listed when transformers and Pillow are installed and its files
    are present."""
    return _image_model_available("tiny-vit")


def tiny_clip_available() -> bool:
    """The bundled tiny CLIP, as `tiny_vit_available`."""
    return _image_model_available("tiny-clip")


def tiny_siglip_available() -> bool:
    """The bundled tiny SigLIP, as `tiny_vit_available`."""
    return _image_model_available("tiny-siglip")


def tiny_whisper_available() -> bool:
    """The bundled tiny Whisper is listed when the extra is installed and its files are present."""
    return transformers_available() and (bundled_folder("tiny-whisper") / "model.safetensors").is_file()


def tiny_llava_available() -> bool:
    """The bundled tiny LLaVA, as `tiny_vit_available`."""
    return _image_model_available("tiny-llava")


def _image_model_available(name: str) -> bool:
    return transformers_available() and importlib.util.find_spec("PIL") is not None \
        and (bundled_folder(name) / "model.safetensors").is_file()
