"""The gradients of the attention planes as recipes (core/gradient_planes.py) against the gradients autograd
materialises: bit for bit (torch.equal) for the whole plane, one head, a few query rows and one row, on a model
of each kind of attention (GPT-2, grouped-query Llama, Gemma 2's soft cap and sliding window, T5's position
bias and cross-attention, BERT's padding mask), the GPT-2 width at 96 tokens, float16 and bfloat16."""

from __future__ import annotations

import pytest
import torch

from tests.adapters import hf_archs, hf_tiny
from tfdebug.adapters.hf import planes as hf_planes
from tfdebug.core.gradient_planes import GradientPlane
from tfdebug.core.recipes import RECIPE_KINDS, is_plane
from tfdebug.sessions.backward import Objective, run_backward

transformers = pytest.importorskip("transformers")

PROMPT = {"prompt": "the cat sat on the mat and the dog sat on the log too"}


def _plane_stage(info) -> bool:
    """A tokens² attention plane (a final logits soft cap has a plane's kind, not its axes)."""
    return info.kind in RECIPE_KINDS and tuple(info.axes[-2:]) == ("query", "key")


def _materialised(adapter, prepared, objective):
    """The same backward with every plane and every plane's gradient kept whole: autograd's own tensors."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(hf_planes, "planes_noted", lambda recompute=True: hf_planes.planes_materialized())
        return run_backward(adapter, prepared, objective)


def _check(adapter, texts, objective=Objective(), prepared=None) -> int:
    prepared = prepared if prepared is not None else adapter.prepare(texts)
    ours = run_backward(adapter, prepared, objective)
    whole = _materialised(adapter, prepared, objective)
    wanted = {c.name: c.tensor for c in whole.gradients}
    assert [c.name for c in ours.gradients] == list(wanted)  # the same stages, in the same backward order
    planes = 0
    for capture in ours.gradients:
        want = wanted[capture.name]
        if not _plane_stage(capture.info):
            assert not is_plane(capture.tensor) and torch.equal(capture.tensor, want), capture.name
            continue
        planes += 1
        plane = capture.tensor
        assert isinstance(plane, GradientPlane) and not is_plane(want), capture.name
        assert plane.shape == want.shape and plane.dtype == want.dtype, capture.name
        assert torch.equal(plane.materialize(), want), capture.name
        rows = want.shape[2]
        head = want.shape[1] - 1
        assert torch.equal(plane[0, head], want[0, head]), capture.name
        assert torch.equal(plane[0, 0, rows // 3: rows // 3 + 3], want[0, 0, rows // 3: rows // 3 + 3]), capture.name
        assert torch.equal(plane[0, head, rows - 1], want[0, head, rows - 1]), capture.name
        assert torch.equal(plane[0, head, rows - 5:], want[0, head, rows - 5:]), capture.name
    for name, capture in ours.forward.items():  # the forward's planes: recipes too, equal to the whole ones
        if _plane_stage(capture.info):
            assert capture.recipe and torch.equal(capture.tensor.materialize(), whole.forward[name].tensor), name
    assert ours.first_nonfinite == whole.first_nonfinite is None
    return planes


@pytest.mark.parametrize("arch", ["gpt2", "llama", "gemma2", "mistral"])
def test_decoder_gradient_planes_equal_autograd_s_bit_for_bit(arch):
    from tfdebug.adapters.hf.adapter import wrap

    model = hf_archs.build(hf_archs.BY_TYPE[arch])
    planes = _check(wrap(model, hf_tiny.word_tokenizer()), PROMPT)
    assert planes == model.config.num_hidden_layers * (5 if arch == "gemma2" else 4)  # gemma2: + soft cap


@pytest.mark.parametrize("family", ["bert", "t5"])
def test_encoder_and_encoder_decoder_gradient_planes_equal_autograd_s(family, tmp_path):
    from tfdebug.adapters.registry import load_adapter

    folder = hf_tiny.save_folder({"bert": hf_tiny.bert, "t5": hf_tiny.t5}[family](), tmp_path / family)
    texts = {"text": "the cat sat on the mat"} if family == "bert" else \
        {"src": "the cat sat on the mat", "tgt": "I love you"}
    assert _check(load_adapter(f"hf:{folder}"), texts, Objective("logit_diff", target=5, contrast=6)) > 0


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16, torch.bfloat16])
def test_the_gpt2_width_s_gradient_planes_equal_autograd_s(dtype):
    """768 wide, 12 heads, 96 tokens (40 in half precision): the BLAS's blocked kernels, not a tiny product's
    loop; tiles of one row, of 23 rows and of the last 5."""
    from tfdebug.adapters.base import Prepared
    from tfdebug.adapters.hf.adapter import wrap
    from tfdebug.bench.capture import BenchConfig
    from tfdebug.bench.hf import build_gpt2

    tokens = 96 if dtype == torch.float32 else 40
    model, ids = build_gpt2(BenchConfig("planes", 2, 768, 12, tokens, 1000))
    model = model.to(dtype)
    model.config._attn_implementation_internal = "eager"
    prepared = Prepared(texts={}, kwargs={"input_ids": ids, "use_cache": False})
    adapter = wrap(model, tokenizer=None, name="planes")
    assert _check(adapter, None, prepared=prepared) == 8


def test_the_unmodified_model_s_own_plane_gradients_equal_the_recipes(hf_folder_llama):
    """Llama's own eager attention (transformers' code, no taps): its probabilities' gradient (output_attentions)
    and its softmax input's (read by wrapping softmax for this one forward) against the recipes."""
    from tfdebug.adapters.registry import load_adapter

    folder = hf_folder_llama
    adapter = load_adapter(f"hf:{folder}")
    tokenizer = transformers.PreTrainedTokenizerFast(tokenizer_file=str(folder / "tokenizer.json"))
    text = "I love you the cat sat on the mat"
    ids = tokenizer(text, return_tensors="pt")
    result = run_backward(adapter, adapter.prepare({"prompt": text}))
    model = transformers.AutoModelForCausalLM.from_pretrained(str(folder), attn_implementation="eager").eval()
    inputs: list[torch.Tensor] = []
    softmax = torch.nn.functional.softmax

    def kept_softmax(x, *args, **kwargs):
        if x.dim() == 4:
            x.retain_grad()
            inputs.append(x)
        return softmax(x, *args, **kwargs)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(torch.nn.functional, "softmax", kept_softmax)
        out = model(**ids, labels=ids["input_ids"], output_attentions=True)
    for probs in out.attentions:
        probs.retain_grad()
    out.loss.backward()
    assert len(inputs) == len(out.attentions) == model.config.num_hidden_layers
    for i, (probs, scores) in enumerate(zip(out.attentions, inputs)):
        assert torch.equal(result.gradient(f"dec.{i}.self_attn.probs").materialize(), probs.grad), i
        assert torch.equal(result.gradient(f"dec.{i}.self_attn.masked").materialize(), scores.grad), i


@pytest.fixture()
def hf_folder_llama(tmp_path):
    return hf_tiny.save_folder(hf_tiny.llama(), tmp_path / "llama")


def test_a_non_finite_plane_gradient_is_found_in_backward_order(monkeypatch):
    """A NaN entering at a plane's gradient (here the scaled scores', put there by a hook) is named at the first
    stage, in backward order, that holds it: the scores before it, not a stage after."""
    from tfdebug.adapters.registry import load_adapter
    from tfdebug.core.gradients import GradientRecorder
    from tfdebug.sessions import backward

    class Poisoned(GradientRecorder):
        def _hook(self, tap, output):
            output = super()._hook(tap, output)
            if tap.info.name == "dec.0.self_attn.scaled":  # after the recorder's own hook: its scores get NaN
                output.register_hook(lambda grad: torch.full_like(grad, float("nan")))
            return output

    monkeypatch.setattr(backward, "GradientRecorder", Poisoned)
    adapter = load_adapter("tiny-gpt2")
    result = run_backward(adapter, adapter.prepare({"prompt": "the cat sat on the mat"}))
    assert result.first_nonfinite == "dec.0.self_attn.scores"


def test_a_backward_keeps_no_plane_whole():
    """The recorder's forward planes are recipes and every plane's gradient a gradient recipe: no capture holds
    a tensor of tokens² size, and the stated peak counts one probabilities plane per attention, not four."""
    from tfdebug.adapters.registry import load_adapter
    from tfdebug.sessions.backward_peak import backward_peak
    from tfdebug.sessions.session import DebugSession

    adapter = load_adapter("tiny-gpt2")
    session = DebugSession(adapter, {"prompt": "the cat sat on the mat"})
    result = run_backward(adapter, session.prepared)
    for capture in list(result.forward.values()) + result.gradients:
        if _plane_stage(capture.info):
            assert capture.recipe and is_plane(capture.tensor), capture.name
        else:
            assert not is_plane(capture.tensor), capture.name
    plan = list(session.plan)
    planes = [c for c in plan if c.recipe]
    tensors = [c for c in plan if not c.recipe]
    for_planes = backward_peak(plan) - backward_peak(tensors)  # the planes' share of the statement
    assert planes and 0 < for_planes < 2 * sum(c.nbytes for c in planes)  # not every plane and its gradient
