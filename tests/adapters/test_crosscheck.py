"""Where does half precision diverge? One input, one model, two dtypes, compared stage by stage (and live)."""

from __future__ import annotations

import json

import pytest
import torch

from tests.adapters.hf_tiny import gpt2, save_folder
from tfdebug.adapters.crosscheck import (Placement, compare_placements, default_tolerance, divergence_predicate,
                                         parse_against)
from tfdebug.adapters.registry import load_adapter
from tfdebug.adapters.session import DebugSession
from tfdebug.cli import main
from tfdebug.core.stepper import PAUSED

TEXT = {"prompt": "I love you the cat sat on the mat"}
OVERFLOWS_AT = "dec.1.self_attn.scores"


@pytest.fixture(scope="module")
def plain(tmp_path_factory):
    return save_folder(gpt2(), tmp_path_factory.mktemp("plain"))


@pytest.fixture(scope="module")
def overflowing(tmp_path_factory):
    """Layer 1's query and key weights scaled up 3,000×: its Q·Kᵀ passes float16's 65,504 (±Inf) while Q and K
    themselves stay in range."""
    model = gpt2()
    with torch.no_grad():
        model.transformer.h[1].attn.c_attn.weight[:, :64] *= 3000.0  # (n_embd, 3·n_embd): the q and k columns
    return save_folder(model, tmp_path_factory.mktemp("overflow"))


def test_against_names_a_dtype_a_device_or_both():
    other = Placement("bfloat16", "cpu")
    assert parse_against("float32", other) == Placement("float32", "cpu")
    assert parse_against("cuda:0", other) == Placement("bfloat16", "cuda:0")
    assert parse_against("float32@cuda:1", other) == Placement("float32", "cuda:1")
    assert default_tolerance(torch.float32, torch.bfloat16) == (5e-2, 1e-1)


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_rounding_alone_is_not_divergence(plain, dtype):
    result = compare_placements(f"hf:{plain}", TEXT, Placement("float32"), Placement(dtype))
    assert result.first_divergent is None and len(result.stages) > 40
    assert all(s.dtype_a == "float32" and s.dtype_b == dtype for s in result.stages if s.name != "tok.ids")
    assert max(s.rel_error for s in result.stages) > 0  # the passes do differ, within tolerance


def test_an_fp16_overflow_is_named_at_the_stage_where_it_first_overflows(overflowing):
    result = compare_placements(f"hf:{overflowing}", TEXT, Placement("float32"), Placement("float16"))
    first = result.first_divergent
    assert first.name == OVERFLOWS_AT and first.mismatched > 0 and first.max_abs == float("inf")
    names = [s.name for s in result.stages]
    assert not any(s.diverges for s in result.stages[:names.index(OVERFLOWS_AT)])


def test_the_divergence_breakpoint_stops_a_live_pass_there(overflowing):
    reference_session = DebugSession(load_adapter(f"hf:{overflowing}"), TEXT)
    captures, _ = reference_session.capture_all()
    found = []
    session = DebugSession(load_adapter(f"hf:{overflowing}", dtype="float16"), TEXT)
    stepper = session.stepper
    stepper.start()
    assert stepper.wait() == PAUSED
    stepper.run_until(divergence_predicate({c.name: c for c in captures}, *default_tolerance(
        torch.float32, torch.float16), found=found.append), "diverges")
    assert stepper.wait() == PAUSED and stepper.current.name == OVERFLOWS_AT
    assert torch.isinf(stepper.current.tensor).any() and found[0].name == OVERFLOWS_AT
    stepper.stop()


def test_cli_diff_against_float32(overflowing, plain, capsys):
    code = main(["diff", "--model", f"hf:{overflowing}", "--dtype", "float16", "--against", "float32",
                 "--input", f"prompt={TEXT['prompt']}"])
    out = capsys.readouterr().out
    assert code == 1 and f"first divergent stage: {OVERFLOWS_AT}" in out and "float16 on cpu" in out
    assert main(["diff", "--model", f"hf:{plain}", "--dtype", "bfloat16", "--against", "float32", "--json",
                 "--stages", "dec.*.self_attn.probs"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["first_divergent"] is None and [s["name"] for s in doc["stages"]] == [
        "dec.0.self_attn.probs", "dec.1.self_attn.probs"] and (doc["atol"], doc["rtol"]) == (5e-2, 1e-1)
    assert main(["diff", "a.safetensors", "--against", "float32"]) == 2
    assert "not both" in capsys.readouterr().err
