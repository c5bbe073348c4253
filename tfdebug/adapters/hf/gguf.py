"""Opening a GGUF file (llama.cpp's and Ollama's format) as `hf:PATH.gguf`.

transformers reads the file itself (`from_pretrained(folder, gguf_file=name)`, through the `gguf` package) and
dequantises its weights into the dtype asked for; its tokenizer comes from the same file. tfdebug then taps the
model as it taps a folder's. Before any weight is read, the file is checked as a regular file, its metadata is read
through transformers (`load_gguf_checkpoint` without tensors) and the model it describes is built on the meta device
to count its values, so a model the device has no room for is refused in one sentence, as a folder's is. The input
check's second tokenizer is transformers' own AutoTokenizer over the same file.
"""

from __future__ import annotations

import importlib.util
import os
import stat
from pathlib import Path

import torch

from tfdebug.adapters.hf.adapter import HFAdapter
from tfdebug.adapters.hf.load import _check_room, quiet_transformers, require_transformers
from tfdebug.core.errors import ModelLoadError
from tfdebug.core.foreign import foreign_call

GGUF_HINT = 'Reading a GGUF file needs the gguf package: pip install "tfdebug[gguf]".'


def checked_file(path: Path) -> Path:
    """`path` resolved, refused in one sentence unless it is a regular file that can be read."""
    try:
        info = path.stat()
    except OSError:
        raise ModelLoadError("There is no GGUF file {file}.", id="gguf.missing", file=str(path)) from None
    if not stat.S_ISREG(info.st_mode):
        raise ModelLoadError("{file} is not a regular file, so it is not read as a GGUF model.", id="gguf.not_file",
                             file=str(path))
    if not os.access(path, os.R_OK):
        raise ModelLoadError("{file} cannot be read (permission denied).", id="gguf.unreadable", file=str(path))
    return path.resolve()


def _values(file: Path) -> int:
    """How many values (parameters and buffers) the model `file` describes, from its metadata alone."""
    import transformers
    from transformers.modeling_gguf_pytorch_utils import load_gguf_checkpoint

    with foreign_call(ModelLoadError, "{file} is not a GGUF model transformers reads: {reason}", id="gguf.unread",
                      file=str(file)):
        config_dict = dict(load_gguf_checkpoint(str(file), return_tensors=False)["config"])
        config = transformers.CONFIG_MAPPING[config_dict.pop("model_type")](**config_dict)
        with torch.device("meta"):
            skeleton = transformers.AutoModelForCausalLM.from_config(config)
    return sum(p.numel() for p in skeleton.parameters()) + sum(b.numel() for b in skeleton.buffers())


def load_gguf(path: Path, device: torch.device, dtype: torch.dtype, device_map: str | None = None,
              name: str | None = None):
    """The GGUF file at `path` as an HFAdapter named `name`, dequantised into `dtype` on `device` (or placed by
    accelerate with `device_map`); ModelLoadError, one sentence, for anything that cannot be opened."""
    require_transformers()
    if importlib.util.find_spec("gguf") is None:
        raise ModelLoadError(GGUF_HINT, id="gguf.no_package")
    file = checked_file(Path(path).expanduser())
    values = _values(file)
    if not device_map:
        _check_room(values, device, dtype, file)
    import transformers

    options = {"gguf_file": file.name, "local_files_only": True}
    with quiet_transformers(), foreign_call(ModelLoadError, "Could not load the GGUF model {file}: {reason}",
                                            id="gguf.load_failed", file=str(file)):
        tokenizer = transformers.AutoTokenizer.from_pretrained(str(file.parent), **options)
        model = transformers.AutoModelForCausalLM.from_pretrained(
            str(file.parent), dtype=dtype, **options, **({"device_map": device_map} if device_map else {}))
    return GGUFAdapter((model if device_map else model.to(device)).eval(), tokenizer, name or f"hf:{file}", file)


class GGUFAdapter(HFAdapter):
    """A model read from a GGUF file; the input check's second tokenizer is transformers' own over the same file."""

    def __init__(self, model, tokenizer, name: str, file: Path):
        super().__init__(model, tokenizer, name=name)
        self.gguf_file = file

    def reference_tokenizer(self):
        """AutoTokenizer(gguf_file=…) made once, and its name."""
        if getattr(self, "_reference", None) is None:
            import transformers

            file = self.gguf_file
            with quiet_transformers(), foreign_call(ModelLoadError, "transformers cannot read the tokenizer in "
                                                    "{file}: {reason}", id="gguf.tokenizer", file=str(file)):
                tokenizer = transformers.AutoTokenizer.from_pretrained(str(file.parent), gguf_file=file.name,
                                                                       local_files_only=True)
            self._reference = (tokenizer, "AutoTokenizer(gguf_file=…)")
        return self._reference
