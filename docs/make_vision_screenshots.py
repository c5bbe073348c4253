"""Make the Vision Transformer pictures by keys and clicks: the bundled tiny ViT on the project's sample picture.

    QT_QPA_PLATFORM=offscreen python docs/make_vision_screenshots.py [OUT_DIR] [--only NAME ...]

"tiny-vit" typed into the Model box and Return (it opens on its preset, resources/samples/shapes.png);
enc.1.attn.probs clicked in the Stages tree and Ctrl+F10 (Run to Stage); the Image dock made taller:
- vision-vit-cls-attention: the window with the Image dock: [CLS]'s attention (head 0, the heatmap's)
  over the 8 × 8 patches of the picture the model saw;
- vision-vit-patch-query: then a click on the patch in row 3, column 2 (the roof of the house): that patch's
  row is picked, in the Image dock and the heatmap's Query Row.
"tiny-whisper" typed into the Model box and Return (its preset, resources/samples/tones.wav), Ctrl+G
(Generate) and Ctrl+T (Next Token) twice; gen.2.dec.1.cross_attn.probs clicked and Ctrl+F10:
- speech-whisper-cross-attention: the spectrogram in the Image dock, with the generated token's
  cross-attention over the audio's time (seconds under it).
"tiny-llava" typed into the Model box and Return (the picture and "USER: <image> what is in the
picture? ASSISTANT:"), Ctrl+G (Generate) and Ctrl+T (Next Token); gen.1.dec.1.self_attn.probs clicked and
Ctrl+F10:
- vlm-llava-token-attention: the generated token's attention, in the language model's last layer, over the
  picture's 64 patch tokens.
Each NAME.png is the window as drawn, with NAME.json beside it: the texts it showed (window_driver.py)
and the Image dock's caption. OUT_DIR defaults to docs/.
"""

from __future__ import annotations

import sys
from pathlib import Path

from PySide6.QtCore import QPoint, Qt
from PySide6.QtTest import QTest

# The tfdebug of this checkout (not whichever one is installed), and window_driver beside this file.
sys.path[:0] = [str(Path(__file__).resolve().parents[1]), str(Path(__file__).resolve().parent)]
from window_driver import Driver, command_line, wait  # noqa: E402

PICTURES = ("vision-vit-cls-attention", "vision-vit-patch-query", "speech-whisper-cross-attention",
            "vlm-llava-token-attention")
STAGE = "enc.1.attn.probs"
PATCH = (3, 2)
# A picked row opens the Query Row dock: the docks then need more than 1000 pixels of height.
TALL = 1200


def image_texts(driver: Driver) -> dict:
    panel = driver.window.image_panel
    return {"image": panel.title.text(), "query": driver.ctl.tiles.picked_row}


def generated_token(driver: Driver, model: str, tokens: int, stage: str, dock_height: int, picture: str) -> None:
    """Generate `tokens` tokens with `model`, Run to Stage `stage` (the last one's attention), give the Image dock
    `dock_height` pixels and take `picture` once the dock draws that token's row over its input."""
    driver.run(model)
    driver.generate(tokens)
    panel = driver.window.image_panel
    driver.run_to(stage)
    driver.window.resizeDocks([driver.window.docks["image"]], [dock_height], Qt.Vertical)
    wait(lambda: panel.row is not None and panel.canvas.rows == 1)
    driver.shot(picture, 1600, TALL, **image_texts(driver))


def whisper(driver: Driver) -> None:
    """Two tokens generated from the sample clip; the second's cross-attention over the audio."""
    generated_token(driver, "tiny-whisper", 2, "gen.2.dec.1.cross_attn.probs", 320, PICTURES[2])


def llava(driver: Driver) -> None:
    """The first generated token, fed at step 1, over the picture, in the language model's last layer."""
    generated_token(driver, "tiny-llava", 1, "gen.1.dec.1.self_attn.probs", 420, PICTURES[3])


def main(out: Path, only: set[str] | None = None) -> None:
    driver = Driver(out, only)
    try:
        driver.run("tiny-vit")
        driver.run_to(STAGE)
        panel = driver.window.image_panel
        # The Image dock's edge dragged up, as a person makes room for the picture.
        driver.window.resizeDocks([driver.window.docks["image"]], [420], Qt.Vertical)
        wait(lambda: panel.row is not None and panel.canvas.query == 0)
        driver.shot(PICTURES[0], 1600, 1000, **image_texts(driver))
        rect = panel.canvas.patch_rect(*PATCH)
        QTest.mouseClick(panel.canvas, Qt.LeftButton, Qt.NoModifier, QPoint(int(rect.center().x()),
                                                                            int(rect.center().y())))
        token = 1 + PATCH[0] * 8 + PATCH[1]
        wait(lambda: panel.canvas.query == token and panel.row is not None and driver.ctl.tiles.picked_row == token)
        driver.shot(PICTURES[1], 1600, TALL, **image_texts(driver))
        if driver.wanted(PICTURES[2]):
            whisper(driver)
        if driver.wanted(PICTURES[3]):
            llava(driver)
    finally:
        driver.close()


if __name__ == "__main__":
    command_line(__doc__.splitlines()[0], PICTURES, main)
