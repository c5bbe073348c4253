"""Where does half precision diverge? In the window: the divergence condition and Compare With… another dtype.

A tiny Llama with layer 1's v_proj scaled up overflows float16 there (tests/adapters/overflow.py).
The window runs it in float32 (loaded through the input bar and Run), the condition's reference is
this input in float16: F5 stops at the first stage where the two leave float16's tolerance, and
that is the stage plain torch hooks on the unmodified float16 model see overflow first.
"""

import pytest
import torch
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QDialogButtonBox

from tests.ui.conftest import wait_paused
from tests.ui.test_compare_view import compare_dialog, run_comparison
from tests.ui.test_overview_dock import show_overview
from tests.ui.user_actions import pick, press

pytest.importorskip("transformers")

from tests.adapters.overflow import MODULE, TEXT, first_nonfinite_output, save_overflowing  # noqa: E402

STAGE = "dec.1.self_attn.v"  # layer 1's v_proj output


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    return save_overflowing(tmp_path_factory.mktemp("overflow"))


@pytest.fixture()
def llama_window(make_window, qtbot, folder):
    window = make_window()
    window.input_bar.set_values(f"hf:{folder}", "cpu", {"prompt": TEXT})
    press(window, Qt.Key_Return, Qt.ControlModifier)  # Run, through the loading path a person takes
    wait_paused(qtbot, window, timeout=60000)
    yield window
    window.ctl.close()


def set_divergence_condition(window, qtbot, dtype):
    window.actions_by_id["tfdebug.breakpoints.conditions"].trigger()  # Breakpoints ▸ Conditions…
    dialog = window.tools.conditions.dialog
    qtbot.waitUntil(dialog.isVisible)
    qtbot.mouseClick(dialog.diverges, Qt.LeftButton)
    pick(qtbot, dialog.placement.dtype, dtype)
    return dialog


def ok(qtbot, dialog):
    qtbot.mouseClick(dialog.findChild(QDialogButtonBox).button(QDialogButtonBox.Ok), Qt.LeftButton)


def test_the_divergence_condition_stops_where_float16_first_overflows(llama_window, qtbot, folder):
    window = llama_window
    dialog = set_divergence_condition(window, qtbot, "float16")
    assert (dialog.atol.text(), dialog.rtol.text()) == ("0.01", "0.02")  # float16's tolerance, filled in
    ok(qtbot, dialog)
    assert not dialog.isVisible()
    notices = []  # what the message bar said, in order (the comparison's verdict may follow the stop at once)
    window.ctl.info.connect(lambda said: notices.append(window.message_bar.text()))
    press(window, Qt.Key_F5)  # the pass waits for the reference (computed off the GUI thread), then runs on
    wait_paused(qtbot, window, STAGE, timeout=60000)
    assert (f"Stopped at {STAGE}: breakpoint on diverges from the reference pass (atol 0.01, rtol 0.02)."
            in notices), notices

    # Plain torch hooks on the unmodified model in float16: v_proj of layer 1 is the first module whose
    # output overflows, and the reference pass's tensor of the stage named is that output.
    module, overflowed = first_nonfinite_output(folder, torch.float16)
    assert module == MODULE
    tools = window.compare_tools
    qtbot.waitUntil(lambda: tools.result is not None and tools.dock.isVisible(), timeout=30000)
    # A: the reference (float16) the pass's source compared with, held by its stepper; B: the pass on screen
    reference, on_screen = window.ctl.stepper.reference.capture(STAGE).tensor, window.ctl.current.tensor
    assert reference.dtype == torch.float16 and on_screen.dtype == torch.float32
    assert torch.equal(torch.isinf(reference), torch.isinf(overflowed)) and torch.isinf(reference).any()
    assert torch.isfinite(on_screen).all()
    assert tools.result.first_divergent.name == STAGE
    assert [r.name for r in tools.result.stages][-1] == STAGE  # the stages run so far, no further

    # The Compare dock shows that stage: the table names it, the three heatmaps A, B, A − B are drawn.
    view = tools.view
    assert view.selected_stage() == STAGE and view.table.item(view.rows[STAGE], 1).text() == "DIVERGES"
    assert "A: the reference pass (float16 on cpu)" in view.summary.text()
    assert f"First divergent stage: {STAGE}." in view.summary.text()
    assert all(image.image is not None for image in view.images)
    assert view.caption.text().startswith(f"{STAGE}: ")


def test_compare_with_this_input_in_float16_names_the_same_stage_and_the_overview_plots_it(llama_window, qtbot):
    window = llama_window
    press(window, Qt.Key_F5)
    qtbot.waitUntil(lambda: window.ctl.stepper.state == "finished", timeout=30000)
    chooser = compare_dialog(window, qtbot)
    pick(qtbot, chooser.b.kind, "This input in another dtype or on another device")
    assert chooser.b.placement.placement().dtype == "float16"  # beside a float32 pass: where would it overflow?
    assert (chooser.atol.text(), chooser.rtol.text()) == ("0.01", "0.02")
    result = run_comparison(window, qtbot, chooser)
    assert result.first_divergent.name == STAGE
    names = [r.name for r in result.stages]
    assert len(names) == len(window.ctl.stepper.history)
    assert not any(r.diverges for r in result.stages[:names.index(STAGE)])
    assert max(r.rel_error for r in result.stages[:names.index(STAGE)]) > 0  # rounding, within tolerance

    panel = show_overview(window, qtbot)
    pick(qtbot, panel.statistic, "relative error of the last comparison")
    qtbot.waitUntil(lambda: panel.names == names)
    x, y = panel.curve.getData()
    assert list(x) == list(range(len(names)))
    assert list(y) == pytest.approx([r.rel_error for r in result.stages], nan_ok=True)
    assert panel.first_line.isVisible() and panel.first_line.value() == names.index(STAGE)

    # The same reference again: computed once for this model, input and dtype.
    reference = window.compare_tools.reference.current
    chooser = compare_dialog(window, qtbot)
    pick(qtbot, chooser.b.kind, "This input in another dtype or on another device")
    assert run_comparison(window, qtbot, chooser).first_divergent.name == STAGE
    assert window.compare_tools.reference.current is reference


def test_a_reference_like_the_pass_on_screen_is_refused_in_one_sentence(llama_window, qtbot):
    dialog = set_divergence_condition(llama_window, qtbot, "float32")
    ok(qtbot, dialog)
    assert dialog.isVisible() and dialog.error_label.text() == (
        "The reference would run as the pass on screen does (float32 on cpu): choose another dtype, device, "
        "attention kernel or folder of weights.")
    assert not any(b.value == "diverges" for b in llama_window.ctl.breakpoints.points)
