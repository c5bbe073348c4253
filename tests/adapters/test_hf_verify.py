"""Stage-level verification catches what an output-only check missed: Gemma 2's final soft cap and
Granite's multipliers, when a plan shows the wrong tensor as a stage, are named as the first stage that differs."""

from __future__ import annotations

import dataclasses

import pytest
import torch

from tests.adapters import hf_archs, hf_tiny
from tfdebug.adapters.hf.adapter import wrap
from tfdebug.adapters.hf.hooks import Input, ModelLogits, Output
from tfdebug.sessions.session import DebugSession

PROMPT = {"prompt": "the cat sat on the mat"}


@pytest.fixture(scope="module")
def gemma2():
    return hf_archs.build(hf_archs.BY_TYPE["gemma2"])


@pytest.fixture(scope="module")
def granite():
    return hf_archs.build(hf_archs.BY_TYPE["granite"])


def _session(model):
    return DebugSession(wrap(model, hf_tiny.word_tokenizer()), PROMPT)


def test_the_final_soft_cap_is_its_own_stage_and_the_logits_stage_is_the_models(gemma2):
    session = _session(gemma2)
    captures, logits = session.capture_all()
    by_name = {c.name: c for c in captures}
    raw, capped = by_name["head.raw"].tensor, by_name["logits"].tensor
    cap = gemma2.config.final_logit_softcapping
    assert torch.allclose(capped, cap * torch.tanh(raw / cap), atol=1e-6)
    assert by_name["logits"].info.kind == "softcap"
    assert session.verification.ok and "logits" in session.verification.checked


def test_a_logits_stage_before_the_soft_cap_is_named_as_the_mismatch(gemma2):
    session = _session(gemma2)
    plan = session.adapter.plan
    # What a plan by the LLaMA walk showed: lm_head's output as the logits stage.
    plan.hooks[:] = [Output(h.path, "logits") if isinstance(h, Output) and h.stage == "head.raw" else h
                     for h in plan.hooks if not isinstance(h, ModelLogits)]
    session.capture_all()
    verification = session.verification
    assert verification.max_abs_diff <= 1e-6  # the returned output is still right …
    assert not verification.ok and verification.first_mismatch == "logits"  # … the stage is not
    assert verification.mismatch_diff > 1e-3
    assert "the first stage that differs is logits" in verification.describe()


def test_granite_multipliers_are_stages_and_a_missing_one_is_caught(granite):
    session = _session(granite)
    captures, _ = session.capture_all()
    by_name = {c.name: c for c in captures}
    assert by_name["tok.scaled"].info.kind == "embed_scale"
    assert torch.allclose(by_name["tok.scaled"].tensor, by_name["tok.embed"].tensor * 3.0)
    assert by_name["logits"].info.kind == "logit_scale" and "0.25" in by_name["logits"].info.formula
    assert "x + 0.5·" in by_name["dec.0.self_attn.resid"].info.formula  # the residual multiplier
    assert session.verification.ok and session.verification.first_mismatch is None
    # Without the multiplier stage, the first layer's input is shown as the unscaled embedding
    # (a new adapter: a verdict is kept per adapter, input and dtype, and reused by a Restart).
    broken = _session(granite)
    plan = broken.adapter.plan
    plan.hooks[:] = [h for h in plan.hooks if not (isinstance(h, Input) and h.stage == "tok.scaled")]
    plan.layer_inputs["hidden_states"][0] = "tok.embed"
    broken.capture_all()
    assert broken.verification.first_mismatch == "tok.embed"


def test_a_replaced_stage_is_not_verified(granite):
    session = _session(granite)
    session.adapter.forward(session.prepared)
    kept = dict(session.adapter._kept)
    kept["dec.1.self_attn.probs"] = kept["dec.1.self_attn.probs"] * 0.5
    session.adapter._kept = kept
    verification = session.adapter.verify(session.prepared, kept["logits"])
    assert verification.first_mismatch == "dec.1.self_attn.probs"
    assert dataclasses.replace(verification, first_mismatch=None).ok


def test_each_stage_says_what_its_check_found(granite):
    """Verified stages carry their own max |Δ| (recomputed here from the model's eager outputs), the
    stages nothing compares are unchecked, and every stage names the first one that differs."""
    session = _session(granite)
    captures, _ = session.capture_all()
    verification = session.verification
    by_name = {c.name: c for c in captures}
    before = granite.config._attn_implementation_internal
    with torch.no_grad():
        granite.config._attn_implementation_internal = "eager"
        try:
            reference = granite(**session.prepared.kwargs, output_attentions=True)
        finally:
            granite.config._attn_implementation_internal = before
    probs = verification.stage_check("dec.1.self_attn.probs")
    # Exact: the same model's eager pass, same kernels and dtype.
    assert probs.verdict == "verified" and probs.tolerance == 0.0 and probs.first_mismatch is None
    assert probs.diff == float((by_name["dec.1.self_attn.probs"].tensor - reference.attentions[1]).abs().max())
    assert verification.stage_check("dec.0.self_attn.q").verdict == "unchecked"
    assert verification.stage_check("no.such.stage") is None
    assert ("each exactly equal" if max(verification.diffs) == 0 else "each within its tolerance") in \
        verification.describe()

    session.adapter.forward(session.prepared)
    kept = dict(session.adapter._kept)
    kept["dec.1.self_attn.probs"] = kept["dec.1.self_attn.probs"] * 0.5
    session.adapter._kept = kept
    broken = session.adapter.verify(session.prepared, kept["logits"])
    check = broken.stage_check("dec.1.self_attn.probs")
    assert check.verdict == "mismatch" and check.diff > check.tolerance
    assert broken.stage_check("dec.0.self_attn.q").first_mismatch == "dec.1.self_attn.probs"
    assert broken.stage_check("logits").verdict == "verified"


def test_bfloat16_verification_fails_a_pass_with_a_scale_off_by_one_percent():
    """A tolerance that a wrong pass fails: in bfloat16, the scaled scores of one layer 1 % too large (a
    wrong scale, as a port might make it) is named as the first stage that differs; the same pass unchanged
    is exactly equal."""
    model = hf_tiny.llama().to(torch.bfloat16)
    session = _session(model)
    session.capture_all(verify="now")
    assert session.verification.ok and max(session.verification.diffs) == 0.0
    assert "tolerance: exact (the same model's eager pass in bfloat16" in session.verification.describe()

    adapter = wrap(model, hf_tiny.word_tokenizer())
    tap = adapter.plan.taps["dec.1.self_attn.scaled"]
    handle = tap.register_forward_hook(lambda module, args, output: output * 1.01)
    try:
        broken = DebugSession(adapter, PROMPT)
        broken.capture_all(verify="now")
    finally:
        handle.remove()
    verification = broken.verification
    assert not verification.ok
    assert verification.first_mismatch == "dec.1.self_attn.probs"
    assert verification.mismatch_diff > 0 and verification.stage_check("logits").verdict == "mismatch"
