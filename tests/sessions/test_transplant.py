"""Divergence across kernels, precisions and loadings, and the transplant, checked against transformers' own outputs."""

from __future__ import annotations

import json

import pytest
import torch

from tests.adapters.hf_tiny import llama, save_folder
from tests.adapters.overflow import TEXT as LLAMA_TEXT
from tests.adapters.overflow import save_overflowing
from tfdebug.adapters.registry import load_adapter
from tfdebug.cli import main
from tfdebug.core.compare import ONLY_B
from tfdebug.core.errors import UnsupportedModelError
from tfdebug.sessions.crosscheck import Placement, find_divergence, parse_against
from tfdebug.sessions.session import DebugSession
from tfdebug.sessions.transplant import FIRST_DIFFERENT, FIRST_DIVERGENT, NAMED

transformers = pytest.importorskip("transformers")
TEXT = {"prompt": "I love you the cat sat on the mat"}


@pytest.fixture(scope="module")
def plain(tmp_path_factory):
    return save_folder(llama(), tmp_path_factory.mktemp("llama"))


@pytest.fixture(scope="module")
def changed(tmp_path_factory):
    """The same weights but layer 1's value projection scaled by 1.5: a second loading that differs there."""
    model = llama()
    with torch.no_grad():
        model.model.layers[1].self_attn.v_proj.weight.mul_(1.5)
    return save_folder(model, tmp_path_factory.mktemp("llama-changed"))


def own_logits(folder, kernel: str, kwargs: dict) -> torch.Tensor:
    """The unmodified model's logits, loaded by transformers with attention kernel `kernel`."""
    model = transformers.AutoModelForCausalLM.from_pretrained(folder, attn_implementation=kernel).eval()
    with torch.no_grad():
        return model(**kwargs).logits


def test_against_names_a_kernel_or_another_model():
    other = Placement("bfloat16", "cpu")
    assert parse_against("sdpa", other) == Placement("bfloat16", "cpu", attention="sdpa")
    assert parse_against("hf:/models/copy", other) == Placement("bfloat16", "cpu", model="hf:/models/copy")
    assert parse_against("bfloat16", Placement()) == Placement("bfloat16", "cpu")
    assert Placement(attention="sdpa").describe() == "float32 on cpu, sdpa attention"


def test_the_sdpa_pass_is_transformers_own_sdpa_bit_for_bit(plain):
    """q, k, v and the context tapped around transformers' own sdpa: its logits and every layer's output
    equal the unmodified model's under attn_implementation="sdpa"; no scores or probabilities exist there."""
    adapter = load_adapter(f"hf:{plain}")
    adapter.use_attention("sdpa")
    session = DebugSession(adapter, TEXT)
    captures, logits = session.capture_all(verify="never")
    by_name = {c.name: c.tensor for c in captures}
    model = transformers.AutoModelForCausalLM.from_pretrained(plain, attn_implementation="sdpa").eval()
    with torch.no_grad():
        own = model(**session.prepared.kwargs, output_hidden_states=True)
    assert torch.equal(logits, own.logits)
    for layer, hidden in enumerate(own.hidden_states[1:-1]):
        assert torch.equal(by_name[f"dec.{layer}.ffn.resid"], hidden)
    assert not any(name.endswith((".probs", ".scores")) for name in by_name)
    assert "dec.0.self_attn.context" in by_name


def test_diff_against_sdpa_measures_the_kernels_own_difference(plain):
    """The logits' max |Δ| is exactly what transformers' own eager and sdpa models differ by; nothing is over
    float32's tolerance, so the transplant goes to the first stage that differs at all and lowers it."""
    result, transplant = find_divergence(f"hf:{plain}", TEXT, Placement(attention="sdpa"), Placement())
    kwargs = DebugSession(load_adapter(f"hf:{plain}"), TEXT).prepared.kwargs
    kernels = float((own_logits(plain, "eager", kwargs) - own_logits(plain, "sdpa", kwargs)).abs().max())
    assert kernels > 0 and result["logits"].max_abs == kernels
    assert result.first_divergent is None and result["dec.0.self_attn.probs"].status == ONLY_B
    assert result["tok.embed"].max_abs == 0 and result["dec.0.self_attn.v_split"].max_abs == 0
    assert transplant.chosen == FIRST_DIFFERENT and transplant.stage == "dec.0.self_attn.context"
    assert transplant.output == "logits" and transplant.before == kernels
    assert transplant.comparison["dec.0.self_attn.context"].max_abs == 0  # A's tensor is what B carried on with


def test_a_second_folder_is_found_where_it_differs_and_the_transplant_explains_it(plain, changed):
    """Layer 1's value projection differs: that is the first divergent stage; putting the other loading's value
    in there leaves no difference downstream (it is made there), while a transplant upstream changes nothing
    (the difference is not carried from there)."""
    spec, reference = f"hf:{plain}", Placement(model=f"hf:{changed}")
    result, transplant = find_divergence(spec, TEXT, reference, Placement())
    assert result.first_divergent.name == "dec.1.self_attn.v"
    assert all(r.max_abs == 0 for r in result.stages[:[r.name for r in result.stages].index("dec.1.self_attn.v")])
    assert transplant.chosen == FIRST_DIVERGENT and transplant.before > 0.01
    assert transplant.after == 0.0 and transplant.first_divergent_after is None
    _, upstream = find_divergence(spec, TEXT, reference, Placement(), transplant="dec.0.self_attn.v")
    assert upstream.chosen == NAMED and upstream.after == upstream.before == transplant.before
    assert upstream.first_divergent_after == "dec.1.self_attn.v"


def test_a_half_precision_overflow_is_made_where_the_value_cannot_be_held(tmp_path):
    """float16 overflows at layer 1's value (tests.adapters.overflow): float32's value put in there overflows
    float16 too (its largest cell is past 65,504), so the logits stay infinite and the stage still diverges:
    the overflow is made at that stage, not carried into it."""
    folder = save_overflowing(tmp_path / "overflow")
    result, transplant = find_divergence(f"hf:{folder}", {"prompt": LLAMA_TEXT}, Placement("float32"),
                                         Placement("float16"))
    assert transplant.stage == result.first_divergent.name == "dec.1.self_attn.v"
    assert transplant.before == transplant.after == float("inf")
    assert transplant.first_divergent_after == "dec.1.self_attn.v"
    assert all(not r.diverges for r in transplant.comparison.stages[:5])


def test_cli_diff_against_a_folder_prints_the_transplant(plain, changed, capsys):
    code = main(["diff", "--model", f"hf:{plain}", "--against", f"hf:{changed}", "--input",
                 f"prompt={TEXT['prompt']}"])
    out = capsys.readouterr().out
    assert code == 1 and "first divergent stage: dec.1.self_attn.v" in out
    assert ("transplant at dec.1.self_attn.v (the first divergent stage): Transplanting dec.1.self_attn.v (the "
            "reference's tensor put in, the rest run again) brings the max |Δ| of logits from") in out
    assert out.rstrip().endswith("to 0.\nAfter it, no stage diverges.")


def test_cli_diff_against_sdpa_as_json(plain, capsys):
    code = main(["diff", "--model", f"hf:{plain}", "--against", "sdpa", "--json", "--input",
                 f"prompt={TEXT['prompt']}"])
    data = json.loads(capsys.readouterr().out)
    assert code == 0 and data["first_divergent"] is None and data["a"].endswith("sdpa attention")
    assert data["transplant"]["stage"] == "dec.0.self_attn.context" and data["transplant"]["chosen"] == FIRST_DIFFERENT


def test_refusals_are_one_sentence(plain, capsys):
    code = main(["diff", "--model", f"hf:{plain}", "--against", "sdpa", "--transplant", "dec.0.nope",
                 "--input", f"prompt={TEXT['prompt']}"])
    assert code == 2 and "Stage dec.0.nope is not in both passes" in capsys.readouterr().err
    with pytest.raises(UnsupportedModelError, match="has no sdpa kernel"):
        load_adapter("random").use_attention("sdpa")
    with pytest.raises(UnsupportedModelError, match="no attention kernel named 'fast'"):
        load_adapter(f"hf:{plain}").use_attention("fast")
    code = main(["diff", "a.safetensors", "b.safetensors", "--transplant", "logits"])
    assert code == 2 and "--transplant runs the model again" in capsys.readouterr().err


def test_cli_diff_against_bfloat16_reports_the_transplant(plain, capsys):
    """bfloat16 rounding stays within its tolerance on this model: no stage diverges, and the transplant goes to
    the first stage that differs (the embedding, rounded) and says how much of the logits' |Δ| it accounts for."""
    code = main(["diff", "--model", f"hf:{plain}", "--against", "bfloat16", "--input", f"prompt={TEXT['prompt']}"])
    out = capsys.readouterr().out
    assert code == 0 and "no stage diverges (atol 0.05 + rtol 0.1·|A|)" in out
    assert "transplant at tok.embed (no stage diverges; the first stage that differs at all)" in out


@pytest.mark.skipif(torch.cuda.is_available(), reason="a flash kernel may be present with a GPU")
@pytest.mark.parametrize("kernel", ["flash_attention_2", "flash_attention_3"])
def test_diff_against_a_kernel_not_on_this_machine_is_one_sentence(plain, capsys, kernel):
    """Issue 53 item 4: transformers registers the flash kernels everywhere; without their package and a GPU
    `diff --against flash_attention_3` was a StopIteration traceback from inside the kernel."""
    code = main(["diff", "--model", f"hf:{plain}", "--against", kernel, "--input", f"prompt={TEXT['prompt']}"])
    out, err = capsys.readouterr()
    assert code == 2 and out == "" and "Traceback" not in err
    assert err.count("\n") == 1 and f"The attention kernel {kernel} is not available on this machine" in err
    from tfdebug.sessions.crosscheck import available_kernels

    assert kernel not in available_kernels() and {"eager", "sdpa"} <= set(available_kernels())
