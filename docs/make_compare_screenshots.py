"""Make the user guide's Compare and Overview pictures by keys and clicks: an edit, Continue, Compare With….

    QT_QPA_PLATFORM=offscreen python docs/make_compare_screenshots.py [OUT_DIR] [--only NAME ...]

On the demo model, "I love you" / "我 爱 你" typed into the input bar and Return; the stage
dec.1.cross_attn.probs clicked in the Stages tree and Ctrl+F10 (Run to Stage); Edit Tensor…
(Ctrl+Shift+E) with "Zero a head" chosen by the arrow keys (head 0, the one on screen) and Apply;
F5 (Continue) to the end; Compare With… (Ctrl+Shift+D), whose B is the pass before the last edit,
and Compare, in a 1366×768 window:
- compare-1366x768: the window as it is then, the Compare dock's A, B and A − B each at least 120 px high
  (their heights beside the picture);
then at 1600×1000:
- compare-view: the Compare dock, its first divergent stage selected (A, B and A − B of head 0);
- overview-max-delta: View ▸ Overview, "max |Δ| of the last comparison" chosen with the arrow keys;
- overview-rms: the same dock with "RMS" chosen: the pass on screen, stage by stage.
Each NAME.png is the dock as drawn, with NAME.json beside it: the texts it showed (see
window_driver.py) and the figures the user guide quotes, to three significant digits.
OUT_DIR defaults to docs/.
"""

from __future__ import annotations

import math
import sys
from pathlib import Path

from PySide6.QtCore import Qt

# The tfdebug of this checkout (not whichever one is installed), and window_driver beside this file.
sys.path[:0] = [str(Path(__file__).resolve().parents[1]), str(Path(__file__).resolve().parent)]
from window_driver import Driver, choose, click, command_line, visible_labels, wait  # noqa: E402

DEMO = {"src": "I love you", "tgt": "我 爱 你"}
EDITED = "dec.1.cross_attn.probs"
PICTURES = ("compare-view", "overview-max-delta", "overview-rms", "compare-1366x768")
# The stages whose RMS the user guide quotes beside overview-rms: the raw scores and the scaled ones.
QUOTED_RMS = ("dec.0.self_attn.scores", "dec.0.self_attn.scaled")


def figure(value: float) -> str:
    """A figure as the user guide quotes it: three significant digits."""
    return f"{value:.3g}"


def zero_head_and_continue(driver: Driver) -> None:
    """Edit Tensor… → Zero a head → Apply at EDITED, close the dialog, F5 to the end of the pass."""
    driver.run_to(EDITED)
    driver.key(Qt.Key_E, Qt.ControlModifier | Qt.ShiftModifier)
    wait(lambda: driver.window.edit_tools.dialog is not None and driver.window.edit_tools.dialog.isVisible())
    dialog = driver.window.edit_tools.dialog
    choose(dialog.operation, "Zero a head")
    click(dialog.apply_button)
    wait(lambda: driver.ctl.current.edited)
    dialog.close()
    driver.key(Qt.Key_F5)
    wait(lambda: driver.ctl.stepper.state == "finished" and driver.paused())


def compare_with_the_pass_before(driver: Driver):
    """Compare With… (Ctrl+Shift+D): A the pass on screen, B the pass before the edit, Compare."""
    tools = driver.window.compare_tools
    driver.key(Qt.Key_D, Qt.ControlModifier | Qt.ShiftModifier)
    wait(lambda: tools.dialog is not None and tools.dialog.isVisible())
    choose(tools.dialog.b.kind, "The pass before the last edit")
    before = tools.result
    click(tools.dialog.compare_button)
    wait(lambda: tools.result is not before and tools.view.selected_stage() is not None, timeout_s=300)
    return tools.result


def dock_texts(driver: Driver, dock_id: str) -> dict:
    # The window's size, not the dock's: the dock's pixels follow the layout of the docks around it.
    dock, window = driver.window.docks[dock_id], driver.window
    return {"size": [window.width(), window.height()], "stage": driver.ctl.current.name, "dock": dock.windowTitle()}


def compare_texts(driver: Driver, result) -> dict:
    view = driver.window.compare_tools.view
    statuses: dict[str, int] = {}
    for row in range(view.table.rowCount()):
        status = view.table.item(row, 1).text()
        statuses[status] = statuses.get(status, 0) + 1
    return {**dock_texts(driver, "compare"), "summary": view.summary.text(), "selected": view.selected_stage(),
            "caption": view.caption.text(), "statuses": statuses, "go": view.go_button.text(),
            **({"logits max |Δ|": figure(result["logits"].max_abs)}
               if "logits" in result and result["logits"].max_abs is not None else {})}


def overview_texts(driver: Driver) -> dict:
    panel = driver.window.overview
    axis = panel.plot.getPlotItem()
    return {**dock_texts(driver, "overview"), "labels": visible_labels(panel), "statistic": panel.statistic.currentText(),
            "axes": [axis.getAxis(side).labelText for side in ("left", "bottom")],
            "layers": [label for level in axis.getAxis("top")._tickLevels or () for _, label in level]}


def settled_overview(driver: Driver, statistic: str) -> None:
    """Choose `statistic` in the Overview's list with the arrow keys; wait until every stage has its point."""
    panel = driver.window.overview
    choose(panel.statistic, statistic)
    names = driver.ctl.plan.names()
    wait(lambda: panel.names == names and len(panel.values) == len(names)
         and not any(math.isnan(v) for v in panel.values))


def main(out: Path, only: set[str] | None = None) -> None:
    driver = Driver(out, only)
    try:
        driver.run("demo", DEMO)
        driver.window.resize(1366, 768)  # a laptop's screen: Compare opens within it
        wait(lambda: (driver.window.width(), driver.window.height()) == (1366, 768))
        zero_head_and_continue(driver)
        result = compare_with_the_pass_before(driver)
        if driver.wanted(PICTURES[3]):
            view = driver.window.compare_tools.view
            wait(lambda: view.images[0].image is not None)
            driver.shot(PICTURES[3], 1366, 768, plots=[
                round(plot.getViewBox().sceneBoundingRect().height()) >= 120 for plot in view.plots])
        driver.window.resize(1600, 1000)
        if driver.wanted(PICTURES[0]):
            dock = driver.window.docks["compare"]
            dock.raise_()
            wait(dock.isVisible)
            driver.save(PICTURES[0], dock, compare_texts(driver, result))
        overview = driver.window.docks["overview"]
        if not overview.isVisible():
            overview.toggleViewAction().trigger()  # View ▸ Overview
        overview.raise_()
        wait(overview.isVisible)
        for name, statistic in ((PICTURES[1], "max |Δ| of the last comparison"), (PICTURES[2], "RMS")):
            if not driver.wanted(name):
                continue
            settled_overview(driver, statistic)
            texts = overview_texts(driver)
            if name == PICTURES[2]:
                panel = driver.window.overview
                texts["quoted"] = {stage: figure(panel.values[panel.names.index(stage)]) for stage in QUOTED_RMS}
            driver.save(name, overview, texts)
    finally:
        driver.close()


if __name__ == "__main__":
    command_line(__doc__.splitlines()[0], PICTURES, main)
