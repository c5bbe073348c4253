"""BERT, LLaMA-style with grouped-query attention, and T5 through the Hugging Face adapter.

Each family: names per DESIGN's grammar from module paths, every attention sub-stage it
has, float32 max |Δ| ≤ 1e-5 against the unmodified model (pad positions excluded), and a
replacement that flows downstream exactly as the same replacement made by hand.
"""

from __future__ import annotations

import hf_tiny
import torch

from tfdebug.adapters.hf.adapter import compare, wrap
from tfdebug.sessions.session import DebugSession
from tfdebug.core.recorder import Recorder

SUB_STAGES = ["q_split", "k_split", "v_split", "scores", "scaled", "probs", "context", "merged", "out", "resid"]


def _session(model, texts):
    adapter = wrap(model, hf_tiny.word_tokenizer(model.config.model_type == "bert"))
    return DebugSession(adapter, texts)


def _replaced(session, name, make):
    def on_capture(capture):
        return make(capture.tensor) if capture.name == name else None

    with torch.no_grad(), Recorder(session.adapter.module, on_capture=on_capture) as rec:
        out = session.adapter.forward(session.prepared)
    return out, {c.name: c.tensor for c in rec.captures}


def test_llama_rotary_and_grouped_query_stages():
    model = hf_tiny.llama()
    session = _session(model, {"prompt": "I love you"})
    captures, logits = session.capture_all()
    by_name = {c.name: c for c in captures}
    prefix = "dec.1.self_attn"
    for stage in SUB_STAGES + ["q_rotary", "k_rotary", "k_repeat", "v_repeat", "masked", "norm", "q", "k", "v"]:
        assert f"{prefix}.{stage}" in by_name, stage
    assert by_name[f"{prefix}.norm"].info.kind == "rms_norm"
    assert by_name[f"{prefix}.q_rotary"].info.kind == "rotary"
    assert by_name[f"{prefix}.k_split"].shape == (1, 2, 3, 8)  # two K/V heads …
    assert by_name[f"{prefix}.k_repeat"].shape == (1, 4, 3, 8)  # … each serving two query heads
    assert by_name[f"{prefix}.k_repeat"].info.kind == "kv_repeat"
    assert torch.equal(by_name[f"{prefix}.k_repeat"].tensor[:, 1], by_name[f"{prefix}.k_rotary"].tensor[:, 0])
    assert [f"dec.1.ffn.{s}" for s in ("norm", "gate", "up", "hidden", "out", "resid")] == \
        [n for n in session.plan.names() if n.startswith("dec.1.ffn.")]
    assert session.verification.ok and session.verification.max_abs_diff <= 1e-5


def test_llama_replaced_split_and_gate_flow_downstream():
    model = hf_tiny.llama(n_layer=1)
    session = _session(model, {"prompt": "I love you"})
    layer = model.model.layers[0]
    # Keys before the rotation replaced by zeros: every score is 0, so each query averages V evenly.
    _, seen = _replaced(session, "dec.0.self_attn.k_split", torch.zeros_like)
    assert seen["dec.0.self_attn.k_rotary"].abs().max() == 0
    assert seen["dec.0.self_attn.scores"].abs().max() == 0
    # The gate replaced: down_proj sees gate' ⊙ up.
    logits, seen = _replaced(session, "dec.0.ffn.gate", lambda g: g * 2)
    with torch.no_grad():
        x = seen["dec.0.self_attn.resid"]
        h = x + layer.mlp.down_proj(seen["dec.0.ffn.gate"] * 2 * seen["dec.0.ffn.up"])
        by_hand = model.lm_head(model.model.norm(h))
    assert torch.allclose(logits, by_hand, atol=1e-5)


def test_bert_encoder_stages_padding_mask_and_exactness():
    model = hf_tiny.bert()
    session = _session(model, {"text": "I love you"})
    names = session.plan.names()
    assert names[:5] == ["tok.embed", "tok.type_embed", "tok.pos_embed", "tok.pos", "tok.norm"]
    for stage in SUB_STAGES + ["q", "k", "v", "norm"]:
        assert f"enc.1.attn.{stage}" in names, stage
    assert "enc.1.attn.masked" not in names  # nothing padded: no mask applies
    assert names[-1] == "logits"
    session.capture_all()
    assert session.verification.ok and session.verification.max_abs_diff <= 1e-5
    # A padded batch: the mask stage appears, and pad positions are left out of the comparison.
    ids = torch.tensor([[2, 6, 11, 15, 3], [2, 6, 3, 0, 0]])
    mask = torch.tensor([[1, 1, 1, 1, 1], [1, 1, 1, 0, 0]])
    prepared = session.adapter.prepare({"text": "I love you"})
    prepared.kwargs.update(input_ids=ids, attention_mask=mask)
    prepared.options.clear()  # ids made by hand: no tokenizer call to check them against
    with torch.no_grad(), Recorder(session.adapter.module) as rec:
        out = session.adapter.forward(prepared)
    masked = rec["enc.0.attn.masked"].tensor
    assert (masked[1, :, :, 3:] <= torch.finfo(torch.float32).min / 2).all()
    assert rec["enc.0.attn.probs"].tensor[1, :, :, 3:].abs().max() == 0
    with torch.no_grad():
        plain = model(input_ids=ids, attention_mask=mask).logits
    assert compare(out, plain, mask).max_abs_diff <= 1e-5
    assert session.adapter.verify(prepared, out).ok


def test_bert_replaced_residual_goes_through_the_layer_norm():
    model = hf_tiny.bert(n_layer=1)
    session = _session(model, {"text": "I love you"})
    logits, seen = _replaced(session, "enc.0.ffn.resid", lambda r: r + 1.0)
    layer = model.bert.encoder.layer[0]
    with torch.no_grad():
        by_hand = model.cls(layer.output.LayerNorm(seen["enc.0.ffn.resid"] + 1.0))
    assert torch.allclose(logits, by_hand, atol=1e-5)


def test_t5_encoder_decoder_names_come_from_module_paths():
    model = hf_tiny.t5()
    session = _session(model, {"src": "I love you", "tgt": "我 爱"})
    captures, logits = session.capture_all()
    by_name = {c.name: c for c in captures}
    assert session.tokens == {"src": ["I", "love", "you"], "tgt": ["[PAD]", "我", "爱"]}
    for block in ("enc.1.attn", "dec.1.self_attn", "dec.1.cross_attn"):
        for stage in SUB_STAGES + ["norm", "q", "k", "v"]:
            assert f"{block}.{stage}" in by_name, (block, stage)
    # T5's layer_idx is the same for the three attentions of a layer; the names are not.
    assert by_name["enc.1.attn.position_bias"].info.kind == "position_bias"
    assert by_name["dec.1.self_attn.position_bias"].shape == (1, 4, 3, 3)
    assert "dec.1.cross_attn.position_bias" not in by_name  # cross-attention has no position bias
    assert by_name["dec.0.cross_attn.probs"].shape == (1, 4, 3, 3)  # decoder queries × encoder keys
    assert by_name["dec.0.cross_attn.probs"].info.tokens == {"query": "tgt", "key": "src"}
    assert "dec.0.self_attn.masked" in by_name and "enc.0.attn.masked" not in by_name
    assert [by_name[n].info.kind for n in ("src.embed", "enc.norm", "dec.norm", "logits")] == \
        ["embedding", "rms_norm", "rms_norm", "logits"]
    assert session.verification.ok and session.verification.max_abs_diff <= 1e-5 * max(1.0, logits.abs().max())


def test_t5_replaced_cross_attention_flows_downstream():
    model = hf_tiny.t5(n_layer=1)
    session = _session(model, {"src": "I love you", "tgt": "我"})
    logits, seen = _replaced(session, "dec.0.cross_attn.probs", lambda p: torch.full_like(p, 1 / 3))
    cross = model.decoder.block[0].layer[1].EncDecAttention
    with torch.no_grad():
        v = seen["dec.0.cross_attn.v_split"]
        context = (torch.full((1, 4, 2, 3), 1 / 3) @ v).transpose(1, 2).reshape(1, 2, 32)
        x = seen["dec.0.self_attn.resid"] + cross.o(context)
        ffn = model.decoder.block[0].layer[2]
        h = model.decoder.final_layer_norm(ffn(x))
        by_hand = model.lm_head(h * model.model_dim ** -0.5 if model.config.tie_word_embeddings else h)
    assert torch.allclose(logits, by_hand, atol=1e-5)
