"""The logit lens and the direct logit attribution, checked against what the unmodified model computes.

Inputs come from transformers' own tokenizer for the folder (AutoTokenizer for the real chat model, which says how
to read its tokenizer; PreTrainedTokenizerFast over tokenizer.json for the others); the references are written here from the
definitions with `output_hidden_states` and plain forward pre-hooks on W^O, never through tfdebug's stages.
"""

from __future__ import annotations

import pytest
import torch

from tests.adapters.hf_tiny import save_folder
from tests.sessions.conftest import KINDS, model_folder
from tfdebug.adapters.registry import load_adapter
from tfdebug.core.readout import FrozenNorm, ReadoutError
from tfdebug.sessions.session import DebugSession
from tfdebug.sessions.why import Why

transformers = pytest.importorskip("transformers")

PROMPT = "I love you the cat sat on the mat"


@pytest.fixture(scope="module", params=[*KINDS, "chat"])
def folder(request, tmp_path_factory):
    """hf_folder's models, then the real pretrained chat model (SmolLM2-135M-Instruct)."""
    if request.param == "chat":
        from tests.adapters.real_chat import chat_folder

        return chat_folder(tmp_path_factory)
    return model_folder(request.param, tmp_path_factory)


def _pass(folder, text=PROMPT):
    adapter = load_adapter(f"hf:{folder}")
    session = DebugSession(adapter, {"prompt": text})
    captures, _ = session.capture_all(verify="never")
    return adapter, Why.of(adapter, captures)


def _reference(folder, text=PROMPT):
    """The unmodified model on transformers' tokenizer's ids: hidden states, logits and each layer's W^O input."""
    model = transformers.AutoModelForCausalLM.from_pretrained(str(folder), attn_implementation="eager").eval()
    # AutoTokenizer where the folder says how to read its tokenizer (the chat model); the random folders have no
    # tokenizer_config.json (AutoTokenizer would pick the model type's byte-level class, not the tokenizer they
    # ship): transformers' own fast tokenizer over their tokenizer.json
    if (folder / "tokenizer_config.json").is_file():
        tokenizer = transformers.AutoTokenizer.from_pretrained(str(folder))
    else:
        tokenizer = transformers.PreTrainedTokenizerFast(tokenizer_file=str(folder / "tokenizer.json"))
    ids = tokenizer(text, return_tensors="pt")
    o_projs = [blk.attn.c_proj if hasattr(blk, "attn") else blk.self_attn.o_proj for blk in _blocks(model)]
    merged: list[torch.Tensor] = []
    handles = [m.register_forward_pre_hook(lambda _m, args: merged.append(args[0][0].detach())) for m in o_projs]
    try:
        with torch.no_grad():
            out = model(**ids, output_hidden_states=True)
    finally:
        for h in handles:
            h.remove()
    return model, ids, out, merged, o_projs


def _blocks(model):
    return model.transformer.h if hasattr(model, "transformer") else model.model.layers


def _final_norm(model):
    return model.transformer.ln_f if hasattr(model, "transformer") else model.model.norm


def test_the_lens_reads_each_layer_as_the_model_would_and_its_last_row_is_the_logits(folder):
    _, why = _pass(folder)
    model, _, out, _, _ = _reference(folder)
    grid = why.lens(k=3)
    assert torch.allclose(why.tensor("logits"), out.logits[0], rtol=1e-5, atol=1e-5)  # the same ids went in
    assert len(grid.rows) == model.config.num_hidden_layers + 1
    logits = out.logits[0]
    # (a) the last row is the logits stage: the same top tokens and probabilities as the model's own logits
    final = torch.softmax(logits, -1)
    for p, cell in zip(grid.positions, grid.cells[-1]):
        top = torch.topk(final[p], 3)
        assert [i for i, _ in cell.top] == top.indices.tolist()
        assert [q for _, q in cell.top] == pytest.approx(top.values.tolist(), abs=1e-6)
        assert cell.rank == 1 and cell.kl == pytest.approx(0.0, abs=1e-6)
    # every earlier row: the model's hidden state before its final norm, read with its final norm and head
    norm, head = _final_norm(model), model.get_output_embeddings()
    for r in range(len(grid.rows) - 1):
        with torch.no_grad():
            own = torch.log_softmax(head(norm(out.hidden_states[r][0])), -1)
        for p, cell in zip(grid.positions, grid.cells[r]):
            target = int(logits[p].argmax())
            assert cell.target == target
            assert cell.p_target == pytest.approx(float(own[p, target].exp()), rel=1e-5, abs=1e-7)
            assert cell.rank == int((own[p] > own[p, target]).sum()) + 1
            assert cell.top[0][0] == int(own[p].argmax())
            kl = float((final[p] * (torch.log(final[p]) - own[p])).sum())
            assert cell.kl == pytest.approx(kl, rel=1e-4, abs=1e-6)


def test_the_last_row_is_the_logits_stage_bit_for_bit(folder):
    _, why = _pass(folder)
    x = why.tensor(why.readout.stage)
    assert torch.equal(why.readout.logits(x), why.tensor("logits"))


def test_the_terms_sum_to_the_pass_s_own_logit_difference_and_equal_a_plain_hook_implementation(folder):
    adapter, why = _pass(folder)
    logits = why.tensor("logits")
    position = -1
    order = logits[position].argsort(descending=True)
    target, contrast = int(order[0]), int(order[1])
    att = why.attribute(target, contrast, position)
    # (b) the terms sum to the pass's own logit difference within 1e-5 relative
    assert att.logit_diff == pytest.approx(float(logits[position, target] - logits[position, contrast]), rel=1e-7)
    assert att.total == pytest.approx(att.logit_diff, rel=1e-5)
    # (c) per-head terms equal the ones written here from the definitions on the unmodified model
    model, ids, out, merged, o_projs = _reference(folder)
    captured = {}
    norm = _final_norm(model)
    handle = norm.register_forward_pre_hook(lambda _m, args: captured.update(x=args[0][0].detach()))
    with torch.no_grad():
        model(**ids)
    handle.remove()
    last = captured["x"][position % captured["x"].shape[0]].double()
    p = position % captured["x"].shape[0]
    eps = getattr(norm, "eps", getattr(norm, "variance_epsilon", None))
    weight = norm.weight.detach().double()
    if isinstance(norm, torch.nn.LayerNorm):
        sigma = torch.sqrt(((last - last.mean()) ** 2).mean() + eps)

        def frozen(t):
            return weight * (t - t.mean()) / sigma
    else:
        sigma = torch.sqrt((last ** 2).mean() + eps)

        def frozen(t):
            return weight * t / sigma
    w_u = model.get_output_embeddings().weight.detach().double()
    u = w_u[target] - w_u[contrast]
    n_heads = getattr(model.config, "n_head", None) or model.config.num_attention_heads
    expected = {}
    for layer, (m, proj) in enumerate(zip(merged, o_projs)):
        width = m.shape[-1] // n_heads
        w = proj.weight.double()
        for h in range(n_heads):
            part = m[p].double()[h * width:(h + 1) * width]
            block = w[:, h * width:(h + 1) * width].T if isinstance(proj, torch.nn.Linear) \
                else w[h * width:(h + 1) * width]
            expected[(layer, h)] = float(frozen(part @ block.detach()) @ u)
    got = {(t.layer, t.head): t.value for t in att.terms if t.kind == "head"}
    assert set(got) == set(expected)
    for key, value in expected.items():
        assert got[key] == pytest.approx(value, rel=1e-5, abs=1e-6), key
    embed = next(t for t in att.terms if t.kind == "embed")
    assert embed.value == pytest.approx(float(frozen(out.hidden_states[0][0, p].double()) @ u), rel=1e-5, abs=1e-6)
    # each layer's bar is what the layer adds to the stream, read through the frozen norm
    bars = att.layers()
    for layer in range(len(merged)):
        after = last if layer == len(merged) - 1 else out.hidden_states[layer + 1][0, p].double()
        added = after - out.hidden_states[layer][0, p].double()
        assert bars[layer] == pytest.approx(float(frozen(added) @ u), rel=1e-4, abs=1e-5)


def test_without_a_contrast_the_terms_sum_to_the_target_s_logit(folder):
    _, why = _pass(folder)
    logits = why.tensor("logits")
    target = int(logits[2].argmax())
    att = why.attribute(target, None, 2)
    assert att.logit_diff == pytest.approx(float(logits[2, target]), rel=1e-7)
    assert att.total == pytest.approx(att.logit_diff, rel=1e-5, abs=1e-5)


def test_an_encoder_says_why_it_has_no_lens(tmp_path):
    from tests.adapters.hf_tiny import bert

    adapter = load_adapter(f"hf:{save_folder(bert(), tmp_path / 'bert')}")
    with pytest.raises(ReadoutError, match="no language-model head"):
        adapter.readout()


def test_the_demo_translator_has_a_lens_over_its_decoder():
    adapter = load_adapter("demo")
    session = DebugSession(adapter, adapter.default_texts())
    captures, _ = session.capture_all(verify="never")
    why = Why.of(adapter, captures)
    assert why.rows[0] == "tgt.pos" and why.rows[-1].startswith("dec.") and why.rows[-1].endswith(".ffn.resid")
    assert torch.equal(why.readout.logits(why.tensor(why.readout.stage)), why.tensor("logits"))
    logits = why.tensor("logits")
    att = why.attribute(int(logits[-1].argmax()), int(logits[-1].argsort()[-2]), -1)
    assert att.total == pytest.approx(att.logit_diff, rel=1e-5)
    assert {t.kind for t in att.terms} >= {"embed", "head", "ffn", "norm_bias"}


def test_a_norm_of_unknown_form_is_refused_not_guessed():
    class Odd(torch.nn.Module):
        weight = torch.nn.Parameter(torch.ones(4))

        def forward(self, x):
            return torch.tanh(x)

    with pytest.raises(ReadoutError, match="none of LayerNorm"):
        FrozenNorm.of(Odd(), torch.tensor([1.0, -2.0, 3.0, 0.5]))


def test_a_dropped_residual_is_named():
    adapter = load_adapter("demo")
    session = DebugSession(adapter, adapter.default_texts())
    captures, _ = session.capture_all(verify="never")
    why = Why.of(adapter, captures)
    why.captures[why.rows[1]].drop()
    with pytest.raises(ReadoutError, match="was not kept"):
        why.lens()


def test_a_position_or_token_outside_the_pass_is_one_sentence_not_wrapped_or_an_index_error():
    from tfdebug.adapters.bundled import bundled_folder

    _, why = _pass(bundled_folder("tiny-gpt2"))
    count, vocab = why.count, why.vocabulary_size
    assert why.lens([-count], None).positions == [0] and why.prediction(-1) == why.prediction(count - 1)
    for ask in (lambda: why.lens([count]), lambda: why.lens([10**9]), lambda: why.attribute(0, None, -count - 1),
                lambda: why.prediction(count)):
        with pytest.raises(ReadoutError, match=f"outside the pass's {count} tokens"):
            ask()
    for ask in (lambda: why.lens([0], vocab), lambda: why.attribute(vocab), lambda: why.attribute(0, -1)):
        with pytest.raises(ReadoutError, match="outside the vocabulary"):
            ask()
    assert why.word(vocab) is None and why.word(why.token_id("the")) == "the"


def test_the_dock_asks_only_the_why_view():
    """The Why This Output views read no tensor, adapter or patcher: what they ask is `WhyView`'s, so a served pass
    (tfdebug.remote.explaining.RemoteWhy) reads as a local one."""
    from pathlib import Path

    folder = Path(__file__).resolve().parents[2] / "tfdebug" / "ui" / "features" / "why"
    for path in folder.glob("*.py"):
        source = path.read_text(encoding="utf-8")
        for word in (".tensor(", ".adapter", "logits_stage", ".patcher(", "captures"):
            assert word not in source, f"{path.name} reads {word}"
