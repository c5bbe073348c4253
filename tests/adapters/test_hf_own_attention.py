"""Attention computed in a model's own code (BLOOM, Falcon, DeBERTa-v2), followed op by op, and ALBERT's
shared layer named per run: each captured by `tfdebug capture` from a saved folder, every `*.probs` stage
held against the model's own `output_attentions` (transformers loading the same folder itself, eager
attention), the logits against its own logits, and the mission's stages present."""

from __future__ import annotations

import math

import pytest
import torch

from tests.adapters import hf_archs, hf_tiny
from tfdebug.adapters.hf.adapter import wrap
from tfdebug.cli import main
from tfdebug.core.errors import UnsupportedModelError
from tfdebug.core.recorder import Recorder
from tfdebug.io.snapshot import open_snapshot

TEXT = "the cat sat on the mat"


def _arch(model_type: str, **over) -> hf_archs.Arch:
    base = hf_archs.BY_TYPE[model_type]
    return hf_archs.Arch(model_type, base.kind, {**base.config, **over})


# (name, architecture, stages each attention block must show beyond q/k/v, splits, scores, probs, context, out)
CASES = [
    ("bloom", _arch("bloom"), ("scaled", "alibi", "masked")),
    ("falcon-7b-like", _arch("falcon"), ("q_rotary", "k_rotary", "scaled", "masked")),
    ("falcon-sequential", _arch("falcon", parallel_attn=False), ("q_rotary", "k_rotary", "scaled", "masked")),
    ("falcon-rw-like", _arch("falcon", alibi=True, multi_query=False, parallel_attn=False), ("alibi", "scaled",
                                                                                               "masked")),
    ("deberta-v3-like", _arch("deberta-v2"), ("scaled", "position_bias", "masked")),
    ("albert", _arch("albert"), ("scaled",)),
]


def _own_outputs(folder, kind: str):
    """The ids transformers' own tokenizer gives, and the model's own eager attentions and logits."""
    import transformers

    tokenizer = transformers.PreTrainedTokenizerFast(tokenizer_file=str(folder / "tokenizer.json"))
    ids = tokenizer(TEXT, return_tensors="pt")["input_ids"]
    auto = transformers.AutoModelForCausalLM if kind == "decoder" else transformers.AutoModelForMaskedLM
    model = auto.from_pretrained(str(folder), attn_implementation="eager").eval()
    with torch.no_grad():
        out = model(input_ids=ids, output_attentions=True)
    return out.attentions, out.logits


@pytest.mark.parametrize("name,arch,extra", CASES, ids=[c[0] for c in CASES])
def test_captured_by_the_cli_and_equal_to_the_models_own_attentions(name, arch, extra, tmp_path):
    folder = hf_tiny.save_folder(hf_archs.build(arch), tmp_path / name,
                                 hf_tiny.word_tokenizer(arch.kind == "encoder"))
    key = "prompt" if arch.kind == "decoder" else "text"
    out = tmp_path / "pass.safetensors"
    assert main(["capture", "--model", f"hf:{folder}", "--input", f"{key}={TEXT}", "--out", str(out), "--quiet"]) == 0
    with open_snapshot(out) as recording:
        infos = {name: recording[name].info for name in recording.names()}
        tensors = {name: recording.tensor(recording[name]) for name in recording.names()}
    attentions, logits = _own_outputs(folder, arch.kind)
    stack, block = ("dec", "self_attn") if arch.kind == "decoder" else ("enc", "attn")
    probs = sorted((n for n in tensors if n.endswith(".probs")), key=lambda n: int(n.split(".")[1]))
    assert probs == [f"{stack}.{i}.{block}.probs" for i in range(len(attentions))]
    for i, stage in enumerate(probs):
        assert (tensors[stage] - attentions[i]).abs().max() <= 1e-5, stage
    assert (tensors["logits"] - logits).abs().max() <= 1e-5
    assert "tok.embed" in tensors
    # positions, named as what they are: ALBERT's added embeddings, rotary (Falcon), ALiBi or a relative bias
    assert {infos[n].kind for n in infos} & {"positional_add", "rotary", "position_bias"}
    if name == "albert":
        assert infos["tok.pos"].kind == "positional_add"
    for i in range(len(attentions)):
        prefix = f"{stack}.{i}.{block}"
        for stage in ("q", "k", "v", "q_split", "k_split", "v_split", "scores", "probs", "context", "merged", "out",
                      *extra):
            assert f"{prefix}.{stage}" in tensors, (prefix, stage)
        assert infos[f"{prefix}.scaled"].kind == "scale"
        assert infos[f"{prefix}.probs"].kind == "softmax" and infos[f"{prefix}.out"].kind == "out_proj"
        names = [n for n in tensors if n.startswith(prefix + ".")]
        order = [n.rsplit(".", 1)[1] for n in names]
        assert order.index("scores") < order.index("probs") < order.index("context") < order.index("merged")


def _captured(model, text=TEXT, kind="decoder", on_capture=None):
    adapter = wrap(model, hf_tiny.word_tokenizer(kind == "encoder"))
    prepared = adapter.prepare({"prompt" if kind == "decoder" else "text": text})
    with torch.no_grad(), Recorder(adapter.module, on_capture=on_capture) as rec:
        out = adapter.forward(prepared)
    return adapter, prepared, out, {c.name: c.tensor for c in rec.captures}


def test_bloom_alibi_stage_is_the_slopes_times_the_key_position_and_an_edited_product_flows_through_it():
    """BLOOM computes β·ALiBi + α·Q·Kᵀ in one baddbmm: the stages before it are computed beside it, and an
    edit of the product is recombined the way baddbmm combines them."""
    from transformers.models.bloom.modeling_bloom import build_alibi_tensor

    model = hf_archs.build(_arch("bloom"))
    _, prepared, _, stages = _captured(model)
    ids = prepared.kwargs["input_ids"]
    heads, length = model.config.n_head, ids.shape[1]
    alibi = build_alibi_tensor(torch.ones_like(ids), heads, torch.float32).view(1, heads, 1, length)
    block = "dec.0.self_attn"
    assert torch.equal(stages[f"{block}.scaled"], stages[f"{block}.scores"] * model.transformer.h[0]
                       .self_attention.inv_norm_factor)
    assert (stages[f"{block}.alibi"] - stages[f"{block}.scaled"] - alibi).abs().max() <= 1e-6

    def zero_product(capture):
        return torch.zeros_like(capture.tensor) if capture.name == f"{block}.scores" else None

    _, _, _, edited = _captured(model, on_capture=zero_product)
    assert torch.equal(edited[f"{block}.alibi"], alibi.expand(1, heads, length, length))
    causal = torch.full((length, length), torch.finfo(torch.float32).min).triu(1)
    assert torch.allclose(edited[f"{block}.probs"], torch.softmax(alibi + causal, -1), atol=1e-6)


def test_falcon_rw_alibi_added_with_the_mask_is_a_stage_of_its_own_and_the_mask_stays_a_mask():
    """Falcon-RW (transformers ≥ 5.25) hands its ALiBi to the attention function inside the additive mask: the
    `alibi` stage is the scaled scores plus each head's slope times the key's position (÷√d_k, as Falcon scales
    it) where a query may look, `masked` adds finfo.min where it may not, and the probabilities are the model's."""
    from transformers.models.falcon.modeling_falcon import build_alibi_tensor

    from tfdebug.core.recipes import materialized

    model = hf_archs.build(_arch("falcon", alibi=True, multi_query=False, parallel_attn=False))
    _, prepared, _, stages = _captured(model)
    stages = {name: materialized(t) for name, t in stages.items()}
    ids = prepared.kwargs["input_ids"]
    heads, length = model.config.num_attention_heads, ids.shape[1]
    slopes = build_alibi_tensor(torch.ones_like(ids), heads, torch.float32).view(1, heads, 1, length)
    bias = slopes / math.sqrt(model.config.hidden_size // heads)
    block = "dec.0.self_attn"
    causal = torch.ones(length, length, dtype=torch.bool).tril()
    added = stages[f"{block}.alibi"] - stages[f"{block}.scaled"]
    assert (added - bias).abs()[..., causal].max() <= 1e-6 and torch.equal(added[..., ~causal],
                                                                            torch.zeros_like(added[..., ~causal]))
    low = torch.finfo(torch.float32).min
    assert torch.equal(stages[f"{block}.masked"][..., causal], stages[f"{block}.alibi"][..., causal])
    assert bool((stages[f"{block}.masked"][..., ~causal] <= low / 2).all())
    model.config._attn_implementation = "eager"
    with torch.no_grad():
        own = model(**prepared.kwargs, output_attentions=True).attentions
    assert torch.equal(stages[f"{block}.probs"], own[0])


def test_falcon_parallel_block_keeps_the_ffn_output_the_model_then_adds_to_in_place():
    """Falcon-7B adds the attention's output into the FFN's output tensor in place: the stage keeps the FFN's
    own output, and stream + attention + FFN is the layer's output."""
    model = hf_archs.build(_arch("falcon"))
    _, prepared, _, stages = _captured(model)
    model.config._attn_implementation = "eager"  # transformers ≥ 5.25 runs Falcon's attention through its interface
    with torch.no_grad():
        own = model(**prepared.kwargs, output_hidden_states=True).hidden_states
    layer = "dec.0"
    total = stages["tok.embed"] + stages[f"{layer}.self_attn.out"] + stages[f"{layer}.ffn.out"]
    assert torch.allclose(total, own[1], atol=1e-6) and torch.equal(stages[f"{layer}.ffn.resid"], own[1])
    assert hf_tiny.no_hooks_left(model)


def test_deberta_v2_relative_bias_is_the_model_content_to_position_terms():
    """DeBERTa-v2 scales Kᵀ before the product and adds its disentangled relative-position scores: the bias
    stage minus the scaled product is the model's own `disentangled_attention_bias`."""
    model = hf_archs.build(_arch("deberta-v2"))
    _, prepared, _, stages = _captured(model, kind="encoder")
    attention = model.deberta.encoder.layer[0].attention.self
    q, k = stages["enc.0.attn.q_split"], stages["enc.0.attn.k_split"]
    heads = q.shape[1]
    flat = lambda t: t.reshape(-1, *t.shape[2:])  # noqa: E731  (B·H, T, Dh) as the model holds them
    with torch.no_grad():
        rel = model.deberta.encoder.get_rel_embedding()
        relative = model.deberta.encoder.get_rel_pos(stages["tok.norm"])
        bias = attention.disentangled_attention_bias(flat(q), flat(k), relative, rel, 3).view(1, heads, *q.shape[2:3],
                                                                                                 -1)
    assert (stages["enc.0.attn.position_bias"] - stages["enc.0.attn.scaled"] - bias).abs().max() <= 1e-6
    assert stages["enc.0.attn.q"].shape[1] == prepared.kwargs["input_ids"].shape[1]  # not the position projection


def test_albert_names_each_run_of_its_shared_layer_and_each_equals_the_models_own():
    model = hf_archs.build(_arch("albert"))
    _, prepared, _, stages = _captured(model, kind="encoder")
    assert hf_tiny.no_hooks_left(model)
    model.set_attn_implementation("eager")
    with torch.no_grad():
        own = model(**prepared.kwargs, output_attentions=True, output_hidden_states=True)
    runs = model.config.num_hidden_layers
    assert len(model.albert.encoder.albert_layer_groups) == 1 and runs == 3
    for i in range(runs):
        assert torch.equal(stages[f"enc.{i}.attn.probs"], own.attentions[i])
        assert torch.equal(stages[f"enc.{i}.ffn.norm"], own.hidden_states[i + 1])
    assert f"enc.{runs}.attn.probs" not in stages


def test_attention_in_own_code_that_cannot_be_split_is_refused_with_the_part_named():
    """Falcon's new decoder architecture lays out [q… | k | v] per key/value group: refused, not guessed."""
    model = hf_archs.build(_arch("falcon", new_decoder_architecture=True, num_kv_heads=2, parallel_attn=True))
    with pytest.raises(UnsupportedModelError, match="cannot split transformer.h.0.self_attention.query_key_value"):
        wrap(model, hf_tiny.word_tokenizer())
    assert hf_tiny.no_hooks_left(model)


@pytest.mark.parametrize("model_type", ["bloom", "falcon", "deberta-v2"])
def test_half_precision_probabilities_are_the_models_own_after_its_cast(model_type):
    """BLOOM's softmax runs in float32 and is cast back: the probabilities stage is the cast's result, what the
    model returns in `output_attentions` (bit for bit in bfloat16)."""
    from tfdebug.sessions.session import DebugSession

    arch = hf_archs.BY_TYPE[model_type]
    model = hf_archs.build(arch).to(torch.bfloat16)
    adapter = wrap(model, hf_tiny.word_tokenizer(arch.kind == "encoder"))
    session = DebugSession(adapter, {"prompt" if arch.kind == "decoder" else "text": TEXT})
    captures, _ = session.capture_all()
    session.wait_verification()
    verification = session.verification
    assert verification.ok and max(verification.diffs) == 0.0, verification.describe()
    assert all(c.tensor.dtype == torch.bfloat16 for c in captures if c.name.endswith(".probs"))
    session.close()


def _read_ops(attend, mask=None):
    """`attend(q, k, v, mask)` run under the probe's recorder, then read as attention."""
    from tfdebug.adapters.hf.ops import OpRecorder, read_attention

    q, k, v = (torch.randn(1, 2, 3, 4, generator=torch.Generator().manual_seed(i)) for i in range(3))
    marks = {} if mask is None else {id(mask): "mask"}
    with OpRecorder(marks) as recorder:
        attend(q, k, v, mask)
    return read_attention(recorder.ops, recorder.marks, 1, "model.attn")


def test_the_operations_between_scores_and_softmax_are_named_by_what_they_do():
    mask = torch.zeros(1, 1, 3, 3)
    bias = torch.randn(1, 2, 3, 3)
    read = _read_ops(lambda q, k, v, m: torch.softmax((q @ k.transpose(-1, -2) + bias) / 2.0 + m, -1) @ v, mask)
    assert [(s.role, s.stage) for s in read.own.steps] == [("bias", "position_bias"), ("scale", ""), ("mask", "")]
    assert read.own.scaling == 0.5 and read.own.stage_order() == ["scores", "position_bias", "scaled", "masked"]
    assert read.query.shape == (1, 2, 3, 4) and torch.equal(read.mask, mask)


@pytest.mark.parametrize("attend,words", [
    (lambda q, k, v, m: torch.softmax(torch.softmax(q @ k.transpose(-1, -2), -1), -1) @ v, "2 softmaxes"),
    (lambda q, k, v, m: torch.softmax(torch.tanh(q @ k.transpose(-1, -2)), -1) @ v, "(tanh)"),
    (lambda q, k, v, m: torch.softmax(q @ k.transpose(-1, -2) * 0.5 * 0.5, -1) @ v, "one kind of step twice"),
])
def test_own_code_that_cannot_be_named_is_refused_in_one_sentence(attend, words):
    with pytest.raises(UnsupportedModelError) as info:
        _read_ops(attend)
    assert words in info.value.message and "model.attn" in info.value.message


@pytest.mark.parametrize("model_type", ["bloom", "falcon", "deberta-v2", "albert"])
def test_a_padded_batch_is_verified_with_its_mask_stage(model_type):
    import transformers

    arch = hf_archs.BY_TYPE[model_type]
    tokenizer = transformers.PreTrainedTokenizerFast(
        tokenizer_object=hf_tiny.word_tokenizer(arch.kind == "encoder"), pad_token="[PAD]")
    adapter = wrap(hf_archs.build(arch), tokenizer)
    key = "prompt" if arch.kind == "decoder" else "text"
    prepared = adapter.prepare_batch([{key: TEXT}, {key: "I love you"}])
    with torch.no_grad(), Recorder(adapter.module) as rec:
        out = adapter.forward(prepared)
    masked = [c for c in rec.captures if c.name.endswith(".masked")]
    assert masked and all(c.tensor.shape[0] == 2 for c in masked)
    assert (masked[0].tensor[1] <= torch.finfo(torch.float32).min / 2).any()  # the shorter row's padding
    verification = adapter.verify(prepared, out)
    assert verification.ok and max(verification.diffs) == 0.0, verification.describe()
