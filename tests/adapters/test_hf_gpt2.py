"""GPT-2 through the Hugging Face adapter: stage names, exactness, replacements, clean-up, the CLI."""

from __future__ import annotations

import hf_tiny
import pytest
import torch
import transformers

from tfdebug.adapters.hf.adapter import wrap
from tfdebug.sessions.session import DebugSession
from tfdebug.cli import main
from tfdebug.core.names import parse_name
from tfdebug.core.recorder import Recorder, held_bytes

ATTENTION = ["norm", "q", "k", "v", "q_split", "k_split", "v_split", "scores", "scaled", "masked", "probs",
             "context", "merged", "out", "resid"]
FFN = ["norm", "hidden", "out", "resid"]


@pytest.fixture(scope="module")
def model():
    return hf_tiny.gpt2()


@pytest.fixture()
def adapter(model):
    return wrap(model, hf_tiny.word_tokenizer())


def _layer_names(i: int) -> list[str]:
    return [f"dec.{i}.self_attn.{s}" for s in ATTENTION] + [f"dec.{i}.ffn.{s}" for s in FFN]


def test_every_stage_in_forward_order_with_the_design_grammar(adapter):
    session = DebugSession(adapter, {"prompt": "I love you"})
    names = session.plan.names()
    assert names == ["tok.embed", "tok.pos_embed", "tok.pos", *_layer_names(0), *_layer_names(1), "dec.norm",
                     "logits"]
    layer = [parse_name(n) for n in _layer_names(1)]
    assert {(p.stack, p.layer) for p in layer} == {("dec", 1)}
    assert {p.block for p in layer} == {"self_attn", "ffn"}
    captures, logits = session.capture_all()
    by_name = {c.name: c for c in captures}
    assert by_name["dec.0.self_attn.probs"].shape == (1, 4, 3, 3)
    assert by_name["dec.0.self_attn.q"].info.kind == "q_proj"
    assert by_name["dec.0.ffn.hidden"].shape == (1, 3, 128)  # after the activation, 4 × n_embd wide
    assert logits.shape == (1, 3, hf_tiny.VOCAB)
    assert session.tokens == {"prompt": ["I", "love", "you"]}


def test_tapped_forward_equals_the_unmodified_model(adapter, model):
    session = DebugSession(adapter, {"prompt": "the cat sat on the mat"})
    captures, logits = session.capture_all()
    assert session.verification.ok and session.verification.max_abs_diff <= 1e-5
    kwargs = session.prepared.kwargs
    with torch.no_grad():
        plain = model(**kwargs).logits  # the model's own (sdpa) attention
    assert torch.allclose(logits, plain, atol=1e-5, rtol=0)
    assert model.config._attn_implementation == "sdpa"
    # Each tapped stage is the tensor the model computes there: probabilities rows sum to 1, causal.
    probs = {c.name: c for c in captures}["dec.1.self_attn.probs"].tensor
    assert torch.allclose(probs.sum(-1), torch.ones(1, 4, 6))
    assert probs.triu(diagonal=1).abs().max() == 0
    masked = {c.name: c for c in captures}["dec.1.self_attn.masked"].tensor
    assert (masked.triu(diagonal=1)[..., 0, 1:] <= torch.finfo(torch.float32).min / 2).all()


def test_the_merged_heads_are_a_view_of_the_kept_context_and_equal_the_model_s_own(adapter, model, tmp_path):
    session = DebugSession(adapter, {"prompt": "the cat sat on the mat"})
    captures, _ = session.capture_all()
    by_name = {c.name: c for c in captures}
    context, merged = by_name["dec.1.self_attn.context"].tensor, by_name["dec.1.self_attn.merged"].tensor
    # One storage: keeping both costs the context's bytes once.
    assert merged.untyped_storage().data_ptr() == context.untyped_storage().data_ptr()
    assert held_bytes([by_name["dec.1.self_attn.context"], by_name["dec.1.self_attn.merged"]]) == context.nbytes
    assert torch.equal(context.transpose(1, 2).reshape(merged.shape), merged)
    # The values are the unmodified model's own: its eager attention's merged heads, read at c_proj's input (the
    # same weights loaded apart by transformers: the module's model stays as the other tests find it).
    folder = hf_tiny.save_folder(model, tmp_path / "gpt2")
    plain = transformers.AutoModelForCausalLM.from_pretrained(str(folder), attn_implementation="eager").eval()
    seen = []
    plain.transformer.h[1].attn.c_proj.register_forward_pre_hook(lambda _m, args: seen.append(args[0]))
    with torch.no_grad():
        plain(**session.prepared.kwargs)
    assert torch.equal(merged, seen[0])
    # A replaced context is what the merge reads.
    _, replaced = _replace(session, "dec.1.self_attn.context", torch.zeros_like)
    assert replaced["dec.1.self_attn.merged"].abs().max() == 0


def _replace(session, name, make):
    """A capture-all pass whose stage `name` is replaced by make(tensor): the logits and the captured
    tensors (each as the tap saw it, before any replacement)."""
    def on_capture(capture):
        return make(capture.tensor) if capture.name == name else None

    with torch.no_grad(), Recorder(session.adapter.module, on_capture=on_capture) as rec:
        logits = session.adapter.forward(session.prepared)
    return logits, {c.name: c.tensor for c in rec.captures}


def _ffn(block, x):
    return x + block.mlp(block.ln_2(x))


def test_replaced_probabilities_flow_downstream_as_by_hand(adapter, model):
    session = DebugSession(adapter, {"prompt": "I love you"})
    uniform = torch.tril(torch.ones(3, 3)) / torch.arange(1, 4).unsqueeze(1)  # each query spreads evenly
    logits, seen = _replace(session, "dec.1.self_attn.probs", lambda p: uniform.expand_as(p).clone())
    block = model.transformer.h[1]
    with torch.no_grad():
        x = seen["dec.0.ffn.resid"]
        q, k, v = block.attn.c_attn(block.ln_1(x)).chunk(3, dim=-1)
        v = v.view(1, 3, 4, 8).transpose(1, 2)
        context = (uniform @ v).transpose(1, 2).reshape(1, 3, 32)
        by_hand = model.lm_head(model.transformer.ln_f(_ffn(block, x + block.attn.c_proj(context))))
    assert torch.allclose(logits, by_hand, atol=1e-5)
    with torch.no_grad():
        unchanged = session.adapter.plain_forward(session.prepared)
    assert (logits - unchanged).abs().max() > 1e-4  # well above the tolerance: the replacement mattered


def test_replaced_residual_and_projection_flow_downstream(adapter, model):
    session = DebugSession(adapter, {"prompt": "I love you"})
    logits, seen = _replace(session, "dec.1.self_attn.resid", lambda r: r * 0.5)
    block = model.transformer.h[1]
    with torch.no_grad():
        x = seen["dec.1.self_attn.resid"] * 0.5  # captured before the replacement
        by_hand = model.lm_head(model.transformer.ln_f(_ffn(block, x)))
    assert torch.allclose(logits, by_hand, atol=1e-5)
    # A third of the fused c_attn (V) replaced: the context is P·V' with the model's own P.
    logits, seen = _replace(session, "dec.0.self_attn.v", torch.zeros_like)
    assert torch.equal(seen["dec.0.self_attn.v_split"], torch.zeros(1, 4, 3, 8))
    assert seen["dec.0.self_attn.context"].abs().max() == 0


def test_everything_restored_after_a_forward_that_raises(adapter, model):
    from transformers import AttentionInterface

    session = DebugSession(adapter, {"prompt": "I love you"})

    def boom(capture):
        if capture.name == "dec.1.self_attn.scores":
            raise RuntimeError("stop here")

    with pytest.raises(RuntimeError, match="stop here"), Recorder(adapter.module, on_capture=boom):
        adapter.forward(session.prepared)
    assert model.config._attn_implementation == "sdpa"
    assert "tfdebug" not in AttentionInterface._global_mapping
    assert hf_tiny.no_hooks_left(model)
    session.capture_all()
    assert session.verification.ok


def test_stages_cli_on_a_saved_folder_ends_with_verified(tmp_path, capsys, model, monkeypatch):
    import tfdebug.commands.stages

    # The CLI tunes the allocator process-wide at start-up; this shared test process stays untuned.
    monkeypatch.setattr(tfdebug.commands.stages, "TUNE_ALLOCATOR", False, raising=False)
    folder = hf_tiny.save_folder(model, tmp_path / "gpt2")
    assert main(["stages", "--model", f"hf:{folder}", "--input", "prompt=I love you"]) == 0
    lines = capsys.readouterr().out.strip().splitlines()
    assert lines[-1].startswith("verified: max |Δ| = ")
    assert any(line.startswith("dec.1.self_attn.masked ") for line in lines)
    assert lines[-2] == "43 stages"  # 3 embedding stages, 19 per block, final norm, logits


def test_stepper_pauses_steps_back_and_replaces_inside_the_hf_forward(adapter, model):
    from tfdebug.core.breakpoints import Breakpoint

    session = DebugSession(adapter, {"prompt": "I love you"})
    stepper = session.stepper
    stepper.add_breakpoint(Breakpoint.on_kind("softmax"))
    try:
        stepper.start()
        stepper.wait()
        stepper.continue_()
        stepper.wait()
        assert stepper.current.name == "dec.0.self_attn.probs"
        assert model.config._attn_implementation == "tfdebug"  # paused inside the tapped forward
        stepper.step_back()
        assert stepper.current.name == "dec.0.self_attn.masked"
        stepper.step_forward()
        stepper.clear_breakpoints()
        stepper.run_to("dec.1.self_attn.probs")
        stepper.wait()
        uniform = torch.tril(torch.ones(3, 3)) / torch.arange(1, 4).unsqueeze(1)
        stepper.replace(uniform.expand(1, 4, 3, 3).clone())
        stepper.continue_()
        stepper.wait()
        edited = stepper.output
    finally:
        session.close()
    assert model.config._attn_implementation == "sdpa" and hf_tiny.no_hooks_left(model)
    logits, _ = _replace(DebugSession(adapter, {"prompt": "I love you"}), "dec.1.self_attn.probs",
                         lambda p: uniform.expand_as(p).clone())
    assert torch.allclose(edited, logits, atol=1e-6)
    assert not session.verify(edited).ok  # an edited pass no longer matches the unmodified model
