"""The generic planner: parts it cannot match are refused with the part named, and the hooks it builds
from the data table (fused per-head Q/K/V, residual sums after a post-norm) let replacements flow."""

from __future__ import annotations

import pytest
import torch
from torch import nn

from tests.adapters import hf_archs, hf_tiny
from tfdebug.adapters.hf.adapter import wrap
from tfdebug.sessions.session import DebugSession
from tfdebug.core.errors import UnsupportedModelError
from tfdebug.core.recorder import Recorder

PROMPT = {"prompt": "the cat sat on the mat"}


def _replaced(session, name, make):
    def on_capture(capture):
        return make(capture.tensor) if capture.name == name else None

    with torch.no_grad(), Recorder(session.adapter.module, on_capture=on_capture) as rec:
        out = session.adapter.forward(session.prepared)
    return out, {c.name: c.tensor for c in rec.captures}


def test_a_query_projection_outside_the_table_is_refused_with_the_module_named():
    model = hf_tiny.llama(n_layer=1)
    attention = model.model.layers[0].self_attn
    attention.q_proj = nn.Sequential(attention.q_proj)  # its path is now q_proj.0: no name says "query"
    with pytest.raises(UnsupportedModelError, match="which child of model.layers.0.self_attn projects the queries"):
        wrap(model, hf_tiny.word_tokenizer())
    assert hf_tiny.no_hooks_left(model)


def test_neox_per_head_interleaved_qkv_is_split_like_the_model_and_a_replaced_v_flows():
    model = hf_archs.build(hf_archs.BY_TYPE["gpt_neox"])
    session = DebugSession(wrap(model, hf_tiny.word_tokenizer()), PROMPT)
    _, seen = _replaced(session, "dec.0.self_attn.v", torch.zeros_like)
    assert seen["dec.0.self_attn.v_split"].abs().max() == 0  # the split comes from the replaced part
    assert seen["dec.0.self_attn.context"].abs().max() == 0
    assert seen["dec.0.self_attn.q_split"].abs().max() > 0  # Q and K untouched: the layout is per head
    logits, seen = _replaced(session, "dec.0.self_attn.q", lambda q: q)
    assert session.adapter.verify(session.prepared, logits).ok


def test_a_replaced_residual_after_gemma2s_post_norm_flows_to_the_next_sublayer():
    model = hf_archs.build(hf_archs.BY_TYPE["gemma2"])
    session = DebugSession(wrap(model, hf_tiny.word_tokenizer()), PROMPT)
    _, seen = _replaced(session, "dec.0.self_attn.resid", lambda r: r * 0 + 1.0)
    layer = model.model.layers[0]
    with torch.no_grad():
        expected = layer.pre_feedforward_layernorm(torch.ones_like(seen["dec.0.self_attn.resid"]))
    assert torch.allclose(seen["dec.0.ffn.norm"], expected, atol=1e-6)
    assert torch.allclose(seen["dec.0.ffn.resid"], 1.0 + seen["dec.0.ffn.post_norm"], atol=1e-6)


@pytest.mark.parametrize("model_type", ["bert", "olmo2", "granite"])
def test_half_precision_models_get_the_float32_plan_and_come_back_unchanged(model_type):
    arch = hf_archs.BY_TYPE[model_type]
    tokenizer = hf_tiny.word_tokenizer(arch.kind == "encoder")
    full = wrap(hf_archs.build(arch), tokenizer).plan
    model = hf_archs.build(arch).to(torch.bfloat16)
    before = {name: t.clone() for name, t in model.state_dict().items()}
    half = wrap(model, tokenizer)
    assert [(n, t.info.kind, t.info.inputs) for n, t in half.plan.taps.items()] == \
        [(n, t.info.kind, t.info.inputs) for n, t in full.taps.items()]
    after = model.state_dict()
    assert all(after[n].dtype == t.dtype and torch.equal(after[n], t) for n, t in before.items())
    session = DebugSession(half, {"text": "the cat sat"} if arch.kind == "encoder" else PROMPT)
    session.capture_all()
    assert session.verification.ok, session.verification.describe()
