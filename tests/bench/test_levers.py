"""The reused-buffers lever: copies equal to what the model made, views sharing one copy,
buffers reused across passes only once nothing holds them (no timing asserted here)."""

import torch

from tfdebug.bench.capture import TINY, build
from tfdebug.bench.levers import ReusedBuffers, format_levers, lever_row
from tfdebug.core.recorder import Recorder


def _pass(model, src, tgt, reused):
    reused.start_pass()
    with torch.no_grad(), Recorder(model, on_capture=reused.keep) as rec:
        model(src, tgt)
    return rec.captures


def test_copies_match_the_model_and_buffers_are_reused_once_dropped():
    model, src, tgt = build(TINY, torch.device("cpu"))
    with torch.no_grad(), Recorder(model) as rec:
        model(src, tgt)
    reused = ReusedBuffers()
    first = _pass(model, src, tgt, reused)
    assert [c.name for c in first] == [c.name for c in rec.captures]
    for kept, made in zip(first, rec.captures):
        assert torch.equal(kept.tensor, made.tensor) and kept.tensor.shape == made.shape
    by_name = {c.name: c for c in first}
    # A head split is a view of its projection: one copy serves both, as one storage did.
    q, q_split = by_name["enc.0.attn.q"].tensor, by_name["enc.0.attn.q_split"].tensor
    assert q.untyped_storage().data_ptr() == q_split.untyped_storage().data_ptr()
    count, nbytes = len(reused.buffers), reused.nbytes

    held = _pass(model, src, tgt, reused)       # the first pass is still held: new buffers
    assert len(reused.buffers) == 2 * count
    del first, by_name, q, q_split, held
    again = _pass(model, src, tgt, reused)      # nothing holds them now: no new buffer
    assert len(reused.buffers) == 2 * count and reused.nbytes == 2 * nbytes
    assert all(torch.equal(a.tensor, b.tensor) for a, b in zip(again, rec.captures))


def test_the_lever_row_reports_every_variant_with_its_noise():
    row = lever_row(TINY, repeats=2)
    assert row["config"] == "tiny"
    for clock in ("wall", "cpu"):
        for name in ("capture_all", "reused", "plain_again"):
            assert row[f"{clock}_ratio_{name}"] > 0
    assert row["faults_reused"] >= 0 and row["reused_buffer_bytes"] > 0
    assert "reused buffers" in format_levers([row])[-1]


def test_the_lever_row_runs_on_the_sdpa_adapter_too():
    from tfdebug.bench.sdpa import TINY_SDPA

    row = lever_row(TINY_SDPA, repeats=2)
    assert row["config"].startswith("SDPA nn.TransformerEncoder 1x32") and row["reused_buffer_bytes"] > 0
