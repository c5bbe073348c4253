"""CLIP: both towers and their similarity in one pass, checked against the unmodified model's own outputs."""

from __future__ import annotations

import subprocess
import sys

import pytest
import torch

transformers = pytest.importorskip("transformers")
pytest.importorskip("PIL")

from PIL import Image  # noqa: E402

from tfdebug.adapters.hf.clip import CLIPAdapter  # noqa: E402
from tfdebug.adapters.hf.vision import sample_image  # noqa: E402
from tfdebug.core.recorder import Recorder  # noqa: E402


def tiny_clip():
    from tfdebug.demo.make_tiny_vision import caption_tokenizer

    tokenizer = caption_tokenizer()
    text = dict(hidden_size=32, num_hidden_layers=2, num_attention_heads=4, intermediate_size=64,
                vocab_size=len(tokenizer), max_position_embeddings=16, pad_token_id=0, bos_token_id=2, eos_token_id=3)
    vision = dict(hidden_size=32, num_hidden_layers=2, num_attention_heads=4, intermediate_size=64, image_size=32,
                  patch_size=8)
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(0)
        model = transformers.CLIPModel(transformers.CLIPConfig(text_config=text, vision_config=vision,
                                                               projection_dim=16)).eval()
    processor = transformers.CLIPImageProcessor(size={"shortest_edge": 32}, crop_size={"height": 32, "width": 32})
    return model, processor, tokenizer


def test_both_towers_and_the_similarity_equal_the_models_own_outputs():
    model, processor, tokenizer = tiny_clip()
    adapter = CLIPAdapter(model, processor, tokenizer)
    captions = "a photo of a house | the red car"
    prepared = adapter.prepare({"image": str(sample_image()), "text": captions})
    with torch.no_grad(), Recorder(adapter.module) as rec:
        output = adapter.forward(prepared)
    stages = {c.name: c for c in rec.captures}
    # The inputs are what the model's own processor and tokenizer make (padded: the second caption is shorter).
    pixels = processor(images=Image.open(sample_image()).convert("RGB"), return_tensors="pt")["pixel_values"]
    encoding = tokenizer(["a photo of a house", "the red car"], padding=True, return_tensors="pt")
    assert torch.equal(prepared.kwargs["pixel_values"], pixels)
    assert torch.equal(prepared.kwargs["input_ids"], encoding["input_ids"])
    assert prepared.tokens["text"][:2] == ["<|startoftext|>", "a"]
    for name in ("img.patch_embed", "img.cls", "img.pos", "img.norm", "enc.1.attn.probs", "img.pool", "img.proj",
                 "tok.embed", "tok.pos", "txt.0.self_attn.masked", "txt.1.self_attn.probs", "txt.norm", "txt.proj",
                 "logits"):
        assert name in stages, name
    assert stages["enc.0.attn.probs"].info.tokens == {"query": "image", "key": "image"}
    assert stages["txt.0.self_attn.probs"].info.tokens == {"query": "text", "key": "text"}
    with torch.no_grad():
        model.config._attn_implementation = "eager"
        for config in (model.config.text_config, model.config.vision_config):
            config._attn_implementation = "eager"
        reference = model(**prepared.kwargs, output_attentions=True, output_hidden_states=True)
    for tower, stack, block in (("vision_model_output", "enc", "attn"), ("text_model_output", "txt", "self_attn")):
        attentions = getattr(reference, tower).attentions
        for layer, expected in enumerate(attentions):
            seen = stages[f"{stack}.{layer}.{block}.probs"].tensor
            assert seen.shape == expected.shape
            assert float((seen - expected).abs().max()) <= 1e-5
    # CLIP's encoder reads the embeddings after its pre-layernorm: hidden_states[0] is img.norm, and img.pos is
    # what the model's own embeddings module returns.
    assert float((stages["img.norm"].tensor - reference.vision_model_output.hidden_states[0]).abs().max()) <= 1e-5
    with torch.no_grad():
        embedded = model.vision_model.embeddings(prepared.kwargs["pixel_values"])
    assert float((stages["img.pos"].tensor - embedded).abs().max()) <= 1e-5
    assert stages["logits"].tensor.shape == (1, 2)
    assert float((stages["logits"].tensor - reference.logits_per_image).abs().max()) <= 1e-5
    image_embeds = stages["img.proj"].tensor / stages["img.proj"].tensor.norm(dim=-1, keepdim=True)
    assert float((image_embeds - reference.image_embeds).abs().max()) <= 1e-5
    verification = adapter.verify(prepared, output)
    assert verification.ok and verification.max_abs_diff == 0.0
    assert {"logits", "enc.0.attn.probs", "txt.1.self_attn.probs"} <= set(verification.checked)


def test_the_bundled_tiny_clip_is_captured_by_the_cli(tmp_path):
    out = tmp_path / "clip.safetensors"
    done = subprocess.run([sys.executable, "-m", "tfdebug", "capture", "--model", "tiny-clip", "--image",
                           str(sample_image()), "--input", "text=a photo of a house | a red car", "--out", str(out)],
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    assert "verified: max |Δ| = 0.0e+00" in done.stdout
    assert "input equal to AutoImageProcessor and AutoTokenizer's" in done.stdout
