"""Recipe planes equal materialised ones bit for bit, on every captured architecture, in float32 and bfloat16.

Each architecture's pass is captured twice from the same input: once with the tokens² stages
as recipes (what tfdebug keeps) and once with them computed whole as eager attention does
(`planes_materialized`). Every recipe stage, computed whole, one head at a time and in bands of
query rows (as a zoomed tile or a query row reads it), equals the materialised tensor exactly
(`torch.equal`), and so does every other stage: the context computed head block by head block
changes nothing downstream. The prompt is long enough (~40 tokens) for a band to be a part of a head.
"""

from __future__ import annotations

import pytest
import torch

from tests.adapters import hf_archs, hf_tiny
from tests.adapters.test_hf_architectures import CAPTURED, TEXTS
from tfdebug.adapters.hf.adapter import wrap
from tfdebug.adapters.hf.planes import planes_materialized
from tfdebug.core import recipes
from tfdebug.core.recipes import is_plane
from tfdebug.sessions.session import DebugSession


# ~40 tokens: several bands of recipes.ROW_ALIGN query rows (the tiny models take 64 positions)
LONG = {kind: {field: " ".join([text] * 7) for field, text in texts.items()} for kind, texts in TEXTS.items()}


def _captures(adapter, arch, whole: bool):
    session = DebugSession(adapter, LONG[arch.kind])
    try:
        if whole:
            with planes_materialized():
                captures, _ = session.capture_all()
        else:
            captures, _ = session.capture_all()
    finally:
        session.close()
    return {c.name: c for c in captures}


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16], ids=["float32", "bfloat16"])
@pytest.mark.parametrize("arch", CAPTURED, ids=[a.model_type for a in CAPTURED])
def test_recipe_planes_equal_materialised_planes_bit_for_bit(arch, dtype, monkeypatch):
    monkeypatch.setattr(recipes, "BLOCK_BYTES", 1)  # one head per block, as at long context
    model = hf_archs.build(arch).to(dtype)
    adapter = wrap(model, hf_tiny.word_tokenizer(arch.kind == "encoder"))
    lazy = _captures(adapter, arch, whole=False)
    whole = _captures(adapter, arch, whole=True)
    assert list(lazy) == list(whole)
    planes = [n for n, c in lazy.items() if c.recipe]
    if adapter.plan.own_sites:  # attention in the model's own code: its planes are the model's own tensors
        assert planes == []
    elif "sinks" not in arch.shows:
        assert {n.rsplit(".", 1)[1] for n in planes} >= {"scores", "scaled", "probs"}, arch.model_type
    for name, capture in lazy.items():
        expected = whole[name].tensor
        assert not whole[name].recipe
        if capture.recipe:
            plane = capture.tensor
            assert is_plane(plane) and capture.held_nbytes == 0
            assert plane.dtype == expected.dtype and tuple(plane.shape) == tuple(expected.shape), name
            assert torch.equal(plane.materialize(), expected), name
            last = plane.shape[1] - 1
            assert torch.equal(plane[0, last], expected[0, last]), name  # one head, as a heatmap reads it
            assert torch.equal(plane[0, 0, 1:3, :2], expected[0, 0, 1:3, :2]), name
            rows = plane.shape[2]
            for band in (slice(rows - 1, rows), slice(rows // 2, rows // 2 + 5), slice(17, rows), slice(0, 1)):
                assert torch.equal(plane[0, last, band], expected[0, last, band]), (name, band)
            assert torch.equal(plane[0, last, rows - 2], expected[0, last, rows - 2]), name  # one query's row
            assert torch.equal(plane[0, last, 3::5, ::2], expected[0, last, 3::5, ::2]), name  # a thumbnail's grid
            assert torch.equal(plane[0, last, 1::2], expected[0, last, 1::2]), name  # 16 rows or more: gathered
            for step in plane.steps()[:-1]:  # a step of the chain from the same computation (a softmax's mask)
                index = (0, last, slice(rows // 3, rows // 3 + 2), slice(1, 4))
                part, also = plane.tile(index, also=step)
                assert torch.equal(part, expected[index]) and torch.equal(also, step.materialize()[index]), name
                index = (0, last, slice(1, None, 3))  # strided rows: band by band, the step's from each band
                part, also = plane.tile(index, also=step)
                assert torch.equal(part, expected[index]) and torch.equal(also, step.materialize()[index]), name
        else:
            assert torch.equal(capture.tensor, expected), name
