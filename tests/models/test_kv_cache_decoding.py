"""Incremental decoding with a KV cache: the same logits and tokens as rerunning the whole sequence."""

import pytest
import torch

from tfdebug.adapters.registry import load_adapter
from tfdebug.core.errors import InputError
from tfdebug.models.generate import generate, text_of
from tfdebug.models.sampling import DecodingSettings
from tfdebug.models.translate import translate
from tfdebug.models.vocab import BUILTIN_PAIRS


@pytest.fixture(scope="module")
def demo():
    return load_adapter("demo")


@pytest.fixture(scope="module")
def random_model():
    return load_adapter("random")


def _logits_per_step(adapter, texts, use_cache, settings):
    decoder = adapter.step_decoder(adapter.prepare(texts), use_cache)
    seen = []
    feed = decoder.feed
    decoder.feed = lambda ids: seen.append(feed(ids).clone()) or seen[-1]
    with torch.no_grad():
        choices = generate(decoder, settings)
    return seen, choices, decoder


@pytest.mark.parametrize("name", ["demo", "random"])
@pytest.mark.parametrize("prefix", ["", "我"])
def test_cached_logits_equal_uncached_at_every_step(name, prefix, request):
    adapter = request.getfixturevalue("demo" if name == "demo" else "random_model")
    settings = DecodingSettings(max_new_tokens=8, stop_at_eos=False)
    cached, c_choices, _ = _logits_per_step(adapter, {"src": "I love you", "tgt": prefix}, True, settings)
    plain, p_choices, _ = _logits_per_step(adapter, {"src": "I love you", "tgt": prefix}, False, settings)
    assert len(cached) == len(plain) == 8
    for step, (a, b) in enumerate(zip(cached, plain)):
        assert a.dtype == torch.float32
        assert (a - b).abs().max().item() <= 1e-5, f"step {step}"
    assert [c.id for c in c_choices] == [c.id for c in p_choices]


def test_greedy_tokens_equal_translate(demo, random_model):
    for adapter in (demo, random_model):
        for english, _ in BUILTIN_PAIRS[:6]:
            _, choices, decoder = _logits_per_step(adapter, {"src": english, "tgt": ""}, True,
                                                   DecodingSettings(max_new_tokens=adapter.loaded.args.max_len))
            assert text_of(decoder, choices) == translate(adapter.loaded, english).tokens


def test_acceptance_sentence(demo):
    _, choices, decoder = _logits_per_step(demo, {"src": "I love you", "tgt": ""}, True, DecodingSettings())
    assert text_of(decoder, choices) == ["我", "爱", "你"]
    assert choices[-1].id == decoder.eos_id


def test_seeded_sampling_is_reproducible(random_model):
    texts = {"src": "I love you", "tgt": ""}

    def ids(seed, **kw):
        settings = DecodingSettings(max_new_tokens=10, sample=True, seed=seed, stop_at_eos=False, **kw)
        return [c.id for c in _logits_per_step(random_model, texts, True, settings)[1]]

    assert ids(7, temperature=2.0) == ids(7, temperature=2.0)
    # The random model is nearly uniform: different seeds draw different tokens.
    assert len({tuple(ids(seed, temperature=2.0)) for seed in range(4)}) > 1
    # top-k 1 and a tiny top-p leave only the likeliest token: sampling becomes greedy.
    greedy = [c.id for c in _logits_per_step(random_model, texts, True,
                                              DecodingSettings(max_new_tokens=10, stop_at_eos=False))[1]]
    assert ids(3, top_k=1) == greedy
    assert ids(5, top_p=1e-6) == greedy


def test_choice_probabilities_and_alternatives(demo):
    _, choices, decoder = _logits_per_step(demo, {"src": "I love you", "tgt": ""}, True, DecodingSettings())
    for c in choices:
        assert len(c.top) == 5
        probs = [p for _, p in c.top]
        assert probs == sorted(probs, reverse=True) and 0 < c.probability <= 1
        assert c.top[0][0] == c.id  # greedy takes the likeliest


@pytest.mark.parametrize("kw, words", [({"max_new_tokens": 0}, "at least 1"), ({"temperature": 0}, "temperature"),
                                       ({"top_k": -1}, "Top-k"), ({"top_p": 0}, "Top-p"), ({"top_p": 1.5}, "Top-p")])
def test_impossible_settings_are_refused(kw, words):
    with pytest.raises(InputError, match=words):
        DecodingSettings(**kw)


def test_max_new_tokens_and_full_stream(random_model):
    _, choices, _ = _logits_per_step(random_model, {"src": "I love you", "tgt": ""}, True,
                                     DecodingSettings(max_new_tokens=3, stop_at_eos=False))
    assert len(choices) == 3
    limit = random_model.loaded.args.max_len
    _, choices, decoder = _logits_per_step(random_model, {"src": "I love you", "tgt": ""}, True,
                                           DecodingSettings(max_new_tokens=limit + 10, stop_at_eos=False))
    # <bos> plus the generated tokens fill the target to the model's limit, as `translate` does.
    assert 1 + len(choices) == limit and decoder.fed == limit - 1
