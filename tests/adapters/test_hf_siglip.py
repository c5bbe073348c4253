"""SigLIP: both towers and the sigmoid similarity in one pass, checked against the unmodified model's outputs."""

from __future__ import annotations

import subprocess
import sys

import pytest
import torch

transformers = pytest.importorskip("transformers")
pytest.importorskip("PIL")

from PIL import Image  # noqa: E402

from tfdebug.adapters.hf.siglip import SigLIPAdapter  # noqa: E402
from tfdebug.adapters.hf.vision import sample_image  # noqa: E402
from tfdebug.core.recorder import Recorder  # noqa: E402


def tiny_siglip():
    from tfdebug.demo.make_tiny_vision import caption_tokenizer

    tokenizer = caption_tokenizer()
    text = dict(hidden_size=32, num_hidden_layers=2, num_attention_heads=4, intermediate_size=64,
                vocab_size=len(tokenizer), max_position_embeddings=12, pad_token_id=0, bos_token_id=2, eos_token_id=3)
    vision = dict(hidden_size=32, num_hidden_layers=2, num_attention_heads=4, intermediate_size=64, image_size=32,
                  patch_size=8)
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(0)
        config = transformers.SiglipConfig(text_config=text, vision_config=vision, initializer_factor=1.0)
        model = transformers.SiglipModel(config).eval()
    processor = transformers.SiglipImageProcessor(size={"height": 32, "width": 32})
    return model, processor, tokenizer


def test_both_towers_and_the_similarity_equal_the_models_own_outputs():
    model, image_processor, tokenizer = tiny_siglip()
    adapter = SigLIPAdapter(model, image_processor, tokenizer)
    captions = ["a photo of a house", "the red car"]
    prepared = adapter.prepare({"image": str(sample_image()), "text": " | ".join(captions)})
    with torch.no_grad(), Recorder(adapter.module) as rec:
        output = adapter.forward(prepared)
    stages = {c.name: c for c in rec.captures}
    # The inputs are what SigLIP's own processor makes: the captions padded to the text tower's 12 positions.
    processor = transformers.SiglipProcessor(image_processor=image_processor, tokenizer=tokenizer)
    own = processor(text=captions, images=Image.open(sample_image()).convert("RGB"), padding="max_length",
                    max_length=12, return_tensors="pt")
    assert torch.equal(prepared.kwargs["pixel_values"], own["pixel_values"])
    assert torch.equal(prepared.kwargs["input_ids"], own["input_ids"])
    assert prepared.kwargs["input_ids"].shape == (2, 12)
    # No [CLS]: the 16 patches are the image tower's tokens; the post-layernorm is over all of them.
    assert "img.cls" not in stages
    assert stages["img.pos"].tensor.shape == (1, 16, 32)
    for name in ("img.patch_embed", "img.pos", "enc.1.attn.probs", "enc.norm", "img.proj", "tok.embed", "tok.pos",
                 "txt.0.self_attn.probs", "txt.norm", "txt.proj", "logits"):
        assert name in stages, name
    assert stages["enc.0.attn.probs"].info.tokens == {"query": "image", "key": "image"}
    with torch.no_grad():
        model.config._attn_implementation = "eager"
        for config in (model.config.text_config, model.config.vision_config):
            config._attn_implementation = "eager"
        reference = model(**own, output_attentions=True, output_hidden_states=True)
    for tower, stack, block in (("vision_model_output", "enc", "attn"), ("text_model_output", "txt", "self_attn")):
        attentions = getattr(reference, tower).attentions
        assert len(attentions) == 2
        for layer, expected in enumerate(attentions):
            seen = stages[f"{stack}.{layer}.{block}.probs"].tensor
            assert seen.shape == expected.shape
            assert float((seen - expected).abs().max()) <= 1e-5
    assert float((stages["img.pos"].tensor - reference.vision_model_output.hidden_states[0]).abs().max()) <= 1e-5
    assert float((stages["img.proj"].tensor - reference.vision_model_output.pooler_output).abs().max()) <= 1e-5
    assert float((stages["txt.proj"].tensor - reference.text_model_output.pooler_output).abs().max()) <= 1e-5
    assert stages["logits"].tensor.shape == (1, 2)
    assert float((stages["logits"].tensor - reference.logits_per_image).abs().max()) <= 1e-5
    verification = adapter.verify(prepared, output)
    assert verification.ok and verification.max_abs_diff == 0.0
    assert {"logits", "enc.0.attn.probs", "txt.1.self_attn.probs"} <= set(verification.checked)


def test_the_bundled_tiny_siglip_is_captured_by_the_cli(tmp_path):
    out = tmp_path / "siglip.safetensors"
    done = subprocess.run([sys.executable, "-m", "tfdebug", "capture", "--model", "tiny-siglip", "--image",
                           str(sample_image()), "--input", "text=a photo of a house | a red car", "--out", str(out)],
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    assert "verified: max |Δ| = 0.0e+00" in done.stdout
    assert "input equal to AutoImageProcessor and AutoTokenizer's" in done.stdout
