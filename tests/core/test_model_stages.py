"""Every stage of the reference model is tapped, named, kinded and shaped as DESIGN.md says."""

import math

import pytest
import torch

from tfdebug.core.recorder import Recorder
from tfdebug.core.stages import KINDS, StageInfo
from tfdebug.models.config import ModelArgs
from tfdebug.models.transformer import Transformer

ATTN_STAGES = ["norm", "q", "k", "v", "q_split", "k_split", "v_split", "scores", "scaled", "probs",
               "dropout", "context", "merged", "out", "resid"]
ATTN_KINDS = {"norm": "layer_norm", "q": "q_proj", "k": "k_proj", "v": "v_proj", "q_split": "head_split",
              "k_split": "head_split", "v_split": "head_split", "scores": "scores", "scaled": "scale",
              "masked": "mask", "probs": "softmax", "dropout": "attn_dropout", "context": "attn_v",
              "merged": "head_merge", "out": "out_proj", "resid": "residual"}
FFN_STAGES = {"norm": "layer_norm", "hidden": "ffn_hidden", "out": "ffn_out", "resid": "residual"}


def expected_names(n_layer):
    names = ["src.embed", "src.pe", "src.pos"]
    for i in range(n_layer):
        names += [f"enc.{i}.attn.{s}" for s in ATTN_STAGES]
        names += [f"enc.{i}.ffn.{s}" for s in FFN_STAGES]
    names += ["enc.norm", "tgt.embed", "tgt.pe", "tgt.pos"]
    for i in range(n_layer):
        self_attn = ATTN_STAGES[:9] + ["masked"] + ATTN_STAGES[9:]
        names += [f"dec.{i}.self_attn.{s}" for s in self_attn]
        names += [f"dec.{i}.cross_attn.{s}" for s in ATTN_STAGES]
        names += [f"dec.{i}.ffn.{s}" for s in FFN_STAGES]
    return names + ["dec.norm", "logits"]


def record(model, src, tgt, **kw):
    with torch.no_grad(), Recorder(model, **kw) as rec:
        logits = model(src, tgt)
    return rec, logits


def test_every_stage_in_forward_order_with_its_kind(loaded, pair):
    rec, _ = record(loaded.model, pair.src, pair.tgt)
    assert rec.names() == expected_names(loaded.args.n_layer)
    for c in rec.captures:
        stage = c.name.split(".")[-1]
        if c.info.layer is not None:
            table = FFN_STAGES if c.info.site.endswith("ffn") else ATTN_KINDS
            assert c.info.kind == table[stage], c.name
        assert c.info.kind in KINDS
        assert len(c.info.axes) == len(c.shape), c.name
        assert c.info.formula
        assert c.info.source.startswith("tfdebug/models/"), (c.name, c.info.source)
    kinds = {c.info.kind for c in rec.captures}
    # The reference model shows every kind it has; the rest belong to other architectures.
    others = {"rms_norm", "rotary", "kv_repeat", "kv_cache", "position_bias", "softcap", "ffn_gate", "qk_norm",
              "attn_sink", "router_logits", "routing", "expert_out", "embed_scale", "logit_scale"}
    assert kinds == set(KINDS) - others


def test_sites_layers_and_roles(loaded, pair):
    rec, _ = record(loaded.model, pair.src, pair.tgt)
    assert rec["src.pos"].info.site == "src" and rec["src.pos"].info.layer is None
    assert rec["enc.norm"].info.site == "enc" and rec["logits"].info.site == "head"
    assert rec["dec.1.cross_attn.probs"].info.site == "dec.cross_attn"
    assert rec["dec.1.cross_attn.probs"].info.layer == 1
    assert [rec[f"enc.0.attn.{r}_split"].info.role for r in "qkv"] == ["q", "k", "v"]
    assert rec["enc.0.attn.q_split"].info.ops == ("view", "transpose")


def test_inputs_name_the_stages_each_tensor_is_computed_from(loaded, pair):
    rec, _ = record(loaded.model, pair.src, pair.tgt)
    info = {c.name: c.info for c in rec.captures}
    assert info["dec.0.self_attn.v"].inputs == ("dec.0.self_attn.norm",)
    assert info["enc.1.attn.scores"].inputs == ("enc.1.attn.q_split", "enc.1.attn.k_split")
    assert info["dec.1.cross_attn.q"].inputs == ("dec.1.cross_attn.norm",)
    assert info["dec.1.cross_attn.k"].inputs == info["dec.1.cross_attn.v"].inputs == ("enc.norm",)
    assert info["enc.0.attn.context"].inputs == ("enc.0.attn.dropout", "enc.0.attn.v_split")
    assert info["enc.0.attn.norm"].inputs == ("src.pos",)
    assert info["enc.1.attn.resid"].inputs == ("enc.0.ffn.resid", "enc.1.attn.out")
    assert info["dec.0.self_attn.probs"].inputs == ("dec.0.self_attn.masked",)
    assert info["enc.norm"].inputs == ("enc.1.ffn.resid",) and info["logits"].inputs == ("dec.norm",)
    assert info["src.embed"].inputs == () and info["tgt.pos"].inputs == ("tgt.embed", "tgt.pe")
    order = {name: i for i, name in enumerate(rec.names())}
    for name, stage in info.items():
        ran = stage.input_names(order)
        # Every input ran before the stage; only the padding mask may be absent from a pass.
        assert all(order[i] < order[name] for i in ran), name
        assert set(stage.inputs) - set(ran) <= {name.rsplit(".", 1)[0] + ".masked"}, name
        assert StageInfo.from_dict(stage.to_dict()) == stage
        assert StageInfo.from_dict(stage.to_dict()).inputs == stage.inputs
    # A manifest from before `inputs` existed still reads (no inputs).
    old = info["enc.0.attn.q"].to_dict()
    del old["inputs"]
    assert StageInfo.from_dict(old).inputs == ()


def test_source_lines_point_at_the_model_code(loaded, pair):
    rec, _ = record(loaded.model, pair.src, pair.tgt)
    assert rec["enc.0.attn.scaled"].info.source.startswith("tfdebug/models/attention.py:")
    assert rec["logits"].info.source.startswith("tfdebug/models/transformer.py:")


def test_shapes_follow_the_notes(loaded):
    args = loaded.args
    src = torch.tensor([[4, 5, 6, 7, 8]])  # Ts = 5
    tgt = torch.tensor([[1, 4, 5]])  # Tt = 3
    rec, logits = record(loaded.model, src, tgt)
    H, Dh, D = args.n_heads, args.head_dim, args.n_embd
    assert rec["enc.0.attn.q"].shape == (1, 5, D)
    assert rec["enc.0.attn.q_split"].shape == (1, H, 5, Dh)  # (B,T,D) → view (B,T,H,Dh) → transpose
    assert rec["enc.0.attn.scores"].shape == (1, H, 5, 5)
    assert rec["dec.0.self_attn.scores"].shape == (1, H, 3, 3)
    assert rec["dec.0.cross_attn.q_split"].shape == (1, H, 3, Dh)
    assert rec["dec.0.cross_attn.k_split"].shape == (1, H, 5, Dh)
    assert rec["dec.0.cross_attn.scores"].shape == (1, H, 3, 5)  # Tk = source length
    assert rec["dec.0.cross_attn.merged"].shape == (1, 3, D)
    assert rec["enc.0.ffn.hidden"].shape == (1, 5, args.hidden_dim)
    assert rec["logits"].shape == (1, 3, args.vocab_size) == tuple(logits.shape)
    # The split is a view of the projection, the scaled scores are scores / √d_k.
    q = rec["enc.0.attn.q"].tensor
    assert torch.equal(rec["enc.0.attn.q_split"].tensor, q.view(1, 5, H, Dh).transpose(1, 2))
    assert torch.allclose(rec["enc.0.attn.scaled"].tensor, rec["enc.0.attn.scores"].tensor / math.sqrt(Dh))


def test_softmax_rows_sum_to_one_and_causal_mask(loaded, pair):
    rec, _ = record(loaded.model, pair.src, pair.tgt)
    for c in rec.captures:
        if c.info.kind == "softmax":
            assert torch.allclose(c.tensor.sum(-1), torch.ones(()), atol=1e-5), c.name
    masked = rec["dec.0.self_attn.masked"].tensor
    T = masked.shape[-1]
    above = torch.triu(torch.ones(T, T, dtype=torch.bool), diagonal=1)
    assert torch.isneginf(masked[..., above]).all()
    assert torch.isfinite(masked[..., ~above]).all()
    probs = rec["dec.0.self_attn.probs"].tensor
    assert (probs[..., above] == 0).all() and (probs[..., ~above] > 0).all()


def test_cross_attention_has_no_causal_mask(loaded, pair):
    rec, _ = record(loaded.model, pair.src, pair.tgt)
    assert "dec.0.cross_attn.masked" not in rec.names()
    assert "enc.0.attn.masked" not in rec.names()
    probs = rec["dec.0.cross_attn.probs"].tensor
    assert (probs > 0).all()  # every target position sees every source word, future ones too


def test_padding_adds_masked_stages(loaded):
    src = torch.tensor([[4, 5, 6], [4, 5, 0]])  # second sentence padded
    tgt = torch.tensor([[1, 4], [1, 0]])
    rec, logits = record(loaded.model, src, tgt)
    names = rec.names()
    assert "enc.0.attn.masked" in names and "dec.0.cross_attn.masked" in names
    probs = rec["enc.0.attn.probs"].tensor
    assert (probs[1, :, :, 2] == 0).all() and (probs[0, :, :, 2] > 0).all()
    assert torch.isfinite(logits).all()


def test_capturing_changes_no_output_bit(loaded, pair):
    with torch.no_grad():
        plain = loaded.model(pair.src, pair.tgt)
    _, captured = record(loaded.model, pair.src, pair.tgt)
    assert torch.equal(plain, captured)


def test_stage_patterns_filter(loaded, pair):
    rec, _ = record(loaded.model, pair.src, pair.tgt, stages=["dec.*.cross_attn.probs", "logits"])
    assert rec.names() == ["dec.0.cross_attn.probs", "dec.1.cross_attn.probs", "logits"]


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
def test_half_precision_keeps_softmax_finite(dtype, device):
    torch.manual_seed(0)
    model = Transformer(ModelArgs(n_embd=32, n_heads=4, n_layer=1, vocab_size=20)).to(device, dtype).eval()
    src = torch.tensor([[4, 5, 6, 7]], device=device)
    tgt = torch.tensor([[1, 4, 5]], device=device)
    rec, logits = record(model, src, tgt)
    assert logits.dtype == dtype and torch.isfinite(logits).all()
    for c in rec.captures:
        assert c.dtype == dtype, c.name
        if c.info.kind == "softmax":
            assert torch.isfinite(c.tensor).all()
            assert torch.allclose(c.tensor.float().sum(-1), torch.ones((), device=device), atol=2e-2)


def test_captures_stay_on_their_device(device):
    model = Transformer(ModelArgs(n_embd=32, n_heads=4, n_layer=1, vocab_size=20)).to(device).eval()
    rec, _ = record(model, torch.tensor([[4, 5]], device=device), torch.tensor([[1, 4]], device=device))
    assert all(c.tensor.device.type == torch.device(device).type for c in rec.captures)
    assert all(not c.tensor.requires_grad for c in rec.captures)
