"""The window's panels over every kind of pass source: the same keys and clicks, the same result, for a pass of
tiny-gpt2 run in this process and one a real `tfdebug serve --model tiny-gpt2` process runs (one server for the
module). What is checked comes from the pass's own source (its display's slice of a stage, the bytes its
captures hold), asked a second way, and from the arithmetic A − B must keep."""

from __future__ import annotations

import numpy as np
import pytest
from PySide6.QtCore import Qt

pytest.importorskip("zmq")
pytest.importorskip("transformers")

from tests.remote.served import start_server, stop_server  # noqa: E402
from tests.ui.test_compare_view import compare_dialog, run_comparison  # noqa: E402
from tests.ui.test_remote_window import connect_through_the_menu  # noqa: E402
from tests.ui.user_actions import pick, press, run_model, run_to_stage, type_into  # noqa: E402
from tfdebug.core.recorder import held_bytes  # noqa: E402
from tfdebug.ui.features.compare.view import PANEL_SIZE  # noqa: E402
from tfdebug.ui.panels.explain import ExplainPanel  # noqa: E402
from tfdebug.ui.render.stage_text import fmt_bytes  # noqa: E402

SOURCES = ("local", "served")


@pytest.fixture(scope="module")
def gpt2_served(tmp_path_factory):
    server = start_server(tmp_path_factory.mktemp("exports"), model="tiny-gpt2")
    yield server
    stop_server(server)


@pytest.fixture(params=SOURCES)
def window(request, make_window, qtbot, gpt2_served):
    """A window showing a pass of tiny-gpt2 at its first stage: run here (Ctrl+Return), or attached to the server
    (File ▸ Connect to Server…)."""
    window = make_window()
    if request.param == "local":
        run_model(qtbot, window, "tiny-gpt2", {"prompt": "Hello world, hello"})
    else:
        window.ctl.close()
        connect_through_the_menu(window, qtbot, gpt2_served)
    return window


def test_captures_hold_what_the_passes_captures_hold(window, qtbot):
    ctl = window.ctl
    for _ in range(3):
        press(window, Qt.Key_F10)
    qtbot.waitUntil(lambda: ctl.stepper.state == "paused" and ctl.shown.index == 3, timeout=20000)
    held = ctl.source.held_bytes()
    assert held > 0
    if ctl.source.capabilities.tensors_here:  # here the core's own count of the stepper's tensors says the same
        assert held == held_bytes(ctl.stepper.history)
    qtbot.waitUntil(lambda: window.status_memory.text() == f"captures hold {fmt_bytes(ctl.source.held_bytes())}",
                    timeout=5000)


def test_the_compare_dock_draws_a_b_and_a_minus_b(window, qtbot):
    """Ctrl+Shift+D against this input in bfloat16: the dock's three heatmaps show the first divergent stage."""
    ctl = window.ctl
    press(window, Qt.Key_F5)  # Continue to the end
    qtbot.waitUntil(lambda: ctl.stepper.state == "finished", timeout=30000)
    chooser = compare_dialog(window, qtbot)
    pick(qtbot, chooser.b.kind, "This input in another dtype or on another device")
    pick(qtbot, chooser.b.placement.dtype, "bfloat16")
    type_into(qtbot, chooser.atol, "1e-3")
    type_into(qtbot, chooser.rtol, "1e-3")
    result = run_comparison(window, qtbot, chooser)
    first = result.first_divergent
    view = window.compare_tools.view
    assert first is not None and view.selected_stage() == first.name
    assert all(image.image is not None for image in view.images) and "A − B from" in view.caption.text()
    planes = window.compare_tools.planes(first.name, dict(ctl.view.indices_by_name), PANEL_SIZE)
    a, b, a_minus_b = (sl.values for sl in planes.slices)
    # A is the pass on screen (the dialog's default): as its source's own display cuts that stage
    own = ctl.source.display.slice_of(ctl.stepper.captured(first.name), planes.row_axis, planes.col_axis,
                                      planes.indices, PANEL_SIZE)
    np.testing.assert_array_equal(a, own.values)
    both = np.isfinite(a) & np.isfinite(b)
    np.testing.assert_allclose(a_minus_b[both], (a - b)[both], rtol=1e-6, atol=1e-7)
    assert np.abs(a_minus_b[both]).max() > 0  # bfloat16 against float32: a divergent stage differs somewhere


def test_the_explain_docks_checks_hold_for_the_softmax(window, qtbot):
    """The Explain dock's live checks of a softmax stage, made where its tensor is: every one holds."""
    ctl, panel = window.ctl, window.findChild(ExplainPanel)
    probs = next(c.name for c in ctl.plan if c.info.kind == "softmax")
    run_to_stage(window, qtbot, probs)
    window.docks["explain"].show()
    qtbot.waitUntil(lambda: ctl.current.name == probs and bool(panel.checks), timeout=20000)
    assert len(panel.checks) >= 2 and all(c.ok for c in panel.checks)
    assert panel.checks == ctl.source.display.checks_of(ctl.current)  # asked of the source again: the same


def test_the_values_table_lists_the_shown_slice_with_its_tokens(window, qtbot):
    """The Values dock at a softmax stage: the numbers of the shown slice (asked of the source's display again:
    the same), its rows named by the pass's tokens."""
    ctl, panel = window.ctl, window.values_panel
    probs = next(c.name for c in ctl.plan if c.info.kind == "softmax")
    run_to_stage(window, qtbot, probs)
    window.docks["values"].show()
    window.docks["values"].raise_()
    qtbot.waitUntil(lambda: ctl.current.name == probs and panel.shown is not None
                    and panel.shown is ctl.shown.current_slice, timeout=20000)
    sl = panel.shown
    again = ctl.source.display.slice_of(ctl.current, sl.row_axis, sl.col_axis, ctl.axes.indices(), (1024, 1024))
    np.testing.assert_array_equal(sl.values, again.values)
    labels = ctl.axes.labels(sl.row_axis)
    assert labels and panel.model.headerData(0, Qt.Vertical) == f"0 {labels[0]}"
    assert panel.model.rowCount() == sl.values.shape[0] and panel.note.text().endswith("values")


def test_hovering_a_heatmap_cell_reads_its_tokens_and_the_value_the_stage_holds(window, qtbot):
    """The mouse over a cell of a softmax stage: the readout names the query's and the key's tokens and the value
    the source's own display holds there (asked of it again), for a pass run here and one the server runs."""
    from PySide6.QtCore import QPointF

    ctl, heatmap = window.ctl, window.heatmap_panel
    probs = next(c.name for c in ctl.plan if c.info.kind == "softmax")
    run_to_stage(window, qtbot, probs)
    qtbot.waitUntil(lambda: ctl.current.name == probs and heatmap.slice is not None
                    and heatmap.slice is ctl.shown.current_slice, timeout=20000)
    qtbot.waitUntil(ctl.shown.settled, timeout=20000)  # the layout final: the cell is where the mouse goes
    qtbot.wait(200)
    sl = heatmap.slice
    again = ctl.source.display.slice_of(ctl.current, sl.row_axis, sl.col_axis, ctl.axes.indices(), (1024, 1024))
    row, col = 3, 1  # below the diagonal: a weight, not a masked cell
    labels = ctl.axes.labels(sl.row_axis), ctl.axes.labels(sl.col_axis)
    scene_pos = heatmap.plot.vb.mapViewToScene(QPointF(col + 0.5, row + 0.5))
    qtbot.mouseMove(heatmap.graphics.viewport(), heatmap.graphics.mapFromScene(scene_pos))
    qtbot.waitUntil(lambda: "value" in heatmap.readout.text(), timeout=10000)
    text = heatmap.readout.text()
    assert text == heatmap.readout_at(row, col)
    assert labels[0][row] in text and labels[1][col] in text
    assert f"value {float(again.values[row, col]):.4g}" in text
