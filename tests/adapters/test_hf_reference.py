"""The verification's reference pass with bounded memory (adapters.hf.reference): the model's own eager
function run head block by head block equals its whole eager pass bit for bit, gathers no probabilities,
and a wrong probability still fails."""

from __future__ import annotations

import pytest
import torch

from tests.adapters import hf_archs, hf_tiny
from tfdebug.adapters.hf import reference
from tfdebug.adapters.hf.adapter import wrap
from tfdebug.adapters.hf.verify import eager
from tfdebug.core import recipes
from tfdebug.sessions.session import DebugSession
from tests.adapters.test_hf_architectures import TEXTS

PROMPT = {"prompt": "the cat sat on the mat and the dog sat on the log"}


CAPTURED = [arch for arch in hf_archs.ARCHITECTURES if arch.refused is None]


@pytest.mark.parametrize("arch", CAPTURED, ids=[arch.model_type for arch in CAPTURED])
@pytest.mark.parametrize("block_bytes", [1, 1 << 30])  # one key/value head per block; every head at once
def test_blocks_equal_the_whole_eager_pass_bit_for_bit(arch, block_bytes, monkeypatch):
    """Against transformers' own whole eager pass with output_attentions, on every architecture tfdebug
    captures: every layer's probabilities (the blocks compared with the eager weights themselves) and the
    outputs are equal exactly. Models with per-head attention sinks, or attention in their own code (followed
    op by op), use the whole eager pass instead."""
    monkeypatch.setattr(recipes, "BLOCK_BYTES", block_bytes)
    model = hf_archs.build(arch)
    adapter = wrap(model, hf_tiny.word_tokenizer())
    if not reference.bounded(adapter.plan):
        sites = adapter.plan.sites.values()
        probs = sum(len(names) for names in adapter.plan.probs.values())
        assert not sites or any("sinks" in site.taps for site in sites) or len(sites) < probs  # shared layers
        return
    texts = dict(TEXTS[arch.kind], tgt="") if arch.kind == "encoder-decoder" else TEXTS[arch.kind]
    kwargs = DebugSession(adapter, texts).prepared.kwargs
    with torch.no_grad(), eager(model):
        whole = model(**kwargs, output_attentions=True, output_hidden_states=True)
    seen = {}
    for key, names in adapter.plan.probs.items():
        for name, weights in zip(names, getattr(whole, key)):
            seen[name] = weights
    compared = reference.Compared()
    with torch.no_grad(), eager(model), reference.reference_attention(model, adapter.plan, seen, compared, twice=True):
        blocked = model(**kwargs, output_hidden_states=True)
    assert set(compared.diffs) == set(seen) and max(compared.diffs.values()) == 0.0
    assert max(compared.noise.values()) == 0.0  # a CPU repeats itself exactly
    primary = "logits" if hasattr(whole, "logits") else "last_hidden_state"
    assert torch.equal(getattr(blocked, primary), getattr(whole, primary))
    assert getattr(blocked, "attentions", None) in (None, ())  # nothing gathered


@pytest.mark.parametrize("arch", ["llama", "gemma2", "gpt2", "bert", "t5"])
def test_bands_of_query_rows_equal_the_whole_eager_pass_bit_for_bit(arch, monkeypatch):
    """A group of heads larger than a block (a 32k-token prompt's) runs in bands of query rows on the CPU: every
    layer's probabilities and the outputs still equal transformers' whole eager pass exactly."""
    monkeypatch.setattr(recipes, "BLOCK_BYTES", 1)
    model = hf_archs.build(hf_archs.BY_TYPE[arch])
    adapter = wrap(model, hf_tiny.word_tokenizer())
    kwargs = DebugSession(adapter, {adapter.inputs[0].key: " ".join(["the cat sat on the mat"] * 9)}).prepared.kwargs
    q = torch.zeros(1, 4, kwargs["input_ids"].shape[-1], 8)
    assert len({rs.start for _, _, rs in reference._blocks(q, q[:, :2])}) > 2  # bands, not whole heads
    with torch.no_grad(), eager(model):
        whole = model(**kwargs, output_attentions=True)
    seen = {name: weights for key, names in adapter.plan.probs.items() for name, weights in zip(names, getattr(whole, key))}
    compared = reference.Compared()
    with torch.no_grad(), eager(model), reference.reference_attention(model, adapter.plan, seen, compared):
        blocked = model(**kwargs)
    assert set(compared.diffs) == set(seen) and max(compared.diffs.values()) == 0.0
    primary = "logits" if hasattr(whole, "logits") else "last_hidden_state"
    assert torch.equal(getattr(blocked, primary), getattr(whole, primary))


def test_a_session_checks_every_layer_through_the_bounded_reference_and_a_wrong_plane_fails(monkeypatch):
    monkeypatch.setattr(recipes, "BLOCK_BYTES", 1)
    model = hf_tiny.llama()
    session = DebugSession(wrap(model, hf_tiny.word_tokenizer()), PROMPT)
    session.capture_all(verify="now")
    verification = session.verification
    assert verification.ok and {"dec.0.self_attn.probs", "dec.1.self_attn.probs"} <= set(verification.checked)

    adapter = wrap(model, hf_tiny.word_tokenizer())
    tap = adapter.plan.taps["dec.1.self_attn.masked"]
    # One head's last query row shifted: its probabilities differ there only.
    def nudge(module, args, output):
        output = output.materialize() if hasattr(output, "materialize") else output.clone()
        output[0, -1, -1, 0] += 0.5
        return output
    handle = tap.register_forward_hook(nudge)
    try:
        broken = DebugSession(adapter, PROMPT)
        broken.capture_all(verify="now")
    finally:
        handle.remove()
    assert not broken.verification.ok and broken.verification.first_mismatch == "dec.1.self_attn.probs"
    assert hf_tiny.no_hooks_left(model)
