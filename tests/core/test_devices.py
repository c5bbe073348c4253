"""The device and precision a model loads on by default, on a faked machine with GPUs (and without)."""

import pytest
import torch

from tfdebug.core.devices import (available_devices, default_device, gpu_memory, initial_device, initial_dtype,
                                  resolve_device)

GIB = 2**30


@pytest.fixture
def two_gpus(monkeypatch):
    """A machine with two CUDA GPUs the driver reports (free, total) for; cuda:0 computes in bfloat16."""
    memory = {0: (70 * GIB, 80 * GIB), 1: (3 * GIB, 16 * GIB)}
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    monkeypatch.setattr(torch.cuda, "device_count", lambda: 2)
    monkeypatch.setattr(torch.cuda, "mem_get_info", lambda index=None: memory[index])
    monkeypatch.setattr(torch.cuda, "is_bf16_supported", lambda including_emulation=True: not including_emulation)
    monkeypatch.setattr(torch.backends.mps, "is_available", lambda: False)
    return memory


@pytest.fixture
def no_gpu(monkeypatch):
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    monkeypatch.setattr(torch.backends.mps, "is_available", lambda: False)


def test_with_gpus_the_default_is_the_first_gpu(two_gpus):
    assert available_devices() == ["cpu", "cuda:0", "cuda:1"]
    assert default_device() == "cuda:0"
    assert resolve_device("auto") == torch.device("cuda:0") and resolve_device(None) == torch.device("cuda:0")
    assert resolve_device("cpu") == torch.device("cpu")  # --device cpu is still honoured


def test_without_a_gpu_the_default_is_the_cpu(no_gpu):
    assert available_devices() == ["cpu"] and default_device() == "cpu"
    assert initial_device(None, None) == "cpu" and initial_dtype(None, None, "cpu") == "float32"


def test_apples_backend_counts_as_the_gpu(monkeypatch):
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    monkeypatch.setattr(torch.backends.mps, "is_available", lambda: True)
    assert default_device() == "mps"
    assert initial_dtype(None, None, "mps") == "float32"  # bfloat16 is offered only where CUDA says it is native


def test_the_users_choice_wins_over_the_default(two_gpus):
    assert initial_device(None, None) == "cuda:0"                       # first start: the first GPU
    assert initial_device(None, "cpu") == "cpu"                         # chosen last time
    assert initial_device(None, "cuda:1") == "cuda:1"
    assert initial_device("cpu", "cuda:1") == "cpu"                     # --device cpu beats the memory
    assert initial_device("auto", "cpu") == "cuda:0"                    # --device auto asks for the default
    assert initial_device(None, "cuda:7") == "cuda:0"                   # remembered on a bigger machine
    assert initial_device("cuda:7", None) == "cuda:7"                   # given: kept, refused by name at load


def test_bfloat16_is_the_default_precision_on_a_gpu_that_computes_in_it(two_gpus, monkeypatch):
    assert initial_dtype(None, None, "cuda:0") == "bfloat16"
    assert initial_dtype(None, None, "cpu") == "float32"
    assert initial_dtype(None, "float32", "cuda:0") == "float32"        # the user's last choice wins
    assert initial_dtype("float16", "float32", "cuda:0") == "float16"   # --dtype wins over both
    monkeypatch.setattr(torch.cuda, "is_bf16_supported", lambda including_emulation=True: including_emulation)
    assert initial_dtype(None, None, "cuda:0") == "float32"             # an older GPU only emulates it


def test_gpu_memory_is_what_the_driver_reports(two_gpus, monkeypatch):
    assert gpu_memory("cuda:1") == (3 * GIB, 16 * GIB)
    assert gpu_memory("cpu") is None and gpu_memory("mps") is None

    def lost(index=None):
        raise RuntimeError("CUDA error: device unavailable")

    monkeypatch.setattr(torch.cuda, "mem_get_info", lost)
    assert gpu_memory("cuda:0") is None

