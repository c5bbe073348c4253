"""plan_pass: the stages of a pass without a real forward, equal to a real pass's, or a real pass and why."""

import pytest
import torch
from torch import nn

from tfdebug.core import plan as plan_module
from tfdebug.core.plan import plan_pass
from tfdebug.core.recorder import Recorder, stage_plan
from tfdebug.core.tap import Tap


def _described(captures):
    return [(c.name, c.shape, c.dtype, c.device, c.info) for c in captures]


def test_a_meta_plan_of_the_reference_model_equals_a_real_pass(loaded, pair):
    src, tgt = pair.src, pair.tgt
    run = lambda: loaded.model(src, tgt)  # noqa: E731
    real = stage_plan(loaded.model, run)
    planned = plan_pass(loaded.model, run, [src, tgt], method="meta")
    assert planned.method == "meta" and planned.note == ""
    assert _described(planned) == _described(real)
    assert all(c.tensor is None for c in planned)


def test_a_meta_plan_runs_no_weight_computation_for_real(loaded, pair, monkeypatch):
    src, tgt = pair.src, pair.tgt
    calls = []
    real_linear = torch.nn.functional.linear
    monkeypatch.setattr(torch.nn.functional, "linear",
                        lambda x, w, b=None: calls.append(x.device.type) or real_linear(x, w, b))
    plan_pass(loaded.model, lambda: loaded.model(src, tgt), [src, tgt], method="meta")
    assert calls and set(calls) == {"meta"}  # every projection saw shapes only


def test_a_meta_plan_leaves_weights_and_inputs_untouched(loaded, pair):
    src, tgt = pair.src, pair.tgt
    before = {k: v.clone() for k, v in loaded.model.state_dict().items()}
    plan_pass(loaded.model, lambda: loaded.model(src, tgt), [src, tgt], method="meta")
    after = loaded.model.state_dict()
    assert all(torch.equal(before[k], after[k]) and not after[k].is_meta for k in before)
    assert not src.is_meta and not tgt.is_meta


class _BranchesOnValues(nn.Module):
    """A model whose code reads a computed value (a data-dependent branch): only a real pass can plan it."""

    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(4, 4)
        self.tap = Tap("enc.0.ffn.out", "ffn_out", ("batch", "token", "model"), "W x")

    def forward(self, x):
        y = self.tap(self.proj(x))
        return y * 2 if float(y.sum()) > 0 else y  # the branch needs y's value


def test_a_model_needing_real_values_is_planned_by_a_real_pass_and_says_so():
    model, x = _BranchesOnValues().eval(), torch.ones(1, 3, 4)
    planned = plan_pass(model, lambda: model(x), [x], method="meta")
    assert planned.method == "real" and "needs real values" in planned.note
    assert _described(planned) == _described(stage_plan(model, lambda: model(x)))


def test_a_check_of_the_inputs_runs_for_real_while_planning():
    class ChecksInputs(_BranchesOnValues):
        def forward(self, ids):
            if bool((ids < 0).any()):  # input validation reads the ids themselves
                raise ValueError("negative id")
            return self.tap(self.proj(ids.float()))

    model = ChecksInputs().eval()
    ids = torch.ones(1, 3, 4, dtype=torch.long)
    planned = plan_pass(model, lambda: model(ids), [ids], method="meta")
    assert planned.method == "meta" and planned[0].shape == (1, 3, 4)
    with pytest.raises(ValueError, match="negative id"):  # a real error stays the model's own
        plan_pass(model, lambda: model(-ids), [ids], method="meta")


def test_auto_plans_on_meta_only_where_that_is_cheaper_than_a_forward(loaded, pair, monkeypatch):
    src, tgt = pair.src, pair.tgt
    run = lambda: loaded.model(src, tgt)  # noqa: E731
    assert plan_pass(loaded.model, run, [src, tgt]).method == "real"  # a small model: a forward is cheap
    monkeypatch.setitem(plan_module.META_PLAN_FLOPS, "cpu", 1.0)
    assert plan_pass(loaded.model, run, [src, tgt]).method == "meta"


def test_a_meta_plan_leaves_the_taps_free_for_the_next_pass(loaded, pair):
    src, tgt = pair.src, pair.tgt
    plan_pass(loaded.model, lambda: loaded.model(src, tgt), [src, tgt], method="meta")
    with torch.no_grad(), Recorder(loaded.model) as rec:
        loaded.model(src, tgt)
    assert rec.captures and all(c.tensor is not None and not c.tensor.is_meta for c in rec.captures)
