"""Host-sync budgets, counted on the CPU (tfdebug.bench.syncs patches every call that would
make the host wait for a GPU): a captured forward, every condition breakpoint set, one
display step."""

import pytest
import torch

from tfdebug.bench.syncs import HostSyncCounter
from tfdebug.core.breakpoints import Breakpoint
from tfdebug.core.display import display_slice, head_thumbnails, tensor_stats
from tfdebug.core.recorder import Recorder
from tfdebug.core.stepper import EXACT, FAST, FINISHED, PAUSED
from tfdebug.models.loader import load_model
from tfdebug.adapters.reference import ReferenceAdapter
from tfdebug.adapters.session import DebugSession

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


def test_captured_forward_syncs_once(session):
    """(a) One sync per captured forward: the model's own input check; capturing adds none."""
    adapter, prepared = session.adapter, session.prepared
    with torch.no_grad():
        adapter.forward(prepared)
    with HostSyncCounter() as syncs, torch.no_grad(), Recorder(adapter.module) as rec:
        adapter.forward(prepared)
    assert len(rec.captures) > 100
    assert syncs.count == 1, syncs.by_kind


def _continue_counted(session, mode):
    stepper = session.stepper
    stepper.set_condition_mode(mode)
    stepper.start()
    assert stepper.wait() == PAUSED
    for bp in ALL_CONDITIONS:
        stepper.add_breakpoint(bp)
    with HostSyncCounter() as syncs:
        stepper.continue_()
        assert stepper.wait() == FINISHED
    return syncs.count, len(stepper.history)


def test_fast_conditions_cost_one_sync_per_forward(session):
    """(b) Every condition set, fast mode: Continue from the first stage to the end reads all
    flags back once (the model's input check ran before the first stage)."""
    count, stages = _continue_counted(session, FAST)
    assert stages > 100 and count == 1


def test_exact_conditions_cost_at_most_one_sync_per_stage(session):
    count, stages = _continue_counted(session, EXACT)
    assert count <= stages


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
    assert stepper.current.name == "src.pos"  # the first stage after src.embed where |x| > 0


def test_display_step_budget(session):
    """(c) One display step: slice and its stats packed (1), whole-tensor stats (1); all heads (1)."""
    with torch.no_grad(), Recorder(session.adapter.module) as rec:
        session.adapter.forward(session.prepared)
    tensor = rec["dec.0.self_attn.masked"].tensor  # (batch, head, query, key), −∞ in masked cells
    with HostSyncCounter() as syncs:
        shown = display_slice(tensor, 2, 3, {0: 0, 1: 1})
        stats = tensor_stats(tensor)
    assert syncs.count == 2, syncs.by_kind
    with HostSyncCounter() as syncs:
        heads = head_thumbnails(tensor, 2, 3, 1, {0: 0})
    assert syncs.count == 1, syncs.by_kind
    assert heads.values.shape[0] == tensor.shape[1] and stats.neginf == int(torch.isneginf(tensor).sum())
    assert shown.stats.neginf == int(heads.neginf[1])
