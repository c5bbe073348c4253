"""A Tap's call: the first one remembers the model line that made its input, later ones change nothing; nn.Module
hooks (a module's own and the process-wide ones) still run; the attached hook sees the tensor and may replace it."""

import torch
from torch.nn.modules import module as torch_module

from tfdebug.core.recorder import Capture
from tfdebug.core.tap import Tap


def _tap() -> Tap:
    return Tap("dec.0.self_attn.q", "q_proj", ("batch", "token", "model"), "x·W_Q")


def test_the_first_call_notes_the_source_line_and_later_calls_keep_the_description():
    tap, x = _tap(), torch.randn(1, 2, 4)
    assert tap.info.source is None
    assert tap(x) is x  # no hook: the input itself
    info = tap.info
    assert info.source is not None and info.source.startswith("tests/core/test_tap.py:")
    assert tap(x) is x and tap.info is info  # nothing made again


def test_module_hooks_own_and_global_run_and_the_attached_hook_sees_their_result():
    tap, x = _tap(), torch.ones(1, 2, 4)
    seen: list[torch.Tensor] = []
    tap.attach(lambda _tap, t: seen.append(t) or t * 3)
    own = tap.register_forward_hook(lambda _m, _args, out: out + 1)
    try:
        assert torch.equal(tap(x), (x + 1) * 3) and torch.equal(seen[-1], x + 1)
    finally:
        own.remove()
    everywhere = torch_module.register_module_forward_hook(lambda _m, _args, out: out * 2)
    try:
        assert torch.equal(tap(x), x * 2 * 3) and torch.equal(seen[-1], x * 2)
    finally:
        everywhere.remove()
    assert torch.equal(tap(x), x * 3) and tap.info.source is not None


def test_a_capture_of_a_tensor_and_of_a_plane():
    from tfdebug.core.recipes import Scores

    info = _tap().info
    x = torch.randn(1, 2, 4, requires_grad=True)
    capture = Capture.of(info, x)
    assert (capture.info, capture.shape, capture.dtype, capture.device) == (info, (1, 2, 4), x.dtype, x.device)
    assert type(capture.shape) is tuple and capture.tensor is not None and not capture.tensor.requires_grad
    assert not (capture.recipe or capture.edited or capture.dropped)
    assert Capture.of(info, x, keep=False).tensor is None
    plane = Scores(torch.randn(1, 2, 3, 4), torch.randn(1, 2, 5, 4))
    kept = Capture.of(info, plane)  # type: ignore[arg-type]  # a recipe stands where a tensor goes
    assert kept.recipe and kept.tensor is plane and kept.shape == (1, 2, 3, 5) and kept.held_nbytes == 0
