"""A generation keeps its K/V cache once: every step's `cache_k`/`cache_v` is a view of one growing buffer, equal
bit for bit to what transformers' own `DynamicCache` holds after that step, and unchanged by the steps after it."""

import pytest
import torch

from tests.adapters import hf_tiny
from tfdebug.adapters.hf.adapter import wrap
from tfdebug.models.sampling import DecodingSettings
from tfdebug.sessions.generation import GenerationSession

transformers = pytest.importorskip("transformers")
from transformers.cache_utils import DynamicLayer  # noqa: E402

from tfdebug.adapters.hf.kv_rows import RowsLayer, share_rows  # noqa: E402

PROMPT = "I love you"
STEPS = 16


def generation(model, steps=STEPS):
    session = GenerationSession(wrap(model, hf_tiny.word_tokenizer()), {"prompt": PROMPT},
                                DecodingSettings(max_new_tokens=steps, stop_at_eos=False))
    captures, choices = session.capture_all()
    return session, {c.name: c for c in captures}, [c.id for c in choices]


def models_own_caches(model, prompt_ids, chosen):
    """What transformers' DynamicCache holds after each step when the plain model is fed the same tokens."""
    cache = transformers.DynamicCache(config=model.config)
    assert all(type(layer) is DynamicLayer for layer in cache.layers)  # the model's own: concatenation
    held, feed = [], prompt_ids
    with torch.no_grad():
        for token in chosen:
            model(input_ids=feed, cache=cache, use_cache=True)
            held.append([(layer.keys.clone(), layer.values.clone()) for layer in cache.layers])
            feed = torch.tensor([[token]])
    return held


def test_every_step_s_cache_is_the_model_s_own_after_the_generation_has_ended():
    model = hf_tiny.llama()  # grouped-query: 2 K/V heads
    session, by_name, chosen = generation(model)
    prompt = session.prepared.kwargs["input_ids"]
    own = models_own_caches(model, prompt, chosen)
    for t, layers in enumerate(own):  # read after every step ran: a later step wrote nothing into an earlier one
        for layer, (keys, values) in enumerate(layers):
            assert torch.equal(by_name[f"gen.{t}.dec.{layer}.self_attn.cache_k"].tensor, keys)
            assert torch.equal(by_name[f"gen.{t}.dec.{layer}.self_attn.cache_v"].tensor, values)


def test_a_generation_holds_its_cache_once_not_once_a_step():
    session, by_name, _ = generation(hf_tiny.llama())
    for stage in ("cache_k", "cache_v"):
        shown = [by_name[f"gen.{t}.dec.0.self_attn.{stage}"].tensor for t in range(STEPS)]
        storages = {s.untyped_storage().data_ptr(): s.untyped_storage().nbytes() for s in shown}
        final = shown[-1].nbytes
        # Copies would hold every step's: 3 + 4 + … + 18 rows, 168 against the last step's 18; one buffer holds
        # the 18 rows the generation said it would feed (the last token chosen is not fed)
        assert sum(t.nbytes for t in shown) > 8 * final
        assert len(storages) == 1 and sum(storages.values()) == final


def test_a_generation_longer_than_it_said_grows_its_buffer_and_is_still_exact(monkeypatch):
    from tfdebug.adapters.hf import generate as hf_generate

    said = []
    monkeypatch.setattr(hf_generate.HFDecoder, "expect", lambda self, tokens: (said.append(tokens),
                                                                               share_rows(self.cache, 4)))
    model = hf_tiny.llama()
    session, by_name, chosen = generation(model)  # buffers of 4 rows (steps 0 and 1), then 5 + 16
    assert said[-1] == 3 + STEPS - 1  # what the generation said: the prompt and every token but the last
    own = models_own_caches(model, session.prepared.kwargs["input_ids"], chosen)
    for t in range(STEPS):
        assert torch.equal(by_name[f"gen.{t}.dec.1.self_attn.cache_k"].tensor, own[t][1][0])
        assert torch.equal(by_name[f"gen.{t}.dec.1.self_attn.cache_v"].tensor, own[t][1][1])
    buffers = {by_name[f"gen.{t}.dec.1.self_attn.cache_k"].tensor.untyped_storage().data_ptr() for t in range(STEPS)}
    assert len(buffers) == 2


def rows(n, seed):
    return torch.randn(1, 2, n, 4, generator=torch.Generator().manual_seed(seed))


def test_a_rows_layer_gives_the_concatenation_s_values_and_never_rewrites_a_view_it_handed_out():
    ours, theirs = RowsLayer(), DynamicLayer()
    handed = []
    for i, n in enumerate((5, 1, 1, 70, 1, 200, 3)):  # several rows at once, and past each buffer's room
        k, v = rows(n, 2 * i), rows(n, 2 * i + 1)
        got, want = ours.update(k, v), theirs.update(k, v)
        assert torch.equal(got[0], want[0]) and torch.equal(got[1], want[1])
        handed.append((got[0].clone(), got[1].clone(), got))
        assert ours.get_seq_length() == theirs.get_seq_length()
    for copy_k, copy_v, (view_k, view_v) in handed:
        assert torch.equal(view_k, copy_k) and torch.equal(view_v, copy_v)


def test_a_rows_layer_reserves_what_the_generation_said_but_never_more_than_twice_what_it_holds():
    said = RowsLayer(rows=40)
    said.update(rows(30, 0), rows(30, 1))
    assert said._buffers is not None and said._buffers[0].shape[-2] == 40  # room for the whole generation
    huge = RowsLayer(rows=100_000)  # a generation allowed 100,000 tokens: it may stop at the first <eos>
    huge.update(rows(30, 0), rows(30, 1))
    assert huge._buffers is not None and huge._buffers[0].shape[-2] == 60


def test_a_rows_layer_that_transformers_cropped_or_reordered_starts_a_new_buffer():
    layer = RowsLayer()
    first = layer.update(rows(6, 0), rows(6, 1))
    kept = first[0].clone()
    layer.crop(-2)  # transformers' own crop: a view of the first 4 rows
    after = layer.update(rows(1, 2), rows(1, 3))
    assert torch.equal(first[0], kept)  # row 4 of the earlier view was not overwritten
    assert torch.equal(after[0], torch.cat([kept[..., :4, :], rows(1, 2)], dim=-2))
    layer.reorder_cache(torch.tensor([0]))
    again = layer.update(rows(1, 4), rows(1, 5))
    assert torch.equal(again[0], torch.cat([after[0], rows(1, 4)], dim=-2))
    assert torch.equal(after[0], torch.cat([kept[..., :4, :], rows(1, 2)], dim=-2))


def test_share_rows_replaces_plain_layers_only():
    config = transformers.MistralConfig(vocab_size=32, hidden_size=16, intermediate_size=32, num_hidden_layers=2,
                                        num_attention_heads=4, num_key_value_heads=2, sliding_window=8,
                                        layer_types=["sliding_attention", "full_attention"])
    cache = transformers.DynamicCache(config=config)
    sliding = cache.layers[0]
    share_rows(cache, 10)
    assert cache.layers[0] is sliding and type(cache.layers[1]) is RowsLayer
    both = transformers.EncoderDecoderCache(transformers.DynamicCache(), transformers.DynamicCache())
    share_rows(both, 10)  # the cross-attention half is filled once, from the encoder: it stays the model's own
    assert type(both.self_attention_cache.layer_class_to_replicate()) is RowsLayer
    assert both.cross_attention_cache.layer_class_to_replicate is DynamicLayer


def test_a_window_s_budget_with_room_for_the_cache_once_keeps_every_step_of_it():
    model = hf_tiny.llama()
    _, by_name, _ = generation(model)  # the same generation unbudgeted: what its stages hold, and their sizes
    buffers = {c.tensor.untyped_storage().data_ptr(): c.tensor.untyped_storage().nbytes()
               for c in by_name.values() if c.info.kind == "kv_cache"}
    others = sum(c.nbytes for c in by_name.values() if c.tensor is not None and not c.recipe
                 and c.info.kind != "kv_cache")
    limit = others + sum(buffers.values()) + 4096  # what the stages hold, and a little
    caches = sum(c.nbytes for c in by_name.values() if c.info.kind == "kv_cache")
    assert others + caches > limit + 16_000  # counted at their sizes, the steps' caches would not fit
    session = GenerationSession(wrap(model, hf_tiny.word_tokenizer()), {"prompt": PROMPT},
                                DecodingSettings(max_new_tokens=STEPS, stop_at_eos=False), max_capture_bytes=limit)
    stepper = session.stepper
    stepper.start()
    assert stepper.wait() == "paused"
    stepper.continue_()
    assert stepper.wait() == "finished"
    assert stepper.dropped == []
    kept = {c.name: c for c in stepper.history}
    assert all(kept[name].tensor is not None for name in by_name if by_name[name].info.kind == "kv_cache")
    session.close()
