"""The bundled demo translator's files, found without torch: the window lists the demo before torch is imported
(tfdebug.adapters.registry.available_models); tfdebug.models.loader loads it."""

from __future__ import annotations

from importlib import resources
from pathlib import Path

CONFIG_FILE, WEIGHTS_FILE, SRC_VOCAB_FILE, TGT_VOCAB_FILE = (
    "config.json", "model.safetensors", "vocab.en.txt", "vocab.zh.txt")


def demo_dir() -> Path:
    """The bundled demo folder: package data when installed, else resources/ of a source checkout."""
    try:
        return Path(str(resources.files("tfdebug.resources") / "demo"))
    except ModuleNotFoundError:
        # Run from a checkout without installing: tfdebug.resources is only the mapped
        # name of the top-level resources/ folder, which sits beside the package.
        return Path(__file__).resolve().parents[2] / "resources" / "demo"


def demo_available() -> bool:
    """Whether the demo model's files are bundled with this installation."""
    return (demo_dir() / WEIGHTS_FILE).is_file()
