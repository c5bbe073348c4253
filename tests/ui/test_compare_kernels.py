"""Compare With… another attention kernel or another folder of the same weights, with the transplant, in the window.

A tiny Llama runs through the input bar; Compare With… sets B to this input with transformers' sdpa
(or with weights from a second folder whose layer 1 value projection differs), and the Compare dock
names the first divergent stage and says what the transplant there does, as `tfdebug diff --against`.
"""

import pytest
import torch
from PySide6.QtCore import Qt

from tests.ui.conftest import wait_paused
from tests.ui.test_compare_view import compare_dialog, run_comparison
from tests.ui.user_actions import pick, press

transformers = pytest.importorskip("transformers")

from tests.adapters.hf_tiny import llama, save_folder  # noqa: E402

TEXT = "I love you the cat sat on the mat"
PLACED = "This input in another dtype or on another device"


@pytest.fixture(scope="module")
def folders(tmp_path_factory):
    model = llama()
    plain = save_folder(model, tmp_path_factory.mktemp("llama"))
    with torch.no_grad():
        model.model.layers[1].self_attn.v_proj.weight.mul_(1.5)
    return plain, save_folder(model, tmp_path_factory.mktemp("llama-changed"))


@pytest.fixture()
def finished_window(make_window, qtbot, folders):
    window = make_window()
    window.input_bar.set_values(f"hf:{folders[0]}", "cpu", {"prompt": TEXT})
    press(window, Qt.Key_Return, Qt.ControlModifier)  # Run
    wait_paused(qtbot, window, timeout=60000)
    press(window, Qt.Key_F5)
    qtbot.waitUntil(lambda: window.ctl.stepper.state == "finished", timeout=30000)
    yield window
    window.ctl.close()


def own_logits(folder, kernel, kwargs):
    model = transformers.AutoModelForCausalLM.from_pretrained(folder, attn_implementation=kernel).eval()
    with torch.no_grad():
        return model(**kwargs).logits


def test_compare_with_sdpa_measures_transformers_own_kernel_difference(finished_window, qtbot, folders):
    window = finished_window
    chooser = compare_dialog(window, qtbot)
    pick(qtbot, chooser.b.kind, PLACED)
    pick(qtbot, chooser.b.placement.dtype, "float32")
    pick(qtbot, chooser.b.placement.kernel, "sdpa")
    assert (chooser.atol.text(), chooser.rtol.text()) == ("1e-05", "0.0001")
    result = run_comparison(window, qtbot, chooser)
    kwargs = window.ctl.session.prepared.kwargs
    kernels = float((own_logits(folders[0], "eager", kwargs) - own_logits(folders[0], "sdpa", kwargs)).abs().max())
    assert result["logits"].max_abs == kernels > 0 and result.first_divergent is None
    assert result["dec.0.self_attn.probs"].status == "only_a"  # the pass on screen (A) has them, sdpa has none
    transplant = window.compare_tools.transplant
    assert transplant.stage == "dec.0.self_attn.context" and transplant.before == kernels
    summary = window.compare_tools.view.summary.text()
    assert "No stage diverges. Transplanting dec.0.self_attn.context" in summary and "of logits from" in summary


def test_compare_with_another_folder_names_the_stage_and_the_transplant_explains_it(finished_window, qtbot, folders):
    window = finished_window
    chooser = compare_dialog(window, qtbot)
    pick(qtbot, chooser.b.kind, PLACED)
    pick(qtbot, chooser.b.placement.dtype, "float32")
    qtbot.mouseClick(chooser.b.placement.weights, Qt.LeftButton)
    qtbot.keyClicks(chooser.b.placement.weights, str(folders[1]))
    result = run_comparison(window, qtbot, chooser)
    assert result.first_divergent.name == "dec.1.self_attn.v"
    transplant = window.compare_tools.transplant
    assert transplant.stage == "dec.1.self_attn.v" and transplant.before > 0.01 and transplant.after == 0
    summary = window.compare_tools.view.summary.text()
    assert "First divergent stage: dec.1.self_attn.v. Transplanting dec.1.self_attn.v" in summary
    assert summary.endswith("After it, no stage diverges.")
