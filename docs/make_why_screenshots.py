"""Make the user guide's Why This Output pictures by keys and clicks: the lens, the attribution, a patching sweep.

    QT_QPA_PLATFORM=offscreen python docs/make_why_screenshots.py [OUT_DIR] [--only NAME ...]

On the bundled pretrained tiny GPT-2 (a word-level translator: "english words = chinese words"), the prompt
"the cat is on the mat =" typed into the input bar and Return, F5 (Continue) to the end of the pass, then
View ▸ Why This Output (Ctrl+Shift+W):
- why-lens: the Lens tab, each residual row's top token at every position, coloured by p(target);
- why-attribution: the Attribution tab with "the" typed as the contrast and Return: logit('猫') − logit('the')
  split into the embeddings, every head and every block, and the terms' sum beside the pass's own value;
- why-patching: the Patching tab with "the dog is on the mat =" typed and Sweep clicked: the fraction of
  logit('猫') − logit('狗') each residual cell brings back;
- why-backward: Debug ▸ Backward (Ctrl+Shift+B), then F10: the window on the gradient of the final norm's
  output, the second stage of the backward section (the logits' is the first).
Each NAME.png is the dock as drawn, with NAME.json beside it: the texts it showed.
OUT_DIR defaults to docs/.
"""

from __future__ import annotations

import sys
from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtTest import QTest

sys.path[:0] = [str(Path(__file__).resolve().parents[1]), str(Path(__file__).resolve().parent)]
from window_driver import Driver, click, command_line, type_into, visible_labels, wait  # noqa: E402

PROMPT = {"prompt": "the cat is on the mat ="}
CORRUPT = "the dog is on the mat ="
PICTURES = ("why-lens", "why-attribution", "why-patching", "why-backward")


def texts(driver: Driver, view) -> dict:
    window = driver.window
    return {"size": [window.width(), window.height()], "stage": driver.ctl.current.name,
            "dock": window.docks["why"].windowTitle(), "tab": window.why_panel.tabs.tabText(
                window.why_panel.tabs.currentIndex()), "labels": visible_labels(view)}


def main(out: Path, only: set[str] | None = None) -> None:
    driver = Driver(out, only)
    try:
        driver.run("tiny-gpt2", PROMPT)
        driver.key(Qt.Key_F5)
        wait(lambda: driver.ctl.stepper.state == "finished" and driver.paused())
        driver.window.resize(1600, 1000)
        driver.key(Qt.Key_W, Qt.ControlModifier | Qt.ShiftModifier)
        dock, panel = driver.window.docks["why"], driver.window.why_panel
        wait(lambda: dock.isVisible() and len(panel.lens.cells) == driver.ctl.stepper.captured("logits").shape[1])
        QTest.qWait(300)
        if driver.wanted(PICTURES[0]):
            driver.save(PICTURES[0], dock, {**texts(driver, panel.lens),
                                            "top": [panel.lens.grid.texts[r, -1] for r in range(3)]})
        panel.tabs.setCurrentWidget(panel.attribution)
        wait(lambda: panel.attribution.result is not None)
        first = panel.attribution.result
        type_into(panel.attribution.contrast_box, "the")
        QTest.keyClick(panel.attribution.contrast_box, Qt.Key_Return)
        wait(lambda: panel.attribution.result is not first)
        QTest.qWait(300)
        if driver.wanted(PICTURES[1]):
            driver.save(PICTURES[1], dock, texts(driver, panel.attribution))
        panel.tabs.setCurrentWidget(panel.patching)
        type_into(panel.patching.corrupt_box, CORRUPT)
        click(panel.patching.run_button)
        wait(lambda: panel.patching.sweep is not None)
        QTest.qWait(300)
        if driver.wanted(PICTURES[2]):
            driver.save(PICTURES[2], dock, texts(driver, panel.patching))
        dock.hide()
        driver.key(Qt.Key_B, Qt.ControlModifier | Qt.ShiftModifier)
        wait(lambda: driver.ctl.title.startswith("backward") and driver.paused())
        driver.key(Qt.Key_F10)
        wait(lambda: driver.ctl.current.name == "dec.norm" and driver.paused())
        driver.shot(PICTURES[3], 1600, 1000)
    finally:
        driver.close()


if __name__ == "__main__":
    command_line(__doc__.splitlines()[0], PICTURES, main)
