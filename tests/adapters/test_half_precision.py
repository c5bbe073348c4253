"""Models loaded in bfloat16 / float16 (`--dtype`, `--device-map`) on the CPU: stages keep the dtype, checks hold."""

from __future__ import annotations

import pytest
import torch

from tests.adapters.hf_tiny import gpt2, llama, save_folder
from tfdebug.adapters.registry import load_adapter
from tfdebug.sessions.session import DebugSession
from tfdebug.cli import main
from tfdebug.core.checks import stage_checks
from tfdebug.core.errors import ConfigError

pytest.importorskip("accelerate")


@pytest.fixture(scope="module", params=["gpt2", "llama"])
def folder(request, tmp_path_factory):
    return save_folder({"gpt2": gpt2, "llama": llama}[request.param](), tmp_path_factory.mktemp(request.param))


@pytest.mark.parametrize("dtype", ["bfloat16", "float16"])
def test_half_precision_stages_keep_their_dtype_and_pass_their_checks(folder, dtype):
    adapter = load_adapter(f"hf:{folder}", dtype=dtype, device_map="cpu")
    session = DebugSession(adapter, {"prompt": "I love you"})
    captures, _ = session.capture_all()
    assert session.verification.ok, session.verification.describe()
    floats = [c for c in captures if c.tensor.is_floating_point()]
    assert {c.dtype for c in floats} == {getattr(torch, dtype)} and {str(c.device) for c in captures} == {"cpu"}
    by_name = {c.name: c for c in captures}
    checked = failed = 0
    for c in captures:
        for check in stage_checks(c.info, c.tensor, by_name.get):
            checked += 1
            failed += check.ok is False
    assert checked > 10 and failed == 0


def test_a_model_of_another_kind_takes_cpu_and_auto_maps_but_not_balanced():
    assert load_adapter("random", device_map="cpu").device.type == "cpu"
    assert load_adapter("random", device_map="auto", dtype="bfloat16").dtype == torch.bfloat16
    with pytest.raises(ConfigError) as err:
        load_adapter("random", device_map="balanced")
    assert err.value.id == "device_map.single_device"
    with pytest.raises(ConfigError):
        load_adapter("random", device_map="everywhere")


def test_cli_stages_in_bfloat16(folder, capsys):
    assert main(["stages", "--model", f"hf:{folder}", "--dtype", "bfloat16", "--device-map", "cpu",
                 "--input", "prompt=I love you", "--stages", "dec.0.self_attn.*"]) == 0
    out = capsys.readouterr().out
    assert "bfloat16" in out and "float32" not in out.split("\n", 1)[1]
