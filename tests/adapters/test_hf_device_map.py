"""Hugging Face models loaded with a `device_map` (needs accelerate): what a CPU can check.

Stages stay on the device that made them; inputs go to the embedding's execution device,
also when the map offloads its weights (to "disk": they sit on the meta device between calls)."""

from __future__ import annotations

import pytest

pytest.importorskip("transformers")
pytest.importorskip("accelerate")

import transformers  # noqa: E402
from tokenizers import Tokenizer  # noqa: E402

from tfdebug.adapters.hf import adapter as hf  # noqa: E402
from tfdebug.adapters.hf.load import bundled_folder  # noqa: E402
from tfdebug.sessions.session import DebugSession  # noqa: E402

FOLDER = bundled_folder("tiny-gpt2")


def _load(device_map, **kwargs):
    model = transformers.GPT2LMHeadModel.from_pretrained(str(FOLDER), local_files_only=True,
                                                         device_map=device_map, **kwargs)
    return hf.wrap(model, Tokenizer.from_file(str(FOLDER / "tokenizer.json")), name="tiny-gpt2")


def _captured(adapter):
    session = DebugSession(adapter)
    captures, _logits = session.capture_all()
    assert session.verification.ok, session.verification.describe()
    return captures


def test_device_map_cpu_is_tapped_and_verified():
    adapter = _load("cpu")
    assert {p.device.type for p in adapter.model.parameters()} == {"cpu"}
    captures = _captured(adapter)
    assert {str(c.device) for c in captures} == {"cpu"} and len(captures) == 43


def test_weights_offloaded_to_disk_are_brought_in_for_each_call(tmp_path):
    """The embedding and the head live on disk (meta between calls): the ids go where they run."""
    adapter = _load({"transformer.wte": "disk", "transformer.wpe": "cpu", "transformer.h": "cpu",
                     "transformer.ln_f": "cpu", "lm_head": "disk"}, offload_folder=str(tmp_path))
    assert adapter.model.transformer.wte.weight.device.type == "meta"
    assert str(adapter.device) == "cpu"
    captures = _captured(adapter)
    by_name = {c.name: c for c in captures}
    assert {str(c.device) for c in captures} == {"cpu"}
    assert by_name["tok.embed"].tensor.abs().sum() > 0 and by_name["logits"].shape[-1] == 1299
