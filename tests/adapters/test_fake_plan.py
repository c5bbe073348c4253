"""Planning a pass with fake tensors (shapes only, no arithmetic), and by running it where a forward reads values."""

from __future__ import annotations

import torch

from tests.adapters.hf_tiny import llama, save_folder
from tfdebug.adapters.registry import load_adapter
from tfdebug.sessions.session import DebugSession
from tfdebug.core.recipes import is_plane
from tfdebug.core.recorder import Recorder, _fake_plan, stage_plan


def _described(captures):
    return [(c.name, c.shape, c.dtype, c.device, c.info) for c in captures]


def _real(adapter, prepared):
    with torch.no_grad(), Recorder(adapter.module, keep=False) as rec:
        adapter.forward(prepared)
    return rec.captures


def test_a_hugging_face_model_is_planned_with_fake_tensors_and_runs_for_real_after(tmp_path):
    adapter = load_adapter(f"hf:{save_folder(llama(), tmp_path)}", dtype="bfloat16")
    prepared = adapter.prepare({"prompt": "I love you"})
    fake = _fake_plan(adapter.module, lambda: adapter.forward(prepared))
    assert fake is not None and _described(fake) == _described(_real(adapter, prepared))
    assert all(c.tensor is None for c in fake)
    session = DebugSession(adapter, {"prompt": "I love you"})  # nothing fake is left behind in the model
    captures, _ = session.capture_all()
    assert session.verification.ok and all(type(c.tensor) is torch.Tensor or is_plane(c.tensor) for c in captures)


def test_a_forward_that_reads_values_is_planned_by_running_it():
    adapter = load_adapter("random")  # the reference model reads tensor values in Python (a branch on a tensor)
    prepared = adapter.prepare(adapter.default_texts())
    assert _fake_plan(adapter.module, lambda: adapter.forward(prepared)) is None
    assert _described(stage_plan(adapter.module, lambda: adapter.forward(prepared))) == _described(
        _real(adapter, prepared))
