"""LLaVA: the vision tower, the projector and the language model in one pass, checked against the unmodified
model's own outputs on the inputs its own processor makes."""

from __future__ import annotations

import subprocess
import sys

import pytest
import torch

transformers = pytest.importorskip("transformers")
pytest.importorskip("PIL")

from PIL import Image  # noqa: E402

from tfdebug.adapters.hf.vision import sample_image  # noqa: E402
from tfdebug.adapters.hf.vlm import PROMPT, LlavaAdapter  # noqa: E402
from tfdebug.core.errors import InputError  # noqa: E402
from tfdebug.core.recorder import Recorder  # noqa: E402


def tiny_llava():
    from tokenizers import Tokenizer, models, pre_tokenizers

    from tfdebug.demo.make_tiny_vision import VLM_WORDS

    words = ["[PAD]", "[UNK]", "<s>", "</s>", "<image>"] + VLM_WORDS
    tok = Tokenizer(models.WordLevel({w: i for i, w in enumerate(words)}, unk_token="[UNK]"))
    tok.pre_tokenizer = pre_tokenizers.Whitespace()
    tokenizer = transformers.PreTrainedTokenizerFast(tokenizer_object=tok, pad_token="[PAD]", unk_token="[UNK]",
                                                     extra_special_tokens={"image_token": "<image>"})
    vision = dict(model_type="clip_vision_model", hidden_size=32, num_hidden_layers=2, num_attention_heads=4,
                  intermediate_size=64, image_size=32, patch_size=8)
    text = dict(model_type="llama", hidden_size=32, num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=2,
                intermediate_size=64, vocab_size=len(words), max_position_embeddings=64, pad_token_id=0)
    config = transformers.LlavaConfig(vision_config=vision, text_config=text, image_token_index=4,
                                      vision_feature_layer=-2, vision_feature_select_strategy="default")
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(0)
        model = transformers.LlavaForConditionalGeneration(config).eval()
    image = transformers.CLIPImageProcessor(size={"shortest_edge": 32}, crop_size={"height": 32, "width": 32})
    processor = transformers.LlavaProcessor(image_processor=image, tokenizer=tokenizer, patch_size=8,
                                            num_additional_image_tokens=1, vision_feature_select_strategy="default")
    return model, processor


def test_vision_tower_projector_and_language_model_equal_the_models_own_outputs():
    model, processor = tiny_llava()
    adapter = LlavaAdapter(model, processor)
    prepared = adapter.prepare({"image": str(sample_image()), "prompt": PROMPT})
    # The processor's own call: <image> becomes one token per patch (4 × 4), labelled by its patch.
    own = processor(images=Image.open(sample_image()).convert("RGB"), text=PROMPT, return_tensors="pt")
    assert torch.equal(prepared.kwargs["input_ids"], own["input_ids"])
    assert torch.equal(prepared.kwargs["pixel_values"], own["pixel_values"])
    labels = prepared.tokens["prompt"]
    assert labels[:4] == ["USER", ":", "(0,0)", "(0,1)"] and labels[17] == "(3,3)" and labels[18] == "what"
    assert prepared.image.stream == "prompt" and prepared.image.grid == (4, 4) and prepared.image.prefix == ("USER", ":")
    with torch.no_grad(), Recorder(adapter.module) as rec:
        output = adapter.forward(prepared)
    stages = {c.name: c for c in rec.captures}
    for name in ("img.patch_embed", "img.cls", "img.pos", "img.norm", "enc.1.attn.probs", "img.select", "img.proj",
                 "tok.embed", "tok.merged", "dec.0.self_attn.q_rotary", "dec.0.self_attn.k_repeat",
                 "dec.0.self_attn.masked", "dec.1.self_attn.probs", "dec.norm", "logits"):
        assert name in stages, name
    assert stages["img.proj"].info.tokens == {"token": "image[1:17]"}
    assert stages["dec.0.self_attn.probs"].info.tokens == {"query": "prompt", "key": "prompt"}
    # tok.merged is tok.embed with the 16 <image> rows replaced by the projected patches, in order.
    image_rows = own["input_ids"][0] == 4
    assert torch.equal(stages["tok.merged"].tensor[0, image_rows], stages["img.proj"].tensor[0])
    assert torch.equal(stages["tok.merged"].tensor[0, ~image_rows], stages["tok.embed"].tensor[0, ~image_rows])
    with torch.no_grad():
        for config in (model.config, model.config.vision_config, model.config.text_config):
            config._attn_implementation = "eager"
        reference = model(**own, output_attentions=True, output_hidden_states=True)
    for expected, stack, block in ((reference.image_outputs.attentions, "enc", "attn"),
                                   (reference.attentions, "dec", "self_attn")):
        assert len(expected) == 2
        for layer, probs in enumerate(expected):
            seen = stages[f"{stack}.{layer}.{block}.probs"].tensor
            assert seen.shape == probs.shape
            assert float((seen - probs).abs().max()) <= 1e-5
    # The projector reads layer -2's patches (hidden_states[-2] without [CLS]).
    selected = reference.image_outputs.hidden_states[-2][:, 1:]
    assert float((stages["img.select"].tensor - selected).abs().max()) <= 1e-5
    assert float((stages["tok.merged"].tensor - reference.hidden_states[0]).abs().max()) <= 1e-5
    assert float((stages["logits"].tensor - reference.logits).abs().max()) <= 1e-5
    verification = adapter.verify(prepared, output)
    assert verification.ok and verification.max_abs_diff == 0.0
    assert {"logits", "img.proj", "tok.merged", "enc.1.attn.probs", "dec.1.self_attn.probs"} <= set(verification.checked)


def test_a_prompt_without_image_gets_it_in_front_and_two_are_refused():
    model, processor = tiny_llava()
    adapter = LlavaAdapter(model, processor)
    prepared = adapter.prepare({"image": str(sample_image()), "prompt": "what is in the picture ?"})
    assert prepared.tokens["prompt"][:2] == ["(0,0)", "(0,1)"]
    assert any(getattr(n, "id", "") == "vlm.image_first" for n in prepared.notes)
    with pytest.raises(InputError) as refused:
        adapter.prepare({"image": str(sample_image()), "prompt": "<image> <image> what"})
    assert refused.value.id == "vlm.images"


def test_the_bundled_tiny_llava_is_captured_by_the_cli(tmp_path):
    out = tmp_path / "llava.safetensors"
    done = subprocess.run([sys.executable, "-m", "tfdebug", "capture", "--model", "tiny-llava", "--image",
                           str(sample_image()), "--input", f"prompt={PROMPT}", "--out", str(out)],
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    assert "verified: max |Δ| = 0.0e+00" in done.stdout
    assert "input equal to AutoProcessor's" in done.stdout


@pytest.mark.parametrize("use_cache", [True, False])
def test_generation_reads_the_picture_once_and_each_step_equals_the_models_own_logits(use_cache):
    """Token by token with the picture: step 0 reads the pixels with the prompt, each later step one token (its
    keys and values cached, or the whole sequence again without a cache); each step's logits are the model's own
    on the whole sequence so far, and the choices are its own generate()'s."""
    from tfdebug.models.sampling import DecodingSettings
    from tfdebug.sessions.generation import GenerationSession

    model, processor = tiny_llava()
    adapter = LlavaAdapter(model, processor)
    own = processor(images=Image.open(sample_image()).convert("RGB"), text=PROMPT, return_tensors="pt")
    decoder = adapter.step_decoder(adapter.prepare({"image": str(sample_image()), "prompt": PROMPT}), use_cache)
    assert decoder.stream == "prompt" and decoder.prompt_ids == own["input_ids"][0].tolist()
    ids = list(decoder.prompt_ids)
    with torch.no_grad():
        step = decoder.feed(ids)
        for _ in range(3):
            expected = model(pixel_values=own["pixel_values"], input_ids=torch.tensor([ids])).logits[0, -1]
            assert float((step - expected).abs().max()) <= 1e-5
            ids.append(int(step.argmax()))
            step = decoder.feed(ids[-1:])
        generated = model.generate(**own, max_new_tokens=4, do_sample=False, eos_token_id=None)[0]
    session = GenerationSession(adapter, {"image": str(sample_image()), "prompt": PROMPT},
                                DecodingSettings(max_new_tokens=4, stop_at_eos=False), use_cache=use_cache)
    captures, choices = session.capture_all()
    assert [c.id for c in choices] == generated[own["input_ids"].shape[1]:].tolist()
    names = {c.name for c in captures}
    # with a cache the vision tower runs once; without one every step reruns the picture with the whole sequence
    assert "gen.0.img.proj" in names and ("gen.1.img.proj" in names) == (not use_cache)
