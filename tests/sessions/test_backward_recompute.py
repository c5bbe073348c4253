"""A backward's attention probabilities are made again when autograd's backward reads them, not kept
(core/recompute.py): every gradient bit for bit what autograd gives when it keeps them, no probabilities alive
once the forward is done, and the peak `backward_peak` states held over the high-water mark of every tensor the
backward makes (counted op by op)."""

from __future__ import annotations

import gc

import pytest
import torch
from torch.multiprocessing.reductions import StorageWeakRef
from torch.utils._python_dispatch import TorchDispatchMode
from torch.utils._pytree import tree_flatten

from tests.adapters import hf_archs, hf_tiny
from tfdebug.core import recompute
from tfdebug.core.gradient_planes import GradientPlane
from tfdebug.core.gradients import GradientRecorder
from tfdebug.sessions import backward
from tfdebug.sessions.backward import Objective, run_backward

transformers = pytest.importorskip("transformers")

PROMPT = {"prompt": "the cat sat on the mat and the dog sat on the log too"}


def _kept_as_usual(monkeypatch) -> None:
    """Autograd keeps what it saves, as without tfdebug: nothing is registered to be made again."""
    monkeypatch.setattr(recompute.Recomputed, "made", lambda self, tensor: tensor)


def _watched(monkeypatch) -> tuple[list, list]:
    """(a weak reference to the storage of every probabilities tensor the forward makes, the number of them alive
    when the objective is formed: after the forward, before the backward)."""
    refs, alive = [], []

    class Watching(GradientRecorder):
        def _hook(self, tap, output):
            if tap.info.kind == "softmax" and tuple(tap.info.axes[-2:]) == ("query", "key"):
                refs.append(StorageWeakRef(output.untyped_storage()))
            return super()._hook(tap, output)

    objective_value = backward.objective_value

    def counted(*args, **kwargs):
        gc.collect()
        alive.append(sum(not ref.expired() for ref in refs))
        return objective_value(*args, **kwargs)

    monkeypatch.setattr(backward, "GradientRecorder", Watching)
    monkeypatch.setattr(backward, "objective_value", counted)
    return refs, alive


def _values(result) -> dict:
    return {c.name: c.tensor.materialize() if isinstance(c.tensor, GradientPlane) else c.tensor
            for c in result.gradients}


@pytest.mark.parametrize("arch,dtype", [("gpt2", torch.float32), ("llama", torch.float32),
                                        ("gemma2", torch.float32), ("gemma2", torch.bfloat16),
                                        ("llama", torch.float16)])
def test_the_probabilities_are_made_again_bit_for_bit_and_not_kept(arch, dtype, monkeypatch):
    """Grouped-query Llama, GPT-2, Gemma 2's soft cap (its tanh made again too), in float32 and in half
    precision (the float32 softmax and its narrow copy): each attention made again once, no probabilities alive
    between the forward and the backward, and every stage's gradient equal to the one autograd gives keeping
    what it saves."""
    from tfdebug.adapters.hf.adapter import wrap

    model = hf_archs.build(hf_archs.BY_TYPE[arch]).to(dtype)
    adapter = wrap(model, hf_tiny.word_tokenizer())
    prepared = adapter.prepare(PROMPT)
    with monkeypatch.context() as patch:
        refs, alive = _watched(patch)
        before = recompute.Recomputed.total
        ours = run_backward(adapter, prepared)
        made_again = recompute.Recomputed.total - before
    layers = model.config.num_hidden_layers
    assert len(refs) == layers and alive == [0]  # autograd kept none of them
    assert made_again == layers  # once per attention: the second reader finds it made
    with monkeypatch.context() as patch:
        refs, alive = _watched(patch)
        _kept_as_usual(patch)
        kept = run_backward(adapter, prepared)
    assert alive == [layers]  # as autograd keeps them without tfdebug
    want = _values(kept)
    got = _values(ours)
    assert list(got) == list(want)
    for name, tensor in got.items():
        assert tensor.dtype == want[name].dtype and torch.equal(tensor, want[name]), name
    assert ours.loss == kept.loss and ours.parameters == kept.parameters


def test_an_encoder_decoder_s_position_bias_gradient_is_unchanged(tmp_path, monkeypatch):
    """T5: the position bias (a parameter's, shared by every layer) takes its gradient through the planes
    made again; the cross-attention's too."""
    from tfdebug.adapters.registry import load_adapter

    folder = hf_tiny.save_folder(hf_tiny.t5(), tmp_path / "t5")
    adapter = load_adapter(f"hf:{folder}")
    prepared = adapter.prepare({"src": "the cat sat on the mat", "tgt": "I love you"})
    objective = Objective("logit_diff", target=5, contrast=6)
    before = recompute.Recomputed.total
    ours = run_backward(adapter, prepared, objective)
    assert recompute.Recomputed.total > before
    with monkeypatch.context() as patch:
        _kept_as_usual(patch)
        kept = run_backward(adapter, prepared, objective)
    want = _values(kept)
    for name, tensor in _values(ours).items():
        assert torch.equal(tensor, want[name]), name
    assert ours.parameters == kept.parameters


def test_an_edited_stage_keeps_what_follows_it(monkeypatch):
    """A tap that hands on another tensor than it was given (an edit) stops the making again: the probabilities
    after it are not the arithmetic of q and k, so autograd keeps them."""
    from tfdebug.adapters.hf.adapter import wrap

    class Editing(GradientRecorder):
        def _hook(self, tap, output):
            output = super()._hook(tap, output)
            return output * 1.0 if tap.info.name.endswith(".scaled") else output

    model = hf_archs.build(hf_archs.BY_TYPE["llama"])
    adapter = wrap(model, hf_tiny.word_tokenizer())
    prepared = adapter.prepare(PROMPT)
    monkeypatch.setattr(backward, "GradientRecorder", Editing)
    before = recompute.Recomputed.total
    ours = run_backward(adapter, prepared)
    assert recompute.Recomputed.total == before  # nothing was made again
    _kept_as_usual(monkeypatch)
    kept = run_backward(adapter, prepared)
    want = _values(kept)
    for name, tensor in _values(ours).items():
        assert torch.equal(tensor, want[name]), name


class _HighWater(TorchDispatchMode):
    """The bytes of every storage the ops inside make, alive at once at most (each op's outputs counted once per
    storage until it is freed)."""

    def __init__(self):
        super().__init__()
        self.live: dict[int, tuple[StorageWeakRef, int]] = {}
        self.now = self.peak = 0

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        out = func(*args, **(kwargs or {}))
        for tensor in tree_flatten(out)[0]:
            if isinstance(tensor, torch.Tensor) and tensor.layout == torch.strided:
                storage = tensor.untyped_storage()
                address = storage.data_ptr()
                if address not in self.live or self.live[address][0].expired():
                    self.live[address] = (StorageWeakRef(storage), storage.nbytes())
        gone = [a for a, (ref, _) in self.live.items() if ref.expired()]
        for address in gone:
            del self.live[address]
        self.now = sum(size for _, size in self.live.values())
        self.peak = max(self.peak, self.now)
        return out


def _high_water(adapter, prepared) -> int:
    gc.collect()
    with _HighWater() as mode:
        run_backward(adapter, prepared)
    return mode.peak


def test_the_stated_peak_holds_over_the_backward_s_high_water_mark(monkeypatch):
    """A Llama of `bench.backward_real`'s kind (grouped-query; 6 layers, 64 wide, 8 heads) at 256 tokens, where the
    planes weigh as much as the rest: the peak stated before the backward is over the high-water mark of the
    tensors it makes, the recompute path is taken once per layer, and what autograd would keep of the
    probabilities (a float32 plane per layer waiting for its backward) is saved."""
    from tfdebug.bench import backward_real
    from tfdebug.core.plan import plan_pass
    from tfdebug.sessions.backward_peak import backward_peak, parameter_bytes

    monkeypatch.setitem(backward_real.SHAPES, "test", dict(backward_real.SHAPES["tiny"], num_hidden_layers=6,
                                                           num_attention_heads=8, head_dim=8))
    adapter, prepared = backward_real._model("test", 256)
    with torch.no_grad():
        plan = list(plan_pass(adapter.module, lambda: adapter.forward(prepared), [prepared.kwargs["input_ids"]],
                              method="auto"))
    stated = backward_peak(plan, parameter_bytes(adapter.module))
    before = recompute.Recomputed.total
    measured = _high_water(adapter, prepared)
    assert recompute.Recomputed.total - before == 6  # the recompute path was taken, once per layer
    assert 0 < measured <= stated
    with monkeypatch.context() as patch:
        _kept_as_usual(patch)
        kept = _high_water(adapter, prepared)
    [plane] = {c.nbytes for c in plan if c.info.kind == "softmax" and c.recipe}
    assert kept - measured >= 2 * plane, (kept, measured)  # measured: 3.1 planes fewer


def test_a_backward_within_the_budget_keeps_the_planes_and_states_that_peak(monkeypatch):
    """Given the pass's plan and a budget that holds every attention's saved probabilities, the backward keeps them
    (no recompute: faster) with every gradient bit for bit the recomputing backward's, and the peak it states with
    them kept holds over its high-water mark; a budget only the recomputing backward fits makes them again; one
    that neither fits is refused in one sentence."""
    from tfdebug.bench import backward_real
    from tfdebug.core.errors import InputError
    from tfdebug.core.plan import plan_pass
    from tfdebug.sessions.backward_peak import backward_peak, check_backward_fits, parameter_bytes

    monkeypatch.setitem(backward_real.SHAPES, "test", dict(backward_real.SHAPES["tiny"], num_hidden_layers=6,
                                                           num_attention_heads=8, head_dim=8))
    adapter, prepared = backward_real._model("test", 256)
    with torch.no_grad():
        plan = list(plan_pass(adapter.module, lambda: adapter.forward(prepared), [prepared.kwargs["input_ids"]],
                              method="auto"))
    parameters = parameter_bytes(adapter.module)
    made_again, kept = backward_peak(plan, parameters), backward_peak(plan, parameters, recompute=False)
    [plane] = {c.nbytes for c in plan if c.info.kind == "softmax" and c.recipe}
    assert kept - made_again >= 6 * plane - 4 * plane  # six layers' saved probabilities, less one layer's passing
    assert check_backward_fits(plan, kept, parameters) == (kept, False)
    assert check_backward_fits(plan, kept - 1, parameters) == (made_again, True)
    with pytest.raises(InputError, match="over the"):
        check_backward_fits(plan, made_again - 1, parameters)
    before = recompute.Recomputed.total
    gc.collect()
    with _HighWater() as mode:
        fast = run_backward(adapter, prepared, plan=plan, budget=kept)
    assert recompute.Recomputed.total == before  # nothing made again
    assert 0 < mode.peak <= kept
    slow = run_backward(adapter, prepared, plan=plan, budget=kept - 1)
    assert recompute.Recomputed.total - before == 6
    assert fast.loss == slow.loss and [g.name for g in fast.gradients] == [g.name for g in slow.gradients]
    for a, b in zip(fast.gradients, slow.gradients, strict=True):
        x, y = (t.materialize() if isinstance(t, GradientPlane) else t for t in (a.tensor, b.tensor))
        assert torch.equal(x, y), a.name
