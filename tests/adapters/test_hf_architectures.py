"""The contract over every architecture of `hf_archs.ARCHITECTURES`, each a tiny random model (no download).

Captured ones: stages follow the grammar, every attention block shows its sub-stages and
the architecture's own ones (`Arch.shows`), the pass is verified stage by stage against
the model's own eager outputs (every layer's probabilities and input, the logits), and
greedy generation through tfdebug's loop gives the tokens of the model's own generate().
Refused ones: refused with the part named. Each model is built once per module.
"""

from __future__ import annotations

import re

import pytest
import torch

from tests.adapters import hf_archs, hf_tiny
from tfdebug.sessions.generation import GenerationSession
from tfdebug.adapters.hf.adapter import wrap
from tfdebug.sessions.session import DebugSession
from tfdebug.core.masks import window_size
from tfdebug.models.sampling import DecodingSettings

TEXTS = {"decoder": {"prompt": "the cat sat on the mat"}, "encoder": {"text": "the cat sat on the mat"},
         "encoder-decoder": {"src": "the cat sat on the mat", "tgt": "我 爱"}}
STEPS = 3
# What each label of Arch.shows means: a stage suffix (any layer) or a whole name, and its kind.
SHOWS = {
    "q_norm": (".q_norm", "qk_norm"), "k_norm": (".k_norm", "qk_norm"), "router_logits": (".router_logits",
                                                                                             "router_logits"),
    "routing": (".routing", "routing"), "each_expert": (".each_expert", "expert_out"), "sinks": (".sinks", "attn_sink"), "softcap": ("self_attn.softcap", "softcap"),
    "embed_scale": ("tok.scaled", "embed_scale"), "logit_scale": ("logits", "logit_scale"),
    "final_softcap": ("logits", "softcap"), "post_norm": (".post_norm", None), "position_bias": (".position_bias",
                                                                                                "position_bias"),
    "alibi": (".alibi", "position_bias"),
}
CAPTURED = [a for a in hf_archs.ARCHITECTURES if a.refused is None]
_CACHE: dict[str, tuple] = {}


def _built(arch):
    """(model, adapter, session after one capture-all pass, its captures by name), made once per architecture."""
    if arch.model_type not in _CACHE:
        model = hf_archs.build(arch)
        adapter = wrap(model, hf_tiny.word_tokenizer(arch.kind == "encoder"))
        session = DebugSession(adapter, TEXTS[arch.kind])
        captures, _ = session.capture_all()
        _CACHE[arch.model_type] = (model, adapter, session, {c.name: c for c in captures})
    return _CACHE[arch.model_type]


def test_the_table_covers_forty_architectures_and_refuses_few():
    assert len(hf_archs.ARCHITECTURES) == 40
    assert len(CAPTURED) >= 39


@pytest.mark.parametrize("arch", CAPTURED, ids=[a.model_type for a in CAPTURED])
def test_captured_with_every_sub_stage_and_verified_stage_by_stage(arch):
    model, adapter, session, by_name = _built(arch)
    names = list(by_name)
    assert all(re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z0-9_]+)*", n) for n in names)
    assert [n for n, c in by_name.items() if len(c.info.axes) != len(c.shape)] == []  # every axis named
    blocks = {n.rsplit(".", 1)[0] for n in names if n.endswith(".probs")}
    assert blocks, "no attention block"
    for block in blocks:
        for stage in ("scores", "scaled", "probs", "context", "merged", "out"):
            assert f"{block}.{stage}" in by_name, (block, stage)
        probs = by_name[f"{block}.probs"].tensor
        sums = probs.sum(-1)
        assert (sums <= 1 + 1e-5).all() and (sums > (0 if "sinks" in arch.shows else 1 - 1e-5)).all()
    for label in arch.shows:
        if label in ("parallel", "sliding"):
            continue
        suffix, kind = SHOWS[label]
        found = [n for n in names if n == suffix or n.endswith(suffix)]
        if label == "embed_scale" and not found:  # the multiplier inside the embedding module (Gemma)
            assert "×" in by_name["tok.embed"].info.formula
            continue
        assert found, (arch.model_type, label)
        assert kind is None or all(by_name[n].info.kind == kind for n in found), (label, found)
    if "parallel" in arch.shows:
        resid = by_name["dec.0.ffn.resid"]
        assert resid.info.inputs == ("tok.embed", "dec.0.self_attn.out", "dec.0.ffn.out")
        assert "dec.0.self_attn.resid" not in by_name
    if "sliding" in arch.shows:
        assert any(window_size(c.info.formula) for c in by_name.values() if c.info.kind == "mask")  # the legend reads it
    verification = session.verification
    assert verification.ok, verification.describe()
    assert verification.max_abs_diff <= 1e-4
    assert {f"{b}.probs" for b in blocks} <= set(verification.checked)
    if "logits" in by_name:
        assert "logits" in verification.checked
    assert "dec.0.self_attn.scores" in verification.unchecked or "enc.0.attn.scores" in verification.unchecked
    assert hf_tiny.no_hooks_left(model)


@pytest.mark.parametrize("arch", CAPTURED, ids=[a.model_type for a in CAPTURED])
def test_a_meta_plan_has_the_stages_shapes_and_dtypes_of_the_real_pass(arch):
    """Planning on meta reuses an operation's result for arguments it has seen (each layer repeats the
    same operations): the plan must still be the pass's own, stage for stage."""
    from tfdebug.core.plan import plan_pass

    model, adapter, session, by_name = _built(arch)
    session.wait_verification()  # its check runs the model in the background: not while this plan runs it
    prepared = adapter.prepare(TEXTS[arch.kind])
    plan = plan_pass(adapter.module, lambda: adapter.forward(prepared), method="meta")
    if plan.method != "meta":  # a model whose code reads values is planned by a real pass, and says why
        assert plan.note
    assert [(c.name, c.shape, c.dtype, c.info.kind) for c in plan] == [
        (c.name, c.shape, c.dtype, c.info.kind) for c in by_name.values()]


# Architectures whose stages do not all grow with the input: gpt-oss' sinks add a column to each head's plane.
IRREGULAR = {"gpt_oss"}


@pytest.mark.parametrize("arch", CAPTURED, ids=[a.model_type for a in CAPTURED])
def test_the_pass_grown_to_another_length_is_the_plan_made_there(arch):
    """A Run of a new length grows the plan of earlier ones (`core.plan_growth`) once two of them agree: for every
    architecture whose input is one token stream, the pass grown to a longer input must be the plan made for it."""
    from tfdebug.core import plan_growth
    from tfdebug.core.plan import make_plan, plan_key
    from tfdebug.sessions.session import input_tensors, plan_context

    model, adapter, session, by_name = _built(arch)
    session.wait_verification()
    longer = adapter.prepare({k: f"{v} I love you apple is delicious" for k, v in TEXTS[arch.kind].items()})
    inputs = input_tensors(longer)
    family = plan_growth.family_of(adapter.module, inputs, "meta", plan_context(adapter, longer),
                                   plan_key(adapter.module, inputs, "meta")[2])
    if family is None:
        assert arch.kind == "encoder-decoder", "every one-stream input is one a plan can grow for"
        return
    tokens = session.prepared.kwargs["input_ids"].shape[-1]
    grown = plan_growth.grow(list(by_name.values()), tokens, family[1], family[0])
    made = make_plan(adapter.module, lambda: adapter.forward(longer), inputs, "real")
    agree = grown is not None and plan_growth.described(grown) == plan_growth.described(made)
    assert agree == (arch.model_type not in IRREGULAR)


@pytest.mark.parametrize("arch", [a for a in CAPTURED if a.kind != "encoder"],
                         ids=[a.model_type for a in CAPTURED if a.kind != "encoder"])
def test_greedy_generation_with_the_cache_equals_the_models_own_generate(arch):
    model, adapter, session, _ = _built(arch)
    texts = dict(TEXTS[arch.kind], tgt="") if arch.kind == "encoder-decoder" else TEXTS[arch.kind]
    generation = GenerationSession(adapter, texts, DecodingSettings(max_new_tokens=STEPS, stop_at_eos=False))
    captures, choices = generation.capture_all()
    generation.close()
    ids = adapter.prepare(texts).kwargs["input_ids"]
    with torch.no_grad():
        own = model.generate(ids, max_new_tokens=STEPS, min_new_tokens=STEPS, do_sample=False, eos_token_id=None,
                             pad_token_id=0)
    start = 1 if arch.kind == "encoder-decoder" else ids.shape[1]
    assert [c.id for c in choices] == own[0, start:].tolist()
    assert any(c.info.kind == "kv_cache" for c in captures)
    assert hf_tiny.no_hooks_left(model)


def test_the_models_page_lists_this_table():
    """docs/models.md is rendered from ARCHITECTURES (python -m tests.adapters.hf_archs regenerates it)."""
    text = hf_archs.DOC.read_text(encoding="utf-8")
    assert text == hf_archs.render_doc(text), "docs/models.md is stale: run python -m tests.adapters.hf_archs"
