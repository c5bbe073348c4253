"""Hugging Face models generate through tfdebug's loop with transformers' DynamicCache, token for token
as their own generate() under greedy decoding; the attention function's keys are the cache after update."""

import pytest
import torch

from tests.adapters import hf_tiny
from tfdebug.sessions.generation import GenerationSession
from tfdebug.adapters.hf.adapter import wrap
from tfdebug.core.errors import InputError
from tfdebug.models.sampling import DecodingSettings

transformers = pytest.importorskip("transformers")
PROMPT = "I love you"
STEPS = 8


def varied_gpt2():
    """A tiny GPT-2 with an untied head: with random tied weights greedy decoding repeats one token."""
    cfg = transformers.GPT2Config(vocab_size=hf_tiny.VOCAB, n_embd=32, n_layer=2, n_head=4, n_positions=64,
                                  bos_token_id=0, eos_token_id=0, tie_word_embeddings=False)
    return hf_tiny._seeded(lambda: transformers.GPT2LMHeadModel(cfg))


def own_generate(model, ids, steps=STEPS):
    out = model.generate(ids, max_new_tokens=steps, do_sample=False, eos_token_id=None, pad_token_id=0)
    return out[0, ids.shape[1]:].tolist()


def run(adapter, texts, use_cache=True, steps=STEPS):
    session = GenerationSession(adapter, texts, DecodingSettings(max_new_tokens=steps, stop_at_eos=False),
                                use_cache=use_cache)
    captures, choices = session.capture_all()
    session.close()
    return {c.name: c for c in captures}, [c.id for c in choices]


@pytest.mark.parametrize("build", [varied_gpt2, hf_tiny.llama], ids=["gpt2", "llama-gqa"])
def test_greedy_tokens_equal_the_models_own_generate(build):
    model, tokenizer = build(), hf_tiny.word_tokenizer()
    adapter = wrap(model, tokenizer)
    by_name, ids = run(adapter, {"prompt": PROMPT})
    prompt = adapter.prepare({"prompt": PROMPT}).kwargs["input_ids"]
    assert ids == own_generate(model, prompt)
    assert len(set(ids)) > 2  # not a degenerate repetition: the comparison means something
    # The cache grows by one key per step, labelled with the tokens so far.
    n = prompt.shape[1]
    for t in range(STEPS):
        k = by_name[f"gen.{t}.dec.1.self_attn.cache_k"]
        assert k.info.kind == "kv_cache" and k.shape[2] == n + t
        assert k.info.tokens["key"] == f"prompt[0:{n + t}]"
        assert by_name[f"gen.{t}.dec.1.self_attn.cache_v"].shape == k.shape
    assert hf_tiny.no_hooks_left(model)
    assert model.config._attn_implementation != "tfdebug"


@pytest.mark.parametrize("build", [varied_gpt2, hf_tiny.llama], ids=["gpt2", "llama-gqa"])
def test_cached_logits_equal_uncached_at_every_step(build):
    adapter = wrap(build(), hf_tiny.word_tokenizer())
    cached, ids = run(adapter, {"prompt": PROMPT})
    full, full_ids = run(adapter, {"prompt": PROMPT}, use_cache=False)
    assert ids == full_ids
    for t in range(STEPS):
        a, b = cached[f"gen.{t}.logits"].tensor[0, -1], full[f"gen.{t}.logits"].tensor[0, -1]
        assert float((a - b).abs().max()) <= 1e-5
    assert "gen.0.dec.0.self_attn.cache_k" not in full  # no cache, no cache stages


def test_llama_cache_keys_are_after_rope_as_the_model_caches_them():
    model = hf_tiny.llama()
    adapter = wrap(model, hf_tiny.word_tokenizer())
    by_name, ids = run(adapter, {"prompt": PROMPT}, steps=4)
    prompt = adapter.prepare({"prompt": PROMPT}).kwargs["input_ids"]
    fed = torch.cat([prompt, torch.tensor([ids[:3]])], dim=1)  # what step 3 has read
    with torch.no_grad():
        cache = model(input_ids=fed, use_cache=True).past_key_values
    for layer in (0, 1):
        shown = by_name[f"gen.3.dec.{layer}.self_attn.cache_k"].tensor
        assert shown.shape == cache.layers[layer].keys.shape  # (1, 2 K/V heads, T, 8): before the GQA repeat
        torch.testing.assert_close(shown, cache.layers[layer].keys, atol=1e-6, rtol=0)
        torch.testing.assert_close(by_name[f"gen.3.dec.{layer}.self_attn.cache_v"].tensor,
                                   cache.layers[layer].values, atol=1e-6, rtol=0)
        # ... and they differ from the keys before the rotation (the projection's split of the new token).
        new_key = by_name[f"gen.3.dec.{layer}.self_attn.k_split"].tensor
        assert not torch.allclose(new_key[0, :, -1], shown[0, :, -1])


def test_t5_generates_with_an_encoder_decoder_cache():
    model = hf_tiny.t5()
    adapter = wrap(model, hf_tiny.word_tokenizer())
    texts = {"src": PROMPT, "tgt": ""}
    by_name, ids = run(adapter, texts, steps=4)
    full, full_ids = run(adapter, texts, use_cache=False, steps=4)
    src = adapter.prepare(texts).kwargs["input_ids"]
    assert ids == full_ids == model.generate(src, max_new_tokens=4, do_sample=False, eos_token_id=None)[0, 1:].tolist()
    for t in range(4):
        assert float((by_name[f"gen.{t}.logits"].tensor[0, -1] - full[f"gen.{t}.logits"].tensor[0, -1]).abs().max()) <= 1e-5
        assert by_name[f"gen.{t}.dec.0.self_attn.cache_k"].shape[2] == 1 + t
        # Cross-attention's cache holds the encoder's keys: filled at step 0, the same at every step.
        cross = by_name[f"gen.{t}.dec.0.cross_attn.cache_k"]
        assert cross.shape[2] == src.shape[1] and cross.info.tokens["key"] == "src"
        torch.testing.assert_close(cross.tensor, by_name["gen.0.dec.0.cross_attn.cache_k"].tensor)
    assert "gen.0.enc.0.attn.probs" in by_name and "gen.1.enc.0.attn.probs" not in by_name  # the encoder ran once


def test_an_encoder_only_model_cannot_generate():
    adapter = wrap(hf_tiny.bert(), hf_tiny.word_tokenizer(add_cls_sep=True))
    with pytest.raises(InputError, match="encoder only"):
        GenerationSession(adapter, {"text": PROMPT})


def test_bundled_tiny_gpt2_continues_with_the_translation():
    from tfdebug.adapters.registry import load_adapter

    adapter = load_adapter("tiny-gpt2")
    session = GenerationSession(adapter, {"prompt": "I love you ="}, DecodingSettings(max_new_tokens=6))
    choices = session.run()
    ids = adapter.prepare({"prompt": "I love you ="}).kwargs["input_ids"]
    assert session.generated == ["我", "爱", "你"]
    assert [c.id for c in choices] == adapter.model.generate(ids, max_new_tokens=6, do_sample=False,
                                                             pad_token_id=adapter.model.config.eos_token_id
                                                             )[0, ids.shape[1]:].tolist()
    session.close()


def test_grouped_query_generation_captures_equal_eager_attentions_bit_for_bit():
    """A generated token's planes are products per K/V head (nothing repeated): every stage of every step, its
    planes computed whole, equals eager attention's, which multiplies with the repeated K and V (a model that runs
    eager attention: its context too is computed from the planes)."""
    from tfdebug.adapters.hf.planes import planes_materialized
    from tfdebug.core.recipes import materialized

    model = hf_tiny.llama()
    model.set_attn_implementation("eager")
    adapter = wrap(model, hf_tiny.word_tokenizer())
    lazy, chosen = run(adapter, {"prompt": PROMPT})
    with planes_materialized():
        whole, eager = run(adapter, {"prompt": PROMPT})
    assert list(lazy) == list(whole) and chosen == eager
    assert any(c.recipe for c in lazy.values())
    for name, capture in lazy.items():
        assert torch.equal(materialized(capture.tensor), whole[name].tensor), name


@pytest.mark.parametrize("build", [varied_gpt2, hf_tiny.llama], ids=["gpt2", "llama-gqa"])
def test_generated_tokens_logits_equal_the_models_own_generate_bit_for_bit(build):
    """A model that runs sdpa generates through its own kernel: after the prompt, every step's logits are the ones
    its own generate() returns, bit for bit (the prompt's step within float32's rounding: generate() runs the head
    on the last position alone, a product of another shape)."""
    model = build()
    assert model.config._attn_implementation == "sdpa"
    adapter = wrap(model, hf_tiny.word_tokenizer())
    by_name, ids = run(adapter, {"prompt": PROMPT})
    prompt = adapter.prepare({"prompt": PROMPT}).kwargs["input_ids"]
    with torch.no_grad():
        own = model.generate(prompt, max_new_tokens=STEPS, do_sample=False, eos_token_id=None, pad_token_id=0,
                             output_logits=True, return_dict_in_generate=True)
    assert ids == own.sequences[0, prompt.shape[1]:].tolist()
    torch.testing.assert_close(by_name["gen.0.logits"].tensor[0, -1], own.logits[0][0], atol=1e-6, rtol=0)
    for t in range(1, STEPS):
        assert torch.equal(by_name[f"gen.{t}.logits"].tensor[0, -1], own.logits[t][0]), t


def test_a_generated_token_s_planes_are_the_models_eager_attention_on_the_shown_query_and_cache():
    """With the context from the model's own kernel, the planes shown at a step are still what the model's own eager
    attention function makes of the query and the cache shown there: its probabilities bit for bit, its context
    within float32's rounding of the kernel's."""
    from transformers.models.llama.modeling_llama import eager_attention_forward

    from tfdebug.core.recipes import materialized

    model = hf_tiny.llama()
    adapter = wrap(model, hf_tiny.word_tokenizer())
    by_name, _ = run(adapter, {"prompt": PROMPT}, steps=4)
    for step in (1, 3):
        for layer, attention in enumerate(model.model.layers):
            at = f"gen.{step}.dec.{layer}.self_attn."
            probs = by_name[at + "probs"]
            assert probs.recipe
            with torch.no_grad():
                out, weights = eager_attention_forward(
                    attention.self_attn, by_name[at + "q_rotary"].tensor, by_name[at + "cache_k"].tensor,
                    by_name[at + "cache_v"].tensor, None, scaling=attention.self_attn.scaling)
            assert torch.equal(materialized(probs.tensor), weights), at
            torch.testing.assert_close(by_name[at + "context"].tensor, out.transpose(1, 2), atol=1e-6, rtol=0)


def test_an_edited_plane_of_a_generated_token_is_what_its_context_reads():
    """Zeroing head 0 of a step's probabilities while paused there: that step's context of head 0 is zero (the
    context is computed from the edited plane, not by the model's kernel), and the generation goes on."""
    from tfdebug.core.stepper import FINISHED, PAUSED

    adapter = wrap(hf_tiny.llama(), hf_tiny.word_tokenizer())
    session = GenerationSession(adapter, {"prompt": PROMPT}, DecodingSettings(max_new_tokens=4, stop_at_eos=False))
    stepper = session.stepper
    stepper.start()
    assert stepper.wait() == PAUSED
    stepper.run_to("gen.2.dec.0.self_attn.probs")
    assert stepper.wait() == PAUSED
    edited = stepper.current.tensor.clone()  # the plane computed
    edited[:, 0] = 0
    stepper.replace(edited)
    stepper.continue_()
    assert stepper.wait() == FINISHED
    by_name = {c.name: c for c in stepper.history}
    context = by_name["gen.2.dec.0.self_attn.context"].tensor
    assert torch.count_nonzero(context[:, 0]) == 0 and torch.count_nonzero(context[:, 1:]) > 0
    assert torch.count_nonzero(by_name["gen.3.dec.0.self_attn.context"].tensor[:, 0]) > 0  # the next step's own
    session.close()
