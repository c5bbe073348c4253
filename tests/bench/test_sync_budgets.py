"""Host-sync budgets, counted on the CPU (tfdebug.bench.syncs patches every call that would
make the host wait for a GPU): a captured forward, every condition breakpoint set, one
display step."""

import pytest
import torch

from tfdebug.bench.syncs import HostSyncCounter, sync_counts
from tfdebug.core.breakpoints import Breakpoint
from tfdebug.core.display import display_slice
from tfdebug.core.thumbnails import head_thumbnails
from tfdebug.core.stepper import FAST, FINISHED, PAUSED
from tfdebug.models.loader import load_model
from tfdebug.adapters.reference import ReferenceAdapter
from tfdebug.sessions.session import DebugSession

ALL_CONDITIONS = (Breakpoint.on_nan(), Breakpoint.on_inf(), Breakpoint.on_abs_above(1e9))


@pytest.fixture()
def session():
    s = DebugSession(ReferenceAdapter(load_model("random")), {"src": "I love you", "tgt": "我 爱 你"})
    yield s
    s.close()


def test_counter_sees_what_would_sync_and_nothing_else():
    x = torch.randn(4, 4)
    with HostSyncCounter() as syncs:
        y = (x * 2).softmax(-1).amax()  # device work only
        assert syncs.count == 0
        y.item()
        x.tolist()
        x.cpu()
        bool(y > 0)
        x.to("cpu")
        x.to(torch.float64)  # a dtype change stays on the device
        x[x > 0]
        x.nonzero()
        torch.tensor([1.0, 2.0], device="cpu")
        torch.full((), 1.0, device="cpu")  # filled on the device: no copy
    assert dict(syncs.by_kind) == {"item": 1, "tolist": 1, "cpu": 1, "__bool__": 1, "to(cpu)": 1,
                                   "mask index": 1, "nonzero": 1, "tensor(host data, device=)": 1}
    assert torch.Tensor.item is torch._C.TensorBase.item  # every patch undone


@pytest.fixture(scope="module")
def counts():
    return sync_counts()


def test_captured_forward_syncs_once(counts):
    """(a) One sync per captured forward: the model's own input check; capturing adds none."""
    assert counts["stages"] > 100 and counts["captured_forward"] == 1


def test_fast_conditions_cost_one_sync_per_forward(counts):
    """(b) Every condition set, fast mode: Continue from the first stage to the end reads all
    flags back once (the model's input check ran before the first stage)."""
    assert counts["conditions_fast"] == 1


def test_exact_conditions_cost_at_most_one_sync_per_stage(counts):
    assert 1 < counts["conditions_exact"] <= counts["stages"]


def test_display_step_and_heads_budgets(counts):
    """(c) One display step: slice and its stats packed (1), whole-tensor stats (1); all heads (1)."""
    assert counts["display_step"] == 2 and counts["heads"] == 1


def test_fast_mode_moves_back_to_the_first_hit_after_the_pass():
    loaded = load_model("random")
    with torch.no_grad():
        loaded.model.transformer.decoder.layers[0].mask_attention.wv.weight[3, 5] = float("nan")
    session = DebugSession(ReferenceAdapter(loaded), {"src": "I love you", "tgt": "我 爱 你"})
    stepper = session.stepper
    events = []
    stepper.subscribe(events.append)
    stepper.set_condition_mode(FAST)
    stepper.start()
    stepper.wait()
    stepper.add_breakpoint(Breakpoint.on_nan())
    stepper.continue_()
    assert stepper.wait() == FINISHED
    # Downstream stages ran (the pass ended), the cursor shows the first stage with NaN.
    assert stepper.current.name == "dec.0.self_attn.v"
    assert events[-1].type == "finished" and events[-1].reason == "breakpoint"
    assert events[-1].breakpoint == Breakpoint.on_nan() and events[-1].capture.name == "dec.0.self_attn.v"
    # Walking on through history stops at the next stage with NaN, one sync for the walk.
    with HostSyncCounter() as syncs:
        stepper.continue_()
    assert stepper.current.name == "dec.0.self_attn.v_split" and syncs.count == 1
    session.close()


def test_fast_mode_pause_reports_an_earlier_hit(session):
    """A stage breakpoint downstream of a condition hit: the pass pauses there, the cursor shows the hit."""
    stepper = session.stepper
    stepper.set_condition_mode(FAST)
    stepper.start()
    stepper.wait()
    stepper.add_breakpoint(Breakpoint.on_abs_above(0.0))  # every stage with a non-zero value
    stepper.add_breakpoint(Breakpoint.on_stage("enc.0.attn.q"))
    stepper.continue_()
    assert stepper.wait() == PAUSED
    assert stepper.history[stepper.live_index].name == "enc.0.attn.q"
    assert stepper.current.name == "src.pe"  # the first stage after src.embed where |x| > 0


def test_all_heads_at_once_match_one_slice_per_head(session):
    captures, _ = session.capture_all()
    tensor = next(c for c in captures if c.name == "dec.0.self_attn.masked").tensor  # −∞ in masked cells
    heads = head_thumbnails(tensor, 2, 3, 1, {0: 0})
    for h in range(tensor.shape[1]):
        one = display_slice(tensor, 2, 3, {0: 0, 1: h})
        assert torch.equal(torch.from_numpy(heads.values[h]), torch.from_numpy(one.values))
        assert heads.neginf[h] == one.stats.neginf and heads.maxs[h] == pytest.approx(one.stats.max)
