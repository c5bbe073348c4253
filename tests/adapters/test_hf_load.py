"""Loading Hugging Face folders: what loads, and the one sentence for everything refused."""

from __future__ import annotations

import hf_tiny
import pytest
import torch

from tfdebug.adapters.hf import load as hf_load
from tfdebug.adapters.hf.attention import tapped_attention_forward
from tfdebug.adapters.registry import available_models, load_adapter
from tfdebug.core.errors import ModelLoadError, UnsupportedModelError


def _load(folder):
    return load_adapter(f"hf:{folder}", "cpu", "float32")


def test_a_saved_folder_loads_verified_and_local_only(tmp_path, monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")  # a hub call would raise instead of reaching the network
    folder = hf_tiny.save_folder(hf_tiny.llama(), tmp_path / "llama")
    adapter = _load(folder)
    assert adapter.name == f"hf:{folder}" and [f.key for f in adapter.inputs] == ["prompt"]
    assert adapter.config()["hf_model_type"] == "llama"
    with torch.no_grad():
        out = adapter.forward(adapter.prepare({"prompt": "I love you"}))
    assert adapter.verify(adapter.prepare({"prompt": "I love you"}), out).ok


def test_missing_folder_and_missing_files_are_one_sentence_each(tmp_path):
    with pytest.raises(ModelLoadError, match="No model folder at"):
        _load(tmp_path / "nowhere")
    folder = hf_tiny.save_folder(hf_tiny.gpt2(), tmp_path / "gpt2")
    (folder / "tokenizer.json").unlink()
    with pytest.raises(ModelLoadError, match="has no tokenizer.json"):
        _load(folder)
    (folder / "model.safetensors").unlink()
    with pytest.raises(ModelLoadError, match=r"has no model\.safetensors"):
        _load(folder)
    (folder / "config.json").unlink()
    with pytest.raises(ModelLoadError, match="has no config.json"):
        _load(folder)


def test_a_pickle_only_checkpoint_is_refused_unopened(tmp_path):
    folder = hf_tiny.save_folder(hf_tiny.gpt2(), tmp_path / "gpt2")
    (folder / "model.safetensors").unlink()
    # Not a valid pickle at all: opening it would fail differently, so the sentence proves it stayed shut.
    (folder / "pytorch_model.bin").write_bytes(b"not a pickle")
    with pytest.raises(ModelLoadError, match=r"only a pickle checkpoint \(pytorch_model\.bin\).*safetensors only"):
        _load(folder)


def test_a_missing_shard_is_named(tmp_path):
    folder = hf_tiny.save_folder(hf_tiny.gpt2(), tmp_path / "gpt2")
    (folder / "model.safetensors").unlink()
    (folder / "model.safetensors.index.json").write_text('{"weight_map": {"a": "model-00001-of-00002.safetensors"}}')
    with pytest.raises(ModelLoadError, match="missing the weight shard model-00001-of-00002.safetensors"):
        _load(folder)


def test_a_model_computing_attention_in_its_own_code_loads_from_its_folder_and_is_verified(tmp_path):
    """BLOOM never calls transformers' attention interface: its stages are followed op by op (hf_ops)."""
    cfg = hf_tiny.transformers.BloomConfig(vocab_size=40, hidden_size=16, n_layer=1, n_head=2)
    folder = hf_tiny.save_folder(hf_tiny.transformers.BloomForCausalLM(cfg), tmp_path / "bloom")
    adapter = _load(folder)
    prepared = adapter.prepare({"prompt": "I love you"})
    with torch.no_grad():
        out = adapter.forward(prepared)
    assert {"dec.0.self_attn.alibi", "dec.0.self_attn.probs"} <= set(adapter.plan.taps)
    verification = adapter.verify(prepared, out)
    assert verification.ok and "dec.0.self_attn.probs" in verification.checked


def test_an_attention_keyword_the_tapped_function_lacks_is_refused():
    model = hf_tiny.llama(n_layer=1)
    module = model.model.layers[0].self_attn
    q = torch.zeros(1, 4, 3, 8)
    kv = torch.zeros(1, 2, 3, 8)
    with pytest.raises(UnsupportedModelError, match="passes the attention keyword 'alibi_slopes'"):
        tapped_attention_forward(module, q, kv, kv, None, scaling=0.35, alibi_slopes=torch.zeros(4))
    # Bookkeeping keywords are fine (MoE models' output_router_logits, ModernBERT's deterministic),
    # and the arithmetic is eager's.
    out, probs = tapped_attention_forward(module, q, kv, kv, None, scaling=0.35, position_ids=torch.arange(3),
                                          output_router_logits=False, deterministic=True)
    assert out.shape == (1, 3, 4, 8) and torch.allclose(probs, torch.full((1, 4, 3, 3), 1 / 3))


def test_without_the_extra_hf_specs_say_how_to_install_and_the_list_hides_them(monkeypatch):
    # Where the check and the model list read it (torch-free, so the window lists its models before torch loads).
    monkeypatch.setattr("tfdebug.adapters.bundled.transformers_available", lambda: False)
    with pytest.raises(ModelLoadError) as info:
        load_adapter("hf:/some/folder", "cpu", "float32")
    assert info.value.message == hf_load.INSTALL_HINT and 'pip install "tfdebug[hf]"' in info.value.message
    assert not any(name.startswith("hf:") or name == "tiny-gpt2" for name in available_models())


def test_weights_the_device_has_no_room_for_are_refused_before_loading(tmp_path, monkeypatch):
    """Never killed part way: a load that cannot fit is one sentence first (--device-map auto places it instead)."""
    from tfdebug.adapters.hf.load import load_folder
    from tfdebug.core import budget
    from tfdebug.core.errors import ModelLoadError

    folder = hf_tiny.save_folder(hf_tiny.llama(), tmp_path / "llama")
    monkeypatch.setattr(budget, "free_memory", lambda device: 1000)
    with pytest.raises(ModelLoadError) as caught:
        load_folder(folder, torch.device("cpu"), torch.float32)
    message = str(caught.value)
    assert "need about" in message and "--device-map auto" in message and "\n" not in message
