"""The backward pass, stage by stage, checked against torch.autograd.grad of the model's own loss on the
unmodified model (transformers computes the loss from `labels=`; the intermediate tensors are the model's own
`output_hidden_states`, `output_attentions` and plain forward hooks), on inputs its tokenizer.json prepares."""

from __future__ import annotations

import math

import pytest
import torch

from tests.adapters.hf_tiny import save_folder
from tfdebug.adapters.registry import load_adapter
from tfdebug.core.errors import InputError
from tfdebug.sessions.backward import Objective, run_backward

transformers = pytest.importorskip("transformers")

PROMPT = "I love you the cat sat on the mat"


@pytest.fixture()
def folder(hf_folder):
    return hf_folder


def _close(got: torch.Tensor, want: torch.Tensor, name: str) -> None:
    scale = max(float(want.abs().max()), 1e-12)
    assert got.shape == want.shape, name
    assert float((got.double() - want.double()).abs().max()) <= 1e-5 * scale, name


def test_every_stage_s_gradient_equals_autograd_on_the_unmodified_model(folder):
    adapter = load_adapter(f"hf:{folder}")
    tokenizer = transformers.PreTrainedTokenizerFast(tokenizer_file=str(folder / "tokenizer.json"))
    ids = tokenizer(PROMPT, return_tensors="pt")
    prepared = adapter.prepare({"prompt": PROMPT})
    assert torch.equal(prepared.kwargs["input_ids"], ids["input_ids"])
    result = run_backward(adapter, prepared)

    model = transformers.AutoModelForCausalLM.from_pretrained(str(folder), attn_implementation="eager").eval()
    blocks = model.transformer.h if hasattr(model, "transformer") else model.model.layers
    projections = {}
    hooks = []
    for i, block in enumerate(blocks):
        attn = getattr(block, "attn", None) or block.self_attn
        q_module = getattr(attn, "c_attn", None) or attn.q_proj
        hooks.append(q_module.register_forward_hook(lambda _m, _a, out, i=i: projections.__setitem__(i, out)))
    out = model(**ids, labels=ids["input_ids"], output_hidden_states=True, output_attentions=True)
    for h in hooks:
        h.remove()
    assert result.loss == pytest.approx(float(out.loss.detach()), rel=1e-6)
    layers = len(blocks)
    wanted = {"logits": out.logits, "dec.norm": out.hidden_states[-1]}
    wanted.update({f"dec.{i - 1}.ffn.resid": out.hidden_states[i] for i in range(1, layers)})
    wanted.update({f"dec.{i}.self_attn.probs": out.attentions[i] for i in range(layers)})
    names = list(wanted)
    grads = torch.autograd.grad(out.loss, [wanted[n] for n in names] + [projections[i] for i in range(layers)],
                                retain_graph=True)
    for name, grad in zip(names, grads):
        _close(result.gradient(name), grad, name)
    d = model.config.hidden_size if hasattr(model.config, "hidden_size") else model.config.n_embd
    for i, grad in enumerate(grads[len(names):]):
        q_grad = grad[..., :d] if hasattr(model, "transformer") else grad  # GPT-2's fused c_attn: q is its first d
        _close(result.gradient(f"dec.{i}.self_attn.q"), q_grad, f"dec.{i}.self_attn.q")
    # the first block's input, and every stage has a gradient, in backward order: logits first, embeddings last
    first = "tok.pos" if hasattr(model, "transformer") else "tok.embed"
    _close(result.gradient(first), torch.autograd.grad(out.loss, out.hidden_states[0], retain_graph=True)[0], first)
    order = [c.name for c in result.gradients]
    assert order[0] == "logits" and order[-1] == "tok.embed" and set(order) == set(result.forward)
    assert result.first_nonfinite is None
    # parameters: their gradients are the model's own, and the model's .grad is left as it was
    out.loss.backward()
    for name, param in model.named_parameters():
        ours = result.parameters.get(f"model.{name}")
        if ours is not None and param.grad is not None:
            assert ours == pytest.approx(float(param.grad.double().norm()), rel=1e-5, abs=1e-9), name
    assert all(p.grad is None for p in adapter.model.parameters())


def test_a_logit_difference_objective_differentiates_that_difference(folder):
    adapter = load_adapter(f"hf:{folder}")
    prepared = adapter.prepare({"prompt": PROMPT})
    result = run_backward(adapter, prepared, Objective("logit_diff", position=-1, target=3, contrast=4))
    grad = result.gradient("logits")[0]
    expected = torch.zeros_like(grad)
    expected[-1, 3], expected[-1, 4] = 1.0, -1.0
    assert torch.equal(grad, expected)
    logits = result.forward["logits"].tensor[0, -1]
    assert result.loss == pytest.approx(float(logits[3] - logits[4]), rel=1e-6)


def test_a_stage_sum_objective_equals_autograd_of_that_sum_on_the_unmodified_model(folder):
    """Objective("stage_sum", stage="dec.0.ffn.resid"): the first block's output summed; the stages before it get
    autograd's gradients of that sum on the model loaded by transformers, those after it none."""
    adapter = load_adapter(f"hf:{folder}")
    tokenizer = transformers.PreTrainedTokenizerFast(tokenizer_file=str(folder / "tokenizer.json"))
    ids = tokenizer(PROMPT, return_tensors="pt")
    result = run_backward(adapter, adapter.prepare({"prompt": PROMPT}), Objective("stage_sum", stage="dec.0.ffn.resid"))

    model = transformers.AutoModelForCausalLM.from_pretrained(str(folder), attn_implementation="eager").eval()
    out = model(**ids, output_hidden_states=True)
    total = out.hidden_states[1].sum()
    assert result.loss == pytest.approx(float(total.detach()), rel=1e-6)
    grads = torch.autograd.grad(total, [out.hidden_states[1], out.hidden_states[0]], retain_graph=True)
    _close(result.gradient("dec.0.ffn.resid"), grads[0], "dec.0.ffn.resid")
    first = "tok.pos" if hasattr(model, "transformer") else "tok.embed"
    _close(result.gradient(first), grads[1], first)
    order = [c.name for c in result.gradients]
    assert order[0] == "dec.0.ffn.resid" and "logits" not in order and "dec.1.ffn.resid" not in order
    total.backward()
    compared = 0
    for name, param in model.named_parameters():
        ours = result.parameters.get(f"model.{name}")
        if param.grad is not None and ours is not None:
            assert ours == pytest.approx(float(param.grad.double().norm()), rel=1e-5, abs=1e-9), name
            compared += 1
    assert compared > 0
    assert result.objective.describe() == "sum of dec.0.ffn.resid"
    assert "objective_kind" in result.manifest_entry() and "position" not in result.manifest_entry()


def test_a_stage_sum_of_no_stage_says_so(folder):
    adapter = load_adapter(f"hf:{folder}")
    prepared = adapter.prepare({"prompt": PROMPT})
    with pytest.raises(InputError, match="cannot be summed"):
        run_backward(adapter, prepared, Objective("stage_sum", stage="dec.9.nothing"))
    with pytest.raises(InputError, match="needs the stage"):
        run_backward(adapter, prepared, Objective("stage_sum"))


def test_saliency_is_gradient_times_embedding_per_token(folder):
    adapter = load_adapter(f"hf:{folder}")
    result = run_backward(adapter, adapter.prepare({"prompt": PROMPT}))
    saliency = result.saliency()
    product = result.gradient("tok.embed")[0].double() * result.forward["tok.embed"].tensor[0].double()
    assert [s for s, _ in saliency] == pytest.approx(product.sum(-1).tolist())
    assert len(saliency) == product.shape[0]


def test_the_loss_at_the_last_position_has_nothing_to_predict():
    adapter = load_adapter("tiny-gpt2")
    with pytest.raises(InputError, match="nothing follows"):
        run_backward(adapter, adapter.prepare({"prompt": "the cat"}), Objective("position", position=-1))
    result = run_backward(adapter, adapter.prepare({"prompt": "the cat"}), Objective("position", position=0))
    assert result.gradient("logits")[0, 1:].abs().max() == 0  # only position 0's prediction is differentiated


def _overflowing_backward(folder):
    """A GPT-2 whose residual stream is tiny (embeddings and every block's output scaled by 3e-4, LayerNorm's
    eps 1e-12): its LayerNorms bring the forward back to O(1), every value finite in float16, while their
    backward multiplies the gradient by weight / σ, past float16's 65,504."""
    cfg = transformers.GPT2Config(vocab_size=40, n_embd=32, n_layer=2, n_head=4, n_positions=64, bos_token_id=0,
                                  eos_token_id=0, tie_word_embeddings=False, layer_norm_epsilon=1e-12)
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(0)
        model = transformers.GPT2LMHeadModel(cfg).eval()
    with torch.no_grad():
        for weight in (model.transformer.wte.weight, model.transformer.wpe.weight):
            weight *= 3e-4
        for block in model.transformer.h:
            for proj in (block.attn.c_proj, block.mlp.c_proj):
                proj.weight *= 3e-4
                proj.bias.zero_()
        model.lm_head.weight *= 50
    return save_folder(model, folder)


def test_a_float16_backward_that_overflows_is_named_at_its_first_stage_and_float32_runs_through(tmp_path):
    folder = _overflowing_backward(tmp_path / "overflow")
    half = load_adapter(f"hf:{folder}", dtype="float16")
    result = run_backward(half, half.prepare({"prompt": PROMPT}))
    assert all(bool(torch.isfinite(c.tensor).all()) for c in result.forward.values())  # the forward is finite
    assert math.isfinite(result.loss)
    assert result.first_nonfinite == "dec.1.ffn.resid"
    order = [c.name for c in result.gradients]
    before = order[:order.index(result.first_nonfinite)]
    assert before and all(bool(torch.isfinite(result.gradient(n)).all()) for n in before)
    full = load_adapter(f"hf:{folder}")
    assert run_backward(full, full.prepare({"prompt": PROMPT})).first_nonfinite is None


@pytest.mark.parametrize("family", ["bert", "t5"])
def test_an_encoder_s_and_an_encoder_decoder_s_gradients_equal_autograd(family, tmp_path):
    """A logit difference's gradient at every layer input and every attention's probabilities, mapped to the
    stages by the plan's own table of what transformers returns (`layer_inputs`, `probs`), against
    torch.autograd.grad on the unmodified model (eager attention, so it returns the probabilities)."""
    from tests.adapters.hf_tiny import bert, t5

    folder = save_folder({"bert": bert, "t5": t5}[family](), tmp_path / family)
    adapter = load_adapter(f"hf:{folder}")
    tokenizer = transformers.PreTrainedTokenizerFast(tokenizer_file=str(folder / "tokenizer.json"))
    if family == "bert":
        texts = {"text": "the cat sat on the mat"}
        kwargs = dict(tokenizer(texts["text"], return_tensors="pt"))
        kwargs.pop("token_type_ids", None)
        model = transformers.AutoModelForMaskedLM.from_pretrained(str(folder), attn_implementation="eager").eval()
    else:
        texts = {"src": "the cat sat on the mat", "tgt": "I love you"}
        target_ids = tokenizer(texts["tgt"], add_special_tokens=False)["input_ids"]
        kwargs = {**tokenizer(texts["src"], return_tensors="pt"),
                  "decoder_input_ids": torch.tensor([[0] + target_ids])}
        kwargs.pop("token_type_ids", None)
        model = transformers.AutoModelForSeq2SeqLM.from_pretrained(str(folder), attn_implementation="eager").eval()
    objective = Objective("logit_diff", position=-1, target=5, contrast=6)
    result = run_backward(adapter, adapter.prepare(texts), objective)
    out = model(**kwargs, output_hidden_states=True, output_attentions=True)
    loss = out.logits[0, -1, 5] - out.logits[0, -1, 6]
    assert result.loss == pytest.approx(float(loss.detach()), rel=1e-5)
    pairs = [(name, getattr(out, key)[i]) for key, names in adapter.plan.layer_inputs.items()
             for i, name in enumerate(names)]
    pairs += [(name, getattr(out, key)[i]) for key, names in adapter.plan.probs.items() for i, name in enumerate(names)]
    assert len(pairs) >= (4 if family == "bert" else 10)  # two layers: inputs and probabilities of each
    grads = torch.autograd.grad(loss, [t for _, t in pairs], allow_unused=True)
    for (name, _), grad in zip(pairs, grads):
        if grad is None:  # the objective does not depend on it (none here, but say so if it happens)
            raise AssertionError(f"{name}: autograd found no path from the objective")
        _close(result.gradient(name), grad, name)


def test_a_vision_transformer_s_gradients_equal_autograd():
    """The bundled tiny ViT on its sample picture, prepared by its own AutoImageProcessor: a class logit
    difference's gradient at every layer input and every attention's probabilities."""
    from PIL import Image

    from tfdebug.adapters.bundled import bundled_folder

    folder = bundled_folder("tiny-vit")
    adapter = load_adapter("tiny-vit")
    picture = adapter.default_texts()["image"]
    pixels = transformers.AutoImageProcessor.from_pretrained(str(folder))(Image.open(picture).convert("RGB"),
                                                                          return_tensors="pt")
    model = transformers.AutoModelForImageClassification.from_pretrained(str(folder),
                                                                         attn_implementation="eager").eval()
    result = run_backward(adapter, adapter.prepare({"image": picture}), Objective("logit_diff", target=0, contrast=1))
    out = model(**pixels, output_hidden_states=True, output_attentions=True)
    loss = out.logits[0, 0] - out.logits[0, 1]
    assert result.loss == pytest.approx(float(loss.detach()), rel=1e-5)
    pairs = [(name, getattr(out, key)[i]) for table in (adapter.plan.layer_inputs, adapter.plan.probs)
             for key, names in table.items() for i, name in enumerate(names)]
    assert len(pairs) >= 4
    for (name, _), grad in zip(pairs, torch.autograd.grad(loss, [t for _, t in pairs])):
        _close(result.gradient(name), grad, name)


def test_a_backward_over_the_budget_is_refused_before_it_runs():
    from tfdebug.sessions.backward_peak import backward_peak, parameter_bytes
    from tfdebug.sessions.session import DebugSession

    adapter = load_adapter("tiny-gpt2")
    session = DebugSession(adapter, {"prompt": PROMPT})
    plan = list(session.plan)
    peak = backward_peak(plan, parameter_bytes(adapter.module))
    assert 2 * sum(c.nbytes for c in plan if not c.recipe) < peak
    with pytest.raises(InputError, match="would hold about"):
        run_backward(adapter, session.prepared, plan=plan, budget=peak - 1)
    assert run_backward(adapter, session.prepared, plan=plan, budget=peak).loss > 0


def test_a_backward_pass_lets_its_recorder_and_live_tensors_go(monkeypatch):
    # A hook lives in the tensor's C++ autograd data, out of the garbage collector's sight: a recorder whose live
    # tensors kept their hooks held every stage's tensors (the attention planes whole) for the whole process,
    # and `tfdebug bench --section backward` at 1,024 tokens was killed for memory after a few runs.
    import gc
    import weakref

    from tfdebug.core.gradients import GradientRecorder
    from tfdebug.sessions import backward

    made = []

    class Watched(GradientRecorder):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            made.append(weakref.ref(self))

    monkeypatch.setattr(backward, "GradientRecorder", Watched)
    adapter = load_adapter("tiny-gpt2")
    was_enabled = gc.isenabled()  # a window's tests in this process may have switched it off: leave it as it was
    gc.disable()
    try:
        result = run_backward(adapter, adapter.prepare({"prompt": "the cat sat"}))
        assert result.gradients and result.forward
        assert made and made[0]() is None  # freed by reference counting alone, its gradients kept
    finally:
        if was_enabled:
            gc.enable()


def test_a_backward_does_not_keep_its_forward_for_the_verification():
    # The adapter keeps its last forward's checked stages (every layer's probabilities, whole) for the pass's
    # verification; kept from the backward's forward they held every attention's probabilities through the whole
    # backward (4.3 GB of SmolLM-135M's shape at 2,048 tokens) and after it. The pass's own stay as they were.
    from tfdebug.sessions.session import DebugSession

    adapter = load_adapter("tiny-gpt2")
    session = DebugSession(adapter, {"prompt": PROMPT})
    session.capture_all()
    kept = adapter._kept
    assert any(name.endswith("probs") for name in kept)
    run_backward(adapter, session.prepared)
    assert adapter._kept is kept
