"""The Why This Output dock over a real `tfdebug serve --model tiny-gpt2` process: attached through File ▸ Connect to
Server…, F5 to the end, Ctrl+Shift+W. The lens, the attribution (a contrast typed) and the patching sweep (a
corrupted text typed, Sweep clicked) are computed on the server, and each equals the local one of the same model
and text; a click on a lens cell goes to that stage of the served pass."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt

pytest.importorskip("zmq")
pytest.importorskip("transformers")

from tests.remote.served import start_server, stop_server  # noqa: E402
from tests.ui.test_remote_window import connect_through_the_menu  # noqa: E402
from tests.ui.test_why_view import _click_cell  # noqa: E402
from tests.ui.user_actions import press, type_into  # noqa: E402
from tfdebug.adapters.registry import load_adapter  # noqa: E402
from tfdebug.remote.explaining import RemoteWhy  # noqa: E402
from tfdebug.sessions.why import finished_pass  # noqa: E402

PROMPT = "the cat is on the mat ="
CORRUPT = "the dog is on the mat ="


@pytest.fixture(scope="module")
def gpt2_served(tmp_path_factory):
    server = start_server(tmp_path_factory.mktemp("exports"), "--input", f"prompt={PROMPT}", model="tiny-gpt2")
    yield server
    stop_server(server)


@pytest.fixture(scope="module")
def local():
    return finished_pass(load_adapter("tiny-gpt2"), texts={"prompt": PROMPT})


def test_the_why_dock_over_a_served_pass_equals_the_local_one(make_window, qtbot, gpt2_served, local):
    window = make_window()
    window.ctl.close()
    window.resize(1600, 1000)
    window.show()
    connect_through_the_menu(window, qtbot, gpt2_served)
    press(window, Qt.Key_F5)  # Continue to the end, on the server
    qtbot.waitUntil(lambda: window.ctl.stepper.state == "finished", timeout=30000)
    press(window, Qt.Key_W, Qt.ControlModifier | Qt.ShiftModifier)
    panel = window.why_panel
    lens = panel.lens
    qtbot.waitUntil(lambda: len(lens.cells) == local.count, timeout=30000)
    why = panel.reader.why
    assert isinstance(why, RemoteWhy) and why.rows == local.rows == ["tok.pos", "dec.0.ffn.resid", "dec.1.ffn.resid"]
    grid = local.lens(None, None, k=5)
    for position in range(local.count):
        assert lens.cells[position] == [row[position] for row in grid.cells]  # the server's cells, as computed here
    last = grid.cells[-1][-1].top[0][0]
    assert lens.grid.texts[-1, local.count - 1] and local.word(last) is not None  # its top word, named by the server
    _click_cell(qtbot, lens.grid, 1, local.count - 1)
    qtbot.waitUntil(lambda: window.ctl.current.name == "dec.0.ffn.resid", timeout=10000)
    assert window.ctl.tiles.picked_row == local.count - 1

    panel.tabs.setCurrentWidget(panel.attribution)
    view = panel.attribution
    qtbot.waitUntil(lambda: view.result is not None, timeout=30000)  # the prediction, explained at once
    first = view.result
    type_into(qtbot, view.contrast_box, "the")
    qtbot.keyClick(view.contrast_box, Qt.Key_Return)
    qtbot.waitUntil(lambda: view.result is not first, timeout=30000)
    target, contrast = local.prediction(-1), local.token_id("the")
    assert view.result.to_dict() == local.attribute(target, contrast, -1).to_dict()
    assert view.result.total == pytest.approx(view.result.logit_diff, rel=1e-5)
    assert "logit(" in view.summary.text() and "'the'" in view.summary.text() and "sum to" in view.summary.text()
    assert view.blocks == [(0, "dec.0.self_attn"), (1, "dec.1.self_attn")]

    panel.tabs.setCurrentWidget(panel.patching)
    patching = panel.patching
    type_into(qtbot, patching.corrupt_box, CORRUPT)
    qtbot.mouseClick(patching.run_button, Qt.LeftButton)
    qtbot.waitUntil(lambda: patching.sweep is not None, timeout=60000)
    own, _, _ = local.sweep({"prompt": CORRUPT})
    served, here = patching.sweep.to_dict(), own.to_dict()
    assert "24 cells in" in patching.summary.text() and served["rows"] == here["rows"]
    # the server picks its batch from its own budget: the cells agree within the batching tolerance (docs/why.md)
    assert served["recovered"] == [pytest.approx(row, abs=1e-4) for row in here["recovered"]]
    assert patching.sweep.recovered[0][2] == pytest.approx(1.0, abs=1e-5)  # "cat" → "dog" at the embeddings
    assert patching.run_button.isEnabled() and not patching.cancel_button.isEnabled()
    window.ctl.close()


def test_a_served_pass_not_run_to_its_end_says_so_in_the_dock(make_window, qtbot, gpt2_served):
    window = make_window()
    window.ctl.close()
    window.show()
    connect_through_the_menu(window, qtbot, gpt2_served)
    press(window, Qt.Key_F5, Qt.ControlModifier | Qt.ShiftModifier)  # Restart: the served pass from its first stage
    qtbot.waitUntil(lambda: window.ctl.stepper.state == "paused" and window.ctl.stepper.cursor == 0, timeout=30000)
    press(window, Qt.Key_W, Qt.ControlModifier | Qt.ShiftModifier)
    qtbot.waitUntil(lambda: "run it to the end" in window.why_panel.lens.note.text(), timeout=10000)
    press(window, Qt.Key_F5)
    qtbot.waitUntil(lambda: bool(window.why_panel.lens.cells), timeout=30000)
    window.ctl.close()


def test_patch_stage_over_a_served_pass_runs_on_the_server_and_the_compare_dock_draws_its_planes(
        make_window, qtbot, gpt2_served):
    """Patch Stage over a served pass: head 1 of the first attention, typed and Return. The server patches and runs
    on; the fraction recovered equals the local patch's, the Stages tree shades what moved, and the Compare dock shows
    the corrupted pass against the patched one with A, B and A − B cut on the server."""
    from tfdebug.sessions.patch_one import patch_one
    from tfdebug.sessions.patching import Patcher

    window = make_window()
    window.ctl.close()
    window.show()
    connect_through_the_menu(window, qtbot, gpt2_served)
    press(window, Qt.Key_F5)
    qtbot.waitUntil(lambda: window.ctl.stepper.state == "finished", timeout=30000)
    window.ctl.steps.run_to("dec.0.self_attn.context")
    qtbot.waitUntil(lambda: window.ctl.current.name == "dec.0.self_attn.context", timeout=10000)
    window.ctl.axes.set_index("head", 1)
    press(window, Qt.Key_W, Qt.ControlModifier | Qt.ShiftModifier)
    panel = window.why_panel
    panel.tabs.setCurrentWidget(panel.patch_one)
    view = panel.patch_one
    qtbot.waitUntil(lambda: panel.reader.why is not None, timeout=30000)
    from tests.ui.user_actions import pick

    pick(qtbot, view.scope, "One head")
    type_into(qtbot, view.corrupt_box, CORRUPT)
    qtbot.keyClick(view.corrupt_box, Qt.Key_Return)
    qtbot.waitUntil(lambda: view.result is not None, timeout=60000)
    result = view.result
    own = patch_one(Patcher(load_adapter("tiny-gpt2"), {"prompt": PROMPT}, {"prompt": CORRUPT}, batch=1),
                    "dec.0.self_attn.context", head=1)
    assert not result.here and result.passes() is None
    assert (result.scope, result.target, result.contrast) == (own.scope, own.target, own.contrast)
    assert result.recovered == pytest.approx(own.recovered, rel=1e-6)
    assert result.moved_stages() == own.moved_stages() and f"{own.recovered:.2f} recovered" in view.summary.text()
    assert window.navigator.moved == set(own.moved_stages())
    compare = window.tools.compare
    qtbot.waitUntil(lambda: compare.result is not None and window.docks["compare"].isVisible(), timeout=30000)
    assert compare.result.first_divergent.name == "dec.0.self_attn.context" and compare.passes is None
    planes = compare.planes("logits", {}, (64, 64))  # cut on the server, from the two passes it patched
    from tfdebug.core.compare_planes import compared_planes

    mine = compared_planes(*own.passes(), "logits", {}, (64, 64))
    for theirs, here in zip(planes.slices, mine.slices, strict=True):
        assert theirs.values.shape == here.values.shape and abs(theirs.values - here.values).max() < 1e-5
    assert abs(planes.slices[2].values).max() > 0.1  # the patch moved the logits
    window.ctl.close()
