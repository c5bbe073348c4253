"""The Recorder attaches hooks for one block, keeps detached tensors, and always removes its hooks."""

import gc
import subprocess
import sys
import weakref
from pathlib import Path

import pytest
import torch

from tfdebug.core.recorder import Recorder, held_bytes, stage_plan
from tfdebug.core.tap import iter_taps
from tfdebug.models.loader import random_model


def hook_count(model):
    return sum(t.hook is not None for t in iter_taps(model))


def test_hooks_removed_after_a_forward_that_raised():
    model, _, _ = random_model()
    model.eval()

    def explode(module, inputs, output):
        raise RuntimeError("boom in the FFN")

    handle = model.transformer.encoder.layers[0].feed_forward.w2.register_forward_hook(explode)
    try:
        with pytest.raises(RuntimeError, match="boom"):
            with Recorder(model) as rec:
                model(torch.tensor([[4, 5]]), torch.tensor([[1, 4]]))
        assert hook_count(model) == 0
        assert rec.names()[-1] == "enc.0.ffn.hidden"  # what ran before the failure was kept
    finally:
        handle.remove()


def test_hooks_removed_after_normal_exit_and_output_unchanged():
    model, _, _ = random_model()
    model.eval()
    with Recorder(model):
        assert hook_count(model) == len(list(iter_taps(model)))
    assert hook_count(model) == 0


def test_captured_data_holds_no_model_reference():
    model, _, _ = random_model()
    model.eval()
    with torch.no_grad(), Recorder(model) as rec:
        model(torch.tensor([[4, 5]]), torch.tensor([[1, 4]]))
    ref = weakref.ref(model)
    captures = rec.captures
    del model
    gc.collect()
    assert ref() is None
    assert len(captures) > 100 and captures[0].tensor is not None


def test_plan_lists_stages_without_keeping_tensors():
    model, _, _ = random_model()
    model.eval()
    plan = stage_plan(model, lambda: model(torch.tensor([[4, 5, 6]]), torch.tensor([[1, 4]])))
    assert plan[0].name == "src.embed" and plan[-1].name == "logits"
    assert all(c.tensor is None for c in plan)
    assert plan[-1].shape == (1, 2, model.args.vocab_size)


def test_held_bytes_counts_shared_storage_once():
    model, _, _ = random_model()
    model.eval()
    with torch.no_grad(), Recorder(model) as rec:
        model(torch.tensor([[4, 5, 6]]), torch.tensor([[1, 4]]))
    total = sum(c.nbytes for c in rec.captures)
    held = held_bytes(rec.captures)
    # Head splits are views of the projections, so fewer bytes are held than the stages' sum.
    assert 0 < held < total


_FAULTS_SCRIPT = """
import resource, sys, threading, torch
from tfdebug.core.memory import keep_freed_memory
from tfdebug.core.recorder import Recorder
from tfdebug.models.loader import random_model

tuned = keep_freed_memory()  # the application's opt-in (Recorder itself changes nothing)
model, _, _ = random_model(n_embd=128, n_heads=4, n_layer=2, max_seq_len=128)
model.eval()
src, tgt = torch.randint(4, 20, (1, 128)), torch.randint(4, 20, (1, 128))

def capture():
    with torch.no_grad(), Recorder(model) as rec:
        model(src, tgt)
    return sum(c.nbytes for c in rec.captures)

def capture_in_a_new_thread():  # as the stepper does: one worker thread per pass
    sizes = []
    worker = threading.Thread(target=lambda: sizes.append(capture()))
    worker.start()
    worker.join()
    return sizes[0]

for run in (capture, capture_in_a_new_thread):
    run()
    run()
    before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
    size = run()
    faults = resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before
    print(run.__name__, tuned, faults * 4096, size)
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc tuning is Linux-only")
def test_repeated_captures_reuse_freed_pages():
    """With the opt-in, captures after the first page-fault almost nothing (glibc keeps freed memory).

    Run in a fresh interpreter: the allocator's state depends on everything a process did before.
    """
    out = subprocess.run([sys.executable, "-c", _FAULTS_SCRIPT], capture_output=True, text=True, timeout=120,
                         cwd=Path(__file__).resolve().parents[2])
    assert out.returncode == 0, out.stderr[-2000:]
    for line in out.stdout.splitlines():
        name, tuned, faulted, size = line.split()
        if tuned == "True":
            assert int(faulted) < int(size) / 10, line


def test_recorder_errors_are_typed_sentences(loaded, pair):
    from tfdebug.core.errors import RecorderBusyError, UnknownStageError
    from tfdebug.core.recorder import Recorder

    with Recorder(loaded.model) as rec:
        with pytest.raises(RecorderBusyError, match="stop that pass first"):
            Recorder(loaded.model).__enter__()
    with pytest.raises(UnknownStageError):
        rec["no.such.stage"]
