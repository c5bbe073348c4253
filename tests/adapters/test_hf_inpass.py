"""The check made in the pass (`--verify attention`, issue 54): each layer's attention against the model's own eager
function on the same query, key and value, with no second forward; a wrong scale or context is named, and what it
cannot follow (an edited plane, sinks, attention in the model's own code, a shared layer) hands over to the whole
check."""

from __future__ import annotations

import pytest
import torch

from tests.adapters import hf_archs, hf_tiny
from tfdebug.adapters.hf import attention
from tfdebug.adapters.hf.adapter import wrap
from tfdebug.core import recipes, repeats
from tfdebug.sessions.peak import check_mode
from tfdebug.sessions.session import DebugSession

TEXT = "the cat sat on the mat"


def _session(arch: str, in_pass: str = "attention", dtype: torch.dtype = torch.float32) -> DebugSession:
    adapter = wrap(hf_archs.build(hf_archs.BY_TYPE[arch]).to(dtype), hf_tiny.word_tokenizer())
    session = DebugSession(adapter, {adapter.inputs[0].key: TEXT})
    session.in_pass = in_pass
    return session


def _sites(session) -> list[str]:
    """Every attention site's probabilities and context stages, in the order of the pass."""
    return [n for n in session.plan.names() if n.endswith((".probs", ".context"))]


@pytest.mark.parametrize("arch", ["llama", "gemma2", "qwen3_moe", "gpt2", "bert", "t5", "modernbert"])
def test_every_layers_attention_is_checked_exactly_in_the_pass_and_the_whole_check_agrees(arch):
    session = _session(arch)
    model = session.adapter.model
    calls = []
    handle = model.register_forward_pre_hook(lambda module, args: calls.append(1))
    try:
        session.capture_all(verify="never")
        verdict = session.verify_in_pass()
    finally:
        handle.remove()
    assert len(calls) == 1  # the pass, and no second forward
    assert verdict is not None and verdict.ok and verdict.scope == "attention", verdict and verdict.describe()
    assert list(verdict.checked) == _sites(session) and max(verdict.diffs) == 0.0
    assert "logits" in verdict.unchecked and not set(verdict.checked) & set(verdict.unchecked)
    assert "verified in the pass" in verdict.describe() and "were not compared" in verdict.describe()
    probs, logits = verdict.stage_check(_sites(session)[0]), verdict.stage_check("logits")
    assert (probs.verdict, probs.scope, logits.verdict, logits.scope) == ("verified", "attention", "unchecked",
                                                                          "attention")
    assert session.adapter._kept == {}  # nothing held for a second forward
    # The whole check, against a second pass of the unmodified model, says the same of the same pass.
    with torch.no_grad():
        assert session.adapter.verify(session.prepared, session.forward()).ok


@pytest.mark.parametrize("arch", ["llama", "gemma2"])
def test_bfloat16_is_exact_too(arch):
    session = _session(arch, dtype=torch.bfloat16)
    session.capture_all(verify="never")
    verdict = session.verify_in_pass()
    assert verdict.ok and max(verdict.diffs) == 0.0 and list(verdict.checked) == _sites(session)


def test_grouped_heads_are_checked_in_blocks_that_split_their_groups(monkeypatch):
    """Blocks of three query heads over two key/value heads of two (the blocks a long prompt's budget makes cut
    across groups): each query head is checked against its own key/value head, and a wrong repeat is caught."""
    session = _session("llama")
    tokens = session.prepared.kwargs["input_ids"].shape[-1]
    monkeypatch.setattr(recipes, "BLOCK_BYTES", 3 * tokens * tokens * 4)  # three heads' float32 plane a block
    session.capture_all(verify="never")
    assert session.verify_in_pass().ok
    # value heads tiled, not interleaved (the scores read the key heads through their recipe, unrepeated)
    monkeypatch.setattr(repeats, "times_value", lambda part, value, heads: torch.matmul(
        part, value.source.repeat(1, value.groups, 1, 1)[:, heads]))
    session.capture_all(verify="never")
    verdict = session.verify_in_pass()
    assert not verdict.ok and verdict.first_mismatch == "dec.0.self_attn.context"
    assert verdict.diffs[verdict.checked.index("dec.0.self_attn.probs")] == 0.0


@pytest.mark.parametrize("arch", ["llama", "gemma2", "gpt2", "bert", "t5"])
def test_a_head_larger_than_a_block_is_checked_in_bands_of_query_rows(arch, monkeypatch):
    """A 32k-token prompt's head (4.3 GB in float32) is larger than a block: on the CPU the pass computes it, and the
    check compares it, in bands of query rows (`recipes.block_shape`), the mask, a sliding window, a soft cap and a
    position bias read at the band's rows. Each band equals the model's own function exactly, the whole check on a
    second forward agrees, and a wrong value is still named at the first context."""
    adapter = wrap(hf_archs.build(hf_archs.BY_TYPE[arch]), hf_tiny.word_tokenizer())
    session = DebugSession(adapter, {adapter.inputs[0].key: " ".join([TEXT] * 9)})  # 54 words
    rows = session.prepared.kwargs["input_ids"].shape[-1]
    monkeypatch.setattr(recipes, "BLOCK_BYTES", 1)  # bands of ROW_ALIGN rows, the last taking the remainder
    assert recipes.row_bands(rows, recipes.ROW_ALIGN)[-1].stop == rows and rows % recipes.ROW_ALIGN
    bands = []
    block = recipes.Plane.blocks

    def seen(self, block_bytes=None):
        for hs, rs, part in block(self, block_bytes):
            bands.append((rs.start, rs.stop))
            yield hs, rs, part
    monkeypatch.setattr(recipes.Plane, "blocks", seen)
    session.in_pass = "attention"
    session.capture_all(verify="never")
    verdict = session.verify_in_pass()
    assert verdict.ok and max(verdict.diffs) == 0.0 and list(verdict.checked) == _sites(session)
    # the prompt's planes in bands (a decoder's one target row of T5's in one)
    assert {16, 16 + rows % 16} <= {stop - start for start, stop in bands} <= {1, 16, 16 + rows % 16}
    with torch.no_grad():
        assert session.adapter.verify(session.prepared, session.forward()).ok
    by_heads = attention.context_by_heads
    monkeypatch.setattr(attention, "context_by_heads", lambda probs, value, **kw: by_heads(probs, value * 1.001, **kw))
    session.capture_all(verify="never")
    verdict = session.verify_in_pass()
    assert not verdict.ok and verdict.first_mismatch.endswith(".context")


def test_a_wrong_scale_is_named_at_the_first_probabilities(monkeypatch):
    session = _session("llama")
    planes = attention._planes_as_recipes

    def off(site, taps, query, key, mask, scaling, *rest):
        return planes(site, taps, query, key, mask, scaling * (1 + 2 ** -8), *rest)
    monkeypatch.setattr(attention, "_planes_as_recipes", off)
    session.capture_all(verify="never")
    verdict = session.verify_in_pass()
    assert not verdict.ok and verdict.first_mismatch == "dec.0.self_attn.probs" and verdict.mismatch_diff > 1e-6
    assert "the first stage that differs is dec.0.self_attn.probs" in verdict.describe()


def test_a_wrong_context_is_named_where_the_probabilities_agree(monkeypatch):
    session = _session("gpt2")
    by_heads = recipes.context_by_heads
    monkeypatch.setattr(attention, "context_by_heads", lambda probs, value, **kw: by_heads(probs, value * 1.001, **kw))
    session.capture_all(verify="never")
    verdict = session.verify_in_pass()
    assert not verdict.ok and verdict.first_mismatch == "dec.0.self_attn.context"
    assert verdict.diffs[verdict.checked.index("dec.0.self_attn.probs")] == 0.0


def test_an_edited_plane_hands_over_to_the_whole_check():
    session = _session("llama")
    session.capture_all(verify="never", transplant={"dec.1.self_attn.probs": torch.zeros_like})
    assert session.verify_in_pass() is None
    assert "dec.1.self_attn.probs" in session.adapter._found.missed
    with torch.no_grad():
        assert session.adapter.verify(session.prepared, session.forward()).ok  # the pass again, unedited


@pytest.mark.parametrize("arch,why", [("bloom", "attention in its own code"), ("gpt_oss", "sinks"),
                                      ("albert", "one layer run twice")])
def test_what_the_check_in_the_pass_cannot_follow_gives_no_verdict(arch, why):
    session = _session(arch)
    session.capture_all(verify="never")
    assert session.verify_in_pass() is None, why


def test_the_check_is_off_when_the_session_does_not_ask_and_after_its_pass():
    session = _session("llama", in_pass="")
    session.capture_all(verify="never")
    assert session.verify_in_pass() is None and session.adapter._kept  # the whole check's stages held instead
    session.in_pass = "attention"
    session.capture_all(verify="never")
    assert session.verify_in_pass().ok
    assert session.adapter._in_pass == ""  # the adapter serves other work unchecked


def test_the_whole_check_takes_the_attention_from_the_pass_and_compares_the_rest_with_a_second(monkeypatch):
    """The default ("whole"): attention checked in the pass, and the second pass makes no probabilities plane
    to compare; the verdict covers the same stages as the whole check made the long way."""
    from tfdebug.core.recipes import Plane

    long_way = _session("llama", in_pass="")
    long_way.capture_all(verify="now")
    session = _session("llama", in_pass="whole")
    made = []
    block = Plane.block
    monkeypatch.setattr(Plane, "block", lambda self, *a, **k: made.append(1) or block(self, *a, **k))
    session.capture_all(verify="never")
    in_the_pass = len(made)
    with torch.no_grad():
        verdict = session.adapter.verify(session.prepared, session.forward())
    assert len(made) == 2 * in_the_pass  # the planes of the second call of forward: none for the check
    assert verdict.ok and verdict.checked == long_way.verification.checked and max(verdict.diffs) == 0.0
    assert "logits" in verdict.checked and verdict.scope == ""


def test_a_stage_wrong_outside_attention_is_found_by_the_whole_check(monkeypatch):
    """What the check in the pass cannot see (a wrong logits stage) the second pass still finds, and the whole
    check then runs the long way."""
    from tfdebug.adapters.hf.hooks import ModelLogits, Output

    session = _session("gemma2", in_pass="whole")
    plan = session.adapter.plan
    plan.hooks[:] = [Output(h.path, "logits") if isinstance(h, Output) and h.stage == "head.raw" else h
                     for h in plan.hooks if not isinstance(h, ModelLogits)]
    session.capture_all(verify="now")
    verification = session.verification
    assert not verification.ok and verification.first_mismatch == "logits" and verification.scope == ""


@pytest.mark.parametrize("policy,fits,in_pass,mode", [
    ("auto", True, True, "whole"), ("auto", False, True, "attention"), ("auto", False, False, ""),
    ("always", False, True, "whole"), ("attention", True, True, "attention"), ("attention", True, False, "whole"),
    ("attention", False, False, ""), ("never", True, True, "")])
def test_how_each_policy_checks(policy, fits, in_pass, mode):
    assert check_mode(policy, fits, in_pass) == mode
    # Where nobody waits for the verdict (the window's check runs in the background), the second pass alone
    # checks the attention too: the pass carries no check.
    after = "after" if mode == "whole" and in_pass else mode
    assert check_mode(policy, fits, in_pass, waited=False) == after
