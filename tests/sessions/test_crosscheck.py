"""Where does half precision diverge? One input, one model, two dtypes, compared stage by stage (and live)."""

from __future__ import annotations

import json
import threading

import pytest
import torch

from tests.adapters.hf_tiny import gpt2, save_folder
from tests.adapters.overflow import MODULE, first_nonfinite_output, save_overflowing
from tests.adapters.overflow import TEXT as LLAMA_TEXT
from tfdebug.sessions.crosscheck import Placement, compare_placements, default_tolerance, fill_reference, parse_against
from tfdebug.adapters.registry import load_adapter
from tfdebug.sessions.session import DebugSession
from tfdebug.cli import main
from tfdebug.core.breakpoints import Breakpoint
from tfdebug.core.reference import ReferencePass
from tfdebug.core.stepper import EXACT, FAST, FINISHED, PAUSED

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


@pytest.mark.parametrize("mode", [EXACT, FAST])
def test_the_divergence_breakpoint_stops_a_live_pass_there(overflowing, mode):
    reference = ReferencePass("float32", "float32 on cpu")
    fill_reference(reference, f"hf:{overflowing}", TEXT, Placement("float32"))
    session = DebugSession(load_adapter(f"hf:{overflowing}", dtype="float16"), TEXT)
    stepper = session.stepper
    stepper.reference = reference
    stepper.set_condition_mode(mode)  # fast: one read-back after the pass, which then shows the first hit
    stepper.add_breakpoint(Breakpoint.on_divergence(*default_tolerance(torch.float32, torch.float16)))
    stepper.start()
    assert stepper.wait() == PAUSED
    stepper.continue_()
    assert stepper.wait() == (PAUSED if mode == EXACT else FINISHED) and stepper.current.name == OVERFLOWS_AT
    assert torch.isinf(stepper.current.tensor).any()
    assert torch.isfinite(reference.capture(OVERFLOWS_AT).tensor).all()
    stepper.stop()


@pytest.fixture(scope="module")
def llama_overflowing(tmp_path_factory):
    return save_overflowing(tmp_path_factory.mktemp("llama-overflow"))


def test_the_stage_named_is_where_plain_hooks_see_float16_overflow_first(llama_overflowing):
    """The first stage named, headless (tfdebug diff's comparison) and live (the divergence breakpoint, the
    reference still being computed on another thread when the pass starts), is the output of the first module
    whose float16 output is not finite, found with plain torch hooks on the unmodified model; in float32
    nothing overflows."""
    module, overflowed = first_nonfinite_output(llama_overflowing, torch.float16)
    assert module == MODULE and first_nonfinite_output(llama_overflowing, torch.float32) == (None, None)
    spec, text = f"hf:{llama_overflowing}", {"prompt": LLAMA_TEXT}
    headless = compare_placements(spec, text, Placement("float32"), Placement("float16")).first_divergent
    reference = ReferencePass("float32", "float32 on cpu", limit=None)
    session = DebugSession(load_adapter(spec, dtype="float16"), text)
    stepper = session.stepper
    stepper.reference = reference
    stepper.add_breakpoint(Breakpoint.on_divergence(1e-2, 2e-2))
    stepper.start()  # the pass waits for the reference at its first floating-point stage
    worker = threading.Thread(target=fill_reference, args=(reference, spec, text, Placement("float32")))
    worker.start()
    worker.join(60)
    assert stepper.wait(60) == PAUSED and not reference.error
    stepper.continue_()
    assert stepper.wait(60) == PAUSED
    live = stepper.current
    assert headless.name == live.name == "dec.1.self_attn.v" and headless.mismatched > 0
    # the tensor the hook saw: the same Inf cells, the finite ones within float16 rounding of the layer's input
    # times the scaled weight (the unmodified model runs layer 0's attention through SDPA, tfdebug through
    # eager's arithmetic: an ulp apart there)
    assert torch.equal(torch.isinf(live.tensor), torch.isinf(overflowed)) and torch.isinf(overflowed).any()
    finite = overflowed[torch.isfinite(overflowed)].float()
    assert torch.allclose(live.tensor[torch.isfinite(overflowed)].float(), finite, atol=1e-3 * finite.abs().max())
    before = stepper.history[:-1]
    assert all(torch.isfinite(c.tensor).all() for c in before if c.tensor.is_floating_point())
    stepper.stop()


def test_cli_diff_names_the_same_stage(llama_overflowing, capsys):
    code = main(["diff", "--model", f"hf:{llama_overflowing}", "--dtype", "float16", "--against", "float32",
                 "--input", f"prompt={LLAMA_TEXT}"])
    assert code == 1 and "first divergent stage: dec.1.self_attn.v (max |Δ| inf;" in capsys.readouterr().out


def test_stop_ends_a_wait_for_a_reference_that_never_comes(plain):
    session = DebugSession(load_adapter(f"hf:{plain}"), TEXT)
    stepper = session.stepper
    stepper.reference = ReferencePass("key", "float16 on cpu")  # never filled
    stepper.add_breakpoint(Breakpoint.on_divergence(1e-2, 2e-2))
    stepper.start()
    assert stepper.wait(0.5) == "running"  # waiting at its first stage
    stepper.stop()
    assert stepper.state == "stopped" and not stepper.alive


def test_a_reference_beyond_its_limit_keeps_the_first_stages_and_names_the_rest(plain):
    reference = ReferencePass("key", "float16 on cpu", limit=4096)
    fill_reference(reference, f"hf:{plain}", TEXT, Placement("float16"))
    assert reference.ready and reference.held_bytes <= 4096 and reference.not_kept
    assert {str(c.tensor.device) for c in reference.captures} == {"cpu"}
    assert reference.captures[0].name == "tok.embed"  # forward order: the first stages are the ones kept
    assert set(reference.not_kept).isdisjoint(c.name for c in reference.captures)


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
