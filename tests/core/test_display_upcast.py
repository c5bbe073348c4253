"""Display math upcasts only the shown slice (issue 26): a bfloat16 or float16 stage stays in its dtype, and
the float32 copy display_slice makes holds the shown plane's elements, never the whole tensor's.
Checked with torch's own dispatch hook, which sees every dtype conversion torch runs."""

from __future__ import annotations

import pytest
import torch
from torch.utils._python_dispatch import TorchDispatchMode

from tfdebug.core.display import display_slice


class _Conversions(TorchDispatchMode):
    """Records (elements, from dtype, to dtype) of every dtype conversion torch runs inside the block."""

    def __init__(self):
        super().__init__()
        self.seen: list[tuple[int, torch.dtype, torch.dtype]] = []

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        out = func(*args, **kwargs)
        source = args[0] if args and isinstance(args[0], torch.Tensor) else None
        if source is not None and isinstance(out, torch.Tensor) and out.dtype != source.dtype:
            self.seen.append((source.numel(), source.dtype, out.dtype))
        return out


@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float16])
@pytest.mark.parametrize("kind", [None, "softmax", "mask"])
def test_only_the_shown_plane_is_upcast(dtype, kind):
    stage = torch.randn(2, 8, 96, 96).to(dtype)  # (batch, head, query, key): 16 planes
    before = stage.clone()
    with _Conversions() as conversions:
        shown = display_slice(stage, 2, 3, {0: 1, 1: 5}, max_size=(32, 32), kind=kind)
    plane = 96 * 96
    upcasts = [c for c in conversions.seen if c[1] == dtype]
    assert upcasts, "the shown plane is converted once, to float32"
    assert all(numel <= plane for numel, _, _ in upcasts)  # never the whole 16-plane tensor
    assert stage.dtype == dtype and torch.equal(stage, before)  # the stage keeps its dtype and values
    assert shown.values.shape == (32, 32) and shown.values.dtype.name == "float32"
    expected = stage[1, 5].float()
    assert shown.stats.max == pytest.approx(float(expected.max())) and shown.stats.count == plane


def test_the_hook_sees_a_whole_tensor_conversion():
    """The instrument is not blind: the whole-tensor stats (the Stats panel's left column, computed only for
    stages under the window's large-stage limit) do convert the whole tensor, and the hook sees it."""
    from tfdebug.core.stats import tensor_stats

    stage = torch.randn(2, 8, 96, 96).to(torch.bfloat16)
    with _Conversions() as conversions:
        tensor_stats(stage)
    assert (stage.numel(), torch.bfloat16, torch.float32) in conversions.seen
