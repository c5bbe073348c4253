"""The Overview dock: a statistic per stage of the pass on screen; clicking a point goes to that stage."""

import math

from PySide6.QtCore import QPoint, QPointF, Qt

from tests.ui.conftest import wait_paused
from tests.ui.user_actions import pick, press, type_into
from tfdebug.core.overview import layer_starts


def show_overview(window, qtbot):
    dock = window.findChild(type(window.docks["overview"]), "dock-overview")
    assert not dock.isVisible()
    dock.toggleViewAction().trigger()  # View → Overview
    qtbot.waitUntil(dock.isVisible)
    return window.overview


def test_overview_plots_the_pass_and_a_click_goes_to_a_stage(window, qtbot):
    press(window, Qt.Key_F5)
    qtbot.waitUntil(lambda: window.ctl.stepper.state == "finished")
    panel = show_overview(window, qtbot)
    names = window.ctl.plan.names()
    qtbot.waitUntil(lambda: panel.names == names and not any(math.isnan(v) for v in panel.values))
    history = {c.name: c.tensor for c in window.ctl.stepper.history}
    rms = history["enc.0.ffn.hidden"].pow(2).mean().sqrt().item()
    assert abs(panel.values[names.index("enc.0.ffn.hidden")] - rms) < 1e-5 * max(rms, 1)
    pick(qtbot, panel.statistic, "max |x|")
    qtbot.waitUntil(lambda: panel.values[0] == history["src.embed"].abs().max().item())
    starts = layer_starts(names)  # enc.0, enc.1, enc (its norm), tgt, dec.0, dec.1, dec, head
    assert [label for _, label in starts] == ["enc.0", "enc.1", "enc", "tgt", "dec.0", "dec.1", "dec", "head"]
    assert [m.value() for m in panel.marks] == [i - 0.5 for i, _ in starts]
    target = names.index("enc.1.attn.probs")
    vb = panel.plot.getPlotItem().vb
    # the view fits the new data lazily: wait until every point is in range before aiming
    qtbot.waitUntil(lambda: vb.viewRange()[0][1] >= len(names) - 1 and vb.viewRange()[1][1] >= max(panel.values))
    scene = vb.mapViewToScene(QPointF(target, panel.values[target]))
    pos = panel.plot.mapFromScene(scene)
    qtbot.mouseClick(panel.plot.viewport(), Qt.LeftButton, pos=QPoint(pos.x(), pos.y()))
    wait_paused(qtbot, window, "enc.1.attn.probs")
    assert panel.current_line.value() == target


def test_overview_grows_as_the_pass_runs_and_follows_an_edit(window, qtbot):
    panel = show_overview(window, qtbot)
    qtbot.waitUntil(lambda: len(panel.values) > 0 and not math.isnan(panel.values[0]))
    assert math.isnan(panel.values[-1])  # logits have not run yet
    press(window, Qt.Key_F10)
    wait_paused(qtbot, window, "src.pe")
    qtbot.waitUntil(lambda: not math.isnan(panel.values[1]))
    before = panel.values[1]
    dialog = window.edit_tools.open_dialog()
    pick(qtbot, dialog.operation, "Scale by a factor")
    pick(qtbot, dialog.target, "The whole tensor")
    type_into(qtbot, dialog.value, "2")
    qtbot.mouseClick(dialog.apply_button, Qt.LeftButton)
    qtbot.waitUntil(lambda: abs(panel.values[1] - 2 * before) < 1e-5 * before)


def test_overview_statistics_are_computed_off_the_gui_thread(window, qtbot, monkeypatch):
    """Hundreds of stages, each read once: the display worker computes them, the window stays live."""
    import threading

    import tfdebug.sessions.display as overview  # the local display computes them (LocalDisplay.statistics_of)

    threads = []
    real = overview.stage_statistics

    def recorded(*args, **kwargs):
        threads.append(threading.current_thread().name)
        return real(*args, **kwargs)
    monkeypatch.setattr(overview, "stage_statistics", recorded)
    press(window, Qt.Key_F5)
    qtbot.waitUntil(lambda: window.ctl.stepper.state == "finished")
    panel = show_overview(window, qtbot)
    qtbot.waitUntil(lambda: bool(panel.names) and not any(math.isnan(v) for v in panel.values))
    assert threads and set(threads) == {"tfdebug-display"}
