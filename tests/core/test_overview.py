"""Per-stage statistics across a pass and the layer boundaries the Overview marks."""

import math

import pytest
import torch

from tfdebug.adapters.reference import ReferenceAdapter
from tfdebug.sessions.session import DebugSession
from tfdebug.core.overview import MAX_ABS, RMS, StatisticsCache, layer_starts, stage_statistics
from tfdebug.core.recorder import Capture
from tfdebug.core.stages import StageInfo


def cap(name, tensor, kind="residual"):
    return Capture.of(StageInfo(name, kind, "enc", None, (), "x"), tensor)


def test_rms_and_max_abs_leave_masked_and_non_finite_cells_out():
    x = torch.tensor([[3.0, -4.0, float("-inf"), float("nan")]])
    rms, = stage_statistics([cap("a", x, "mask")], RMS)
    top, = stage_statistics([cap("a", x, "mask")], MAX_ABS)
    assert rms == pytest.approx(math.sqrt((9 + 16) / 2)) and top == 4.0
    fmin = torch.tensor([[1.0, torch.finfo(torch.float32).min]])
    assert stage_statistics([cap("m", fmin, "mask")], MAX_ABS) == [1.0]  # a finfo.min mask is masked
    assert math.isnan(stage_statistics([cap("e", torch.full((2,), float("-inf")))], RMS)[0])  # nothing finite


def test_a_whole_pass_in_forward_order(loaded):
    captures, _ = DebugSession(ReferenceAdapter(loaded), {"src": "I love you", "tgt": "我 爱 你"}).capture_all()
    values = stage_statistics(captures, MAX_ABS)
    assert len(values) == len(captures)
    for capture, value in zip(captures[:5], values):
        assert value == capture.tensor.abs().max().item()
    marks = dict(layer_starts([c.name for c in captures]))
    names = [c.name for c in captures]
    assert {marks[names.index("enc.0.attn.norm")], marks[names.index("enc.1.attn.norm")],
            marks[names.index("dec.1.self_attn.norm")], marks[names.index("logits")]} == {
        "enc.0", "enc.1", "dec.1", "head"}
    assert names.index("src.pos") not in marks  # src.embed and src.pos are one group


def test_a_statistics_cache_knows_a_stage_as_its_tensor_is_now():
    """Kept by tensor identity (an edit makes a new tensor: not known), by name for a stage read from its file, and
    by the capture itself when a served pass's display says so."""
    a, b = cap("a", torch.ones(3)), cap("b", torch.ones(3))
    cache = StatisticsCache()
    assert cache.known([a, b], RMS) == [None, None]
    cache.keep([a], RMS, [1.0])
    assert cache.known([a, b], RMS) == [1.0, None] and cache.known([a], MAX_ABS) == [None]
    a.tensor = torch.full((3,), 2.0)  # edited: another tensor
    assert cache.known([a], RMS) == [None]
    unread = cap("c", torch.ones(2))
    unread.tensor = None  # a snapshot's stage not read yet
    cache.keep([unread], RMS, [3.0])
    assert cache.known([unread], RMS) == [3.0]
    served = StatisticsCache(lambda capture: capture)
    served.keep([unread], RMS, [4.0])
    assert served.known([unread], RMS) == [4.0] and served.known([cap("c", torch.ones(2))], RMS) == [None]

