"""compare(): per-stage numbers, the first divergent stage, masks, stages in one pass only, shapes."""

import math

import pytest
import torch

from tfdebug.adapters.reference import ReferenceAdapter
from tfdebug.sessions.session import DebugSession
from tfdebug.core.compare import COMPARED, ONLY_A, ONLY_B, SHAPE, compare, difference, merged_order
from tfdebug.core.recorder import Capture
from tfdebug.core.stages import StageInfo


def cap(name, tensor, kind="residual"):
    axes = ("batch", "token", "model")[-tensor.dim():] if tensor.dim() <= 3 else ()
    return Capture.of(StageInfo(name, kind, name.split(".")[0], None, axes, "x"), tensor)


def test_numbers_match_a_direct_computation():
    torch.manual_seed(0)
    a = torch.randn(2, 5, 7)
    b = a + torch.randn(2, 5, 7) * 1e-3
    result = compare([cap("s", a)], [cap("s", b)], atol=1e-3, rtol=0.0)
    row = result["s"]
    delta = (a.double() - b.double()).abs()
    assert row.status == COMPARED and row.cells == 70
    assert row.max_abs == pytest.approx(delta.max().item())
    assert row.mean_abs == pytest.approx(delta.mean().item())
    assert row.rel_error == pytest.approx((delta.norm() / a.double().norm()).item())
    assert row.over_share == pytest.approx((delta > 1e-3).double().mean().item())
    assert row.diverges == bool((delta > 1e-3).any())


def test_tolerance_is_atol_plus_rtol_times_a_elementwise():
    a = torch.tensor([[100.0, 1.0]])
    b = torch.tensor([[100.05, 1.0]])  # 5e-4 relative: within rtol 1e-3 of |A| = 100
    assert not compare([cap("s", a)], [cap("s", b)], atol=0.0, rtol=1e-3).first_divergent
    b = torch.tensor([[100.0, 1.05]])  # the same |Δ| on a small cell is over
    result = compare([cap("s", a)], [cap("s", b)], atol=0.0, rtol=1e-3)
    assert result.first_divergent.name == "s" and result["s"].over_share == 0.5


def test_first_divergent_is_first_in_forward_order():
    x = torch.ones(3, 4)
    a = [cap(n, x) for n in ("s0", "s1", "s2", "s3")]
    b = [cap("s0", x), cap("s1", x), cap("s2", x + 1e-2), cap("s3", x + 1.0)]
    result = compare(a, b)
    assert [r.name for r in result.stages] == ["s0", "s1", "s2", "s3"]
    assert result.first_divergent.name == "s2"
    assert [r.diverges for r in result.stages] == [False, False, True, True]
    assert result.differs


def test_masked_cells_equal_in_both_count_as_equal():
    neg = float("-inf")
    a = torch.tensor([[1.0, neg], [2.0, neg]])
    assert compare([cap("m", a, "mask")], [cap("m", a.clone(), "mask")]).first_divergent is None
    # finfo.min masks (many real models) in a mask stage, each pass by its own dtype
    a32 = torch.tensor([[1.0, torch.finfo(torch.float32).min]])
    a16 = torch.tensor([[1.0, torch.finfo(torch.float16).min]], dtype=torch.float16)
    row = compare([cap("m", a32, "mask")], [cap("m", a16, "mask")])["m"]
    assert not row.diverges and row.max_abs == 0.0 and row.mismatched == 0
    # outside a mask stage finfo.min is just a (huge) number
    assert compare([cap("r", a32)], [cap("r", a16)]).first_divergent.name == "r"


def test_a_cell_masked_in_one_pass_only_diverges():
    a = torch.tensor([[1.0, float("-inf")]])
    b = torch.tensor([[1.0, 0.5]])
    row = compare([cap("m", a, "mask")], [cap("m", b, "mask")])["m"]
    assert row.diverges and row.mismatched == 1 and math.isinf(row.max_abs) and row.over_share == 0.5
    assert row.mean_abs == 0.0  # over the cells finite in both
    nan = torch.tensor([[float("nan"), 1.0]])
    assert compare([cap("n", nan)], [cap("n", nan.clone())]).first_divergent is None
    assert compare([cap("n", nan)], [cap("n", torch.ones(1, 2))])["n"].mismatched == 1


def test_stages_in_one_pass_or_of_other_shapes_are_listed_not_compared():
    a = [cap("s0", torch.ones(2, 3)), cap("a_only", torch.ones(2)), cap("s1", torch.ones(2, 3))]
    b = [cap("s0", torch.ones(2, 3)), cap("s1", torch.ones(2, 4)), cap("b_only", torch.ones(1))]
    result = compare(a, b)
    assert [(r.name, r.status) for r in result.stages] == [
        ("s0", COMPARED), ("a_only", ONLY_A), ("s1", SHAPE), ("b_only", ONLY_B)]
    shape = result["s1"]
    assert shape.shape_a == (2, 3) and shape.shape_b == (2, 4) and shape.max_abs is None
    assert result.first_divergent is None and result.differs  # a shape mismatch is a difference


def test_merged_order_places_stages_of_b_after_their_predecessor():
    assert merged_order(["a", "b", "d"], ["a", "b", "c", "d", "e"]) == ["a", "b", "c", "d", "e"]
    assert merged_order(["b"], ["x", "b"]) == ["x", "b"]


def test_bad_tolerances_are_refused():
    with pytest.raises(ValueError):
        compare([], [], atol=-1.0)
    assert compare([], []).stages == ()


def test_two_passes_of_the_model_on_different_inputs(loaded):
    adapter = ReferenceAdapter(loaded)
    a, _ = DebugSession(adapter, {"src": "I love you", "tgt": "我 爱 你"}).capture_all()
    b, _ = DebugSession(adapter, {"src": "I love apples", "tgt": "我 爱 你"}).capture_all()
    c, _ = DebugSession(adapter, {"src": "I love", "tgt": "我 爱 你"}).capture_all()
    same = compare(a, [Capture(x.info, x.shape, x.dtype, x.device, x.tensor.clone()) for x in a])
    assert same.first_divergent is None and not same.differs and len(same.stages) == len(a)
    other_word = compare(a, b)
    assert other_word.first_divergent.name == "src.embed"  # only the last source word differs
    shorter = compare(a, c)
    assert shorter["src.embed"].status == SHAPE and shorter["tgt.embed"].status == COMPARED
    assert not shorter["tgt.embed"].diverges  # the decoder's input is the same sentence


def test_difference_for_the_diff_heatmap():
    inf = float("inf")
    a = torch.tensor([[1.0, -inf, -inf, 2.0, float("nan")]])
    b = torch.tensor([[0.25, -inf, 3.0, 2.0, float("nan")]])
    d = difference(a, b, "mask")
    assert d.dtype == torch.float32 and d.shape == a.shape
    assert d[0, 0] == 0.75 and d[0, 1] == -inf  # masked in both: drawn as masked
    assert torch.isnan(d[0, 2]) and d[0, 3] == 0 and d[0, 4] == 0  # masked in A only: NaN; NaN in both: equal


def test_compare_where_the_tensors_live(device):
    torch.manual_seed(1)
    a = torch.randn(3, 4, 5)
    b = a.clone()
    b[1, 2, 3] += 0.5
    mask = torch.triu(torch.full((4, 4), float("-inf")), 1)
    on_cpu = compare([cap("s", a), cap("m", mask, "mask")], [cap("s", b), cap("m", mask.clone(), "mask")])
    there = compare([cap("s", a.to(device)), cap("m", mask.to(device), "mask")],
                    [cap("s", b.to(device)), cap("m", mask.clone().to(device), "mask")])
    assert there.first_divergent.name == "s" and not there["m"].diverges
    assert there["s"].max_abs == pytest.approx(on_cpu["s"].max_abs) == pytest.approx(0.5)
    assert difference(a.to(device), b.to(device), "residual").device.type == torch.device(device).type
