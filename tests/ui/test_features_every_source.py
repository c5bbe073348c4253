"""Every feature folder (`tfdebug/ui/features/*`) over a local and a served source (issue 49's acceptance).

The features whose both-sources tests were missing are driven here as a person does, over the window fixture of
`test_every_source.py` (a tiny-gpt2 pass run here, or the same model served by a real `tfdebug serve` attached
through File ▸ Connect to Server…), and over the random model (the one with a sinusoidal positional-encoding
table) run here or served. `FEATURES` names, for each feature folder, the tests that drive it over a local and
over a served source; `test_every_feature_folder_names_its_tests_over_both_sources` fails when a folder appears
without its entry, so the rule stays held."""

from __future__ import annotations

import importlib
import inspect
from pathlib import Path

import numpy as np
import pytest
from PySide6.QtCore import QPointF, Qt
from PySide6.QtWidgets import QMenu

pytest.importorskip("zmq")
pytest.importorskip("transformers")

from tests.remote.served import start_server, stop_server  # noqa: E402
from tests.ui import test_every_source as every_source  # noqa: E402
from tests.ui.conftest import SRC, TGT  # noqa: E402
from tests.ui.test_remote_window import connect_through_the_menu  # noqa: E402
from tests.ui.user_actions import press, run_model, run_to_stage  # noqa: E402
from tfdebug.core.display import held_values  # noqa: E402

SOURCES = every_source.SOURCES
gpt2_served, window = every_source.gpt2_served, every_source.window  # its fixtures: the server, the window on it
ROOT = Path(__file__).resolve().parents[2]
FEATURES_DIR = ROOT / "tfdebug" / "ui" / "features"

#: feature folder → the tests ("module::function", modules under tests/) that drive it over a local and over a
#: served source; a test parametrised over both sources is named on both sides. A feature with no view of a pass
#: is listed in EXEMPT with the reason instead.
FEATURES = {
    "backward": {"local": ["ui.test_backward_window::test_ctrl_shift_b_steps_through_every_gradient_logits_first"],
                 "served": ["ui.test_remote_backward::"
                            "test_ctrl_shift_b_on_a_served_pass_steps_the_server_s_gradients"]},
    "check": {"local": ["ui.test_check_setting::test_never_leaves_the_check_out_and_is_remembered",
                        "ui.test_features_every_source::test_check_never_over_every_source"],
              "served": ["ui.test_features_every_source::test_check_never_over_every_source"]},
    "compare": {"local": ["ui.test_every_source::test_the_compare_dock_draws_a_b_and_a_minus_b"],
                "served": ["ui.test_every_source::test_the_compare_dock_draws_a_b_and_a_minus_b",
                           "ui.test_remote_compare::"
                           "test_compare_with_another_dtype_runs_on_the_server_and_the_dock_shows_its_table"]},
    "edit": {"local": ["ui.test_edit_tensor::test_zero_a_head_undo_and_bad_edits"],
             "served": ["ui.test_remote_window::test_connect_step_and_see_the_heatmap_then_lose_the_server"]},
    "export": {"local": ["ui.test_snapshot_and_export_actions::test_export_of_a_live_pass_says_what_it_holds"],
               "served": ["ui.test_remote_window::test_connect_step_and_see_the_heatmap_then_lose_the_server"]},
    "generation": {"local": ["ui.test_generation_panel::test_next_token_grows_strip_cache_and_attention_rows"],
                   "served": ["ui.test_remote_views::"
                              "test_generate_and_next_token_run_on_the_server_and_the_dock_shows_them"]},
    "learn": {"local": ["ui.test_explain_panel::test_pe_curves_from_the_explain_panel_of_a_pos_stage",
                        "ui.test_features_every_source::test_pe_curves_over_every_source"],
              "served": ["ui.test_features_every_source::test_pe_curves_over_every_source"]},
    "long_context": {"local": ["ui.test_long_context_view::"
                               "test_a_clicked_row_is_plotted_over_every_key_with_its_strongest_keys",
                               "ui.test_features_every_source::test_query_row_over_every_source"],
                     "served": ["ui.test_features_every_source::test_query_row_over_every_source"]},
    "reference": {"local": ["ui.test_divergence::test_the_divergence_condition_stops_where_float16_first_overflows"],
                  "served": ["ui.test_remote_compare::"
                             "test_the_divergence_condition_over_a_remote_pass_is_checked_on_the_server"]},
    "why": {"local": ["ui.test_why_view::test_the_lens_shows_each_layer_s_prediction_and_a_click_goes_to_that_stage"],
            "served": ["ui.test_remote_why::test_the_why_dock_over_a_served_pass_equals_the_local_one"]},
}
EXEMPT: dict[str, str] = {}


@pytest.fixture(scope="module")
def random_served(tmp_path_factory):
    server = start_server(tmp_path_factory.mktemp("exports"))  # the random reference model: src.pe, src.pos
    yield server
    stop_server(server)


@pytest.fixture(params=SOURCES)
def random_window(request, make_window, qtbot, random_served):
    """A window showing a pass of the random model at its first stage: run here, or attached to the server."""
    window = make_window()
    if request.param == "local":
        run_model(qtbot, window, "random", {"src": SRC, "tgt": TGT}, first="src.embed", timeout=30000)
    else:
        window.ctl.close()
        connect_through_the_menu(window, qtbot, random_served)
    yield window
    window.ctl.close()


def test_check_never_over_every_source(window, qtbot):
    """Debug ▸ Check Against the Model ▸ Never, then F5 to the end: the window says the pass was not verified; over
    a served pass (which the window does not check) the entries are disabled and say why."""
    ctl = window.ctl
    menu = window.findChild(QMenu, "menu-check")
    assert menu is not None and menu in [a.menu() for a in window.debug_menu.actions() if a.menu()]
    menu.aboutToShow.emit()
    never = next(a for a in menu.actions() if a.objectName() == "check-never")
    applies = menu.menuAction().isEnabled() and never.isEnabled()
    assert applies == ctl.capabilities.reruns_here  # the window checks only the passes it runs itself
    if not applies:  # a served pass: the entries say why they do nothing
        assert "runs on a server" in never.toolTip()
    if applies:
        never.trigger()
        assert never.isChecked() and ctl.run.verify == "never"
    press(window, Qt.Key_F5)  # Continue to the end: the check (or its absence) follows
    qtbot.waitUntil(lambda: ctl.stepper.state == "finished", timeout=30000)
    if applies:
        qtbot.waitUntil(lambda: "not verified" in window.status_model.text(), timeout=10000)
        assert ctl.loader.verification is None and "is off" in ctl.loader.unverified
    ctl.run.set_verify("auto")


def test_query_row_over_every_source(window, qtbot):
    """A click on a row of a softmax stage's heatmap: the Query Row dock plots that query's row, as the source's own
    display holds it (asked of it again), for a pass run here and one the server runs."""
    ctl, heatmap = window.ctl, window.heatmap_panel
    probs = next(c.name for c in ctl.plan if c.info.kind == "softmax")
    run_to_stage(window, qtbot, probs)
    qtbot.waitUntil(lambda: ctl.current.name == probs and heatmap.slice is not None
                    and heatmap.slice is ctl.shown.current_slice, timeout=20000)
    qtbot.waitUntil(ctl.shown.settled, timeout=20000)
    qtbot.wait(200)
    row, col = 3, 1
    pos = heatmap.graphics.mapFromScene(heatmap.plot.vb.mapViewToScene(QPointF(col + 0.5, row + 0.5)))
    qtbot.mouseClick(heatmap.graphics.viewport(), Qt.LeftButton, pos=pos)
    panel = window.query_row
    qtbot.waitUntil(lambda: window.docks["query_row"].isVisible() and panel.row == row
                    and panel.values is not None, timeout=30000)
    sl = heatmap.slice
    again = ctl.source.display.slice_of(ctl.current, sl.row_axis, sl.col_axis, ctl.axes.indices(), (1024, 1024))
    np.testing.assert_array_equal(held_values(panel.values, "softmax"), held_values(again.values[row], "softmax"))
    x, y = panel.curve.getData()
    keys = again.values.shape[1]
    assert len(x) == keys and np.isnan(y[row + 1:]).all()  # causal: the later keys are masked, left out
    labels = ctl.axes.labels(sl.col_axis)
    best = int(np.nanargmax(np.where(np.isfinite(again.values[row]), again.values[row], np.nan)))
    assert panel.top_keys()[0].startswith(f"{best} ") and labels[best]


@pytest.mark.parametrize("random_window", ["local", "served"], indirect=True)
def test_pe_curves_over_every_source(random_window, qtbot):
    """The Explain dock at src.pos ▸ Positional Encoding Curves…: the dots are the pass's src.pe table (asked of the
    source's display again), dimension 1 a cosine that is 1 at position 0."""
    window = random_window
    ctl = window.ctl
    window.docks["explain"].show()
    run_to_stage(window, qtbot, "src.pos")
    panel = window.explain_panel
    qtbot.waitUntil(lambda: ctl.current.name == "src.pos" and panel.pe_button.isVisible(), timeout=20000)
    said = []
    ctl.error.connect(lambda content: said.append(str(content)))
    qtbot.mouseClick(panel.pe_button, Qt.LeftButton)
    qtbot.waitUntil(lambda: window.tools.learn.pe_view is not None or bool(said), timeout=20000)  # read on the worker
    view = window.tools.learn.pe_view
    assert view is not None and not said, said
    qtbot.waitExposed(view)
    assert view.dimensions() == [0, 1, 2, 3]
    dots = [item for item in view.plot.listDataItems() if item.opts["symbol"] == "o"]
    x, y = dots[1].getData()
    table = ctl.source.display.slice_of(ctl.stepper.captured("src.pe"), 0, 1, {}, (1024, 1024)).values
    assert list(x) == list(range(table.shape[0])) and y[0] == 1.0
    np.testing.assert_allclose(y, table[:, 1], rtol=1e-6, atol=1e-7)


def test_every_feature_folder_names_its_tests_over_both_sources():
    """Each folder of tfdebug/ui/features has an entry naming its local and served tests (or an exemption), and
    every test named exists; a served one takes a served fixture, or the window of a module that runs it over
    both sources."""
    folders = {p.name for p in FEATURES_DIR.iterdir() if p.is_dir() and (p / "__init__.py").exists()}
    assert folders == set(FEATURES) | set(EXEMPT), "a feature folder without its tests over both sources"
    for feature, sides in FEATURES.items():
        assert set(sides) == {"local", "served"} and all(sides.values()), feature
        for side, names in sides.items():
            for name in names:
                module_name, function = name.split("::")
                module = importlib.import_module(f"tests.{module_name}")
                test = getattr(module, function, None)
                assert callable(test), name
                if side == "served":
                    taken = set(inspect.signature(test).parameters)
                    both = getattr(module, "SOURCES", ()) == ("local", "served") and taken & {"window", "random_window"}
                    assert both or any("served" in p for p in taken), f"{name} takes no served source"
